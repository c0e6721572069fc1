"""Squares that do not show the board: something lies over them (the back of a score sheet, a
phone, a hand, the tile bag), or a reflection washes them out.

The tile model, asked about a square under a sheet of paper, still answers: mostly "empty",
so a tile under it was lost without a word (and the sheet's edge could read as a blank beside
it). The board says where it is hidden, two ways at once:

- its lines: between two squares of a board there is a line (printed, or the gap and edges of
  tiles), and under a sheet there is none. How strong the lines are varies from board to board
  (faint on some, blurred in a small photo), so a line counts as gone only where it is much
  fainter than this board's own lines between plain empty squares (:data:`LINELESS`), both in
  log grey levels (a shadow leaves them) and in grey levels (a lamp's reflection, whose light
  is added, leaves them): :class:`Lines`;
- its colours: a square under a cover does not look as its own empty square does (the layout
  says which kind it is, and the squares around what each kind looks like here:
  :mod:`~board_pi.vision.empty`). A white sheet looks like a reflection (both pale, towards
  white), and so does a reflection strong enough to wash the lines out; both are named.

Squares not read as letters (a letter seen is not hidden), joined by sides with no line into
groups of :data:`LEAST` or more, whose colours lie :data:`FAR` from their empty colour, are
hidden. A board whose lines are faint everywhere hides nothing this way (its own lines are the
measure), and neither does a cover with lines of its own (a score sheet face up).

Chosen (2026-12-04) on tuning data only: the 30 real tuning photos (declanfinerty 001-003, the
2015 game up to 170248) as they are, changed as ``bench_conditions`` changes them (dark, gain,
warm and blue casts, motion blur, defocus, JPEG of quality 10, 30% size, overexposed, low
contrast) and with each of :data:`~board_pi.vision.render.COVERS` laid over them
(:func:`~board_pi.vision.render.lay_over`); rendered boards (seeds 46,000,000 on: English with
and without the renderer's hand, 20 of each club edition). Through the code, with the values
chosen, squares named where nothing lay (beside no cover) and squares covered nine tenths or
more that were named:

- real photos: none named as they are, nor changed (0 of 330 photos); under a sheet 289 of 289,
  a phone 373 of 392 (of the rest, 11 on the two faintest photos, whose lines are a third as
  strong as the others', 3 of a phone over 6 squares, and one on each of five photos), a hand
  436 of 438;
- rendered, nothing laid over: 24 squares on 4 of 60 English boards, 5 on 1 of 20 sage and 80 on
  3 of 20 lavender boards, all under the renderer's glare on boards with white lines (lines and
  squares washed to one white), which is named rightly; none on the green and wooden boards.
  The renderer's hands: 1252 of the 2004 squares hidden more than a quarter named (most of the
  rest hidden in part, their sides showing), none beside them.

The grey levels' measure was added on 2026-12-04 (session 47), the values as they were: the real
tuning photos under ``bench_conditions``' streak of a lamp's light (150 levels) had 164 squares
named on 21 of 30 photos, read right all the same (139 on 19 with it; where the light burns the
board white, a blank there is indeed not seen); nothing else above changed but the rendered
boards' figures (33, 82; hands 1256 named, 2 beside none, before).

A reading names them (:attr:`~board_pi.vision.read.Reading.covered`) and reads them as the
model does: nothing read before changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import cv2
import numpy as np

from board_pi.vision.empty import GLARE, SURE_LETTER, EmptyLook, middle_lab, square_colours, washed_distance
from board_pi.vision.geometry import PREMIUM_KINDS

N = 15

REACH = 9
"""How far (pixels of the rectified board, either side of the line between two squares) a line's
profile is taken: the line, and the squares' own colour on each side of it."""
INSET = 6
"""Pixels left out at each end of the side two squares share: the corners, where four squares meet."""
LOG_FLOOR = 32.0
"""Added to the grey levels before their log (:func:`line_strengths`): a shadow halving the light
still leaves a line nearly as strong (a line of 120 on squares of 180: 0.33, in the shadow 0.28),
while the sensor's noise on a dark cover (a phone, levels 10-40) does not pass for lines. With 8,
a phone's sides measured 0.04-0.1 on a real tuning photo whose lines were 0.23, and 335 of 392
squares under phones on the real tuning photos were named; with 32, 373 (sheets and hands as
before; nothing more named where nothing lay, on the photos or the rendered boards)."""


