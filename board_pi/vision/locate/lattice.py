"""Stages 2 and 3 of finding the board: the lattice of squares, and which 15x15 window of it is
the playing grid.

A lattice is grown from a well-surrounded square to its neighbours, each step predicted from the
step walked to get there, so perspective is followed without a global model; a homography from
lattice to image is then fitted to the square centres and extended a square at a time to the
squares the walk missed. The playing grid is the 15x15 window holding the most squares found,
and, where a hand or tiles hide an edge, the one whose colourful squares best match the premium
layout (the same on every edition, whatever its colours), whose squares' colours gather by
their kind in that layout, and whose surround is the frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GRID, PREMIUM_KINDS, PREMIUM_MASK
from .squares import Quads
from .tuning import TUNING, FinderTuning

_KINDS = [(PREMIUM_KINDS == k).ravel() for k in np.unique(PREMIUM_KINDS)]
_STEPS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1),
                   (2, 0), (-2, 0), (0, 2), (0, -2)], np.float32)


def _aligned(axes: np.ndarray, ref: np.ndarray, tuning: FinderTuning) -> np.ndarray:
    """For each pair, whether a quad's sides run along the reference steps and fit inside them.

    ``axes`` and ``ref`` are (n, 2, 2). The sides may match either way round, within about 25
    degrees (small squares' outlines are only a few pixels long). Each side must be shorter than
    the step along it, and not much shorter: two tiles that touch make one long blob, which
    would otherwise sit half a square off the lattice.
    """
    na = np.sqrt((axes * axes).sum(2)) + 1e-9  # np.linalg.norm's sums, without its overhead
    nr = np.sqrt((ref * ref).sum(2)) + 1e-9
    cos = np.abs(np.einsum("nid,njd->nij", axes, ref)) / (na[:, :, None] * nr[:, None, :])
    straight = np.minimum(cos[:, 0, 0], cos[:, 1, 1])
    crossed = np.minimum(cos[:, 1, 0], cos[:, 0, 1])
    use_straight = straight >= crossed
    len_u = np.where(use_straight, na[:, 0], na[:, 1]) / nr[:, 0]
    len_v = np.where(use_straight, na[:, 1], na[:, 0]) / nr[:, 1]
    lo, hi = tuning.side_in_step
    fits = (len_u > lo) & (len_u < hi) & (len_v > lo) & (len_v < hi)
    return (np.maximum(straight, crossed) > tuning.align_cos) & fits


def _seed_pitch(quads: Quads, seed: int, neighbours: np.ndarray) -> np.ndarray:
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


def _grow(quads: Quads, seed: int, neighbours: np.ndarray, tuning: FinderTuning) -> dict[int, tuple[int, int]]:
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
    lattice = np.zeros((n, 2), np.int64)  # each labelled square's label, as an array
    labelled = np.zeros(n, bool)
    labelled[seed] = True
    taken: set[tuple[int, int]] = {(0, 0)}
    steps_i = _STEPS.astype(np.int64)
    # A step along a lattice axis (not diagonal, not two squares): which axis, and which way.
    axis_of = np.where(steps_i[:, 1] == 0, 0, 1)
    sign_of = np.where(axis_of == 0, steps_i[:, 0], steps_i[:, 1]).astype(np.float64)
    one_step = np.abs(steps_i).sum(axis=1) == 1
    Cx, Cy = C[:, 0], C[:, 1]
    frontier = np.array([seed], np.int64)
    while len(frontier):
        F = frontier
        P = pitch[F]  # (k, 2, 2)
        preds = C[F][:, None, :] + np.einsum("sd,kde->kse", _STEPS, P)  # (k, 12, 2)
        cand = neighbours[F]  # (k, m)
        # Squared distances (k, 12, m), x and y apart (the same sums as over a last axis of two):
        # the root of the nearest only.
        dx = Cx[cand][:, None, :] - preds[:, :, 0, None]
        dy = Cy[cand][:, None, :] - preds[:, :, 1, None]
        D2 = dx * dx + dy * dy
        ks = D2.argmin(axis=2)
        dmin = np.sqrt(D2.min(axis=2))
        step = np.sqrt((P * P).sum(axis=2)).mean(axis=1)
        fi, si = np.nonzero(dmin < tuning.predict_radius * step[:, None])
        if len(fi) == 0:
            break
        par = F[fi]
        q = cand[fi, ks[fi, si]]
        ratio = S[q] / S[par]
        ok = (ratio > tuning.size_ratio[0]) & (ratio < tuning.size_ratio[1]) & ~labelled[q]
        fi, si, par, q = fi[ok], si[ok], par[ok], q[ok]
        ok = _aligned(A[q], pitch[par], tuning)
        fi, si, par, q = fi[ok], si[ok], par[ok], q[ok]
        # Each square once, from the parent that predicted it best.
        order = np.argsort(dmin[fi, si], kind="stable")
        _, first = np.unique(q[order], return_index=True)
        order = order[np.sort(first)]
        si, par, q = si[order], par[order], q[order]
        # Each label once too, the first in that order, and none labelled in an earlier wave.
        labs = lattice[par] + steps_i[si]
        keep = []
        for t, lab in enumerate(map(tuple, labs.tolist())):
            if lab not in taken:
                taken.add(lab)
                keep.append(t)
        si, par, q, labs = si[keep], par[keep], q[keep], labs[keep]
        Pq = pitch[par]  # a copy (fancy indexing)
        # Follow the step actually walked, half way, and only when it is close to the expected
        # one: an off-centre tile must not shrink or bend the step for all after it.
        t = np.nonzero(one_step[si])[0]
        if len(t):
            a, sign = axis_of[si[t]], sign_of[si[t]]
            qq, pp = q[t], par[t]
            wx = (Cx[qq].astype(np.float64) - Cx[pp].astype(np.float64)) * sign
            wy = (Cy[qq].astype(np.float64) - Cy[pp].astype(np.float64)) * sign
            px = Pq[t, a, 0].astype(np.float64)
            py = Pq[t, a, 1].astype(np.float64)
            follow = np.hypot(wx - px, wy - py) < tuning.step_follow_within * np.hypot(px, py)
            Pq[t[follow], a[follow], 0] = 0.5 * (px[follow] + wx[follow])
            Pq[t[follow], a[follow], 1] = 0.5 * (py[follow] + wy[follow])
        pitch[q] = Pq
        lattice[q] = labs
        labelled[q] = True
        labels.update(zip(q.tolist(), map(tuple, labs.tolist())))
        frontier = q
    return labels


def find_lattice(quads: Quads, min_walk: int | None = None,
                 tuning: FinderTuning = TUNING) -> tuple[dict[int, tuple[int, int]], np.ndarray] | None:
    """The largest lattice of quads and its homography from lattice to (working) image.

    The walk from square to neighbouring square must label ``min_walk`` quads before the global
    fit extends it (half of ``min_squares`` unless given); still ``tuning.min_squares`` must sit
    on the lattice in the end.
    """
    min_walk = tuning.min_squares // 2 if min_walk is None else min_walk
    n = len(quads.centres)
    if n < tuning.min_squares:
        return None
    C = quads.centres
    # |a|^2 + |b|^2 - 2ab in float64: the same squared distances (the centres are quarter
    # pixels, so every term is exact) at a fraction of the pairwise differences' cost.
    C64 = C.astype(np.float64)
    sq = (C64 * C64).sum(1)
    d2 = (sq[:, None] + sq[None, :] - 2.0 * (C64 @ C64.T)).astype(np.float32)
    k = min(tuning.neighbours, n)
    # The k nearest, nearest first and equal distances in the order of the outlines: which of
    # several equally near np.argpartition keeps, and in what order, is left to the CPU's own
    # sorting code (AVX2 here, another on a Pi's ARM), and such ties are common (a square's inner
    # and outer outlines share a centre; a regular lattice has equal steps). The distances differ
    # by a sixteenth at least (see above; float32 keeps that), so each key is unique.
    key = d2.astype(np.float64) * (16.0 * n) + np.arange(n)
    part = np.argpartition(key, k - 1, axis=1)[:, :k]
    neighbours = np.take_along_axis(part, np.take_along_axis(key, part, axis=1).argsort(axis=1), axis=1)
    # A good seed has neighbours of its own size at one side's distance: a square among squares.
    # (Counting neighbours of any size favours outlines that are too large, two squares merged
    # where a line was missed: more squares lie within their reach, and the walk from one
    # starts with a step of one and a half squares.)
    S = quads.sizes
    dist = np.sqrt(np.take_along_axis(d2, neighbours, axis=1))
    alike = S[neighbours] / S[:, None]
    near = ((dist > 0.8 * S[:, None]) & (dist < 1.6 * S[:, None]) & (alike > 0.8) & (alike < 1.25)).sum(1)
    order = np.argsort(-near, kind="stable")
    best: dict[int, tuple[int, int]] = {}
    tried: set[int] = set()
    attempts = 0
    for seed in order.tolist():
        if seed in tried:
            continue
        attempts += 1
        labels = _grow(quads, seed, neighbours, tuning)
        tried.update(labels)
        if len(labels) > len(best):
            best = labels
        if len(best) >= tuning.seed_walk_enough or attempts >= tuning.seed_walks:
            break
    # A walk broken up by unseen squares (dim light, a crowded board) can still seed the global
    # fit below, which then extends the lattice a square at a time.
    if len(best) < min_walk:
        return None
    H = None
    before: set[tuple[int, tuple[int, int]]] = set()
    for _ in range(tuning.fit_rounds):
        if len(best) < 4:  # RANSAC kept too few to fit a homography
            return None
        idx = np.array(list(best), np.int64)
        lat = np.array([best[i] for i in idx], np.float32) + 0.5
        H, inl = cv2.findHomography(lat, C[idx], cv2.RANSAC, tuning.fit_inlier_px * float(np.median(S[idx])))
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
        in_best = np.zeros(len(C), bool)
        in_best[list(best)] = True
        ratio = S / med
        near = ((res <= tuning.pickup_residual) & ~in_best & (r[:, 0] >= lo_i) & (r[:, 0] <= hi_i)
                & (r[:, 1] >= lo_j) & (r[:, 1] <= hi_j)
                & (ratio > tuning.pickup_size_ratio[0]) & (ratio < tuning.pickup_size_ratio[1]))
        added = 0
        order = np.argsort(res, kind="stable")  # equal residuals in a fixed order, whatever the CPU
        for q in order[near[order]].tolist():
            lab = (int(r[q, 0]), int(r[q, 1]))
            if lab in taken:
                continue
            best[q] = lab
            taken.add(lab)
            added += 1
        # No squares added, or the same ones the fit refused last round added again: the next
        # rounds would repeat this one (the fit is deterministic), so they are skipped.
        now = set(best.items())
        if added == 0 or now == before:
            break
        before = now
    if len(best) < tuning.min_squares:
        return None
    idx = np.array(list(best), np.int64)
    lat = np.array([best[i] for i in idx], np.float32) + 0.5
    H, _ = cv2.findHomography(lat, C[idx], cv2.LMEDS)
    if H is None:
        return None
    return best, H


def _kinds_alike(colours: np.ndarray) -> float:
    """How much of a window's colour spread its squares' kinds explain (0: none, 1: all).

    ``colours`` is 15x15x3. Squares of one kind (plain, double letter, ...) are printed alike,
    so in the right window each kind's colours gather round their own median; in a window a
    square or more off the kinds are mixed. Medians and absolute deviations, so the tiles (on
    squares of every kind) and a hand weigh as outliers, not as a colour of their own; and no
    colour is assumed, so it holds on every edition, unlike the premiums' colourfulness.
    """
    return float(kinds_alike_many(colours.reshape(1, -1, 3))[0])


def kinds_alike_many(c: np.ndarray) -> np.ndarray:
    """:func:`_kinds_alike` of many windows' colours at once: ``c`` (windows, 225, 3)."""
    total = np.abs(c - np.median(c, axis=1, keepdims=True)).sum(axis=(1, 2))
    within = sum(np.abs(c[:, m] - np.median(c[:, m], axis=1, keepdims=True)).sum(axis=(1, 2)) for m in _KINDS)
    return np.where(total < 1e-6, 0.0, 1.0 - within / np.maximum(total, 1e-6))


def grid_window(labels: dict[int, tuple[int, int]], H: np.ndarray, blurred: np.ndarray,
                tuning: FinderTuning = TUNING) -> tuple[int, int, float]:
    """The lattice offset (i0, j0) of the 15x15 playing grid, and the share of its squares found.

    ``blurred``: the working copy (BGR) the lattice was found in, blurred 5x5; its colours are
    compared in Lab at the squares' centres (only those pixels converted)."""
    L = np.array(list(labels.values()))
    imin, jmin = L.min(0)
    imax, jmax = L.max(0)

    def offsets(lo: int, hi: int) -> range:
        span = hi - lo + 1
        return range(hi - GRID + 1, lo + 1) if span <= GRID else range(lo, hi - GRID + 2)

    io, jo = offsets(int(imin), int(imax)), offsets(int(jmin), int(jmax))
    # Colour of every lattice square the candidate windows cover, and of the ring of squares just
    # outside each, sampled at its centre.
    i_all = np.arange(io.start - 1, io.stop + GRID)
    j_all = np.arange(jo.start - 1, jo.stop + GRID)
    gi, gj = np.meshgrid(i_all, j_all, indexing="ij")
    pts = np.stack([gi.ravel() + 0.5, gj.ravel() + 0.5], 1).astype(np.float32)
    img_pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    h, w = blurred.shape[:2]
    xs = np.clip(np.rint(img_pts[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(img_pts[:, 1]).astype(int), 0, h - 1)
    inside = ((img_pts[:, 0] >= 0) & (img_pts[:, 0] < w) & (img_pts[:, 1] >= 0) & (img_pts[:, 1] < h)).reshape(gi.shape)
    colours = cv2.cvtColor(np.ascontiguousarray(blurred[ys, xs]).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    colours = colours.reshape(-1, 3).astype(np.float32)
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
    pm = PREMIUM_MASK - PREMIUM_MASK.mean()
    pm /= np.linalg.norm(pm)
    # Just outside the grid lies the board's frame, one colour all along a side; a window one
    # square off has a row of the grid there instead (tiles, premiums, lines). This tells the
    # window where the premiums cannot: pale editions whose premiums the tiles outshine.
    col3 = colours.reshape(gi.shape + (3,))
    spread = float(np.linalg.norm(col3[(span & inside)].std(axis=0))) + 1e-6
    # Every candidate window at once (windows (a, b) indexed from i_all[0], j_all[0]).
    a_s = np.arange(len(io)) + (io.start - i_all[0])
    b_s = np.arange(len(jo)) + (jo.start - j_all[0])
    f = _windows(feat, a_s, b_s)  # (na, nb, 15, 15)
    fc = f - f.mean(axis=(2, 3), keepdims=True)
    nf = np.sqrt((fc * fc).sum(axis=(2, 3)))
    # The lattice's axes need not be the board's rows and columns, but the premium layout is
    # symmetric under transposition, so the match does not care.
    corr = np.where(nf > 1e-6, (fc * pm).sum(axis=(2, 3)) / np.maximum(nf, 1e-6), 0.0)
    count = _windows(found, a_s, b_s).sum(axis=(2, 3))
    vis = _windows(inside.astype(np.float32), a_s, b_s).mean(axis=(2, 3))
    ring = _frame_ring(col3, inside, a_s, b_s)
    ring = np.where(np.isnan(ring), 1.0, ring / spread)
    kinds = kinds_alike_many(_windows(col3, a_s, b_s).reshape(len(a_s) * len(b_s), GRID * GRID, 3))
    score = (count / len(L) + tuning.window_premium_weight * corr + tuning.window_visible_weight * vis
             - tuning.window_frame_weight * ring + tuning.window_kinds_weight * kinds.reshape(len(a_s), len(b_s)))
    a, b = np.unravel_index(int(np.argmax(score)), score.shape)  # the first best, row by row
    return io[a], jo[b], float(count[a, b]) / (GRID * GRID)


def _windows(x: np.ndarray, a_s: np.ndarray, b_s: np.ndarray) -> np.ndarray:
    """The 15x15 windows of ``x`` (2-D, or 2-D of colours) starting at rows ``a_s`` and columns
    ``b_s`` (consecutive): (len(a_s), len(b_s), 15, 15, ...)."""
    v = np.lib.stride_tricks.sliding_window_view(x, (GRID, GRID), axis=(0, 1))
    v = v[a_s[0]:a_s[-1] + 1, b_s[0]:b_s[-1] + 1]
    return np.moveaxis(v, (-2, -1), (2, 3)) if x.ndim == 3 else v


def _frame_ring(col3: np.ndarray, inside: np.ndarray, a_s: np.ndarray, b_s: np.ndarray) -> np.ndarray:
    """For each window (rows ``a_s``, columns ``b_s`` of the lattice colours ``col3``), how much
    the colours of the ring of squares just outside it vary: the mean, over its sides seen (half a
    side or more within the image, ``inside``), of the length of the side's colour deviation; NaN
    where no side is seen. In the right window that ring is the board's frame, one colour."""
    def along_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # a side across, at each window
        c = np.lib.stride_tricks.sliding_window_view(col3[rows], GRID, axis=1)[:, b_s[0]:b_s[-1] + 1]
        m = np.lib.stride_tricks.sliding_window_view(inside[rows], GRID, axis=1)[:, b_s[0]:b_s[-1] + 1]
        return np.moveaxis(c, -1, 2), m  # (na, nb, 15, 3), (na, nb, 15)

    def along_cols(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # a side down, at each window
        c = np.lib.stride_tricks.sliding_window_view(col3[:, cols], GRID, axis=0)[a_s[0]:a_s[-1] + 1]
        m = np.lib.stride_tricks.sliding_window_view(inside[:, cols], GRID, axis=0)[a_s[0]:a_s[-1] + 1]
        return np.moveaxis(c, -1, 2), m

    total = np.zeros((len(a_s), len(b_s)))
    sides_seen = np.zeros((len(a_s), len(b_s)))
    for c, m in (along_rows(a_s - 1), along_rows(a_s + GRID), along_cols(b_s - 1), along_cols(b_s + GRID)):
        n = m.sum(axis=2)
        w = m[..., None].astype(np.float64)
        mean = (c * w).sum(axis=2) / np.maximum(n, 1)[..., None]
        var = (((c - mean[:, :, None, :]) ** 2) * w).sum(axis=2) / np.maximum(n, 1)[..., None]
        seen = n >= GRID // 2
        total += np.where(seen, np.sqrt(var.sum(axis=2)), 0.0)
        sides_seen += seen
    return np.where(sides_seen > 0, total / np.maximum(sides_seen, 1), np.nan)

