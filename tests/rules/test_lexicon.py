"""Lexicons: plain word lists, the compiled form, and finding and caching them on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_pi import wordlists
from board_pi.rules.lexicon import MAGIC, Lexicon, LexiconError, normalise, parse_word_list
from board_pi.wordlists import LexiconNotFound, compile_lexicon, load_lexicon


@pytest.fixture
def lexdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A lexicons folder and a cache folder of the test's own."""
    lex, cache = tmp_path / "lexicons", tmp_path / "cache"
    lex.mkdir()
    monkeypatch.setenv("BOARD_PI_LEXICONS", str(lex))
    monkeypatch.setenv("BOARD_PI_CACHE", str(cache))
    monkeypatch.chdir(tmp_path)  # so ./lexicons is this test's folder too
    return lex, cache


def cached_files(cache: Path) -> list[Path]:
    return sorted((cache / "board-pi" / "lexicons").glob("*.lex"))


# --- plain lists ---------------------------------------------------------------------------------


def test_plain_list_any_case_comments_and_blank_lines() -> None:
    text = "# a club list\nqi\n\nZa  # a comment after a word\n   Qat   \nAA a rough lava\n\n#ZZZ\n"
    assert list(parse_word_list(text)) == ["QI", "ZA", "QAT", "AA"]


def test_crlf_lists() -> None:
    assert list(parse_word_list("qi\r\nza\r\n")) == ["QI", "ZA"]


def test_normalise() -> None:
    assert normalise(" qAt\n") == "QAT"
    assert normalise("żółw") == "ŻÓŁW"


# --- the compiled form ---------------------------------------------------------------------------


def test_membership_any_case_and_duplicates() -> None:
    lex = Lexicon.from_words(["qi", "QI", "Za", "qat", " ", ""], name="tiny")
    assert len(lex) == 3
    assert "QI" in lex and "qi" in lex and "Qi" in lex and "za" in lex
    assert "Q" not in lex and "QIS" not in lex and "" not in lex and "AAA" not in lex
    assert 42 not in lex  # type: ignore[operator]
    assert list(lex) == ["QAT", "QI", "ZA"]
    assert lex.alphabet == frozenset("QATIZ")
    assert repr(lex) == "<Lexicon 'tiny': 3 words>"


def test_empty_lexicon() -> None:
    lex = Lexicon.from_words([])
    assert len(lex) == 0 and "A" not in lex and list(lex) == []


def test_compiled_round_trip() -> None:
    lex = Lexicon.from_words(["qi", "ZA", "żółw", "AA"], name="mixed")
    data = lex.to_bytes()
    assert data.startswith(MAGIC)
    back = Lexicon.from_bytes(data)
    assert back.name == "mixed" and list(back) == list(lex) and "ŻÓŁW" in back


@pytest.mark.parametrize("damage", ["magic", "truncated", "extra", "count"])
def test_damaged_compiled_lexicon(damage: str) -> None:
    data = Lexicon.from_words(["QI", "ZA", "QAT"], name="tiny").to_bytes()
    bad = {"magic": b"XXXXXX\n" + data[len(MAGIC):], "truncated": data[:-2], "extra": data + b"Q",
           "count": data[:len(MAGIC) + 2] + (999).to_bytes(4, "little") + data[len(MAGIC) + 6:]}[damage]
    with pytest.raises(LexiconError):
        Lexicon.from_bytes(bad)


words_st = st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZĄŻ", min_size=1, max_size=9), max_size=60)


@settings(max_examples=60, deadline=None)
@given(words_st, words_st)
def test_membership_matches_a_set(words: list[str], probes: list[str]) -> None:
    lex = Lexicon.from_bytes(Lexicon.from_words(words, "w").to_bytes())
    for w in words + probes:
        assert (w in lex) == (w in set(words))
    assert list(lex) == sorted(set(words), key=lambda w: w.encode("utf-8"))


# --- loading from disk ---------------------------------------------------------------------------


def test_load_by_path(tmp_path: Path, lexdirs: tuple[Path, Path]) -> None:
    src = tmp_path / "club words.txt"
    src.write_text("# club\nqi\nza\n", encoding="utf-8")
    lex = load_lexicon(str(src))
    assert lex.name == "club words" and list(lex) == ["QI", "ZA"]


def test_load_by_name_from_the_lexicons_folder(lexdirs: tuple[Path, Path]) -> None:
    lexfolder, cache = lexdirs
    (lexfolder / "CLUB.txt").write_text("qi\nZa\n", encoding="utf-8")
    lex = load_lexicon("CLUB")
    assert lex.name == "CLUB" and "ZA" in lex
    assert "CLUB" in wordlists.available() and "default" in wordlists.available()


