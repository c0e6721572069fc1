"""Fuzzing the GCG reader and the `board-pi replay` handler (hypothesis, derandomized).

Real records are cut up and mutated: lines dropped, repeated, swapped or taken from another
record, tokens replaced, characters inserted, numbers grown to thousands of digits, and arbitrary
text and bytes. Whatever comes in, the reader either reads it or raises its own GcgError, the
replay reports an error instead of raising, and the command's handler answers with a usage error
or an exit status: never another exception (which a user would see as a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.cli import UsageError
from board_pi.cli.rules import cmd_replay
from board_pi.rules.gcg import GcgError, decode_gcg, parse_gcg, write_gcg
from board_pi.rules.replay import replay

from .test_gcg_refused import GOING_OUT, SIX_ZERO, WITH_LAST_RACKS

DEMO = (Path(__file__).resolve().parents[2] / "board_pi" / "table" / "data" / "demo.gcg").read_text("utf-8")
BUNDLED = [DEMO, SIX_ZERO, GOING_OUT, WITH_LAST_RACKS]

FAST = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Tokens that reach the corners: counts, blanks, huge and odd numbers, brackets, other scripts.
ODD_TOKENS = ["-", "--", "-3", "-99", "(challenge)", "(time)", "()", "(?)", "?", "??", ".", "...", "+0",
              "-0", "+" + "9" * 4400, "9" * 4400, "²", "٣", "8D", "H8", "16P", "A0", "#", ">", ":", "Ż",
              "zzzzzzzzzzzzzzzzzzzz", "WINDY" * 4, "\x00", "\t", "\ufeff", "#player3 cat Cat", "#rack1",
              "#character-encoding UTF-8", "#note"]


# Digits past Python's int() limit, past any score, and digits that are not ASCII.
DIGITS = ["9" * 4400, "1" * 5000, "99999", "123456", "0", "²", "٣", "3", "12"]


def mutated(records: list[str]) -> st.SearchStrategy[str]:
    lines = sorted({line for r in records for line in r.splitlines()})
    tokens = sorted({t for line in lines for t in line.split()}) + ODD_TOKENS

    @st.composite
    def build(draw: st.DrawFn) -> str:
        out = draw(st.sampled_from(records)).splitlines()
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(["drop", "repeat", "swap", "foreign", "token", "char", "text", "number",
                                       "number", "middle"]))
            i = draw(st.integers(0, max(0, len(out) - 1)))
            if not out:
                out = [draw(st.sampled_from(lines))]
            elif op == "drop":
                del out[i]
            elif op == "repeat":
                out.insert(i, out[i])
            elif op == "swap":
                j = draw(st.integers(0, len(out) - 1))
                out[i], out[j] = out[j], out[i]
            elif op == "foreign":
                out.insert(i, draw(st.sampled_from(lines)))
            elif op == "token":
                parts = out[i].split(" ")
                k = draw(st.integers(0, len(parts) - 1))
                parts[k] = draw(st.sampled_from(tokens) | st.sampled_from(ODD_TOKENS) | st.text(max_size=8))
                out[i] = " ".join(parts)
            elif op in ("number", "middle") and out[i].startswith(">") and len(out[i].split()) > 3:
                # An event's score or total, or what stands between the rack and the score.
                parts = out[i].split()
                if op == "number":  # signed as the place wants it, so the digits are what is read
                    k = draw(st.sampled_from([-1, -2]))
                    sign = draw(st.sampled_from(["+", "-"] if k == -2 else ["", "-"]))
                    parts[k] = sign + draw(st.sampled_from(DIGITS) | st.integers(0, 10**6).map(str))
                else:
                    parts[-3] = draw(st.sampled_from(["-" + d for d in DIGITS] + ODD_TOKENS))
                out[i] = " ".join(parts)
            elif op == "char":
                k = draw(st.integers(0, len(out[i])))
                out[i] = out[i][:k] + draw(st.characters()) + out[i][k + 1:]
            else:
                out.insert(i, draw(st.text(max_size=40)))
        return "\n".join(out) + draw(st.sampled_from(["\n", "", "\r\n"]))

    return build()


def check_record(text: str) -> None:
    """The reader and the replay: GcgError or a report, nothing else."""
    try:
        rec = parse_gcg(text)
    except GcgError as e:
        assert str(e) and e.line >= 0
        return
    report = replay(rec)
    assert report.error is None or str(report.error).startswith(("line ", "the record", "a game"))
    # What was read writes out and reads back. (Notes before the first move that other pragmata
    # separate are written together, and read back as one: the text is kept, not the split.)
    text = write_gcg(rec)
    back = parse_gcg(text)
    assert (back.players, back.moves, back.racks, back.other) == (rec.players, rec.moves, rec.racks, rec.other)
    assert (back.title, back.description, back.lexicon, back.id) == (rec.title, rec.description, rec.lexicon, rec.id)
    assert "\n".join(back.notes) == "\n".join(rec.notes)
    assert write_gcg(back) == text


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="gcg-fuzz-") as d:
        yield Path(d)


def check_handler(folder: Path, data: bytes, as_json: bool) -> None:
    """`board-pi replay FILE`: an exit status or a usage error (exit 2 with a message)."""
    path = folder / "record.gcg"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cmd_replay(argparse.Namespace(file=str(path), tiles=None, json=as_json))
        except UsageError as e:
            assert str(e).startswith(str(path))
            return
    assert status in (0, 1, 2)
    if status == 2:
        assert err.getvalue().startswith(f"board-pi replay: {path}: ")


@FAST
@given(mutated(BUNDLED))
def test_mutated_records(text: str) -> None:
    check_record(text)


@FAST
@given(st.text(max_size=300) | st.text(alphabet="#>:.?-+() 0123456789ABEIOSTZqz\n", max_size=300))
def test_arbitrary_text(text: str) -> None:
    check_record(text)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.one_of(mutated(BUNDLED).map(lambda t: t.encode("utf-8")),
                 mutated(BUNDLED).map(lambda t: t.encode("utf-8", "replace")[:200] + bytes([0xE9, 0x85])),
                 st.binary(max_size=300),
                 st.builds(lambda enc, t: f"#character-encoding {enc}\n".encode() + t,
                           st.sampled_from(["UTF-8", "ISO-8859-1", "ASCII", "ISO8859-6", "", "x y", "UTF\x00-8"]),
                           st.binary(max_size=100))),
       st.booleans())
def test_the_replay_handler(folder: Path, data: bytes, as_json: bool) -> None:
    try:
        decode_gcg(data)
    except GcgError:
        pass
    check_handler(folder, data, as_json)


def test_shared_records_mutated(shared_data: Path) -> None:
    records = [decode_gcg(p.read_bytes())[0] for p in sorted((shared_data / "gcg" / "macondo").glob("*.gcg"))]

    @FAST
    @given(mutated(records))
    def run(text: str) -> None:
        check_record(text)

    run()
