"""The table's eyes: frames from a camera, the board found in them, and the squares read.

:class:`VisionReader` joins the vision stages for the table: it finds the grid (automatically,
or from a saved calibration), rectifies it, and reads only the squares that look different from
the last committed board; the rest keep their committed reading. Vision is imported only here,
so the rules and the table's logic run without OpenCV.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..rules.board import split_row
from .reading import BoardReading

if TYPE_CHECKING:  # the vision stage is imported when a frame is read
    from ..vision.cover import Lines

N = 15
log = logging.getLogger(__name__)

INK_FLOOR = 32.0
"""Grey levels below which the change in log grey levels (``ink_ratio_threshold``) is taken at
this level: below it, the log measures mostly the sensor's noise in the dark."""


@dataclass
class ReaderStats:
    frames: int = 0
    located: int = 0  # frames whose grid was found automatically
    fallback: int = 0  # frames read with the saved calibration instead
    squares_read: int = 0


class VisionReader:
    """Frame -> :class:`BoardReading`, reading only changed squares.

    ``locate(frame)`` returns the grid's 4 corners (TL, TR, BR, BL) or None (without it, and
    without a ``tracker``, the board is found in every frame: :func:`default_locator`); ``calibration()``
    gives saved corners for when locating fails (a fixed installation); ``change_threshold`` is
    the mean grey-level difference (0-255) at which a square counts as changed, and
    ``colour_threshold`` the mean difference in colour (CIELAB a* and b*, summed) at which it does:
    a pale tile on a square as light as it (a blank on a lavender square) changes its colour more
    than its grey. ``ink_threshold`` is the grey-level difference that a tenth of a square's middle
    must exceed for it to count as changed: under glare a tile's face looks much like the square,
    and only its letter's ink shows the change. ``ink_ratio_threshold`` is the same tenth's
    difference in log grey levels that counts too (0.5: 1.65 times as bright or dark): a shadow
    lying over both frames (a body's, over a phone's photos taken from the same side) shrinks
    every grey-level difference with its light, and leaves a ratio as it was. Where new tiles
    are read in one line, the squares that would join or extend it are read as well
    (:func:`line_squares`): a blank on a square of nearly its colour may pass every threshold.
    """

    def __init__(self, reader: Any | None = None,
                 locate: Callable[[np.ndarray], np.ndarray | None] | None = None,
                 calibration: Callable[[], np.ndarray | None] | None = None,
                 tracker: Any | None = None, change_threshold: float = 12.0,
                 colour_threshold: float = 12.0, ink_threshold: float = 35.0,
                 ink_ratio_threshold: float = 0.5,
                 memory: Any | None = None, tell: Callable[[str], None] | None = None) -> None:
        if reader is None:
            from ..vision.read import Reader
            reader = Reader()
        self.reader = reader
        # What the table has learnt of its own tiles (a vision.learn.TableMemory), read beside
        # the enrolled profile; every committed board teaches it the squares that changed.
        self.memory = memory
        if memory is not None:
            reader.memory = memory.profile()
        self.tracker = tracker  # a vision.calibration.Tracker: a fixed camera's saved view, kept true
        if locate is None and tracker is None:
            # Our own finder, given the last frame's corners too (see default_locator).
            own = default_locator()
            locate = None if own is None else (lambda frame: own(frame, self.last_corners))
        self.locate = locate
        self.calibration = calibration
        self.change_threshold = change_threshold
        self.colour_threshold = colour_threshold
        self.ink_threshold = ink_threshold
        self.ink_ratio_threshold = ink_ratio_threshold
        self.stats = ReaderStats()
        # The tile model serves one caller at a time: a reading, or learning from the last play.
        self._using = threading.Lock()
        self._seen: tuple[np.ndarray, np.ndarray, list[tuple[int, int]]] | None = None
        self._to_learn: tuple[Any, list[list[str]]] | None = None
        self._ref_look: np.ndarray | None = None
        self._ref_grid: list[list[str]] | None = None
        self._ref_conf: np.ndarray | None = None
        self.last_corners: np.ndarray | None = None
        # Squares the last frame the board was seen in did not show (the board running off its
        # edge): their committed tiles stand, and what is played on them is not seen.
        self.outside: tuple[tuple[int, int], ...] = ()
        # Squares the last frame read showed hidden: something lying over them, their lines
        # gone since the last board committed (vision.cover.hidden_squares); what was committed
        # there stands in the reading, and what is played on them is not seen.
        self.covered: tuple[tuple[int, int], ...] = ()
        self._ref_lines: Lines | None = None
        # Where what the camera shows is worth the players' and the director's knowing (the
        # board running off the frame, a picture flipped): the table's page, when wired to it
        # (``Table.tell``), as well as the log.
        self.tell = tell
        # Whether tiles have said surely which way round the board lies (see
        # _turn_by_the_first_tiles), the tiles the last frame showed, and the last asked of.
        self._turn_settled = False
        self._first_tiles: frozenset[tuple[int, int]] | None = None
        self._asked: frozenset[tuple[int, int]] | None = None

    def corners_for(self, frame: np.ndarray) -> np.ndarray | None:
        """The grid's corners in this frame (:meth:`straightened` already), upright order; None
        when the board cannot be seen."""
        self.stats.frames += 1
        corners: np.ndarray | None = None
        if self.tracker is not None:
            moves, before = self.tracker.moves, self.tracker.calibration
            loc = self.tracker.update(frame)
            if loc is None:
                return None  # hidden (an arm over the board) or gone: wait for a clear frame
            corners = np.asarray(loc.corners, np.float32).reshape(4, 2)
            if self.tracker.moves != moves:
                corners = self._orient(frame, corners, before)
        elif self.locate is not None:
            found = self.locate(frame)
            if found is not None:
                corners = _closest_turn(np.asarray(found, np.float32).reshape(4, 2), self.last_corners)
        if corners is not None:
            self.stats.located += 1
            return corners
        if self.calibration is not None:
            cal = self.calibration()
            if cal is not None:
                self.stats.fallback += 1
                return np.asarray(cal, np.float32).reshape(4, 2)
        return None

    def _orient(self, frame: np.ndarray, corners: np.ndarray, before: Any) -> np.ndarray:
        """The tracker says the board moved and found it again: where, and which way round?

        The tiles already committed say so. The grid found, in each of its four turns, and the
        grid as it was are read on the committed squares only; whichever reads them back best
        wins and the tracker keeps it. So a false alarm (light or tiles changing what the check
        sees) keeps the old grid, and an empty board's undecidable turn is settled by the tiles
        once there are some. A turn must read more than half the committed tiles back: when they
        were taken away (a play withdrawn), a sideways letter read right by chance is no turn.
        """
        from dataclasses import replace

        from ..vision.calibration import held_to
        from ..vision.locate import nearest_turn

        placed = [] if self._ref_grid is None else [(r, c) for r in range(N) for c in range(N) if self._ref_grid[r][c] != "."]
        if len(placed) < 3:
            return self.turn_by_the_tiles(frame, corners, before)
        placed = placed[:40]

        def agreement(c: np.ndarray) -> int:
            reading = self.reader.read(frame, c, squares=placed, look_again=False)
            cells = [split_row(row) for row in reading.grid]
            return sum(cells[r][q] == self._ref_grid[r][q] for r, q in placed)

        old = np.asarray(before.corners, np.float32).reshape(4, 2)
        at_old = agreement(old)
        candidates = [np.roll(corners, -k, axis=0).astype(np.float32) for k in range(4)]
        # Where the old grid reads every tile back no candidate can do better: not read.
        scores = [agreement(c) for c in candidates] if at_old < len(placed) else [at_old] * 4
        k = int(np.argmax(scores))
        if 2 * scores[k] <= len(placed):
            # The tiles cannot tell (a play withdrawn and its tiles taken away, another laid over
            # them): one sideways letter read as the right one by chance must not turn the board
            # a quarter. A board the tiles do not say was turned was at most nudged.
            k = nearest_turn(corners, old)
        if at_old >= scores[k]:
            # It had not moved: the tiles put down since fooled the check. Later frames are held
            # to this one, or each would raise the same alarm (and a search, and these reads).
            self.tracker.keep(held_to(before, frame, self.tracker.covered))
            return old
        cal = self.tracker.calibration
        if k:  # saved too: after a restart the first frames are read the right way round
            self.tracker.keep(replace(cal, corners=candidates[k], rotation=(cal.rotation + 90 * k) % 360,
                                      empty=None if cal.empty is None else cal.empty.turned(k)))
        return candidates[k]

    def turn_by_the_tiles(self, frame: np.ndarray, corners: np.ndarray, before: Any, sure: bool = False,
                          tiles: np.ndarray | None = None) -> np.ndarray:
        """Which way round the board whose grid has ``corners`` lies, where too few tiles are
        committed to say (a table started on a board with tiles on it, tiles down before the first
        press, a rescore's first play): the tiles on it now say, read at all four turns and in the
        mirror (:meth:`~board_pi.vision.read.Reader.read_upright`); where they cannot tell, it
        keeps the turn nearest ``before``'s (a calibration: at most nudged; None: ``corners``' own).
        Not the finder's own claim from the tiles' point values, which is wrong far more often.

        A turn is kept in the tracker, and so are corners taken the other way round, where the
        tiles say the camera's picture is a mirror image of the board
        (:attr:`~board_pi.vision.read.Turn.mirrored`); with no tracker, the next frame's grid is
        taken the way round nearest this one's (:func:`_closest_turn`). ``tiles`` (15 x 15, True
        where a tile stands, as read through ``corners``), when known, are not read again
        (:meth:`~board_pi.vision.read.Reader.which_way_up`). ``sure``: only a turn the tiles are
        sure of (:attr:`~board_pi.vision.read.Turn.sure`: not in doubt, and clear whether the
        picture is a mirror image). Tiles sure of it settle the table's turn
        (:attr:`turn_settled`), whoever asked."""
        from dataclasses import replace

        from ..vision.geometry import other_way_round
        from ..vision.locate import nearest_turn

        cal = self.tracker.calibration if self.tracker is not None else None
        k = 0 if before is None else nearest_turn(corners, np.asarray(before.corners, np.float32).reshape(4, 2))
        out = np.roll(corners, -k, axis=0).astype(np.float32)
        read_upright = getattr(self.reader, "read_upright", None)
        which_way_up = getattr(self.reader, "which_way_up", None)
        empty = None if cal is None or cal.empty is None else cal.empty.turned(k)
        if callable(read_upright):
            if tiles is not None and callable(which_way_up):
                turn = which_way_up(frame, out, np.rot90(np.asarray(tiles, bool), k))
            else:
                turn = getattr(read_upright(frame, out), "turn", None)
            known = turn is not None and getattr(turn, "sure", turn.decided and not getattr(turn, "in_doubt", False))
            if known:
                self._turn_settled = True  # (a turn sure of itself, and of any mirror, is not asked again)
            if turn is not None and turn.decided and (known or not sure):
                if getattr(turn, "mirrored", False):
                    # The camera's picture is a mirror image: the grid taken the other way round
                    # reads the right way round, here and (kept) at every later frame.
                    out = other_way_round(out)
                    empty = None if empty is None else empty.mirrored()
                    self._note("the camera's picture is a mirror image of the board (set to flip it?): it is "
                               "read the right way round; set the camera not to flip its picture")
                k = (k + turn.degrees // 90) % 4
                out = np.roll(out, -(turn.degrees // 90), axis=0).astype(np.float32)
                empty = None if empty is None else empty.turned(turn.degrees // 90)
        if cal is not None and not np.array_equal(out, corners):
            # The empty board's look goes with its squares (seen through the old corners).
            self.tracker.keep(replace(cal, corners=out, rotation=(cal.rotation + 90 * k) % 360, empty=empty))
        return out

    @staticmethod
    def _look(w: np.ndarray) -> np.ndarray:
        """The board as compared between frames: (rows, columns, 4) of grey, a*, b* and the log
        of the grey (floored at :data:`INK_FLOOR`), from the board rectified
        (:func:`~board_pi.vision.read.rectified`), each less its mean over the board, so that a
        global change (the light at the table, the camera's white balance) does not count. Made
        once a frame: the committed frame's is kept as it is."""
        import cv2

        from ..vision.read import SQUARE_PX

        pad = (w.shape[0] - N * SQUARE_PX) // 2
        w = w[pad:pad + N * SQUARE_PX, pad:pad + N * SQUARE_PX]
        g = cv2.cvtColor(w, cv2.COLOR_BGR2GRAY)
        ab = cv2.cvtColor(w, cv2.COLOR_BGR2LAB)[:, :, 1:]
        shade = cv2.log(np.maximum(g.astype(np.float32), np.float32(INK_FLOOR)))
        look = cv2.GaussianBlur(np.dstack([g, ab, shade]).astype(np.float32), (3, 3), 0)
        return look - np.float32(cv2.mean(look))  # (OpenCV's mean: numpy's over two axes is slow)

    def changed_squares(self, look: np.ndarray) -> list[tuple[int, int]]:
        """Squares whose picture differs from the last committed frame's: in grey, in colour, or in
        ink (by grey levels, or by their ratio)."""
        import cv2

        if self._ref_look is None:
            return [(r, c) for r in range(N) for c in range(N)]
        px = look.shape[0] // N
        # (OpenCV's means: numpy's over these axes took 16 ms a frame, a tenth of a read.)
        d = cv2.absdiff(look, self._ref_look)[:px * N, :px * N]
        cells = cv2.resize(d, (N, N), interpolation=cv2.INTER_AREA)  # each square's mean, exactly
        squares = d.reshape(N, px, N, px, 4)
        m = px // 5  # the middle: the neighbours' edges and shadows left out
        middle = squares[:, m:px - m, :, m:px - m, ::3].transpose(0, 2, 4, 1, 3).reshape(N, N, 2, -1)
        tenth = int(0.9 * middle.shape[3])  # the tenth of the middle that differs most starts here
        ink = np.partition(middle, tenth, axis=3)[..., tenth]  # (grey levels, log grey levels)
        changed = ((cells[..., 0] > self.change_threshold) | (cells[..., 1:3].sum(axis=2) > self.colour_threshold)
                   | (ink[..., 0] > self.ink_threshold) | (ink[..., 1] > self.ink_ratio_threshold))
        return [(int(r), int(c)) for r, c in zip(*np.nonzero(changed))]

    def read(self, frame: np.ndarray) -> BoardReading | None:
        with self._using:
            return self._read(frame)

    @property
    def looked_at(self) -> list[tuple[int, int]]:
        """(row, col) of the squares the last reading read: those whose look changed since the
        last commit, and those completing a line of new tiles. Empty once committed."""
        return list(self._seen[2]) if self._seen is not None else []

    def straightened(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the calibration sees it: straightened by the camera lens's bend where the
        calibration measured one (:mod:`~board_pi.vision.lens`), else as it is. The corners the
        table finds, and the frames it reads, are the straightened frame's."""
        cal = getattr(self.tracker, "calibration", None)
        if cal is None or not getattr(cal, "bend", 0.0):
            return frame
        return cal.lens.straighten(frame)

    def _read(self, frame: np.ndarray) -> BoardReading | None:
        frame = self.straightened(frame)
        corners = self.corners_for(frame)
        if corners is None:
            return None
        reading = self._read_at(frame, corners)
        turned = self._turn_by_the_first_tiles(frame, corners, reading)
        if turned is not None:
            self.reset()  # the empty board's look was taken through the old corners: all read again
            reading = self._read_at(frame, turned)
        return reading

    @property
    def turn_settled(self) -> bool:
        """Whether tiles have said, surely, which way round the board lies and whether the
        camera's picture is a mirror image (:meth:`turn_by_the_tiles`)."""
        return self._turn_settled

    def _note(self, text: str) -> None:
        """Say ``text`` in the log, and on the table's page where :attr:`tell` is wired to it."""
        log.warning("%s", text)
        if self.tell is not None:
            self.tell(text)

    def _turn_by_the_first_tiles(self, frame: np.ndarray, corners: np.ndarray,
                                 reading: BoardReading) -> np.ndarray | None:
        """The grid's corners taken another way round, where the first tiles on the board say
        so; else None. A table is calibrated on the empty board, whose pattern is the same all
        four ways and in a mirror: the turn it was given (``calibrate --rotation``, or the
        finder's guess; with no calibration, the first frame's guess) may be wrong, and a camera
        may flip its picture. So when the board shows as many tiles as it takes to tell
        (:attr:`Reader.TURN_TILES <board_pi.vision.read.Reader.TURN_TILES>`), the same in two
        frames in a row (not an arm passing over it), the tiles are read at every turn and in the
        mirror (:meth:`turn_by_the_tiles`), once for each such set, and a turn or mirror they are
        sure of is kept (in the tracker, saved; with none, in the last frame's corners). Where
        they are in doubt of the turn, or cannot tell a mirror image (a first play of letters
        alike mirrored), the turn the table had stands, and the next tiles seen still are asked,
        until some are sure (:attr:`~board_pi.vision.read.Turn.sure`)."""
        if (self.tracker is None and self.locate is None) or self._turn_settled:
            return None
        want = int(getattr(self.reader, "TURN_TILES", 3))
        tiles = frozenset((r, c) for r, row in enumerate(reading.grid) for c, t in enumerate(split_row(row)) if t != ".")
        if len(tiles) < want or tiles != self._first_tiles:
            self._first_tiles = tiles if len(tiles) >= want else None
            return None
        if tiles == self._asked:
            return None  # asked of these tiles already: the next play's may say more
        self._asked = tiles
        placed = np.zeros((N, N), bool)
        for r, c in tiles:
            placed[r, c] = True
        cal = self.tracker.calibration if self.tracker is not None else None
        turned = self.turn_by_the_tiles(frame, corners, cal, sure=True, tiles=placed)
        if np.array_equal(turned, corners):
            return None
        from ..vision.geometry import mirrored

        if mirrored(turned) == mirrored(corners):  # (a mirror is said where it is found)
            self._note("the first tiles say the board lies otherwise than it was taken to: it is read "
                       "their way round from now on")
        return turned

    def _read_at(self, frame: np.ndarray, corners: np.ndarray) -> BoardReading:
        from ..vision.geometry import squares_not_shown, squares_outside
        from ..vision.read import rectified

        self.last_corners = corners
        outside = tuple(squares_outside(corners, (frame.shape[1], frame.shape[0])))
        if outside != self.outside:  # said once, when it starts (or changes), not at every frame
            self.outside = outside
            if outside:
                self._note(f"{squares_not_shown(list(outside), 'camera')}: the board runs off the frame there, "
                           "and a play on them is not seen; aim the camera at the whole board")
        warped = rectified(frame, corners)  # made once: compared with the last frame's, and read
        look = self._look(warped)
        # Off the frame's edge (a camera knocked, the board slid): not seen, so not read as
        # changed; what was committed there stays (an empty square there would withdraw a play).
        off = set(outside)
        squares = [sq for sq in self.changed_squares(look) if sq not in off]
        self.stats.squares_read += len(squares)
        # The committed tiles count against the tile set (no third blank, no second Z), and the
        # calibration frame of the empty board says what each square looks like empty.
        committed = [_row_text(r) for r in self._ref_grid] if self._ref_grid else None
        empty = getattr(getattr(self.tracker, "calibration", None), "empty", None)
        reading = (self.reader.read(frame, corners, squares=squares, committed=committed, empty=empty, played=True,
                                    warped=warped) if squares else None)
        grid = [list(r) for r in self._ref_grid] if self._ref_grid else [["."] * N for _ in range(N)]
        conf = self._ref_conf.copy() if self._ref_conf is not None else np.ones((N, N), np.float32)
        if reading is not None:  # the reader has already looked again at squares it doubted
            seen = [split_row(row) for row in reading.grid]
            for r, c in squares:
                grid[r][c] = seen[r][c]
                conf[r, c] = reading.confidence[r, c]
            # A blank on a square of nearly its colour may change the picture too little to be
            # seen as a change; a play is one line, so where new tiles were read, the squares
            # that would join or extend their line are read too (with the new tiles as committed).
            looked = set(squares)
            also = [sq for sq in line_squares(self._ref_grid, grid) if sq not in looked and sq not in off]
            if also:
                # Read beside them again, the squares of this reading read empty in doubt: a tile
                # whose only neighbour was such a blank was read as a lone tile, and so as empty.
                near = {(r + dr, c + dc) for r, c in also for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
                again = [sq for sq in squares if sq in near and grid[sq[0]][sq[1]] == "."
                         and conf[sq] < self.reader.SURE]
                more = self.reader.read(frame, corners, squares=also + again, committed=[_row_text(r) for r in grid],
                                        empty=empty, played=True, warped=warped)
                seen = [split_row(row) for row in more.grid]
                for r, c in also + again:
                    grid[r][c] = seen[r][c]
                    conf[r, c] = more.confidence[r, c]
                squares = squares + also
        lines = self._covered(warped, grid, conf, off)
        self._pending = (look, grid, conf, lines)
        self._seen = (frame, corners, squares)  # what the next commit may learn from
        return BoardReading(tuple(_row_text(r) for r in grid),
                            tuple(tuple(float(v) for v in row) for row in conf))

    def _covered(self, warped: np.ndarray, grid: list[list[str]], conf: np.ndarray,
                 off: set[tuple[int, int]]) -> Lines:
        """Set :attr:`covered` from the frame just read (``warped``, its squares ``grid`` and
        ``conf`` as the reading has them, ``off`` the squares off the frame): its sides judged
        against their own strength in the last frame committed; before the first commit, against
        the board's own lines, with the calibration's empty board for the colours.
        Returns this frame's sides' strengths, the next commit's to judge by."""
        import cv2

        from ..vision.cover import Lines, hidden_in_reading
        from ..vision.read import PAD, SQUARE_PX

        lines = Lines.of(cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY), SQUARE_PX, PAD)
        if self._ref_lines is not None:
            self.covered = hidden_in_reading(warped, grid, conf, off, SQUARE_PX, PAD, before=self._ref_lines)
            return lines
        # Nothing committed yet (the first play): the board's own lines are the measure, and the
        # calibration frame of the empty board says what each square looks like at this table
        # (its reflections too); with no calibration, nothing is named.
        empty = getattr(getattr(self.tracker, "calibration", None), "empty", None)
        self.covered = () if empty is None else hidden_in_reading(warped, grid, conf, off, SQUARE_PX, PAD, seen=empty)
        return lines

    def commit(self, rows: Sequence[str]) -> None:
        """The board is now ``rows`` (as committed): compare later frames with the last one read.

        The committed rows, not the reading, become the reference, so a correction made on the
        page sticks and an old tile is never read again unless its square changes.
        """
        pending = getattr(self, "_pending", None)
        if pending is not None:
            look, _, conf, lines = pending
            grid = [split_row(r) for r in board_rows(rows)]
            self._ref_look, self._ref_grid, self._ref_conf, self._ref_lines = look, grid, conf, lines
            if self.tracker is not None:  # the check leaves the tiles out: they hide the lines
                self.tracker.covered = np.array([[t != "." for t in row] for row in grid])
            # Learnt by learn(), once the score is shown: the squares the last reading looked
            # at, as this board has them (a correction made since is what is learnt).
            seen, self._seen = self._seen, None
            if self.memory is not None:
                self._to_learn = (seen or (self._to_learn[0] if self._to_learn else None), grid)

    def learn(self) -> None:
        """The squares the last reading looked at are now what the players let stand: learn them
        (the tile model's embeddings of them, as :mod:`~board_pi.vision.learn` keeps them)."""
        with self._using:
            to_learn, self._to_learn = self._to_learn, None
            if self.memory is None or to_learn is None or to_learn[0] is None:
                return
            from ..vision.learn import learn_squares

            (frame, corners, squares), grid = to_learn
            try:
                if learn_squares(self.reader, self.memory, frame, corners, squares, grid):
                    self.reader.memory = self.memory.profile()
                    self.memory.save_behind()  # not on a press's time: the disk may stall
            except (OSError, ValueError) as e:  # a full disk, another model: the reading goes on as it was
                log.warning("the table's tiles were not learnt from this play: %s", e)

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for what was learnt to be on the disk; False if not yet."""
        return True if self.memory is None else bool(self.memory.flush(timeout))

    def reset(self) -> None:
        self._ref_look = self._ref_grid = self._ref_conf = self._ref_lines = None
        self.covered = ()
        if self.tracker is not None:
            self.tracker.covered = None


def line_squares(before: Sequence[Sequence[str]] | None, after: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    """The empty squares of ``before`` that would join or extend the line of the tiles new in
    ``after`` (15 x 15 cells each): the gaps between them and the first empty square beyond each
    end, past the tiles already there; along both lines for a single new tile. Nothing when the
    new tiles are not in one line (that is no play to complete: a hand over the board, say).

    >>> before = [["."] * 15 for _ in range(15)]; before[7][7] = "A"
    >>> after = [row[:] for row in before]; after[7][8] = "T"; after[7][10] = "S"
    >>> line_squares(before, after)
    [(7, 9), (7, 6), (7, 11)]
    """
    old = before if before is not None else [["."] * N for _ in range(N)]
    new = [(r, c) for r in range(N) for c in range(N) if after[r][c] != "." and old[r][c] == "."]
    rows, cols = {r for r, _ in new}, {c for _, c in new}
    if not new or (len(rows) > 1 and len(cols) > 1):
        return []
    out: list[tuple[int, int]] = []
    for dr, dc in ((0, 1), (1, 0)):
        if (dr == 0 and len(rows) > 1) or (dc == 0 and len(cols) > 1):
            continue  # the line runs the other way
        line = sorted(new)
        (r0, c0), (r1, c1) = line[0], line[-1]
        gaps = [(r0 + k * dr, c0 + k * dc) for k in range(1, max(r1 - r0, c1 - c0))]
        out += [sq for sq in gaps if after[sq[0]][sq[1]] == "."]
        for (r, c), step in (((r0, c0), -1), ((r1, c1), 1)):
            r, c = r + step * dr, c + step * dc
            while 0 <= r < N and 0 <= c < N and after[r][c] != ".":
                r, c = r + step * dr, c + step * dc
            if 0 <= r < N and 0 <= c < N:
                out.append((r, c))
    return list(dict.fromkeys(out))


def _closest_turn(corners: np.ndarray, previous: np.ndarray | None) -> np.ndarray:
    """The corners in the cyclic order that keeps A1 nearest where it was (an empty board's
    pattern is the same in all four turns, so the last frame decides), and going round the
    picture the same way (a camera whose picture is a mirror image: ``geometry.handed_as``)."""
    from ..vision.geometry import handed_as
    from ..vision.locate import nearest_turn

    if previous is None:
        return corners
    corners = handed_as(corners, previous)
    return np.roll(corners, -nearest_turn(corners, previous), axis=0)


def default_locator() -> Callable[..., np.ndarray | None] | None:
    """The automatic board finder, if the vision stage that finds boards is installed:
    ``locate(frame, previous=None)``, the grid's corners in upright order or None.

    Given the last frame's corners (``previous``), the turn is the one nearest them, as
    :func:`_closest_turn` would take it anyway, so the tiles' point values are not read for it:
    the same corners, a few milliseconds sooner on every frame. Without them (the first frame)
    the tiles tell the turn.
    """
    try:
        from ..vision.locate import find_board, locate_grid
    except ImportError:
        return None

    def locate(frame: np.ndarray, previous: np.ndarray | None = None) -> np.ndarray | None:
        if previous is not None:
            got = locate_grid(frame)
            return None if got is None else _closest_turn(got[0], previous)
        found = find_board(frame)
        return None if found is None else found.corners

    return locate


def board_rows(rows: Sequence[str]) -> list[str]:
    """Board rows as the camera sees them: a blank is a tile with no letter ('?')."""
    return [_row_text("?" if c.islower() else c for c in split_row(r)) for r in rows]


def _row_text(cells: Any) -> str:
    return "".join(f"[{c}]" if len(c) > 1 else c for c in cells)
