"""A game re-scored from the photos taken at each clock press: what a club with a camera already has.

The first frame is the board before the first play; each next frame is the board after the next
press, the players taking turns from the first. The frames go through the table's own path, as a
fixed camera's would: calibrated on the first frame (the board found again when it moved), only
the squares that changed read, the tiles already committed counting against the tile set, the
board read as a whole under its counts. Nobody is asked anything: a doubtful square takes its
likeliest reading and is listed, a blank takes the only letter the word list allows (or the
first it allows, listed), a frame with no new tile is a pass (or an exchange: the camera cannot
tell), and tiles that disappear withdraw the play that put them there. A frame with the board
partly covered (an arm over it, a sheet: tiles played not seen, or squares whose lines are gone
since the last frame, :attr:`VisionReader.covered`, where a tile of its play may lie) leaves its
turn for the next frame to settle.

>>> # result = rescore([("0.jpg", img0), ("1.jpg", img1)], ENGLISH, ["Ann", "Bob"], lexicon)
>>> # print(result.gcg()); result.to_json()["play_points"]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..rules.board import EMPTY, Board, Square
from ..rules.game import Game, GameRules, IllegalEvent
from ..rules.gcg import record_from_game, write_gcg
from ..rules.lexicon import Lexicon
from ..rules.play import IllegalPlay, is_one_play, split_plays
from ..rules.tiles import TileSet
from .reading import DOUBT_BELOW, BoardChange, BoardReading, blank_options, compare, placements_with_letters
from .vision import VisionReader


class RescoreError(ValueError):
    """The frames cannot be re-scored (the message says which frame and why)."""


@dataclass(frozen=True)
class RescoredPlay:
    """One play as re-scored: who, where, the word, the points, and the frame it was seen in;
    ``placed``, the squares its tiles went on (a blank as its lower-case letter)."""

    player: str
    position: str
    word: str
    score: int
    frame: str
    withdrawn: bool = False
    placed: tuple[tuple[Square, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "position": self.position, "word": self.word,
                               "score": self.score, "frame": self.frame}
        if self.withdrawn:
            out["withdrawn"] = True
        return out


@dataclass
class Rescored:
    """The game rebuilt from the frames, and what in it was not sure."""

    game: Game
    plays: list[RescoredPlay] = field(default_factory=list)
    play_points: list[int] = field(default_factory=list)
    doubtful: list[str] = field(default_factory=list)
    lexicon: str = ""

    @property
    def final(self) -> list[int]:
        return list(self.game.state.scores)

    def gcg(self) -> str:
        return write_gcg(record_from_game(self.game, lexicon=self.lexicon,
                                          description="re-scored by board-pi from the photos of each press"))

    def to_json(self) -> dict[str, Any]:
        return {"moves": [p.to_json() for p in self.plays], "play_points": self.play_points, "final": self.final,
                "doubtful": self.doubtful}


LENS_UP_TO_PX = 2100
"""The longest frame whose lens ``rescore`` measures (a camera's frames, a phone's photos as they are
decoded): a board small in a large photo, decoded whole, is a phone's, whose lens is corrected
already, and straightening 12 megapixels would take a hundred megabytes more."""


def rescore(frames: Iterable[tuple[str, np.ndarray]], tiles: TileSet, players: Sequence[str],
            lexicon: Lexicon | None = None, reader: Any | None = None,
            doubt_below: float = DOUBT_BELOW) -> Rescored:
    """Re-score the game in ``frames`` (name, BGR image), the first of the empty board or the
    board before the first play. RescoreError when the first frame shows no board.

    The frames are taken one at a time, in order, and none is kept once read: ``frames`` may be
    a generator that loads each photo when it is asked for, so a game of a hundred phone photos
    takes the memory of one."""
    from ..vision.calibration import CalibrationError, Tracker, calibrate
    from ..vision.read import Reader

    frames = iter(frames)
    try:
        first_name, first = next(frames)
    except StopIteration:
        raise RescoreError("no frames: give the photo of the board before the first play, then one per press") from None
    reader = reader if reader is not None else Reader(tiles=tiles)
    try:
        # Photos: the board may stand small in them (a phone's photo of the whole table). A fixed
        # camera's lens is measured as `board-pi calibrate` measures it (a phone's is corrected).
        cal = calibrate(first, use_markers=True, far=True, lens=max(first.shape[:2]) <= LENS_UP_TO_PX)
    except CalibrationError:
        raise RescoreError(f"{first_name}: no board found in the first frame") from None
    # Each frame is the only one of its press: a board not where it was is looked for at once
    # (a hand-held camera, a board nudged), not waited for as a live camera waits out an arm.
    eyes = VisionReader(reader=reader, tracker=Tracker(cal, search_after_hidden=1, far=True))
    game = Game(list(players), GameRules(tiles=tiles))
    out = Rescored(game, lexicon=lexicon.name if lexicon is not None else "")
    seen = eyes.read(first)
    if seen is not None:
        _off_the_photo(eyes, first_name, out)
        if any(ch != "." for row in seen.grid for ch in row):
            out.doubtful.append(f"{first_name}: tiles on the board before the first play; they are not scored")
        eyes.commit(game.state.board.rows())
    del first  # read: not kept while the others are
    # A photo with the board covered (a player's arm, someone leaning over): its turn is left
    # open, and the next photo, which shows what it hid, settles the open turns and its own.
    open_turns: list[_Covered] = []
    from ..vision.geometry import squares_named

    for name, image in frames:
        if game.state.over:
            out.doubtful.append(f"{name}: after the end of the game; not read")
            continue
        if not eyes.turn_settled and eyes.tracker is not None:
            _turn_upright(eyes, image)
        reading = eyes.read(image)
        if reading is None:
            open_turns.append(_Covered(name, frozenset(), "the board was not seen"))
            out.doubtful.append(f"{name}: the board was not seen; its turn is settled by the next photo")
            continue
        _off_the_photo(eyes, name, out)
        change = compare(game.state.board, reading, doubt_below)
        if not open_turns and _hidden_whole(game, reading, change, doubt_below):
            hidden = set(change.missing)
            names = ", ".join(str(q) for q in sorted(hidden, key=lambda q: (q.row, q.col)))
            out.doubtful.append(f"{name}: the last play's tiles not seen on {names}, and tiles read that join "
                                "no tile even without them; kept as played")
        else:
            hidden = _withdraw_if_taken_off(game, change, out, name, patient=not open_turns)
        change = compare(game.state.board, reading, doubt_below)  # against the board as it now stands
        apart = _apart(game.state.board, change.new)
        covered = {Square(r, c) for r, c in eyes.covered}
        under = _on_the_line(game.state.board, change.new, covered)
        other = bool(hidden or apart) or (not open_turns and _doubtful_plays(game, change, lexicon))
        if not open_turns and (under or other):
            # Tiles played not seen, squares something lies over (their lines gone: a sheet, a
            # hand) where this play's tiles may lie unseen, new ones joined to nothing, or new ones
            # in doubt that make no acceptable play: something over the board. It changed the
            # look of the squares under it, and an arm may read as empty squares: only squares
            # that did not change are known to be empty still. Once: what is still so in the
            # next photo is no arm (a tile misread, something left on the board), and is
            # settled there.
            unchanged = (_seen_empty(game.state.board, reading, doubt_below)
                         - {Square(r, c) for r, c in eyes.looked_at} - covered)
            why = ("the board partly covered" if hidden else
                   f"the board partly covered ({squares_named(sorted(eyes.covered))} hidden)" if under
                   else "tiles read that join no tile on the board" if apart
                   else "new tiles in doubt that make no play of acceptable words")
            # Held up only by squares hidden on its play's line: what it shows is a play, which a
            # last photo is settled by (no photo after it shows more).
            shown = (change, reading) if under and not other and change.new else None
            open_turns.append(_Covered(name, frozenset(unchanged), why, shown))
            out.doubtful.append(f"{name}: {why}; its turn is settled by the next photo")
            continue  # not committed: the next photo is compared with the last one seen whole
        _settle(game, change, reading, out, name, lexicon, open_turns)
        open_turns = []
        eyes.commit(game.state.board.rows())
    for turn in open_turns:
        if turn.shown is not None:
            out.doubtful.append(f"{turn.name}: {turn.why}, and no photo after it shows the board whole; settled by "
                                "what it shows (a tile under what lay over it is not seen)")
            _turn(game, *turn.shown, out, turn.name, lexicon)
            continue
        out.doubtful.append(f"{turn.name}: {turn.why}, and no photo after it shows the board whole; taken as a pass")
        _pass(game, out)
    out.play_points = list(game.state.scores)
    s = game.state
    if s.going_out is not None and not s.over:
        try:
            game.finish()
        except IllegalEvent as e:
            out.doubtful.append(f"the end of the game could not be settled: {e}")
    return out


@dataclass(frozen=True)
class _Covered:
    """A photo whose turn is left open: its name, the empty squares it saw unchanged, why, and
    (``shown``) the change and reading it showed where only squares hidden on its play's line
    held it up: the last photo is settled by them."""

    name: str
    seen_empty: frozenset[Square]
    why: str
    shown: tuple[BoardChange, BoardReading] | None = None  # the play it shows, where only what lay over held it up


def _off_the_photo(eyes: VisionReader, name: str, out: Rescored) -> None:
    """Say so where the photo just read does not show the whole board: what is played on the
    squares off its edge is not seen (those squares keep what they held)."""
    if eyes.outside:
        from ..vision.geometry import squares_not_shown

        out.doubtful.append(f"{name}: {squares_not_shown(list(eyes.outside), 'photo')}: the board runs off its "
                            "edge there, and a play there is not seen")


def _settle(game: Game, change: BoardChange, reading: BoardReading, out: Rescored, name: str,
            lexicon: Lexicon | None, open_turns: Sequence[_Covered]) -> None:
    """The turn this photo shows, and the turns left open before it (:class:`_Covered`). With one
    open, new tiles all where it saw empty squares were put down after it: it was a pass. Else
    the new tiles hold its play too (the plays are taken in turn); turns no play is found for
    are passes, after the plays."""
    if not open_turns:
        _turn(game, change, reading, out, name, lexicon)
        return
    names = ", ".join(t.name for t in open_turns)
    if len(open_turns) == 1 and set(change.new) <= open_turns[0].seen_empty:
        out.doubtful.append(f"{names}: {open_turns[0].why}, and every new tile in {name} stands where it saw an "
                            "empty square; taken as a pass")
        _pass(game, out)
        _turn(game, change, reading, out, name, lexicon)
        return
    before = len(game.state.moves)
    _turn(game, change, reading, out, name, lexicon)
    short = len(open_turns) + 1 - (len(game.state.moves) - before)
    if short > 0:
        out.doubtful.append(f"{names}: {short} turn{'s' if short > 1 else ''} with no play seen in {name}; "
                            "taken as passes after its plays")
        for _ in range(short):
            _pass(game, out)


def _doubtful_plays(game: Game, change: BoardChange, lexicon: Lexicon | None) -> bool:
    """Whether the new tiles, some of them in doubt, are not one play, nor plays whose words are
    all acceptable: an arm over the board read as tiles beside the game reads so."""
    new = change.new
    if not any(q in new for q in change.doubtful) or lexicon is None:
        return False
    board, tiles = game.state.board, game.rules.tiles
    if is_one_play(board, new, tiles):
        return False
    judge = lambda words: all(w in lexicon for w in words)  # noqa: E731
    return not split_plays(board, new, tiles, judge, feasible=_racks_allow(game))


def _seen_empty(board: Board, reading: BoardReading, doubt_below: float) -> frozenset[Square]:
    """The empty squares of ``board`` that ``reading`` shows empty, surely."""
    return frozenset(q for r in range(board.size) for c in range(board.size)
                     if not board.occupied(q := Square(r, c)) and reading.at(q)[0] == "." and reading.at(q)[1] >= doubt_below)


def _turn_upright(eyes: VisionReader, image: np.ndarray) -> None:
    """The first tiles say which way up the board is (an empty board looks the same all four ways),
    and whether the photos are mirror images; asked of each photo until tiles are sure of both."""
    image = eyes.straightened(image)
    corners = eyes.corners_for(image)
    if corners is None:
        return
    if not np.array_equal(eyes.turn_by_the_tiles(image, corners, eyes.tracker.calibration), corners):
        eyes.reset()  # the next reading reads every square, this way up


def _pass(game: Game, out: Rescored) -> None:
    try:
        game.pass_turn(game.state.turn)
    except IllegalEvent as e:
        out.doubtful.append(f"a pass could not be recorded: {e}")


def _hidden_whole(game: Game, reading: BoardReading, change: BoardChange, doubt_below: float) -> bool:
    """The whole last play gone, and the photo shows tiles joined to no tile on the board even
    as it would stand without that play: an arm over the board hid the play and was read as a
    tile elsewhere. (A play challenged off is taken off, and the next play, if the photo holds
    one too, joins the board as it stands without it.)"""
    s = game.state
    if s.last_play is None or not change.missing:
        return False
    last = {p.square for p in s.last_play.scored.placements}
    if set(change.missing) != last:
        return False
    without = s.board.copy()
    for q in last:
        without[q] = EMPTY
    return bool(_apart(without, compare(without, reading, doubt_below).new))


def _withdraw_if_taken_off(game: Game, change: BoardChange, out: Rescored, name: str, patient: bool = True) -> set[Square]:
    """Tiles of the last play gone from the board: it was challenged off (a phony withdrawn).
    Tiles gone that are not that: hidden (kept as played), returned. Half or more of them gone,
    not all, is a withdrawal with a tile misread only when the photo before was not clear either
    (not ``patient``); else they are taken as hidden, by an arm say, for the next photo to tell."""
    s = game.state
    if not change.missing:
        return set()
    gone = set(change.missing)
    last = {p.square for p in s.last_play.scored.placements} if s.last_play is not None else set()
    if not gone <= last or len(gone) * 2 < len(last) or (patient and gone != last):
        names = ", ".join(str(q) for q in sorted(gone, key=lambda q: (q.row, q.col)))
        out.doubtful.append(f"{name}: tiles already played not seen on {names}; kept as played")
        return gone
    assert s.last_play is not None  # gone is not empty and within its tiles
    player = s.last_play.player
    challenger = next(i for i in range(len(game.players)) if i != player) if len(game.players) == 2 else s.turn
    try:
        game.challenge(challenger, acceptable=False)
    except IllegalEvent as e:
        out.doubtful.append(f"{name}: the tiles of the last play are gone, but it could not be withdrawn: {e}")
        return set()
    for i in range(len(out.plays) - 1, -1, -1):
        if not out.plays[i].withdrawn:
            out.plays[i] = replace(out.plays[i], withdrawn=True)
            break
    if gone != last:
        out.doubtful.append(f"{name}: only some of the last play's tiles are gone; the play was withdrawn")
    return set()


def _turn(game: Game, change: BoardChange, reading: BoardReading, out: Rescored, name: str,
          lexicon: Lexicon | None) -> None:
    """The turn this frame shows: a play from the new tiles (or several, when presses were not
    photographed), or a pass."""
    if not change.new:
        _pass(game, out)
        return
    for q in change.doubtful:
        if q in change.new:
            letter, conf = reading.at(q)
            out.doubtful.append(f"{name}: {q} read as {letter} ({conf:.0%} sure)")
    for part in _plays_in(game.state.board, dict(change.new), game.rules.tiles, lexicon, out, name,
                          _racks_allow(game)):
        _play(game, part, out, name, lexicon)


def _racks_allow(game: Game) -> Callable[[list[int], bool], bool]:
    """Whether the players, taking turns from the one to play, could make plays of these sizes:
    each play from the tiles its player holds, the racks refilled from the bag, and no one out of
    tiles before the last play (the game would be over)."""
    s = game.state
    n = len(s.players)

    def feasible(sizes: list[int], last: bool) -> bool:
        racks, bag = list(s.racks), s.bag
        for i, k in enumerate(sizes):
            p = (s.turn + i) % n
            if k > racks[p]:
                return False
            draw = min(k, bag)
            racks[p] += draw - k
            bag -= draw
            if racks[p] == 0 and bag == 0 and not (last and i == len(sizes) - 1):
                return False
        return True

    return feasible


def _plays_in(board: Board, new: dict[Square, str], tiles: TileSet, lexicon: Lexicon | None, out: Rescored,
              name: str, feasible: Callable[[list[int], bool], bool] | None = None) -> list[dict[Square, str]]:
    """The play or plays that the new tiles of one frame are.

    One play when they can be (a phony is one play too: its words are not judged here). Else, in
    this order: several plays whose words are all acceptable (presses without a photo of their
    own); one play or several with a blank the camera did not see (a plain wooden blank on a
    square of its colour), on an empty square beside the new tiles, whose letter makes the words
    acceptable; several plays whatever their words. Each guess is listed. Failing all, the
    tiles as they are (then not a play: taken as a pass, listed). New tiles joined to no tile on
    the board (nor, on an empty board, to the centre) can be in no play: an arm over the board, a
    mark on it, read as tiles. They are left out, listed, and the rest taken as above."""
    apart = _apart(board, new)
    if apart and len(apart) < len(new):
        names = ", ".join(str(q) for q in sorted(apart, key=lambda q: (q.row, q.col)))
        out.doubtful.append(f"{name}: tiles read on {names}, joined to no tile on the board, are in no play "
                            "(an arm over the board, a mark on it); taken as not there")
        return _plays_in(board, {q: t for q, t in new.items() if q not in apart}, tiles, lexicon, out, name, feasible)
    if is_one_play(board, new, tiles):
        return [new]
    judge = (lambda words: all(w in lexicon for w in words)) if lexicon is not None else None
    parts = split_plays(board, new, tiles, judge, feasible=feasible) if judge is not None else None
    if parts:
        out.doubtful.append(f"{name}: {len(parts)} plays in one frame (a press without a photo of its own); "
                            "taken in the likeliest order, the players taking turns")
        return parts
    if judge is not None and _blanks_left(board, new, tiles) > 0:
        # One play first, then several; the blank as each letter in turn, its words judged.
        beside = [(q, {**new, q: letter.lower()}) for q in _empty_beside(board, new) for letter in tiles.letters]
        for q, with_blank in beside:
            if is_one_play(board, with_blank, tiles, judge):
                out.doubtful.append(f"{name}: a blank tile not seen on {q} makes the new tiles one play; "
                                    f"taken as there, as {with_blank[q].upper()}")
                return [with_blank]
        for q, with_blank in beside:
            parts = split_plays(board, with_blank, tiles, judge, budget=100, feasible=feasible)
            if parts:
                out.doubtful.append(f"{name}: a blank tile not seen on {q} (as {with_blank[q].upper()}) and "
                                    f"{len(parts)} plays in one frame (a press without a photo of its own); "
                                    "taken in the likeliest order")
                return parts
    parts = split_plays(board, new, tiles, feasible=feasible) or split_plays(board, new, tiles)
    if parts:
        out.doubtful.append(f"{name}: {len(parts)} plays in one frame, not all of their words acceptable; "
                            "taken in the order found, the players taking turns")
        return parts
    return [new]


def _on_the_line(board: Board, new: dict[Square, str], covered: set[Square]) -> set[Square]:
    """The squares of ``covered`` (something lies over them: a sheet, a hand, a reflection that
    washes the board out) that may hide a tile of a play whose tiles seen are ``new``: any, where
    no new tile is seen (a whole play may lie under it); else those reached from the new tiles
    along the play's line (its row, its column, either for one tile) through tiles and squares
    covered. A play is one line: a square off it, or beyond a square seen empty, holds none of
    its tiles, and the play is settled (a lamp's reflection on one side of a phone's photo
    leaves a play on the other side whole). New tiles on no one line are several plays (presses
    without a photo), settled as seen, or an arm read as tiles, which leaves the turn open for
    what it is: tiles joined to nothing, or in doubt making no acceptable play; none is named.

    >>> b = Board(); b[Square.parse("H8")] = "A"
    >>> new = {Square.parse("I8"): "T"}
    >>> sorted(map(str, _on_the_line(b, new, {Square.parse(q) for q in ("J8", "K8", "B2", "M8")})))
    ['J8', 'K8']
    """
    if not covered or not new:
        return set(covered)
    rows, cols = {q.row for q in new}, {q.col for q in new}
    steps = ([(0, 1)] if len(rows) == 1 else []) + ([(1, 0)] if len(cols) == 1 else [])
    out: set[Square] = set()
    for dr, dc in steps:
        for sign in (1, -1):
            for q in new:
                n = Square(q.row + sign * dr, q.col + sign * dc)
                while n.on_board(board.size) and (n in new or n in covered or board.occupied(n)):
                    if n in covered:
                        out.add(n)
                    n = Square(n.row + sign * dr, n.col + sign * dc)
    return out


def _apart(board: Board, new: dict[Square, str]) -> set[Square]:
    """The new tiles joined, side by side through new tiles, to no tile already on ``board`` (on
    an empty board, to none on its centre square).

    >>> b = Board(); b[Square.parse("H8")] = "A"
    >>> sorted(map(str, _apart(b, {Square.parse("I8"): "T", Square.parse("J8"): "E", Square.parse("A1"): "?"})))
    ['A1']
    """
    start = board.layout.start
    joined = {q for q in new if (board.is_empty() and q == start) or any(
        (n := Square(q.row + dr, q.col + dc)).on_board(board.size) and board.occupied(n)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))}
    reach = list(joined)
    while reach:
        q = reach.pop()
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            n = Square(q.row + dr, q.col + dc)
            if n in new and n not in joined:
                joined.add(n)
                reach.append(n)
    return set(new) - joined


def _blanks_left(board: Board, new: dict[Square, str], tiles: TileSet) -> int:
    on_board = sum(1 for _, t in board.tiles() if t.islower() or t == "?")
    return tiles.full_bag().get("?", 0) - on_board - sum(t == "?" for t in new.values())


def _empty_beside(board: Board, new: dict[Square, str]) -> list[Square]:
    """Empty squares beside the new tiles (not new themselves), in board order."""
    out = set()
    for q in new:
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            n = Square(q.row + dr, q.col + dc)
            if n.on_board(board.size) and n not in new and not board.occupied(n):
                out.add(n)
    return sorted(out)


def _play(game: Game, new: dict[Square, str], out: Rescored, name: str, lexicon: Lexicon | None) -> None:
    """``new`` as the next player's play; a pass, listed, when the tiles are not one."""
    player = game.state.turn
    board = game.state.board
    letters = _blank_letters(board, new, game.rules.tiles, lexicon, out, name)
    placements = placements_with_letters(new, letters)
    try:
        scored = game.play_tiles(player, placements)
    except (IllegalPlay, IllegalEvent) as e:
        shown = ", ".join(f"{q}={t}" for q, t in sorted(new.items(), key=lambda kv: (kv[0].row, kv[0].col)))
        out.doubtful.append(f"{name}: the tiles read ({shown}) are not a play ({e}); taken as a pass")
        _pass(game, out)
        return
    line = game.state.moves[-1]
    position, _, word = line.text.partition(" ")
    out.plays.append(RescoredPlay(game.players[player], position, word, scored.score, name,
                                  placed=tuple((p.square, p.tile) for p in scored.placements)))


