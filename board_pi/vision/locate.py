"""Finding the 15x15 playing grid in a photo, and rectifying it to a top-down image.

The locator is classical OpenCV, no learning:

1. On a copy scaled to 640 px (1024 px if that finds nothing), the grid lines are picked out by
   a local threshold, once for boards with dark lines and once for boards with light lines; what
   is left between them are the squares (empty squares, premium squares and tiles alike), found
   as small four-sided contours.
2. A lattice is grown from a well-surrounded square to its neighbours, each step predicted from
   the step walked to get there, so perspective is followed without a global model; a
   homography from lattice to image is then fitted to the square centres and extended a square
   at a time to the squares the walk missed.
3. Which 15x15 window of the lattice is the playing grid: the one holding the most squares found,
   and, where a hand or tiles hide an edge, the one whose colourful squares best match the premium
   layout (which is the same on every edition, whatever its colours).
4. The grid lines are then snapped to, on the full-resolution image, piece by piece.
5. Which way up: the premium layout is 8-fold symmetric, so the board's own pattern cannot say.
   The tiles can: a tile's point value is printed small at the bottom right of its letter, so
   every letter with a digit diagonally beside it votes for a turn. With no tiles on the board
   the turn is undecidable; ``orientation_confidence`` is then 0 and the read stage (or a saved
   calibration) decides.

>>> import numpy as np
>>> find_board(np.zeros((480, 640, 3), np.uint8)) is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from board_pi.rules.board import STANDARD, Premium, Square
from board_pi.vision.frames import as_bgr

GRID = 15
FAINT = 3  # grey levels: the fainter grid lines looked for when none are found at 6
WORK_SIDES = (640, 1024)  # the locator's working resolutions (longest side, pixels), tried in turn
MIN_SQUARES = 30  # fewer squares found than this and we do not trust a grid

# The premium layout as a 15x15 mask, for deciding which window of the lattice is the grid.
_PREMIUM_MASK = np.array(
    [[STANDARD.premium(Square(r, c)) is not Premium.NONE for c in range(GRID)] for r in range(GRID)],
    dtype=np.float32,
)


@dataclass(frozen=True, eq=False)
class BoardLocation:
    """Where the playing grid is in an image.

    ``corners``: 4x2 float32, the outer corners of the 15x15 grid (the centre lines of the outer
    grid lines) in image pixels, ordered top-left, top-right, bottom-right, bottom-left as the
    board is seen upright, so ``corners[0]`` is the outer corner of square A1.
    ``rotation``: how the board is turned in the image, clockwise degrees (0, 90, 180, 270): at 90
    square A1 appears at the image's top right.
    ``confidence``: 0..1, how sure the grid is where it says (squares found, fit of the lattice).
    ``orientation_confidence``: 0..1, how sure the turn is; 0 when nothing on the board tells
    (an empty board), and the read stage should then try the four turns or keep the last one.
    """

    corners: np.ndarray
    confidence: float
    rotation: int
    orientation_confidence: float = 0.0

    def rotated(self, quarter_turns: int) -> "BoardLocation":
        """The same grid with the board turned a further ``quarter_turns`` x 90 degrees clockwise."""
        k = quarter_turns % 4
        return BoardLocation(
            corners=np.roll(self.corners, -k, axis=0).astype(np.float32),
            confidence=self.confidence,
            rotation=(self.rotation + 90 * k) % 360,
            orientation_confidence=self.orientation_confidence,
        )


def warp_board(image: np.ndarray, corners: np.ndarray, square_px: int = 64, margin: float = 0.0) -> np.ndarray:
    """Rectify the grid to a top-down image, row 1 at the top, column A at the left.

    ``corners`` as in :class:`BoardLocation`. ``margin`` is a fraction of one square added on
    every side (0.5 adds half a square), so tiles that overhang the outer squares are not cut;
    the result is ``15 * square_px + 2 * round(margin * square_px)`` pixels square, and square
    (row, col) starts at ``(m + row * square_px, m + col * square_px)`` with ``m`` that margin.
    """
    if square_px < 1:
        raise ValueError("square_px must be at least 1")
    if margin < 0:
        raise ValueError("margin must not be negative")
    m = int(round(margin * square_px))
    side = GRID * square_px + 2 * m
    src = np.asarray(corners, np.float32).reshape(4, 2)
    g = float(GRID * square_px)
    dst = np.array([[m, m], [m + g, m], [m + g, m + g], [m, m + g]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, H, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


# --------------------------------------------------------------------------- squares


@dataclass(frozen=True, eq=False)
class _Quads:
    """Four-sided contours that may be squares: centres (N,2), corners (N,4,2), sizes (N,)."""

    centres: np.ndarray
    corners: np.ndarray
    sizes: np.ndarray
    axes: np.ndarray  # (N, 2, 2): the two side vectors of each quad


def _cell_masks(gray: np.ndarray, contrast: int = 6) -> list[np.ndarray]:
    """Masks of what lies between grid lines, for dark lines and for light lines: a line is
    ``contrast`` grey levels darker (lighter) than its surroundings."""
    side = max(gray.shape)
    block = max(11, int(side / 60) | 1)
    g = cv2.GaussianBlur(gray, (3, 3), 0)
    kernel = np.ones((3, 3), np.uint8)
    return [
        # Dark lines: keep what is not clearly darker than its surroundings.
        cv2.erode(cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, contrast), kernel),
        # Light lines: keep what is not clearly lighter than its surroundings.
        cv2.erode(cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, -contrast), kernel),
    ]


def _find_quads(gray: np.ndarray, contrast: int = 6) -> _Quads:
    h, w = gray.shape
    min_area = 30.0
    max_area = h * w / 180.0
    corners: list[list[list[int]]] = []
    for mask in _cell_masks(gray, contrast):
        # All outlines: a square's is the outer border of a white blob; the holes' borders
        # (letters on tiles, the grid's outline) are sorted out by shape below.
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if len(c) < 4:
                continue
            area_c = cv2.contourArea(c)
            if area_c < min_area or area_c > max_area:
                continue
            peri = cv2.arcLength(c, True)
            # A square's perimeter is 4*sqrt(area); letters and clutter are far more ragged.
            if peri > 5.2 * math.sqrt(area_c):
                continue
            pts = None
            for eps in (0.04, 0.07, 0.1):
                approx = cv2.approxPolyDP(c, eps * peri, True)
                if len(approx) == 4:
                    pts = approx.reshape(4, 2).tolist()
                    break
            if pts is None:
                continue
            # Plain Python from here: four points are too few for numpy to pay off.
            (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
            crosses = [
                (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1),
                (x2 - x1) * (y3 - y2) - (y2 - y1) * (x3 - x2),
                (x3 - x2) * (y0 - y3) - (y3 - y2) * (x0 - x3),
                (x0 - x3) * (y1 - y0) - (y0 - y3) * (x1 - x0),
            ]
            if not (all(v > 0 for v in crosses) or all(v < 0 for v in crosses)):
                continue  # not convex
            shoelace = (x0 * y1 - y0 * x1) + (x1 * y2 - y1 * x2) + (x2 * y3 - y2 * x3) + (x3 * y0 - y3 * x0)
            qa = abs(shoelace) / 2
            if qa <= 0 or not 0.8 < area_c / qa < 1.2:
                continue
            sides = (math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1), math.hypot(x3 - x2, y3 - y2), math.hypot(x0 - x3, y0 - y3))
            if max(sides) > 2.5 * min(sides):
                continue
            # Clockwise on screen (y down): positive shoelace area.
            if shoelace < 0:
                pts = pts[::-1]
            corners.append(pts)
    if not corners:
        z = np.zeros((0, 2), np.float32)
        return _Quads(z, np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros((0, 2, 2), np.float32))
    Q = np.array(corners, np.float32)
    C = Q.mean(axis=1)
    a = ((Q[:, 1] - Q[:, 0]) + (Q[:, 2] - Q[:, 3])) / 2
    b = ((Q[:, 3] - Q[:, 0]) + (Q[:, 2] - Q[:, 1])) / 2
    sizes = np.sqrt(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    return _Quads(C, Q, sizes, np.stack([a, b], axis=1))


# --------------------------------------------------------------------------- lattice

_STEPS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1),
                   (2, 0), (-2, 0), (0, 2), (0, -2)], np.float32)


def _aligned(axes: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """For each pair, whether a quad's sides run along the reference steps and fit inside them.

    ``axes`` and ``ref`` are (n, 2, 2). The sides may match either way round, within about 25
    degrees (small squares' outlines are only a few pixels long). Each side must be shorter than
    the step along it, and not much shorter: two tiles that touch make one long blob, which
    would otherwise sit half a square off the lattice.
    """
    na = np.linalg.norm(axes, axis=2) + 1e-9
    nr = np.linalg.norm(ref, axis=2) + 1e-9
    cos = np.abs(np.einsum("nid,njd->nij", axes, ref)) / (na[:, :, None] * nr[:, None, :])
    straight = np.minimum(cos[:, 0, 0], cos[:, 1, 1])
    crossed = np.minimum(cos[:, 1, 0], cos[:, 0, 1])
    use_straight = straight >= crossed
    len_u = np.where(use_straight, na[:, 0], na[:, 1]) / nr[:, 0]
    len_v = np.where(use_straight, na[:, 1], na[:, 0]) / nr[:, 1]
    fits = (len_u > 0.45) & (len_u < 1.25) & (len_v > 0.45) & (len_v < 1.25)
    return (np.maximum(straight, crossed) > 0.9) & fits


def _seed_pitch(quads: _Quads, seed: int, neighbours: np.ndarray) -> np.ndarray:
    """The seed's two steps to its neighbours' centres (a square's inside is smaller than its step)."""
    C = quads.centres
    out = []
    for ax in quads.axes[seed]:
        n = float(np.linalg.norm(ax)) + 1e-9
        u = ax / n
        d = C[neighbours[seed]] - C[seed]
        along = d @ u
        across = np.abs(d @ np.array([-u[1], u[0]], np.float32))
        ok = (np.abs(along) > 0.8 * n) & (np.abs(along) < 1.7 * n) & (across < 0.3 * n)
        if ok.any():
            k = int(np.argmin(np.where(ok, np.abs(along), np.inf)))
            out.append(d[k] * np.sign(along[k]))
        else:
            out.append(ax * 1.15)
    return np.array(out, np.float32)


def _grow(quads: _Quads, seed: int, neighbours: np.ndarray) -> dict[int, tuple[int, int]]:
    """Label quads with lattice coordinates, walking from the seed to matching neighbours.

    Each labelled square carries its two steps to its neighbours, taken from the step actually
    walked, so perspective is followed across the board without a global model. The walk goes
    in waves, the whole frontier at once, to keep the work in numpy.
    """
    C, S, A = quads.centres, quads.sizes, quads.axes
    n = len(C)
    pitch = np.zeros((n, 2, 2), np.float32)
    pitch[seed] = _seed_pitch(quads, seed, neighbours)
    labels: dict[int, tuple[int, int]] = {seed: (0, 0)}
    labelled = np.zeros(n, bool)
    labelled[seed] = True
    taken: set[tuple[int, int]] = {(0, 0)}
    steps_i = _STEPS.astype(np.int64)
    frontier = [seed]
    while frontier:
        F = np.array(frontier, np.int64)
        P = pitch[F]  # (k, 2, 2)
        preds = C[F][:, None, :] + np.einsum("sd,kde->kse", _STEPS, P)  # (k, 12, 2)
        cand = neighbours[F]  # (k, m)
        D = np.linalg.norm(C[cand][:, None, :, :] - preds[:, :, None, :], axis=3)  # (k, 12, m)
        ks = D.argmin(axis=2)
        dmin = np.take_along_axis(D, ks[:, :, None], axis=2)[:, :, 0]
        step = np.linalg.norm(P, axis=2).mean(axis=1)
        fi, si = np.nonzero(dmin < 0.28 * step[:, None])
        if len(fi) == 0:
            break
        par = F[fi]
        q = cand[fi, ks[fi, si]]
        ratio = S[q] / S[par]
        ok = (ratio > 0.65) & (ratio < 1.55) & ~labelled[q]
        fi, si, par, q = fi[ok], si[ok], par[ok], q[ok]
        ok = _aligned(A[q], pitch[par])
        fi, si, par, q = fi[ok], si[ok], par[ok], q[ok]
        # Each square once, from the parent that predicted it best.
        order = np.argsort(dmin[fi, si], kind="stable")
        _, first = np.unique(q[order], return_index=True)
        order = order[np.sort(first)]
        frontier = []
        for t in order.tolist():
            qq, pp = int(q[t]), int(par[t])
            di, dj = int(steps_i[si[t], 0]), int(steps_i[si[t], 1])
            i, j = labels[pp]
            lab = (i + di, j + dj)
            if lab in taken:
                continue
            Pq = pitch[pp].copy()
            # Follow the step actually walked, half way, and only when it is close to the
            # expected one: an off-centre tile must not shrink or bend the step for all after it.
            if (dj == 0 and abs(di) == 1) or (di == 0 and abs(dj) == 1):
                a = 0 if dj == 0 else 1
                sign = di if a == 0 else dj
                wx = (float(C[qq, 0]) - float(C[pp, 0])) * sign
                wy = (float(C[qq, 1]) - float(C[pp, 1])) * sign
                px, py = float(Pq[a, 0]), float(Pq[a, 1])
                if math.hypot(wx - px, wy - py) < 0.12 * math.hypot(px, py):
                    Pq[a] = (0.5 * (px + wx), 0.5 * (py + wy))
            pitch[qq] = Pq
            labels[qq] = lab
            labelled[qq] = True
            taken.add(lab)
            frontier.append(qq)
    return labels


def _lattice(quads: _Quads, min_walk: int = MIN_SQUARES // 2) -> tuple[dict[int, tuple[int, int]], np.ndarray] | None:
    """The largest lattice of quads and its homography from lattice to (working) image.

    The walk from square to neighbouring square must label ``min_walk`` quads before the global
    fit extends it; still ``MIN_SQUARES`` must sit on the lattice in the end.
    """
    n = len(quads.centres)
    if n < MIN_SQUARES:
        return None
    C = quads.centres
    d2 = ((C[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    k = min(25, n)
    neighbours = np.argpartition(d2, k - 1, axis=1)[:, :k]
    # A good seed has four neighbours at one side's distance: a square among squares.
    S = quads.sizes
    dist = np.sqrt(np.take_along_axis(d2, neighbours, axis=1))
    near = ((dist > 0.8 * S[:, None]) & (dist < 1.6 * S[:, None])).sum(1)
    order = np.argsort(-near, kind="stable")
    best: dict[int, tuple[int, int]] = {}
    tried: set[int] = set()
    attempts = 0
    for seed in order.tolist():
        if seed in tried:
            continue
        attempts += 1
        labels = _grow(quads, seed, neighbours)
        tried.update(labels)
        if len(labels) > len(best):
            best = labels
        if len(best) >= 60 or attempts >= 6:
            break
    # A walk broken up by unseen squares (dim light, a crowded board) can still seed the global
    # fit below, which then extends the lattice a square at a time.
    if len(best) < min_walk:
        return None
    H = None
    for _ in range(8):
        idx = np.array(list(best), np.int64)
        lat = np.array([best[i] for i in idx], np.float32) + 0.5
        H, inl = cv2.findHomography(lat, C[idx], cv2.RANSAC, 0.2 * float(np.median(S[idx])))
        if H is None:
            return None
        inl = inl.ravel().astype(bool)
        best = {int(i): best[int(i)] for i in idx[inl]}
        # Pick up squares the walk missed: any quad of the right size sitting on a lattice centre.
        p = cv2.perspectiveTransform(C.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2) - 0.5
        r = np.rint(p)
        res = np.linalg.norm(p - r, axis=1)
        taken = set(best.values())
        med = float(np.median(S[idx[inl]]))
        # Only just beyond the squares already found: far out, clutter can sit on a lattice point.
        lab_now = np.array(list(taken))
        lo_i, lo_j = lab_now.min(axis=0) - 1
        hi_i, hi_j = lab_now.max(axis=0) + 1
        added = 0
        for q in np.argsort(res).tolist():
            if res[q] > 0.22:
                break
            lab = (int(r[q, 0]), int(r[q, 1]))
            if not (lo_i <= lab[0] <= hi_i and lo_j <= lab[1] <= hi_j):
                continue
            if q in best or lab in taken or not 0.6 < S[q] / med < 1.6:
                continue
            best[q] = lab
            taken.add(lab)
            added += 1
        if added == 0:
            break
    if len(best) < MIN_SQUARES:
        return None
    idx = np.array(list(best), np.int64)
    lat = np.array([best[i] for i in idx], np.float32) + 0.5
    H, _ = cv2.findHomography(lat, C[idx], cv2.LMEDS)
    if H is None:
        return None
    return best, H


def _window(labels: dict[int, tuple[int, int]], H: np.ndarray, lab_img: np.ndarray) -> tuple[int, int, float]:
    """The lattice offset (i0, j0) of the 15x15 playing grid, and the share of its squares found."""
    L = np.array(list(labels.values()))
    imin, jmin = L.min(0)
    imax, jmax = L.max(0)

    def offsets(lo: int, hi: int) -> range:
        span = hi - lo + 1
        return range(hi - GRID + 1, lo + 1) if span <= GRID else range(lo, hi - GRID + 2)

    io, jo = offsets(int(imin), int(imax)), offsets(int(jmin), int(jmax))
    # Colour of every lattice square the candidate windows cover, sampled at its centre.
    i_all = np.arange(io.start, io.stop - 1 + GRID)
    j_all = np.arange(jo.start, jo.stop - 1 + GRID)
    gi, gj = np.meshgrid(i_all, j_all, indexing="ij")
    pts = np.stack([gi.ravel() + 0.5, gj.ravel() + 0.5], 1).astype(np.float32)
    img_pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    h, w = lab_img.shape[:2]
    xs = np.clip(np.rint(img_pts[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(img_pts[:, 1]).astype(int), 0, h - 1)
    inside = ((img_pts[:, 0] >= 0) & (img_pts[:, 0] < w) & (img_pts[:, 1] >= 0) & (img_pts[:, 1] < h)).reshape(gi.shape)
    colours = lab_img[ys, xs].astype(np.float32)
    found = np.zeros(gi.shape, np.float32)
    found[L[:, 0] - i_all[0], L[:, 1] - j_all[0]] = 1
    # Premium squares stand out from the plain squares' colour, and are more saturated; the
    # plain colour is the commonest within the span of the squares found (tiles and premiums
    # are a minority there, even when the squares found are mostly premiums, as on a board
    # whose lines cannot be seen).
    span = np.zeros(gi.shape, bool)
    span[imin - i_all[0]:imax - i_all[0] + 1, jmin - j_all[0]:jmax - j_all[0] + 1] = True
    ref = np.median(colours[(span & inside).ravel()], axis=0)
    feat = (np.linalg.norm(colours - ref, axis=1) + np.hypot(colours[:, 1] - 128, colours[:, 2] - 128)).reshape(gi.shape)
    pm = _PREMIUM_MASK - _PREMIUM_MASK.mean()
    pm /= np.linalg.norm(pm)
    best = None
    for i0 in io:
        for j0 in jo:
            a, b = i0 - i_all[0], j0 - j_all[0]
            f = feat[a:a + GRID, b:b + GRID]
            fc = f - f.mean()
            nf = float(np.linalg.norm(fc))
            # The lattice's axes need not be the board's rows and columns, but the premium
            # layout is symmetric under transposition, so the match does not care.
            corr = float((fc * pm).sum()) / nf if nf > 1e-6 else 0.0
            count = float(found[a:a + GRID, b:b + GRID].sum())
            vis = float(inside[a:a + GRID, b:b + GRID].mean())
            score = count / len(L) + 0.5 * corr + 0.2 * vis
            if best is None or score > best[0]:
                best = (score, i0, j0, count)
    assert best is not None
    return best[1], best[2], best[3] / (GRID * GRID)


# --------------------------------------------------------------------------- refinement


def _refine(gray: np.ndarray, corners: np.ndarray, square_px: int = 20) -> np.ndarray:
    """Snap the grid to its lines: each of the 16+16 lines is found in a rectified view, piece by piece."""
    m = square_px
    side = GRID * square_px + 2 * m
    g = float(GRID * square_px)
    dst = np.array([[m, m], [m + g, m], [m + g, m + g], [m, m + g]], np.float32)
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    top = cv2.warpPerspective(gray, H, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    top = top.astype(np.float32)
    bg = cv2.blur(top, (square_px // 2 | 1, square_px // 2 | 1))
    on_idx = np.array([m + k * square_px for k in range(GRID + 1)])
    off_idx = on_idx[:-1] + square_px // 2
    best = None
    for R in (np.maximum(bg - top, 0), np.maximum(top - bg, 0)):
        # The grid's polarity is the one whose response peaks on the predicted lines.
        col = R[m:m + int(g)].mean(axis=0)
        score = float(col[on_idx].mean() - col[off_idx].mean())
        if best is None or score > best[0]:
            best = (score, R)
    assert best is not None
    R = best[1]
    search = square_px // 3
    pieces = 5
    piece = GRID * square_px // pieces
    # Both directions at once: (2 axes, pieces, side) sums of the response along each piece,
    # then each line's profile across it: (2, pieces, 16 lines, window).
    bands = np.stack([R[m:m + pieces * piece].reshape(pieces, piece, side).sum(axis=1),
                      R.T[m:m + pieces * piece].reshape(pieces, piece, side).sum(axis=1)])
    x0 = m + np.arange(GRID + 1) * square_px
    offs = np.arange(-search, search + 1)
    prof = bands[:, :, x0[:, None] + offs]
    t = prof.argmax(axis=3)
    peak = np.take_along_axis(prof, t[..., None], axis=3)[..., 0]
    inside = (t > 0) & (t < len(offs) - 1)
    # A peak must stand out from the profile's own floor to count.
    good = inside & (peak >= 1.5 * np.median(prof, axis=3) + 1e-6)
    tc = np.clip(t, 1, len(offs) - 2)
    a_ = np.take_along_axis(prof, (tc - 1)[..., None], axis=3)[..., 0]
    c_ = np.take_along_axis(prof, (tc + 1)[..., None], axis=3)[..., 0]
    den = a_ - 2 * peak + c_
    sub = np.where(np.abs(den) > 1e-9, 0.5 * (a_ - c_) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0)
    seen_x = x0[None, None, :] + offs[0] + t + sub  # across the line
    along = (m + (np.arange(pieces) + 0.5) * piece)[None, :, None] * np.ones_like(seen_x)
    ideal_x = np.broadcast_to(x0[None, None, :], seen_x.shape).astype(np.float64)
    ideal_pts, seen_pts = [], []
    for axis in (0, 1):
        g_ = good[axis]
        if axis == 0:  # vertical lines: x measured, y along
            ideal_pts.append(np.stack([ideal_x[axis][g_], along[axis][g_]], 1))
            seen_pts.append(np.stack([seen_x[axis][g_], along[axis][g_]], 1))
        else:
            ideal_pts.append(np.stack([along[axis][g_], ideal_x[axis][g_]], 1))
            seen_pts.append(np.stack([along[axis][g_], seen_x[axis][g_]], 1))
    ideal_pts = np.concatenate(ideal_pts).astype(np.float32)
    seen_pts = np.concatenate(seen_pts).astype(np.float32)
    if len(ideal_pts) < 40:
        return corners
    # Each piece measures one coordinate (across its line); the other is taken as it stands,
    # which is right to well within the search window.
    Hc, inl = cv2.findHomography(ideal_pts, seen_pts, cv2.RANSAC, square_px * 0.15)
    if Hc is None or int(inl.sum()) < 30:
        return corners
    in_top = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), Hc).reshape(-1, 2)
    out = cv2.perspectiveTransform(in_top.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    # A refinement that moves a corner by more than a third of a square found something else.
    sq = float(np.linalg.norm(corners[1] - corners[0])) / GRID
    if float(np.linalg.norm(out - corners, axis=1).max()) > 0.35 * sq:
        return corners
    return out.astype(np.float32)


# --------------------------------------------------------------------------- orientation


def _order_clockwise(pts: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting from the corner nearest the image's top-left direction."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # increasing angle is clockwise with y down
    # The top-left corner is the one at -135 degrees from the centre.
    diff = np.abs(((np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]) + 3 * np.pi / 4) + np.pi) % (2 * np.pi) - np.pi)
    start = int(np.argmin(diff))
    return np.roll(pts, -start, axis=0)


def tile_orientation_votes(top: np.ndarray) -> np.ndarray:
    """Votes of the tiles on a rectified board for the four turns (0, 90, 180, 270 clockwise).

    ``top`` is a grey rectified grid (15 squares a side, no margin). A tile's point value is
    printed small beside the bottom right of its letter; in a board turned 90 degrees clockwise
    it shows at the letter's bottom left, and so on. Every letter-sized mark with a digit-sized
    mark diagonally beside it votes for the turn that puts the digit at the bottom right.
    Working from the marks rather than the square keeps this right when tiles sit off-centre or
    lean over in a tilted view.
    """
    n = top.shape[0] / GRID
    g = top.astype(np.float32)
    k = int(n * 0.75) | 1
    bg = cv2.blur(g, (k, k))
    ink = ((g < bg - 35) & (g < 0.7 * bg)).astype(np.uint8)
    count, _, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    big = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]).astype(np.float32)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float32)
    letters = [i for i in range(1, count) if 0.3 * n <= big[i] <= 0.85 * n and area[i] >= 0.02 * n * n]
    digits = np.array([i for i in range(1, count) if 0.1 * n <= big[i] < 0.3 * n and area[i] >= 0.004 * n * n], np.int64)
    votes = np.zeros(4, np.float32)
    if not letters or len(digits) == 0:
        return votes
    dc = cents[digits]
    for i in letters:
        d = dc - cents[i]
        dist = np.hypot(d[:, 0], d[:, 1])
        ok = (dist > 0.22 * n) & (dist < 0.6 * n) & (np.abs(d[:, 0]) > 0.1 * n) & (np.abs(d[:, 1]) > 0.08 * n)
        if not ok.any():
            continue
        k = int(np.argmin(np.where(ok, dist, np.inf)))
        dx, dy = d[k]
        # Digit at the bottom right: upright; bottom left: turned 90; top left: 180; top right: 270.
        turn = (0 if dy > 0 else 3) if dx > 0 else (1 if dy > 0 else 2)
        votes[turn] += 1
    return votes


def _orientation(gray: np.ndarray, canonical: np.ndarray) -> tuple[int, float]:
    top = warp_board(gray, canonical, square_px=32)
    votes = tile_orientation_votes(top)
    total = float(votes.sum())
    if total < 2:
        return 0, 0.0
    k = int(np.argmax(votes))
    second = float(np.sort(votes)[-2])
    conf = (float(votes[k]) - second) / total
    # A couple of votes is weak evidence whatever their agreement.
    conf *= min(1.0, total / 6.0)
    return 90 * k, float(conf)


# --------------------------------------------------------------------------- the locator


def _downscale(image: np.ndarray, side: int) -> np.ndarray:
    """The image with its longest side at most ``side``: halvings first (fast and clean), then a resize."""
    while max(image.shape[:2]) >= 2 * side:
        image = cv2.pyrDown(image)
    h, w = image.shape[:2]
    if max(h, w) > side:
        s = side / max(h, w)
        image = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return image


def _locate_at(bgr: np.ndarray, side: int) -> tuple[np.ndarray, float] | None:
    h, w = bgr.shape[:2]
    small = _downscale(bgr, side)
    sx, sy = small.shape[1] / w, small.shape[0] / h
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    found = _lattice(_find_quads(gray))
    if found is None:
        # Faint lines (white lines between near-white squares): look for fainter lines. Where
        # they cannot be seen at all, the premium squares still can: they lie on the lattice
        # too, a diagonal step or two apart, so a shorter walk among them may seed the fit
        # (which must still end with MIN_SQUARES on the lattice).
        found = _lattice(_find_quads(gray, FAINT), min_walk=8)
    if found is None:
        return None
    labels, H = found
    lab = cv2.cvtColor(cv2.blur(small, (5, 5)), cv2.COLOR_BGR2LAB)
    i0, j0, share = _window(labels, H, lab)
    outer = np.array([[i0, j0], [i0 + GRID, j0], [i0 + GRID, j0 + GRID], [i0, j0 + GRID]], np.float32)
    pts = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), H).reshape(-1, 2)
    pts = (pts / np.array([sx, sy], np.float32)).astype(np.float32)
    if not cv2.isContourConvex(pts.reshape(-1, 1, 2)):
        return None
    # A grid reaching well out of the frame is a lattice fitted askew (or a board the camera
    # cannot see whole): either way its squares cannot all be read.
    square = max(float(np.linalg.norm(pts[i] - pts[(i + 1) % 4])) for i in range(4)) / GRID
    if (pts < -1.5 * square).any() or (pts[:, 0] > w + 1.5 * square).any() or (pts[:, 1] > h + 1.5 * square).any():
        return None
    # Confidence: how much of the grid was seen as squares (a crowded board hides many).
    return _order_clockwise(pts), float(min(1.0, share / 0.5))


def locate_grid(image: np.ndarray, refine: bool = True, gray: np.ndarray | None = None) -> tuple[np.ndarray, float] | None:
    """The grid's four corners clockwise from the image's top-left direction, and a confidence.

    This is :func:`find_board` without deciding which way up the board is. It works at 640 px
    (fast, enough when the board fills much of the frame) and tries 1024 px when that fails.
    """
    bgr = as_bgr(image)
    got = None
    for side in WORK_SIDES:
        got = _locate_at(bgr, side)
        if got is not None or max(bgr.shape[:2]) <= side * 1.2:
            break
    if got is None:
        return None
    pts, confidence = got
    if refine:
        pts = _refine(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if gray is None else gray, pts)
    return pts.astype(np.float32), confidence


def find_board(image: np.ndarray) -> BoardLocation | None:
    """Find the 15x15 playing grid in a BGR (or grey) image; None when there is no board to see.

    The corners come ordered as the board is seen upright (see :class:`BoardLocation`); the turn
    is read from the tiles' point values, and is 0 with ``orientation_confidence`` 0 on a board
    with no tiles.
    """
    bgr = as_bgr(image)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    got = locate_grid(bgr, gray=gray)
    if got is None:
        return None
    canonical, confidence = got
    rotation, oconf = _orientation(gray, canonical)
    k = rotation // 90
    return BoardLocation(
        corners=np.roll(canonical, -k, axis=0).astype(np.float32),
        confidence=confidence,
        rotation=rotation,
        orientation_confidence=oconf,
    )