def test_compiled_once_then_read_from_the_cache(lexdirs: tuple[Path, Path]) -> None:
    lexfolder, cache = lexdirs
    (lexfolder / "club.txt").write_text("qi\nza\n", encoding="utf-8")
    load_lexicon("club")
    [compiled] = cached_files(cache)
    assert Lexicon.from_bytes(compiled.read_bytes()).name == "club"
    # Replace the compiled copy with different words: the second load must come from it.
    compiled.write_bytes(Lexicon.from_words(["CACHED"], "club").to_bytes())
    assert list(load_lexicon("club")) == ["CACHED"]
    # Without the cache, the list itself is read.
    assert list(load_lexicon("club", use_cache=False)) == ["QI", "ZA"]


def test_an_edited_list_is_compiled_again(lexdirs: tuple[Path, Path]) -> None:
    lexfolder, cache = lexdirs
    src = lexfolder / "club.txt"
    src.write_text("qi\n", encoding="utf-8")
    load_lexicon("club")
    src.write_text("qi\nza\n", encoding="utf-8")
    assert "ZA" in load_lexicon("club")
    assert len(cached_files(cache)) == 2  # keyed by content


def test_damaged_cache_is_rebuilt(lexdirs: tuple[Path, Path]) -> None:
    lexfolder, cache = lexdirs
    (lexfolder / "club.txt").write_text("qi\nza\n", encoding="utf-8")
    load_lexicon("club")
    [compiled] = cached_files(cache)
    compiled.write_bytes(MAGIC + b"\x00\x01")  # damaged
    assert list(load_lexicon("club")) == ["QI", "ZA"]
    assert list(Lexicon.from_bytes(compiled.read_bytes())) == ["QI", "ZA"]  # rewritten
    compiled.write_bytes(b"not a lexicon at all")
    assert list(load_lexicon("club")) == ["QI", "ZA"]


def test_no_writable_cache_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("x")
    monkeypatch.setenv("BOARD_PI_CACHE", str(blocker))
    src = tmp_path / "w.txt"
    src.write_text("qi\n")
    assert list(load_lexicon(str(src))) == ["QI"]


def test_unknown_name_is_a_clear_error(lexdirs: tuple[Path, Path]) -> None:
    with pytest.raises(LexiconNotFound, match=r"no lexicon named 'NOSUCH'.*lexicons/.*known: .*default"):
        load_lexicon("NOSUCH")


@pytest.mark.parametrize("spec", ["/no/such/dir/words.txt", "../nowhere/x.txt"])
def test_missing_path_is_a_clear_error(spec: str, lexdirs: tuple[Path, Path]) -> None:
    with pytest.raises(LexiconNotFound, match="no lexicon file"):
        load_lexicon(spec)


def test_empty_list_is_refused(tmp_path: Path, lexdirs: tuple[Path, Path]) -> None:
    src = tmp_path / "empty.txt"
    src.write_text("# nothing here\n\n")
    with pytest.raises(LexiconError, match="has no words"):
        load_lexicon(str(src))


def test_latin1_list(tmp_path: Path, lexdirs: tuple[Path, Path]) -> None:
    src = tmp_path / "fr.txt"
    src.write_bytes("été\nqi\n".encode("latin-1"))
    assert "ÉTÉ" in load_lexicon(str(src))


def test_compiled_file_loads_directly(tmp_path: Path, lexdirs: tuple[Path, Path]) -> None:
    src = tmp_path / "club.txt"
    src.write_text("qi\nza\n")
    out = tmp_path / "ready" / "club.lex"
    compile_lexicon(str(src), out)
    assert out.read_bytes().startswith(MAGIC)
    assert list(load_lexicon(str(out))) == ["QI", "ZA"]
    _, cache = lexdirs
    assert cached_files(cache) == []  # compile_lexicon does not need the cache


def test_default_lexicon_is_the_kjxqz_list(lexdirs: tuple[Path, Path]) -> None:
    _, cache = lexdirs
    lex = load_lexicon(None)
    assert lex.name == "default"
    assert 150_000 < len(lex) < 250_000
    for w in ("QI", "ZA", "QUIXOTIC", "AA"):
        assert w in lex
    assert "ZZZQ" not in lex
    assert len(cached_files(cache)) == 1
    assert load_lexicon("kjxqz").name == "default"  # the package's name works too
    assert len(load_lexicon("DEFAULT")) == len(lex)
    assert os.environ["BOARD_PI_CACHE"] == str(cache)