def line_strengths(grey: np.ndarray, square_px: int, pad: int, linear: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """How much each side two squares share shows (the range of the log grey level across it,
    averaged along it): ``across`` (15, 14), between square (r, c) and (r, c + 1), and ``down``
    (14, 15), between (r, c) and (r + 1, c), of the rectified board's grey image.

    In log levels, so that a shadow over a line leaves it as strong as it was; ``linear``: in
    grey levels instead, so that a lamp's reflection added over it does (:class:`Lines`)."""
    g = grey.astype(np.float32) if linear else np.log(grey.astype(np.float32) + LOG_FLOOR)
    a, b = INSET, square_px - INSET
    across = np.empty((N, N - 1), np.float32)
    down = np.empty((N - 1, N), np.float32)
    rows = g[pad:pad + N * square_px]
    cols = g[:, pad:pad + N * square_px]
    for k in range(1, N):
        x = pad + k * square_px
        prof = rows[:, x - REACH:x + REACH + 1].reshape(N, square_px, -1)[:, a:b].mean(axis=1)
        across[:, k - 1] = prof.max(axis=1) - prof.min(axis=1)
        y = pad + k * square_px
        prof = cols[y - REACH:y + REACH + 1].reshape(-1, N, square_px)[:, :, a:b].mean(axis=2)
        down[k - 1] = prof.max(axis=0) - prof.min(axis=0)
    return across, down


@dataclass(frozen=True)
class Lines:
    """Each side's strength (:func:`line_strengths`) two ways: in log levels (``across``,
    ``down``), which a shadow leaves as they were, and in grey levels (``across_linear``,
    ``down_linear``), which a lamp's reflection leaves as they were (its light is added: a line
    120 levels darker than its squares is still 120 darker under it, until the picture burns to
    white). A side shows no line only where both say so: under a sheet, a phone or a hand."""

    across: np.ndarray
    down: np.ndarray
    across_linear: np.ndarray
    down_linear: np.ndarray

    @classmethod
    def of(cls, grey: np.ndarray, square_px: int, pad: int) -> "Lines":
        """The sides of the rectified board's grey image ``grey``."""
        return cls(*line_strengths(grey, square_px, pad), *line_strengths(grey, square_px, pad, linear=True))


LINELESS = 0.3
"""A side two squares share shows no line where it is fainter than this share of the median line
between two plain squares read empty on the same board (:func:`line_strengths`). On the first
trial's figures (the same sets, the covers pasted as :func:`~board_pi.vision.render.lay_over`
lays them, 1101 squares under them): 0.4 found 1050 against 1025 and named 4 squares on a
rendered board with nothing over it."""
FAR = 2.0
"""How far (spreads, the median over the group) the squares of a group must lie from what they
look like empty, as the squares around the group show it (:class:`~board_pi.vision.empty.EmptyLook`,
the group left out, so that a cover does not pass for the light there; a wash towards white, as
a reflection gives, costs what it costs a blank against an empty square). On the first trial's
figures: 1.5 named 18 squares on a rendered board with nothing over it, 3 found 874 of the 1101
covered squares against 1025."""
STRONG_LINES = 0.8
"""A board whose median line (:func:`line_strengths`, log grey levels) is this strong or more has
dark lines on pale squares (or the reverse), which only a reflection that burns the picture to
white can wash out: there a group need lie only :data:`FAR_ON_STRONG` from its empty colour. The
real tuning photos' lines: 0.08-0.33 (the 2015 game, declanfinerty 001), 1.60 and 2.12
(declanfinerty 002 and 003); a white sheet over 002 lay 1.98 from its cream squares."""
FAR_ON_STRONG = 1.0
""":data:`FAR` on a board with strong lines (:data:`STRONG_LINES`). With it, the real tuning
photos' sheets were all named (273 of 289 before); the rendered boards named what they named
without it. Named with no colour asked at all, a wooden board's blank beside two empty squares
was taken (0.5 from its empty colour)."""
LEAST = 3
"""The fewest squares in a hidden group: a blank tile's face alone joins no square."""
LEAST_LINES = 10
"""The fewest sides between two plain squares read empty that the board's own lines are judged by;
fewer (a board full of tiles), and nothing is said to be hidden."""


def hidden_squares(warped: np.ndarray, letters: np.ndarray, sure: np.ndarray, empty: np.ndarray,
                   square_px: int, pad: int, unseen: np.ndarray | None = None,
                   before: Lines | None = None,
                   seen: EmptyLook | None = None) -> list[tuple[int, int]]:
    """The squares of the rectified board ``warped`` that something lies over, row by row.

    ``letters``: (15, 15) bool, the squares read as letters (a letter is seen, so nothing hides
    it); ``sure``: those read surely (:data:`~board_pi.vision.empty.SURE_LETTER`); ``empty``:
    the squares read empty; ``unseen``: squares not to judge (off the picture's edge), when
    given. Squares not read as letters joined by sides with no line (:data:`LINELESS`) into
    groups of :data:`LEAST` or more, whose colours lie :data:`FAR` (:data:`FAR_ON_STRONG` on a
    board of :data:`STRONG_LINES`) from their empty colour as the squares around each group show
    it, are hidden.

    ``before``: each side's strengths (:class:`Lines`) in a frame of the same board from
    the same camera when nothing lay over it (a table's last board agreed): a side then shows no
    line where it is fainter than :data:`LINELESS` of its own strength in that frame, rather than
    of the board's median, so that a line a lamp's reflection washes out at that table (in both
    frames) is no cover, and the board's own lines are the measure however few of them show.

    ``seen``: every square's colour on the empty board (a table's calibration frame,
    :meth:`~board_pi.vision.empty.EmptyLook.from_frame`), the colours judged against it as this
    frame's light shows it (:meth:`~board_pi.vision.empty.EmptyLook.seen_in`) instead of against
    the squares around: a reflection at that table is in it already, and no wash is allowed.
    :data:`FAR` was not chosen for it; at ``bench_table``'s 22 calibrated tables every first play
    was read as before (2026-12-04), none held up by squares named.
    """
    lines = Lines.of(cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY), square_px, pad)
    plain = empty & (PREMIUM_KINDS == 0)
    plain_across, plain_down = plain[:, :-1] & plain[:, 1:], plain[:-1] & plain[1:]
    own = np.concatenate([lines.across[plain_across], lines.down[plain_down]])
    open_ = ~letters if unseen is None else ~letters & ~unseen
    if before is not None:
        ref = before
    elif len(own) >= LEAST_LINES:
        own_linear = np.concatenate([lines.across_linear[plain_across], lines.down_linear[plain_down]])
        log_line, linear_line = float(np.median(own)), float(np.median(own_linear))
        ref = Lines(*(np.full(a.shape, v, np.float32) for a, v in
                      ((lines.across, log_line), (lines.down, log_line),
                       (lines.across_linear, linear_line), (lines.down_linear, linear_line))))
    else:
        return []
    # No line in either measure: a shadow dims a line's grey levels, a reflection its log levels.
    join_across = ((lines.across < LINELESS * ref.across) & (lines.across_linear < LINELESS * ref.across_linear)
                   & open_[:, :-1] & open_[:, 1:])
    join_down = ((lines.down < LINELESS * ref.down) & (lines.down_linear < LINELESS * ref.down_linear)
                 & open_[:-1] & open_[1:])
    groups = [g for g in _groups(join_across, join_down) if len(g) >= LEAST]
    if not groups:
        return []
    apart = np.zeros((N, N), bool)
    for g in groups:
        apart[tuple(np.array(g).T)] = True
    colours = square_colours(middle_lab(warped, square_px, pad))
    if seen is not None:
        now = seen.seen_in(colours, sure | apart, ~letters & ~apart)
        far = np.sqrt(washed_distance(colours, now.colour, now.spread, 0.0))
    else:
        look = EmptyLook.from_photo(colours, sure | apart, unlettered=~letters & ~apart)
        if look.unlit is None or look.glare is None:
            return []
        # The group's own light is not known from the squares around it, as a lone square's is.
        spread = look.spread if look.curve_spread is None else look.curve_spread
        far = np.sqrt(washed_distance(colours, look.unlit, spread, GLARE, look.glare))
    least = FAR_ON_STRONG if len(own) >= LEAST_LINES and float(np.median(own)) >= STRONG_LINES else FAR
    return sorted(sq for g in groups if _far(far, g, least) for sq in g)


