"""The table as the page and the JSON API see it (the shape: :class:`~board_pi.table.snapshot.Snapshot`)."""

from __future__ import annotations

from typing import Any

from .snapshot import Snapshot


def snapshot(table: Any) -> Snapshot:
    """The state of ``table`` (a :class:`~board_pi.table.table.Table`, its lock held by the caller)."""
    if table.game is None or table.clock is None:
        return {"game": None, "board": ["." * 15] * 15, "squares": [["."] * 15 for _ in range(15)],
                "players": [], "turn": None, "moves": [],
                "unseen": {}, "bag": 0, "over": False, "pending": None, "messages": table.messages}
    g, c = table.game, table.clock
    s = g.state
    snap = c.snapshot()
    last = s.last_play
    players = []
    for i, name in enumerate(g.players):
        players.append({
            "name": name, "score": s.scores[i], "rack": s.racks[i],
            "clock": {"remaining_ms": int(round(snap.remaining[i] * 1000)),
                      "overtime_penalty": snap.penalties[i], "running": snap.running == i,
                      "flagged": snap.flagged[i]},
        })
    unseen = s.unseen
    tiles = g.rules.tiles
    return {
        "game": table.game_id,
        "board": s.board.rows(),
        "squares": s.board.cells(),
        "premiums": list(g.rules.layout.rows),
        "tile_set": {"name": tiles.name, "letters": list(tiles.letters), "blanks": tiles.full_bag()["?"]},
        "values": {t: tiles.value(t) for t in tiles.letters},
        "players": players,
        "turn": None if s.over else s.turn,
        "moves": [{"player": m.player, "text": m.text, "score": m.score, "total": m.total}
                  for m in s.moves],
        "last_play": [str(p.square) for p in last.scored.placements] if last else [],
        # in the set's own order (Ä after A, CH after C), the blanks last, as players tally them
        "unseen": {t: unseen[t] for t in (*tiles.letters, "?") if unseen[t]},
        "bag": s.bag,
        "clock": {"phase": snap.phase, "running": snap.running,
                  "hold": None if snap.hold is None else {"by": snap.hold.by, "of": snap.hold.of},
                  "may_draw": snap.may_draw,
                  # The page counts the clocks down by itself between events.
                  "control": {"minutes": c.control.minutes,
                              "overtime_penalty": c.control.overtime_penalty,
                              "max_overtime_minutes": c.control.max_overtime_minutes,
                              "low_time_seconds": c.control.low_time_seconds}},
        "rules": {"challenge": g.rules.challenge.value, "tournament": g.rules.tournament,
                  "lexicon": table.meta.get("lexicon", "")},
        "verdict": table.verdict,
        "pending": table.pending.to_dict() if table.pending else None,
        "removal": sorted(table.removal),
        "messages": list(table.messages),
        "over": s.over,
        "winners": s.winners() if s.over else [],
    }
