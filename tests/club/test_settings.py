"""The club settings: broker addresses with credentials, table numbers, every problem said."""

from __future__ import annotations

import pytest

from board_pi.club.settings import ClubSettingsError, club_settings, parse_broker_url


def test_credentials_in_the_url_are_taken_and_decoded():
    a = parse_broker_url("mqtt://table-7:p%40ss%3Aword@broker.local:1884")
    assert (a.host, a.port, a.username, a.password, a.tls) == ("broker.local", 1884, "table-7", "p@ss:word", False)
    assert "p@ss" not in a.display() and "p@ss" not in repr(a)
    assert parse_broker_url("mqtts://broker").port == 8883


@pytest.mark.parametrize("url, says", [
    ("broker:1883", "not an MQTT address"),
    ("http://broker", "not an MQTT address"),
    ("mqtt://", "names no host"),
    ("mqtt://broker:99999", "not a broker address"),
    ("mqtt://broker:0", "from 1 to 65535"),
    ("mqtt://broker:12ab", "not a broker address"),
    ("mqtt://broker/topic", "no path"),
])
def test_bad_broker_addresses_are_refused_with_a_reason(url, says):
    with pytest.raises(ClubSettingsError, match=says):
        parse_broker_url(url)


def test_a_table_on_a_broker_needs_its_number_and_every_problem_is_said_at_once():
    with pytest.raises(ClubSettingsError) as e:
        club_settings({"broker": "mqtt://b", "colour": "red", "division": "A B"})
    lines = str(e.value).splitlines()
    assert any("club.colour: unknown key" in x for x in lines)
    assert any("club.table" in x for x in lines)
    assert any("club.division" in x for x in lines)
    assert club_settings({"broker": "mqtt://b"}, need_table=False).table is None  # the hub


@pytest.mark.parametrize("value", [0, 1000, -3, "x", True, 2.5, None])
def test_table_numbers_outside_1_to_999_are_refused(value):
    if value is None:
        assert club_settings({"table": None}).table is None
        return
    with pytest.raises(ClubSettingsError, match="table number from 1 to 999"):
        club_settings({"broker": "mqtt://b", "table": value})


def test_no_broker_is_a_table_on_its_own():
    s = club_settings({})
    assert not s.enabled and s.broker is None
    s = club_settings({"broker": "mqtt://u@b", "table": "12", "password": "pw"})
    assert s.enabled and s.table == 12 and s.broker.password == "pw"


def test_a_certificate_authority_needs_tls_and_a_file(tmp_path):
    with pytest.raises(ClubSettingsError, match="for TLS"):
        club_settings({"broker": "mqtt://b", "table": 1, "ca_file": str(tmp_path)})
    with pytest.raises(ClubSettingsError, match="is not a file"):
        club_settings({"broker": "mqtts://b", "table": 1, "ca_file": str(tmp_path / "none.pem")})
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    assert club_settings({"broker": "mqtts://b", "table": 1, "ca_file": str(ca)}).broker.ca_file == str(ca)
