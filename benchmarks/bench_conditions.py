"""Reading real photos under conditions the real sets do not show: turned, at a slant, in warm,
dim or uneven light, grainy (a dim room's camera turning its gain up), small, far, compressed,
out of focus, shaken, under a lamp's reflection, and through a lens that bends straight lines.

Each of the real **tuning** photos (tests/data/real_split.json: the 2015 game's up to 170248 and
declanfinerty's boards 001-003; never the held-out ones) is changed as a club's camera or a
phone might change it, then read as ``board-pi read`` does: decoded, the board found, read
whichever way up. Prints per condition: squares right, boards found, boards read a quarter or
half turn wrong, empty squares read as tiles (phantom blanks among them), blanks missed, and the
first squares read wrong. The photos are real and their labels true, so a condition that reads
worse than ``none`` shows a weakness of the reader, not of the labels. The reflections are the
light of a lamp added to the photo, brightest in its middle; the rest are OpenCV's own
operations. Noise is drawn from a fixed seed, so every run reads the same pictures.

``--held-out`` reads the held-out photos instead (the 2015 game's after 170248, the 2014 photos,
declanfinerty's eval_board), to report apart: a condition's figures there were never chosen by.
``--corners`` reads each photo through its grid's corners as labelled by hand, as ``board-pi
read --corners`` does, rather than finding the board: only the conditions that leave every pixel
where it was (:data:`IN_PLACE`: the light, the grain, the focus, JPEG), so that the corners still
hold; by default those, 15 of them.

Usage: ``python benchmarks/bench_conditions.py [--held-out] [--corners] [CONDITION ...]`` (all of them by default, about
7 minutes here; a Pi 4 core is several times slower; the names are in :data:`CONDITIONS`: a
number after a name is degrees turned, the top edge's percent shorter, percent of the light
left in a shadow, grey levels of noise, pixels of blur or shake, levels of light added, times
as far, percent a lens bends the long side's edge in or out). Skips when ../shared/data is absent.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.vision.evaluate import Tally, evaluate_found, hand_labelled, real_boards, real_split  # noqa: E402
from board_pi.vision.frames import load_photo, reduction  # noqa: E402
from board_pi.vision.read import Reader  # noqa: E402
from board_pi.vision.train import load_hand_labelled  # noqa: E402  (needs no torch to import)
from tests.vision.lenses import through_a_lens  # noqa: E402
from tests.vision.lights import shadow, warm  # noqa: E402

DATA = ROOT.parent / "shared" / "data"

Image = np.ndarray


def turned(degrees: float) -> Callable[[Image], Image]:
    """The photo turned, its canvas grown to hold it all (the edges repeated)."""
    def change(im: Image) -> Image:
        h, w = im.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        c, s = abs(m[0, 0]), abs(m[0, 1])
        out_w, out_h = int(h * s + w * c), int(h * c + w * s)
        m[0, 2] += out_w / 2 - w / 2
        m[1, 2] += out_h / 2 - h / 2
        return cv2.warpAffine(im, m, (out_w, out_h), borderMode=cv2.BORDER_REPLICATE)
    return change


def slanted(share: float) -> Callable[[Image], Image]:
    """Seen from lower down: the photo's top edge ``2 * share`` of its width shorter."""
    def change(im: Image) -> Image:
        h, w = im.shape[:2]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[w * share, 0], [w * (1 - share), 0], [w, h], [0, h]])
        return cv2.warpPerspective(im, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REPLICATE)
    return change


def reflection(levels: float, width: float, height: float, x: float = 0.4, y: float = 0.45) -> Callable[[Image], Image]:
    """A lamp's reflection: ``levels`` of light added at (``x``, ``y``) of the photo, falling off
    over ``width`` and ``height`` (shares of the photo's sides)."""
    def change(im: Image) -> Image:
        h, w = im.shape[:2]
        yy, xx = np.mgrid[:h, :w]
        spot = np.exp(-(((xx - w * x) / (w * width)) ** 2 + ((yy - h * y) / (h * height)) ** 2))
        return np.clip(im + levels * spot[..., None], 0, 255).astype(np.uint8)
    return change


def shaken(pixels: int) -> Callable[[Image], Image]:
    """The camera moved sideways by ``pixels`` while the shutter was open."""
    return lambda im: cv2.filter2D(im, -1, np.ones((1, pixels), np.float32) / pixels)


def dim(im: Image) -> Image:
    """Underexposed, with the sensor's noise (a fixed seed)."""
    noise = np.random.default_rng(3).normal(0, 4, im.shape)
    return np.clip(255 * (im / 255.0) ** 1.6 * 0.6 + noise, 0, 255).astype(np.uint8)


def noisy(sigma: float) -> Callable[[Image], Image]:
    """A dim room's photo brightened by the camera's gain: darker, with the sensor's noise of
    ``sigma`` grey levels, independent in each pixel and colour (a fixed seed)."""
    def change(im: Image) -> Image:
        noise = np.random.default_rng(5).normal(0, sigma, im.shape)
        return np.clip(im * 0.7 + noise, 0, 255).astype(np.uint8)
    return change


