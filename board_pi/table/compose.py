"""Compose the bundled demonstration game with the project's own move generator.

``python -m board_pi.table.compose > board_pi/table/data/demo.gcg`` plays a seeded game between
two players who take good (not always the best) plays from the default lexicon, and acts out
what a club game has: a phony challenged off, a valid play challenged (a 5-point bonus), an
exchange, a pass, blanks, and the end-of-game rack points. The result is checked by replaying
it through the rules engine before it is printed.
"""

from __future__ import annotations

import random
import sys

from ..rules.board import Board, write_cell
from ..rules.game import Game, GameRules, ChallengeRule
from ..rules.events import ChallengeBonus, Exchanged, Passed, PhonyWithdrawn, PlayMade
from ..rules.gcg import GcgMove, GcgPlayer, GcgRecord, parse_gcg, write_gcg
from ..rules.replay import replay
from ..rules.movegen import candidate_plays
from ..rules.play import Play
from ..rules.scoring import score_play
from ..rules.tiles import BLANK, ENGLISH, TileSet
from ..wordlists import load_lexicon

PLAYERS = (("Ada", "Ada Lovelace"), ("Ben", "Ben Franklin"))


DEMO_LISTS = {"english": "default", "german": "german-demo"}
"""The word list each tile set's demo game is composed with (lists bundled with board-pi)."""


def compose(seed: int = 7, tiles: TileSet = ENGLISH) -> str:
    """A seeded game of ``tiles`` (a set in :data:`DEMO_LISTS`) as GCG text."""
    rng = random.Random(seed)
    lexicon = DEMO_LISTS[tiles.name]
    lex = load_lexicon(lexicon, tiles=tiles)
    bag = list(tiles.full_bag().elements())
    rng.shuffle(bag)
    racks = [[bag.pop() for _ in range(7)], [bag.pop() for _ in range(7)]]
    game = Game([p[1] for p in PLAYERS], GameRules(challenge=ChallengeRule.FIVE_POINTS, tiles=tiles))
    rec = GcgRecord([GcgPlayer(*p) for p in PLAYERS], lexicon=lexicon,
                    tile_distribution="" if tiles is ENGLISH else tiles.name,
                    description="Composed by board_pi.table.compose (seed %d) for the demo" % seed)
    turn_no = 0

    def line(kind: str, p: int, rack: str, **kw: object) -> None:
        rec.moves.append(GcgMove(kind, PLAYERS[p][0], rack, total=game.state.scores[p], **kw))  # type: ignore[arg-type]

    while not game.state.over and turn_no < 60:
        s = game.state
        p = s.turn
        rack = tiles.write(sorted(racks[p]))
        if s.going_out is not None:
            break
        if s.scoreless_ended:
            break
        plays = sorted(candidate_plays(s.board, rack, lex, tiles), key=lambda x: -x.score)
        turn_no += 1
        if turn_no == 9 and len(bag) >= 7:
            out = sorted(racks[p], key=lambda t: (t in "AEIOU?S", rng.random()))[:3]
            game.append(Exchanged(p, 3, "".join(sorted(out))))
            line("exchange", p, rack, word="".join(sorted(out)))
            rec.moves[-1] = _note(rec.moves[-1], "keeps the good tiles and throws three back")
            for t in out:
                racks[p].remove(t)
            bag.extend(out)
            rng.shuffle(bag)
            racks[p] += [bag.pop() for _ in range(3)]
            continue
        if turn_no == 12:
            game.append(Passed(p))
            line("pass", p, rack)
            rec.moves[-1] = _note(rec.moves[-1], "a pass, hoping for a better draw from the opponent's play")
            continue
        if not plays:
            if len(bag) >= 7:
                game.append(Exchanged(p, 7, rack))
                line("exchange", p, rack, word=rack)
                bag.extend(racks[p])
                rng.shuffle(bag)
                racks[p] = [bag.pop() for _ in range(7)]
            else:
                game.append(Passed(p))
                line("pass", p, rack)
            continue
        if turn_no == 5:
            phony = _phony(s.board, plays, lex, tiles)
            if phony is not None:
                game.append(PlayMade(p, phony))
                scored = game.state.last_play.scored  # type: ignore[union-attr]
                line("play", p, rack, position=str(phony.coordinate), word=phony.word, score=scored.score)
                game.append(PhonyWithdrawn(p))
                line("phony", p, rack, score=-scored.score)
                rec.moves[-1] = _note(rec.moves[-1], "challenged off: not a word")
                continue
        choice = plays[0] if rng.random() < 0.6 or len(plays) < 3 else plays[rng.randrange(1, 3)]
        play = Play(choice.line.coordinate, "".join(
            write_cell({pl.square: pl.tile for pl in choice.placements}.get(sq, ".")) for sq in choice.line.squares()))
        game.append(PlayMade(p, play))
        line("play", p, rack, position=str(play.coordinate), word=play.word, score=choice.score)
        for pl in choice.placements:
            racks[p].remove(BLANK if pl.is_blank else pl.tile)
        while len(racks[p]) < 7 and bag:
            racks[p].append(bag.pop())
        if turn_no == 8 or (turn_no > 8 and game.state.going_out is not None and not any(
                m.kind == "challenge" for m in rec.moves)):
            game.append(ChallengeBonus(p, 5))
            line("challenge", p, tiles.write(sorted(racks[p])), score=5)
            rec.moves[-1] = _note(rec.moves[-1], "held and challenged; the play is good: 5 points")
    s = game.state
    if s.going_out is not None:
        events = game.finish()
        out = s.going_out
        e = events[0]
        rec.moves.append(GcgMove("endrack", PLAYERS[out][0], word=e.rack, score=e.points,  # type: ignore[attr-defined]
                                 total=game.state.scores[out]))
    elif s.scoreless_ended:
        events = game.finish({i: tiles.write(sorted(racks[i])) for i in range(2)})
        for e in events:
            rec.moves.append(GcgMove("rackpenalty", PLAYERS[e.player][0], e.rack, word=e.rack,  # type: ignore[attr-defined]
                                     score=-e.points, total=game.state.scores[e.player]))  # type: ignore[attr-defined]
    text = write_gcg(rec)
    report = replay(parse_gcg(text))
    if not report.ok:
        raise SystemExit(f"composed game does not replay: {report.error or report.first_disagreement()}")
    return text


def _note(m: GcgMove, note: str) -> GcgMove:
    return GcgMove(m.kind, m.nick, m.rack, m.position, m.word, m.score, m.total, note, m.line)


def _phony(board: Board, plays: list, lex, tiles: TileSet = ENGLISH) -> Play | None:  # type: ignore[no-untyped-def]
    """One of the plays with its new tiles shuffled into a non-word (same tiles, same place)."""
    rng = random.Random(1)
    for sp in plays[:40]:
        new = [pl for pl in sp.placements]
        if len(new) < 3:
            continue
        letters = [pl.tile for pl in new]
        for _ in range(20):
            rng.shuffle(letters)
            placed = {pl.square: t for pl, t in zip(new, letters)}
            word = "".join(write_cell(placed.get(sq, ".")) for sq in sp.line.squares())
            play = Play(sp.line.coordinate, word)
            try:
                scored = score_play(board, play.placements(board, tiles), tiles)
            except Exception:
                continue
            if not all(w.text.upper() in lex for w in scored.words) and scored.main_word.isalpha():
                return play
    return None


if __name__ == "__main__":
    from ..rules.tiles import tile_set

    sys.stdout.write(compose(int(sys.argv[1]) if len(sys.argv) > 1 else 7,
                             tile_set(sys.argv[2]) if len(sys.argv) > 2 else ENGLISH))
