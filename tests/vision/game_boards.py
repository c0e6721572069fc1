"""Boards a real game makes: the bundled game's board after each of its plays, for the tests
that follow a table through a game (tiles in words, filling the board as play goes on)."""

from __future__ import annotations


def boards_of_the_bundled_game() -> list[list[str]]:
    """The 15 rows after each play of the bundled demo game (a phony too, before it is taken back)."""
    from board_pi.cli.demo import load_record
    from board_pi.rules.events import PlayMade
    from board_pi.rules.game import Game
    from board_pi.rules.replay import replay

    played = replay(load_record(None)).game
    game = Game(played.players, played.rules)
    boards = []
    for event in played.events:
        game.append(event)
        if isinstance(event, PlayMade):
            boards.append(game.state.board.rows())
    return boards