def vignette(im: Image) -> Image:
    h, w = im.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    return np.clip(im * (1 - 0.35 * r2)[..., None], 0, 255).astype(np.uint8)


def jpeg(quality: int) -> Callable[[Image], Image]:
    return lambda im: cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def narrow(width: int) -> Callable[[Image], Image]:
    return lambda im: cv2.resize(im, (width, round(width * im.shape[0] / im.shape[1])), interpolation=cv2.INTER_AREA)


def on_a_table(im: Image, times: int) -> Image:
    """The photo off the middle of a table ``times`` its size each way (a plain cloth, a fixed seed)."""
    h, w = im.shape[:2]
    rng = np.random.default_rng(4)
    cloth = np.float32([70, 95, 60]) + rng.normal(0, 10, (times * h // 8, times * w // 8, 1)).astype(np.float32)
    out = cv2.resize(np.clip(cloth, 0, 255).astype(np.uint8), (times * w, times * h), interpolation=cv2.INTER_LINEAR)
    y, x = (times * h - h) // 3, (times * w - w) // 2
    out[y:y + h, x:x + w] = im
    return out


def farther(times: int) -> Callable[[Image], Image]:
    """Seen from ``times`` as far by a camera of ``times`` the pixels each way: the photo on a
    table ``times`` its size, then reduced as ``board-pi read`` decodes a photo
    (:func:`~board_pi.vision.frames.reduction`). The board keeps its pixels, at most halved; the
    frame around it grows."""
    def change(im: Image) -> Image:
        out = on_a_table(im, times)
        f = reduction(out.shape[1], out.shape[0])
        return cv2.resize(out, (out.shape[1] // f, out.shape[0] // f), interpolation=cv2.INTER_AREA)
    return change


def distant(times: int) -> Callable[[Image], Image]:
    """Seen from ``times`` as far by the same camera: the photo on a table ``times`` its size,
    brought back to the photo's own size (the board with a ``times``-th of its pixels each way)."""
    def change(im: Image) -> Image:
        return cv2.resize(on_a_table(im, times), (im.shape[1], im.shape[0]), interpolation=cv2.INTER_AREA)
    return change


def bent(share: float) -> Callable[[Image], Image]:
    """Seen through a lens that bends straight lines: each point drawn from ``1 + share * r**2``
    times its distance from the photo's middle (``r`` in halves of the long side), so that
    ``share`` > 0 is a wide lens's barrel (the edges pulled in by ``share`` at the long side's
    edge) and ``share`` < 0 a pincushion (:func:`tests.vision.lenses.through_a_lens`)."""
    return lambda im: through_a_lens(im, share)


CONDITIONS: dict[str, Callable[[Image], Image]] = {
    "none": lambda im: im,
    "turned-15": turned(15), "turned-35": turned(35),
    "slant-24": slanted(0.12), "slant-44": slanted(0.22), "slant-60": slanted(0.3),
    "warm": warm,
    "dim": dim, "noisy-12": noisy(12), "noisy-20": noisy(20), "noisy-28": noisy(28), "noisy-36": noisy(36),
    "640px": narrow(640), "farther-2": farther(2), "farther-3": farther(3), "farther-4": farther(4),
    "distant-2": distant(2), "distant-3": distant(3),
    # Both: a small board in a dim room's grainy frame, out of focus, or seen from low down.
    "distant-2-noisy-12": lambda im: noisy(12)(distant(2)(im)), "distant-2-noisy-20": lambda im: noisy(20)(distant(2)(im)),
    "distant-2-focus-2": lambda im: cv2.GaussianBlur(distant(2)(im), (0, 0), 2.0),
    "distant-2-slant-60": lambda im: slanted(0.3)(distant(2)(im)),
    "jpeg-30": jpeg(30),
    "shadow-55": shadow(0.55), "shadow-70": shadow(0.7),
    "vignette": vignette,
    "focus-1.5": lambda im: cv2.GaussianBlur(im, (0, 0), 1.5),
    "focus-2": lambda im: cv2.GaussianBlur(im, (0, 0), 2.0),
    "shaken-5": shaken(5), "shaken-9": shaken(9),
    "reflection-60": reflection(60, 0.12, 0.10), "reflection-120": reflection(120, 0.12, 0.10),
    "reflection-180": reflection(180, 0.15, 0.12),
    "spot-200": reflection(200, 0.04, 0.03), "streak-150": reflection(150, 0.3, 0.02),
    "streak-150-low": reflection(150, 0.3, 0.02, y=0.6), "streak-200": reflection(200, 0.3, 0.03),
    # Warm lamplight and a body's shadow together.
    "warm-shadow-55": lambda im: shadow(0.55)(warm(im)),
    "barrel-5": bent(0.05), "barrel-10": bent(0.1), "pincushion-5": bent(-0.05),
}


IN_PLACE = ("none", "warm", "dim", "shadow-55", "shadow-70", "vignette", "reflection-60", "reflection-120",
            "reflection-180", "spot-200", "streak-150", "streak-150-low", "streak-200", "warm-shadow-55", "jpeg-30")
"""The conditions ``--corners`` reads by default: light, shadow and compression, which leave every
pixel where it was (the grain, the focus and the shake do too, and may be named)."""
MOVED = ("turned", "slant", "640px", "farther", "distant", "barrel", "pincushion")
"""Conditions whose names begin so move the board in the picture: the labelled corners do not hold."""


def _decoded(path: Path, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The photo as ``board-pi read`` decodes it, and its corners in that image's pixels."""
    image, scale = load_photo(path)
    return image, np.float32(corners) / scale


def tuning_photos() -> list[tuple[str, np.ndarray, list[str], np.ndarray]]:
    """(name, image as ``board-pi read`` decodes it, truth rows, corners as labelled) of every
    tuning photo: the 2015 game's as the tile model's training takes them, and declanfinerty's by
    the split. Found, the board is read without the corners."""
    photos = [(path.name, path, truth, corners) for path, truth, corners in load_hand_labelled()]
    boards = real_split()["declanfinerty"]
    photos += [(name, path, truth, corners) for name, path, truth, corners
               in real_boards(DATA / "real-boards" / "declanfinerty") if boards.part(path.name) == "tuning"]
    return [(name, image, truth, at) for name, path, truth, corners in photos for image, at in [_decoded(path, corners)]]


def held_out_photos() -> list[tuple[str, np.ndarray, list[str], np.ndarray]]:
    """The same of every held-out photo (the 2015 game's after 170248, the 2014 photos,
    declanfinerty's eval_board): for ``--held-out``, to report apart, never to choose by."""
    labels = ROOT / "tests" / "data"
    photos = hand_labelled(labels / "jheidel_labels.json", labels / "jheidel_corners.json",
                           DATA / "real-photos" / "jheidel-game")
    splits = real_split()
    held = [(name, path, truth, corners) for name, path, truth, corners in photos
            if any(splits[game].part(name) == "held_out" for game in ("jheidel-2015", "jheidel-2014"))]
    boards = splits["declanfinerty"]
    held += [(name, path, truth, corners) for name, path, truth, corners
             in real_boards(DATA / "real-boards" / "declanfinerty") if boards.part(path.name) == "held_out"]
    return [(name, image, truth, at) for name, path, truth, corners in held for image, at in [_decoded(path, corners)]]


def main(argv: list[str]) -> int:
    held_out, by_corners = "--held-out" in argv, "--corners" in argv
    argv = [a for a in argv if a not in ("--held-out", "--corners")]
    unknown = [a for a in argv if a not in CONDITIONS]
    if unknown:
        print(f"unknown condition {unknown[0]!r}; the conditions: {', '.join(CONDITIONS)}", file=sys.stderr)
        return 2
    moved = [a for a in argv if a.startswith(MOVED)]
    if by_corners and moved:
        print(f"{moved[0]} moves the board in the picture: its labelled corners do not hold (--corners reads "
              f"{', '.join(c for c in CONDITIONS if not c.startswith(MOVED))})", file=sys.stderr)
        return 2
    if not DATA.is_dir():
        print(f"{DATA} is not present: skipped")
        return 0
    photos = held_out_photos() if held_out else tuning_photos()
    reader = Reader()
    print(f"{len(photos)} real {'held-out' if held_out else 'tuning'} photos, each changed, then "
          + ("read through their corners as labelled:" if by_corners else "found and read whichever way up:"))
    start = time.perf_counter()
    totals = Tally()
    for name in argv or list(IN_PLACE if by_corners else CONDITIONS):
        change = CONDITIONS[name]
        if by_corners:
            t = Tally()
            for n, im, truth, corners in photos:
                got = reader.read(change(im), corners, played=True, by_hand=True).grid
                t.add(truth, got, tag=f"{n} ")
                totals.add(truth, got)
            f = t.figures()
            where = f"({t.squares - t.squares_right} wrong)"
        else:
            f = evaluate_found(reader, [(n, change(im), truth, None) for n, im, truth, _ in photos])
            where = f" found {f['found']}/{f['photos']}  turned wrong {f['turned_wrong']}"
        print(f"  {name:16s} squares {f['square_accuracy']:.3%} {where}  empty->tile {f['empty_read_as_tile']} "
              f"(phantom blanks {f['phantom_blanks']})  blanks missed {f['blanks_missed']} of {f['blanks']}", flush=True)
        if f["errors"]:
            print("    e.g. " + ", ".join(f["errors"][:5]), flush=True)
    if by_corners:
        f = totals.figures()
        print(f"  together: squares wrong {totals.squares - totals.squares_right}, phantom blanks "
              f"{f['phantom_blanks']}, blanks missed {f['blanks_missed']}")
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
