"""The hub's director signs in as on a table's page (board_pi.serve.signin): the first PIN from
the hub's machine, a lockout after wrong guesses that says how long it lasts, the CSRF token on
every change. Real Flask, a real hub store; the hub is not started (no broker is needed to sign in)."""

from __future__ import annotations

from board_pi.club.hub import Hub
from board_pi.club.hubweb import create_hub_app
from board_pi.club.settings import ClubSettings, parse_broker_url
from board_pi.serve.guard import PinGuard
from board_pi.serve.store import DirectorStore


def test_the_hubs_director_is_locked_out_after_wrong_pins_and_told_for_how_long(tmp_path) -> None:
    now = [0.0]
    hub = Hub(ClubSettings(parse_broker_url("mqtt://hub:secret@127.0.0.1:1")), tmp_path)
    app = create_hub_app(hub, store=DirectorStore(tmp_path),
                         guard=PinGuard(free=3, base=30, time_source=lambda: now[0]))
    first = app.test_client()
    csrf = first.get("/api/session").get_json()["csrf"]
    assert first.post("/api/pin", json={"pin": "2468"}, headers={"X-CSRF-Token": csrf}).status_code == 200

    c = app.test_client()
    session = c.get("/api/session").get_json()
    assert session == {"director": False, "pin_set": True, "setup_code": False, "csrf": session["csrf"], "wait": 0.0}
    assert c.post("/api/login", json={"pin": "2468"}).status_code == 403  # no CSRF token
    headers = {"X-CSRF-Token": session["csrf"]}
    for _ in range(3):
        assert c.post("/api/login", json={"pin": "0000"}, headers=headers).status_code == 401
    r = c.post("/api/login", json={"pin": "0000"}, headers=headers)
    assert r.status_code == 429 and r.get_json()["wait"] == 30 and r.headers["Retry-After"] == "31"
    assert c.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 429  # even the right one
    assert c.get("/api/session").get_json()["wait"] > 0
    now[0] += 31
    r = c.post("/api/login", json={"pin": "2468"}, headers=headers)
    assert r.status_code == 200 and r.get_json()["director"] is True
    assert c.get("/api/session").get_json()["director"] is True
    hub.store.close()


def test_the_hub_refuses_a_body_nested_too_deep_with_a_message(tmp_path) -> None:
    hub = Hub(ClubSettings(parse_broker_url("mqtt://hub:secret@127.0.0.1:1")), tmp_path)
    app = create_hub_app(hub, store=DirectorStore(tmp_path), guard=PinGuard())
    c = app.test_client()
    csrf = c.get("/api/session").get_json()["csrf"]
    r = c.post("/api/login", data="[" * 5000 + "]" * 5000, content_type="application/json",
               headers={"X-CSRF-Token": csrf})
    assert r.status_code == 400 and "nests too deep" in r.get_json()["error"]
    hub.store.close()