def _blank_letters(board: Board, new: dict[Square, str], tiles: TileSet, lexicon: Lexicon | None,
                   out: Rescored, name: str) -> dict[Square, str]:
    """The letter of each blank tile: the only one the word list allows, else its first, listed."""
    blanks = [q for q, t in new.items() if t == "?"]
    if not blanks:
        return {}
    if lexicon is None:
        out.doubtful.append(f"{name}: a blank on {', '.join(map(str, blanks))} and no word list to tell its "
                            "letter; taken as A")
        return {q: tiles.letters[0] for q in blanks}
    choice = blank_options(board, new, tiles, lambda words: all(w in lexicon for w in words), limit=2)
    if choice.unique is not None:
        return dict(zip(choice.squares, choice.unique))
    if choice.options:
        out.doubtful.append(f"{name}: the blank on {', '.join(map(str, choice.squares))} could be "
                            f"{' or '.join(choice.options)}; taken as {choice.options[0]}")
        return dict(zip(choice.squares, choice.options[0]))
    out.doubtful.append(f"{name}: no letter for the blank on {', '.join(map(str, choice.squares))} makes "
                        f"every word acceptable; taken as {tiles.letters[0]}")
    return {q: tiles.letters[0] for q in choice.squares}


__all__ = ["RescoreError", "Rescored", "RescoredPlay", "rescore"]
