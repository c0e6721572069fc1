"""Pairings in, results out: a round's pairings as the director types or imports them, and the
results in the forms tournament software takes (TSH score entry, CSV), with the standings.

Pairings are one line per table: the table number, then the players in the order they start,
separated by `` - `` (or a CSV ``Table,Player1,Player2``). A player may carry their TSH player
number as ``#12``, which the TSH lines then use:

>>> [(p.table, p.players, p.numbers) for p in parse_pairings("5 #12 Ada Lovelace - #7 Ben Franklin")]
[(5, ('Ada Lovelace', 'Ben Franklin'), (12, 7))]
>>> r = GameResult(5, 3, "A", ("Ada Lovelace", "Ben Franklin"), (412, 398), (12, 7))
>>> print(tsh_lines([r]))
a 3 A
12 412 7 398
>>> print(results_csv([r]), end="")
Division,Round,Player1,Score1,Player2,Score2
A,3,Ada Lovelace,412,Ben Franklin,398
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass
from typing import Any, Iterable

MAX_TABLES = 999
NAME_RE = re.compile(r"^(?:#(?P<number>\d{1,5})\s+)?(?P<name>\S.{0,39})$")


class PairingError(ValueError):
    """Pairings that cannot be used; the message gives the line and what is wrong."""


@dataclass(frozen=True)
class TablePairing:
    table: int
    players: tuple[str, ...]  # in the order they start
    numbers: tuple[int | None, ...]  # TSH player numbers, when given


@dataclass(frozen=True)
class GameResult:
    """One finished game: players in the order they played (the first went first)."""

    table: int
    round: int | None
    division: str
    players: tuple[str, ...]
    scores: tuple[int, ...]
    numbers: tuple[int | None, ...] = ()
    gcg: str = ""


def _player(text: str, where: str) -> tuple[str, int | None]:
    text = " ".join(text.split())
    m = NAME_RE.match(text)
    if not m or not text.isprintable():
        raise PairingError(f"{where}: a player is a name of 1 to 40 characters (with #N for the TSH "
                           f"number), not {text[:50]!r}")
    number = m.group("number")
    return m.group("name").strip(), int(number) if number else None


def parse_pairings(text: str) -> list[TablePairing]:
    """A round's pairings from text: ``5 Ada Lovelace - Ben Franklin`` per line, or CSV
    ``Table,Player1,Player2`` (a header line is skipped). Every problem names its line."""
    if len(text) > 200_000:
        raise PairingError("the pairings are too long (at most 200,000 characters)")
    lines = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)]
    lines = [(i, line) for i, line in lines if line and not line.startswith("#!")]
    out: list[TablePairing] = []
    seen: set[int] = set()
    problems: list[str] = []
    for i, line in lines:
        where = f"line {i}"
        if "," in line:
            cells = [c.strip() for c in next(csv.reader([line]))]
            if i == lines[0][0] and cells and not cells[0].isdigit():
                continue  # a header
            number, players = cells[0], [c for c in cells[1:] if c]
        else:
            head, _, rest = line.partition(" ")
            number, players = head, [p.strip() for p in re.split(r"\s+-\s+|\s+vs\.?\s+", rest) if p.strip()]
        if not number.isdigit() or not 1 <= int(number) <= MAX_TABLES:
            problems.append(f"{where}: starts with a table number from 1 to {MAX_TABLES}, not {number[:20]!r}")
            continue
        table = int(number)
        if table in seen:
            problems.append(f"{where}: table {table} is paired twice")
            continue
        if not 2 <= len(players) <= 4:
            problems.append(f"{where}: table {table} needs 2 to 4 players separated by ' - ', "
                            f"found {len(players)}")
            continue
        try:
            parsed = [_player(p, where) for p in players]
        except PairingError as e:
            problems.append(str(e))
            continue
        seen.add(table)
        out.append(TablePairing(table, tuple(n for n, _ in parsed), tuple(k for _, k in parsed)))
    if problems:
        raise PairingError("\n".join(problems))
    if not out:
        raise PairingError("no pairings: write one line per table, e.g. '5 Ada Lovelace - Ben Franklin'")
    names = [n for p in out for n in p.players]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise PairingError(f"paired twice in the round: {', '.join(twice)}")
    return out


def tsh_lines(results: Iterable[GameResult]) -> str:
    """TSH score entry: ``a <round> <division>`` then ``pn1 ps1 pn2 ps2`` per game, the player
    who went first first. A player whose TSH number is unknown is written by name, marked."""
    blocks: dict[tuple[int | None, str], list[str]] = {}
    for r in results:
        if len(r.players) != 2:
            continue  # TSH pairs two players
        cells = []
        for i in range(2):
            n = r.numbers[i] if i < len(r.numbers) else None
            cells += [str(n) if n is not None else f"?{r.players[i].replace(' ', '_')}", str(r.scores[i])]
        blocks.setdefault((r.round, r.division), []).append(" ".join(cells))
    out = []
    for (rnd, div), lines in sorted(blocks.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1])):
        out.append(f"a {rnd if rnd is not None else '?'} {div}")
        out += lines
    return "\n".join(out)


def results_csv(results: Iterable[GameResult]) -> str:
    """``Division,Round,Player1,Score1,Player2,Score2``, one line per two-player game."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["Division", "Round", "Player1", "Score1", "Player2", "Score2"])
    for r in results:
        if len(r.players) == 2:
            w.writerow([r.division, "" if r.round is None else r.round, r.players[0], r.scores[0],
                        r.players[1], r.scores[1]])
    return buf.getvalue()


