"""The board finder's tuning numbers, named and explained in one place.

Every threshold the finder uses is here, on one frozen value, :data:`TUNING`; the stages take
it as an argument (``tuning=``) so an experiment can try other values without editing code.
Lengths are in units of one square's side (or of the step between square centres) unless
the name says pixels; they were set on drawn and rendered boards and the tuning photos
(TEAM.md), and the benchmarks (``benchmarks/bench_locate.py``) print what they give.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FinderTuning:
    """The finder's numbers. Defaults are the tuned values; see each field's comment."""

    # -- working resolution
    least_side: int = 30
    """An image whose shorter side has fewer pixels than this is not looked at: 15 squares with
    a line between each need two pixels a square. (Enlarged for a far look, a photo of 2x2
    pixels was sharpened with a blur of 1,300 pixels and took four minutes to give up on.)"""
    work_sides: tuple[int, ...] = (640, 1024)
    """Longest side (pixels) of the copies the lattice is looked for in, tried in turn."""
    larger_try_above: float = 1.2
    """A larger working copy is tried only for images this much larger than the failed one."""
    larger_retry_share: float = 0.3
    """A grid found with fewer of its squares seen than this share is looked for in the larger
    copy too (a lattice seen in part may be fitted askew); the one holding more squares is kept."""
    far_side: int = 2048
    """Longest side of one more copy (the image itself when smaller), looked in when the board
    may stand small in a photo (``find_board(..., far=True)``: a phone's photo of the whole
    table, where a board a fifth of the frame's height leaves squares of 10 pixels at 1024).
    Not for a table's frames, followed one after another: there a frame with no board in it is
    given up on quickly.
    A photo whose far copy is well under this (``larger_try_above``: of 1280 pixels, looked at
    as it is, or a small photo enlarged to ``far_small_side``) is then looked at enlarged to it
    too, where no grid was seen in the far copy: a board a fifth of a 1280-pixel photo's height
    leaves squares of 10 or 11 pixels, too small to come out between lines the threshold
    thickens. The 30 tuning photos on a table three times their size, brought back to their
    size: 17 found before 2026-12-03, 28 with it (30 with ``soft_sharpen`` after it); twice
    their size and seen at a slant (the top edge 44% shorter): 21 and 30; the same grainy (noise
    of 12 grey levels): 26 and 28. That copy is looked at in grey and saturation only (29 found
    three times as far with every look, but a photo with no board took twice as long to give up
    on)."""
    far_from_px: int = 1200
    """That copy is made at ``far_side`` of images at least this long: of a 1280-pixel photo it is
    the photo itself (squares of 16 pixels there were 13 at 1024, too few with the threshold's
    neighbourhood of the other copies). The 30 tuning photos (1280 pixels, or 2500 and more)
    each put in the middle of a table twice their size and brought back to 1280 pixels: 18
    found at 1600, 30 at 1200; seen at a slant, the top edge 60% shorter: 27 and 30."""
    far_large_side: int = 3072
    """A photo larger than ``far_side`` (by ``larger_try_above``: 2560 pixels, a camera of 20
    megapixels decoded at half its size) whose far copy shows no grid is then looked at itself,
    brought down to this if larger: a board a sixth of its height has squares of 13 pixels at
    2048, 16 in the photo. The tuning photos on a table four times their size, as ``board-pi
    read`` decodes that (2560 pixels): 20 of 30 found at 2048 alone, 27 with the photo itself."""
    far_small_side: int = 1280
    """Of a smaller photo the far copy is the photo enlarged to this. Until 2026-12-03 it had
    none (seen whole at 1024 already, it was thought), and a small board in a small photo was
    not found: the 27 tuning photos with corners labelled, brought down to 800 pixels and put
    on a table twice their size (brought back to 800), 13 found; enlarged to 1000, 1200 and 1280
    pixels, 25, 25 and 27 (at 1024 pixels: 25, then 27 at 1280)."""
    far_threshold_block_fraction: float = 1 / 120
    """The local threshold's neighbourhood in that copy, as a fraction of its longest side: as
    large in pixels as at 1024 (``threshold_block_fraction``), since the board's squares there
    are as small as a board's filling the frame at 640 or 1024, not larger with the copy. At
    the same fraction as the other copies, 5 of the 30 tuning photos put three times as far
    were not found (at 1/90, 2); drawn boards whose squares are 12 pixels in the photo are
    found less often at 1/120 (2 of 6, against 4 of 6 at 1/60): the real photos decided."""

    # -- squares between the grid lines
    line_contrast: int = 6
    """Grey levels a grid line must differ from its surroundings by (the local threshold)."""
    faint_line_contrast: int = 3
    """The same for a second look when no grid is found at ``line_contrast``."""
    clahe_clip: float = 3.0
    """Contrast limit of the local equalisation tried last, when no grid shows at either contrast."""
    clahe_tiles: int = 8
    """Tiles per side of that equalisation."""
    threshold_block_fraction: float = 1 / 60
    """The local threshold's neighbourhood, as a fraction of the working image's longest side."""
    min_square_area_px: float = 30.0
    """Smallest area (working pixels) of an outline that may be a square."""
    max_square_area_fraction: float = 1 / 180
    """Largest area of an outline that may be a square, as a fraction of the working image."""
    max_perimeter_ratio: float = 5.2
    """Perimeter / sqrt(area) above which an outline is too ragged to be a square (a square is 4)."""
    polygon_tolerances: tuple[float, ...] = (0.04, 0.07, 0.1)
    """Tolerances (fractions of the perimeter) tried in turn to reduce an outline to four corners."""
    max_side_ratio: float = 2.5
    """Longest side / shortest side above which a four-sided outline is no square, however seen."""

    # -- the lattice
    min_squares: int = 30
    """Squares that must sit on the lattice before a grid is trusted."""
    neighbours: int = 25
    """Nearest outlines considered as each square's neighbours."""
    seed_walks: int = 6
    """Seeds tried for the walk from square to square."""
    seed_walk_enough: int = 60
    """A walk that labels this many squares ends the search for a better seed."""
    faint_min_walk: int = 8
    """Squares a walk must label before the global fit, on a board whose lines are faint."""
    predict_radius: float = 0.28
    """How far (in steps) a square may sit from where the walk predicts its neighbour."""
    size_ratio: tuple[float, float] = (0.65, 1.55)
    """Range of a neighbour's size relative to the square walked from."""
    step_follow_within: float = 0.12
    """A walked step this close (in steps) to the predicted one updates the step, half way."""
    align_cos: float = 0.9
    """Cosine at which a square's sides count as running along the lattice's steps (about 25 deg)."""
    side_in_step: tuple[float, float] = (0.45, 1.25)
    """Range of a square's side relative to the step along it (two touching tiles are too long)."""
    thick_line_side: float = 0.3
    """The least side (in steps) of a square tried last, when no grid shows otherwise: pale lines
    between near-white squares pass the faint threshold only thickened, shrinking the squares
    between them (tiles lettered light on dark plastic, where few empty squares show)."""
    broken_line_erode_px: int = 7
    """Pixels (a square's side) the lines are thickened by in the last look, when no grid shows
    otherwise: thin faint lines, blurred, pass the threshold only in dashes, and the squares run
    into each other through the gaps (3 in every other look)."""
    fit_inlier_px: float = 0.2
    """RANSAC's inlier distance for the lattice's homography, in median square sizes."""
    pickup_residual: float = 0.22
    """How near a lattice centre (in steps) a square the walk missed must sit to be picked up."""
    pickup_size_ratio: tuple[float, float] = (0.6, 1.6)
    """Range of a picked-up square's size relative to the median square."""
    fit_rounds: int = 8
    """Rounds of fitting the homography and picking up missed squares."""

    # -- which 15x15 window is the grid
    window_premium_weight: float = 0.5
    """Weight of the premium layout's match against the share of squares found in the window."""
    window_frame_weight: float = 0.6
    """Weight of how evenly coloured the squares just outside the window are (the frame is)."""
    window_kinds_weight: float = 4.0
    """Weight of how well the squares' colours gather by their kind in the layout (each premium
    and the plain squares): what places the window when tiles outshine the premiums or a hand
    crosses the frame."""
    window_visible_weight: float = 0.2
    """Weight of how much of the window lies in the frame."""
    confident_share: float = 0.5
    """Share of the grid's squares seen at which the grid is called certain (confidence 1)."""
    max_outside: float = 1.5
    """How far (in squares) the grid may reach out of the frame before it is refused."""

    # -- the board's outline, where no grid line shows (:mod:`.outline`)
    outline_canny: tuple[int, int] = (20, 60)
    """Canny's two thresholds for the edges of each colour channel the outline is looked for in."""
    outline_min_length: float = 0.3
    """Shortest edge (a share of the working image's shorter side) that may be one of the outline's."""
    outline_merge: float = 0.01
    """Edges this near (a share of the shorter side) and within 2 degrees are one line."""
    outline_angle_tolerance: float = 25.0
    """Degrees an edge may lie off the board's two directions (perspective)."""
    outline_directions: int = 3
    """Directions (each with the one at a right angle to it) taken from the longest edges in turn."""
    outline_lines: int = 6
    """Longest edges of each direction tried in pairs."""
    outline_insets: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
    """Margins (squares) between an outline and the grid tried."""
    outline_weighed: int = 8
    """Candidates, the best screened, whose match with the premium layout is weighed in full."""
    outline_min_match: float = 0.05
    """The least a candidate's squares must gather better by kind in the layout than in the layout
    moved a square (:func:`.outline.premium_match`) to be taken for the grid; its lines must also
    be found where it puts them (:func:`.refine.snap_to_lines`)."""
    outline_confidence: float = 0.3
    """The confidence of a grid found from its outline: none of its squares were seen as such."""

    # -- a soft photo (out of focus, shaken)
    soft_sharpen: tuple[float, float] = (2.0, 3.0)
    """Sigma (pixels of the photo) and amount of the unsharp mask a photo looked at far, not
    grainy, and with no grid found in any copy, is sharpened by before it is looked at once more
    in its last far copy: a board small in a soft photo (out of focus, shaken) has lines a pixel or
    two wide blurred into the squares beside them. Chosen on the 30 tuning photos on a table twice
    their size, brought back to their size, then blurred by 2 pixels: 10 found before 2026-12-03,
    27 now (23 at sigma 1.5, amount 3, or sigma 3, amount 2; sigma 2.5 or amount 5 as 2 and 3).
    In the copies before the last as well, none more were found. It also finds the last of the
    tuning photos three and four times as far (28 and 27 of 30 without it, 30 with it), and seen
    at a slant (the top edge 60% shorter) twice as far, 21 -> 27."""

    # -- a grainy frame (a dim room's camera with its gain turned up)
    grainy_noise: float = 3.0
    """The sensor's noise (grey levels, in the last of ``work_sides``:
    :func:`~board_pi.vision.frames.grain`) above which a frame where no lattice was found is
    looked in again softened (``grainy_blurs``) before its outline is tried. The 30 tuning photos
    measure 0.5 to 1.7 there (3.0 brought down to 640 pixels first); darkened to 0.7 with noise
    of 12, 20, 28 and 36 grey levels added, a median of 3.7, 5.9, 8.2 and 10.1 (the photos of
    2500 pixels and more 1.0 to 2.2: brought down to 1024, little of their noise is left).
    Below it a frame is not softened, so a frame with no board is given up on as quickly."""
    grainy_blurs: tuple[float, ...] = (1.0, 1.6)
    """Gaussian blurs (pixels of the working copy) tried in turn on a grainy frame. Of the 27
    tuning photos with corners labelled, darkened and with noise of 36 grey levels, the lattice
    was found in 14 unsoftened; a blur of 1.0 found 7 more, and 1.3 the same 7 less one plus
    another; with noise of 44, 1.0 found 2 of 20 missed, 1.3 five. Every grid found so lay
    within 0.06 of a square of the labelled corners (one 0.14)."""
    grainy_far_blurs: tuple[float, ...] = (1.0,)
    """Then, for a photo whose board may stand small (``find_board(..., far=True)``), the same in
    the far copy (``far_side``, looked at as there). The 27 tuning photos on a table twice their
    size, brought back to their own size, with noise of 12 and 20: softened at 1024, no lattice
    found in any; in the far copy, 14 and 13 with a blur of 1.0, none with 1.6 or more."""

    # -- snapping to the lines at full resolution
    refine_square_px: int = 20
    """Pixels per square of the rectified view the lines are snapped in."""
    refine_search: float = 1 / 3
    """How far (in squares) each line is looked for either side of where it was."""
    refine_pieces: int = 5
    """Pieces each line is cut into, each snapped on its own (perspective and a warped board)."""
    refine_peak: float = 1.5
    """A line's peak must stand this many times above its profile's median to count."""
    refine_min_points: int = 40
    """Pieces of line that must be found for a refinement to be tried."""
    refine_min_inliers: int = 30
    """Pieces that must agree with the refined grid for it to be kept."""
    refine_inlier: float = 0.15
    """RANSAC's inlier distance for the refinement, in squares."""
    refine_max_move: float = 0.35
    """A refinement moving a corner further than this (in squares) found something else: dropped."""

    # -- snapping corners given by hand (``calibrate --corners``) to the lines
    hand_search: tuple[float, ...] = (0.45, 0.3, 0.2)
    """How far (squares) each line is looked for either side of where the last round put it,
    round by round (the last repeated): first as far as a hand is off, then nearer, so that once
    the grid is near its lines the edges of the tiles beside them no longer pull it away. Looking
    0.45 every round snapped 12 of 30 rendered boards with tiles and 25 of 30 tuning photos, their
    corners moved up to 0.3; this, 19 and 29, none put further off (0.45, 0.25, 0.15: 19 and 30,
    but 16 of 30 rendered boards with corners 0.4 off, against 19)."""
    hand_rounds: int = 4
    """Rounds of :func:`.refine.snap_hand_corners`, each looking where the last put the lines."""
    hand_settled: float = 0.05
    """A round moving no corner further than this (squares) ends the snapping; a last round
    moving one further leaves the hand's corners as they were (the lines disagree). Rounds on
    real tuning photos settle within 0.02-0.05 of a square (their boards are not flat)."""
    hand_agree: float = 0.9
    """The share of the lines' crossings that must lie on the grid snapped to, else the hand's
    corners are kept."""
    hand_min_lines: int = 8
    """Lines each way that must be fitted (each through three of its pieces or more)."""
    hand_max_move: float = 0.6
    """Corners snapped further than this (squares) from the hand's are some other lines: not kept."""

    # -- which way up, from the tiles' point values
    orientation_square_px: int = 32
    """Pixels per square of the rectified view the tiles' marks are looked for in."""
    orientation_min_votes: int = 2
    """Fewer letter-and-digit votes than this and the turn is undecided (confidence 0)."""
    orientation_full_votes: int = 6
    """Votes at which agreement alone decides the confidence (fewer weaken it)."""


TUNING = FinderTuning()
"""The finder's tuned numbers."""
