"""A table process for the power-cut test: plays a recorded game into a journal, saying how far
it got after each committed event, so the test can kill it (SIGKILL) anywhere and check."""

from __future__ import annotations

import sys

from board_pi.rules.events import ChallengeBonus, Exchanged, Passed, PhonyWithdrawn
from board_pi.rules.gcg import read_gcg
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.table.store import Journal
from board_pi.table.table import Table


def main(journal_path: str, gcg_path: str) -> None:
    rec = read_gcg(gcg_path)
    nicks = [p.nick for p in rec.players]
    words = {w for m in rec.moves for w in [m.word.upper()] if m.kind == "play"}
    table = Table(Journal(journal_path), WordJudge(Lexicon.from_words(words or ["AA"], "test")))
    if not table.resume():
        table.new_game([p.name for p in rec.players])
    assert table.game is not None
    done = len(table.game.events)
    # Skip the events already in the journal: each record line makes one game event here.
    count = 0
    for m in rec.moves:
        if m.kind not in ("play", "pass", "exchange", "phony", "challenge"):
            continue
        count += 1
        if count <= done:
            continue
        p = nicks.index(m.nick)
        if m.kind == "play":
            table.enter_play(p, f"{m.position} {m.word}")
        elif m.kind == "pass":
            table.record(Passed(p))
        elif m.kind == "exchange":
            table.record(Exchanged(p, int(m.word) if m.word.isdigit() else len(m.word)))
        elif m.kind == "phony":
            table.record(PhonyWithdrawn(p))
        else:
            table.record(ChallengeBonus(p, m.score))
        print(len(table.game.events), flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