def hidden_in_reading(warped: np.ndarray, cells: Sequence[Sequence[str]], conf: np.ndarray,
                      unseen: Iterable[tuple[int, int]], square_px: int, pad: int,
                      before: Lines | None = None,
                      seen: EmptyLook | None = None) -> tuple[tuple[int, int], ...]:
    """:func:`hidden_squares` of a reading: ``cells`` (15 rows of 15 squares: ``.`` empty,
    ``?`` a blank, else a tile's letter), ``conf`` its belief in each, ``unseen`` the squares
    not to judge (off the picture's edge)."""
    letters = np.array([[t not in (".", "?") for t in row] for row in cells])
    empty = np.array([[t == "." for t in row] for row in cells])
    off = np.zeros((N, N), bool)
    for r, c in unseen:
        off[r, c] = True
    return tuple(hidden_squares(warped, letters, letters & (conf >= SURE_LETTER), empty & ~off, square_px, pad,
                                unseen=off, before=before, seen=seen))


def _far(far: np.ndarray, group: list[tuple[int, int]], least: float) -> bool:
    """Whether a group's squares lie, by their median, ``least`` spreads or more from their empty
    colour (``far``); an empty colour unknown (a kind with too few empty squares to tell) counts
    as far."""
    d = far[tuple(np.array(group).T)]
    return bool(np.all(np.isnan(d)) or np.nanmedian(d) >= least)


def _groups(join_across: np.ndarray, join_down: np.ndarray) -> list[list[tuple[int, int]]]:
    """The squares joined by sides (``join_across`` (15, 14), ``join_down`` (14, 15)) in groups
    of two or more, each row by row."""
    seen = np.zeros((N, N), bool)
    out = []
    for r0 in range(N):
        for c0 in range(N):
            if seen[r0, c0]:
                continue
            seen[r0, c0] = True
            group, todo = [], [(r0, c0)]
            while todo:
                r, c = todo.pop()
                group.append((r, c))
                sides = ((r, c + 1, c < N - 1 and join_across[r, c]), (r, c - 1, c > 0 and join_across[r, c - 1]),
                         (r + 1, c, r < N - 1 and join_down[r, c]), (r - 1, c, r > 0 and join_down[r - 1, c]))
                for rr, cc, joined in sides:
                    if joined and not seen[rr, cc]:
                        seen[rr, cc] = True
                        todo.append((rr, cc))
            if len(group) > 1:
                out.append(sorted(group))
    return out