@dataclass(frozen=True)
class Standing:
    player: str
    wins: float
    losses: float
    spread: int
    games: int


def standings(results: Iterable[GameResult]) -> list[Standing]:
    """Wins (a tie counts half), then spread: the order a club's standings use."""
    table: dict[str, list[float]] = {}
    for r in results:
        if len(r.players) < 2:
            continue
        best = max(r.scores)
        winners = [i for i, s in enumerate(r.scores) if s == best]
        for i, p in enumerate(r.players):
            row = table.setdefault(p, [0.0, 0.0, 0.0, 0.0])
            others = [s for j, s in enumerate(r.scores) if j != i]
            row[2] += r.scores[i] - max(others)
            row[3] += 1
            if i in winners:
                share = 1 / len(winners)
                row[0] += share
                row[1] += 1 - share
            else:
                row[1] += 1
    rows = [Standing(p, w, l, int(s), int(g)) for p, (w, l, s, g) in table.items()]
    return sorted(rows, key=lambda s: (-s.wins, -s.spread, s.player))


def gcg_archive(results: Iterable[GameResult]) -> bytes:
    """Every finished game's GCG record in one zip: ``round-3/table-05.gcg`` (a second game at
    a table in the same round gets ``-2``)."""
    buf = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for r in results:
            base = f"round-{r.round if r.round is not None else 'none'}/table-{r.table:02d}"
            name, n = f"{base}.gcg", 1
            while name in used:
                n += 1
                name = f"{base}-{n}.gcg"
            used.add(name)
            z.writestr(name, r.gcg)
    return buf.getvalue()


def from_hub(rows: Iterable[dict[str, Any]], numbers: dict[tuple[int | None, int], tuple[int | None, ...]] | None = None
             ) -> list[GameResult]:
    """Results as the hub keeps them, with TSH numbers from the round's pairings when known."""
    out = []
    for r in rows:
        nums = (numbers or {}).get((r.get("round"), r["table"]), ())
        out.append(GameResult(int(r["table"]), r.get("round"), str(r.get("division") or "A"),
                              tuple(r["players"]), tuple(int(s) for s in r["scores"]), tuple(nums),
                              str(r.get("gcg") or "")))
    return out
