"""Frame sources: where pictures of the board come from.

Every source gives BGR ``uint8`` frames (OpenCV's order) from :meth:`FrameSource.read`, ``None``
when it has no more (the end of a folder or video) or none right now (a camera that failed one
capture), and is closed with :meth:`FrameSource.close` or by a ``with`` block.

:func:`open_source` takes the text a user types after ``--source``:

=================  ====================================================================
``picamera2``      the Raspberry Pi camera (Debian package ``python3-picamera2``)
``0``, ``1``       a USB webcam by index (OpenCV ``VideoCapture``; ``0:1920x1080`` asks that size)
``/dev/video0``    a webcam by device path (``/dev/video0:1920x1080``)
``board.jpg``      one image file (read once; ``repeat=True`` to give it for ever)
``photos/``        a folder of images, in name order (``IMG_2.jpg`` before ``IMG_10.jpg``)
``game.mp4``       a video, frame by frame (replay)
``synthetic``      rendered boards, from :mod:`board_pi.vision.render` (``synthetic:OPTIONS``)
=================  ====================================================================

>>> with open_source("tests") as src:  # doctest: +SKIP
...     frame = src.read()
"""

from __future__ import annotations

import abc

import re
import sys
import time
from struct import error as struct_error
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import cv2
import numpy as np

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".mjpeg", ".mjpg", ".h264", ".mpg", ".mpeg"})

PICAMERA2_MISSING = (
    "the Raspberry Pi camera needs the picamera2 library, which comes from Raspberry Pi OS's "
    "packages, not from PyPI: run `sudo apt install python3-picamera2`, and make board-pi's "
    "virtual environment see it (`python3 -m venv --system-site-packages .venv`)"
)


class FrameSourceError(ValueError):
    """A source that cannot be opened or read: the message says why, for the user."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that gives frames: ``read()`` a BGR image or None, ``close()``, usable with ``with``."""

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...

    def __enter__(self) -> "FrameSource": ...

    def __exit__(self, *exc: object) -> None: ...


class _Source(abc.ABC):
    """Shared context-manager behaviour and the BGR uint8 guarantee."""

    name = "source"

    def __enter__(self) -> "_Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    @abc.abstractmethod
    def read(self) -> np.ndarray | None:
        """The next frame, BGR uint8, or None when there are no more."""

    def __iter__(self):
        """Frames until the source has no more."""
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def as_bgr(frame: np.ndarray) -> np.ndarray:
    """A frame as 3-channel BGR uint8, whatever came in: grey, grey with one channel, BGRA, or
    deeper than 8 bits. ValueError (a :class:`FrameSourceError`) for what is not an image.

    Deeper integers are scaled by their type's full range (65535 is white in a 16-bit frame) and
    floats are taken as 0..1, OpenCV's convention: the same scene gives the same picture whatever
    else a frame holds, which scaling by a frame's own brightest pixel would not.
    """
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise FrameSourceError("an image is a numpy array (height x width [x channels]) with pixels in it")
    if frame.ndim == 3 and frame.shape[2] not in (1, 3, 4):
        raise FrameSourceError(f"an image has 1, 3 or 4 channels, not {frame.shape[2]}")
    if frame.dtype != np.uint8:
        if frame.dtype == np.bool_:
            frame = frame.astype(np.uint8) * 255
        elif np.issubdtype(frame.dtype, np.integer):
            frame = np.rint(frame.astype(np.float64) * (255.0 / np.iinfo(frame.dtype).max)).clip(0, 255).astype(np.uint8)
        elif np.issubdtype(frame.dtype, np.floating):
            frame = np.rint(np.nan_to_num(frame.astype(np.float64) * 255.0, nan=0.0)).clip(0, 255).astype(np.uint8)
        else:
            raise FrameSourceError(f"an image's pixels are numbers, not {frame.dtype}")
    if frame.ndim == 3 and frame.shape[2] == 1:
        frame = frame[:, :, 0]
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


MAX_IMAGE_PIXELS = 50_000_000
"""The largest image board-pi decodes: 50 megapixels, four times the Pi HQ camera's 12.3 and
more than most phones give; decoded, it takes 150 MB (a 20000x20000 image would take 1.2 GB)."""
MAX_IMAGE_BYTES = 4 * MAX_IMAGE_PIXELS + (1 << 20)
"""The largest image file read: room for an uncompressed 50-megapixel BMP with an alpha channel."""
IMAGE_FORMATS = "JPEG, PNG, BMP, TIFF, WebP, PPM or PGM"


def _too_large(path: Path, what: str) -> FrameSourceError:
    return FrameSourceError(f"{path} is {what}, more than board-pi reads ({MAX_IMAGE_PIXELS // 1_000_000} "
                            "megapixels): scale the photo down")


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) from an image file's header, without decoding its pixels."""
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:  # lazy: reads the header only
                return int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError as e:  # Pillow's own limit, above ours
        m = re.search(r"\((\d+) pixels\)", str(e))
        raise _too_large(Path(path), f"{int(m.group(1)) / 1e6:.0f} megapixels" if m else "huge") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError, struct_error) as e:
        raise FrameSourceError(f"{path} is not an image board-pi can read ({IMAGE_FORMATS})"
                               + _hint_for(Path(path))) from e


#: The brands (ISO base media file format, bytes 8-11) of HEIF photos: an iPhone's HEIC, and AVIF.
HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis")


def _hint_for(path: Path) -> str:
    """What to do with a file that is a photo board-pi cannot decode: a phone's HEIC (the
    iPhone's own format) is the common one, and OpenCV reads none of them."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return ""
    if head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS:
        return ("; it is a HEIC or AVIF photo: save it as JPEG (an iPhone takes JPEGs with Settings > Camera > "
                "Formats > Most Compatible)")
    return ""


def check_image(path: str | Path) -> tuple[int, int]:
    """(width, height) of an image file board-pi will read, from its header, without decoding it:
    :class:`FrameSourceError` with the reason when :func:`load_image` would refuse it (no such
    file, not an image, too large). A command given many photos checks them all before reading
    the first, so a mistyped name is told at once, not after minutes of reading."""
    p = Path(path)
    if not p.is_file():  # also refuses devices and pipes (/dev/zero would be read for ever)
        raise FrameSourceError(f"{p}: no such file" + (" (it is a folder)" if p.is_dir() else ""))
    size = p.stat().st_size
    if size == 0:
        raise FrameSourceError(f"{p} is empty, not an image")
    if size > MAX_IMAGE_BYTES:
        raise FrameSourceError(f"{p} is {size / 1e6:.0f} MB, larger than any photo board-pi reads "
                               f"({MAX_IMAGE_BYTES / 1e6:.0f} MB)")
    w, h = image_size(p)
    if w * h > MAX_IMAGE_PIXELS:
        raise _too_large(p, f"{w}x{h} pixels ({w * h / 1e6:.0f} megapixels)")
    return w, h


def load_image(path: str | Path) -> np.ndarray:
    """One image file as BGR uint8: the one loader for every command and source that reads image
    files. :class:`FrameSourceError` with the reason when it cannot or should not be read: no such
    file, not an image, or more than :data:`MAX_IMAGE_PIXELS` (checked in the header, before
    decoding: a 20000x20000 photo is refused, not decoded into 1.2 GB; :func:`check_image`)."""
    p = Path(path)
    check_image(p)
    return _decode(p, cv2.IMREAD_COLOR)


def _decode(p: Path, flag: int) -> np.ndarray:
    # imdecode from bytes, unlike imread, copes with any path and says nothing on stderr.
    data = np.fromfile(str(p), dtype=np.uint8)
    img = cv2.imdecode(data, flag)
    if img is None or img.size == 0:
        raise FrameSourceError(f"{p} is not an image board-pi can read ({IMAGE_FORMATS})")
    return as_bgr(img)


PHOTO_SIDE = 2000
"""The least long side, in pixels, a photo is decoded at by :func:`load_photo`: a board filling
half of it still has squares of 60 pixels, well above the 36 the reader cuts them to."""
_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}


def load_photo(path: str | Path, longest: int = PHOTO_SIDE) -> tuple[np.ndarray, float]:
    """A photo to be read, as BGR uint8, and its scale (the photo's pixels per pixel of the image
    returned): decoded at a half, a quarter or an eighth of its size where it stays at least
    ``longest`` pixels on its long side, else at full size (scale 1). A JPEG is decoded so
    directly, never held at full size: a 12-megapixel phone photo takes 9 MB, not 36, and every
    step after it works on a quarter of the pixels. Coordinates in the photo's own pixels (grid
    corners) are the image's times the scale. Refused as :func:`load_image` refuses.

    A 4032x3024 photo:

    >>> load_photo("board.jpg")  # doctest: +SKIP
    (array of shape (1512, 2016, 3), 2.0)
    """
    p = Path(path)
    w, h = check_image(p)
    img = _decode(p, _REDUCED[reduction(w, h, longest)])
    return img, max(w, h) / max(img.shape[:2])


def reduction(width: int, height: int, longest: int = PHOTO_SIDE) -> int:
    """By how much :func:`load_photo` reduces a photo of this size: 1, 2, 4 or 8, the most that
    leaves its long side at least ``longest`` pixels.

    >>> reduction(4032, 3024), reduction(1280, 960), reduction(9000, 6000)
    (2, 1, 4)
    """
    f = 1
    while f < 8 and max(width, height) // (2 * f) >= longest:
        f *= 2
    return f


class ImageSource(_Source):
    """One image file: given once (then ``None``), or on every read with ``repeat=True``."""

    def __init__(self, path: str | Path, repeat: bool = False) -> None:
        self.name = str(path)
        self._image = load_image(path)
        self._repeat = repeat
        self._given = False

    def read(self) -> np.ndarray | None:
        if self._given and not self._repeat:
            return None
        self._given = True
        return self._image.copy()


def _natural_key(p: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", p.name)]


class FolderSource(_Source):
    """The images of a folder in natural name order; files that will not decode are skipped."""

    def __init__(self, path: str | Path, repeat: bool = False) -> None:
        d = Path(path)
        if not d.is_dir():
            raise FrameSourceError(f"no such folder: {d}")
        self.name = str(d)
        self.files = sorted((f for f in d.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES and f.is_file()), key=_natural_key)
        if not self.files:
            raise FrameSourceError(f"{d} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._repeat = repeat
        self._next = 0
        self.skipped: list[Path] = []
        self.last_error = ""  # why the last skipped file was skipped
        self.current: Path | None = None

    def read(self) -> np.ndarray | None:
        tried = 0
        while tried < len(self.files):
            if self._next >= len(self.files):
                if not self._repeat:
                    return None
                self._next = 0
            f = self.files[self._next]
            self._next += 1
            tried += 1
            try:
                img = load_image(f)
            except FrameSourceError as e:
                self.skipped.append(f)
                self.last_error = str(e)
                continue
            self.current = f
            return img
        return None


def _quietly(make: Callable[[], Any]) -> Any:
    """Run ``make`` with OpenCV's own warnings off: a missing camera is our message to give."""
    log = getattr(getattr(cv2, "utils", None), "logging", None)
    if log is None:
        return make()
    level = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_ERROR)
    try:
        return make()
    finally:
        log.setLogLevel(level)


class _Camera(_Source):
    """A live camera whose exposure and white balance (and a webcam's focus) board-pi fixes once
    they have settled, so a lamp switched on later or a player's shadow does not shift the colours
    between frames (the reader compares frames), and takes down where the board comes out burnt
    white."""

    BURNT_OUT = 0.05
    """The share of the frame's middle half (where the board lies) burnt out white
    (:func:`washed_out`) above which the exposure settled on is too long for the board."""
    DARKER = 0.7
    """What each step down multiplies the exposure by (on the Pi's camera the gain first, then
    the time; on a webcam its exposure time)."""
    DARKER_STEPS = 4
    """At most this many steps (down to 0.7 ** 4, about a quarter): a white cloth in the middle
    of the frame is not the board, and a board still burnt out at a quarter of the exposure was
    more than four times too bright (the doctor says so)."""


class VideoSource(_Camera):
    """A video file, frame by frame, or a webcam (index or device path) through OpenCV.

    A webcam is read until its automatic exposure has settled (:meth:`settle`). Then, where
    OpenCV drives it through Video4Linux (a USB webcam on the Pi or on Linux), its exposure time,
    white balance and focus are fixed at what it settled on (:meth:`freeze`, the values in
    ``settings``) and set back to automatic when it is closed. Other backends keep the camera's
    own automatic controls (``settings`` empty).
    """

    def __init__(self, target: str | int, width: int | None = None, height: int | None = None, live: bool | None = None) -> None:
        self.name = str(target)
        self.live = isinstance(target, int) or str(target).startswith("/dev/") if live is None else live
        if isinstance(target, str) and not self.live and not Path(target).is_file():
            raise FrameSourceError(f"no such video file: {target}")
        self._cap = _quietly(lambda: cv2.VideoCapture(target))
        if not self._cap.isOpened():
            self._cap.release()
            what = "camera" if self.live else "video"
            raise FrameSourceError(f"cannot open {what} {target}" + (" (is it plugged in, and is it yours to use?)" if self.live else ""))
        v4l2 = self.live and _backend(self._cap) == "V4L2"
        if width and height and self.live:
            if v4l2:
                # Compressed frames: over USB 2 a webcam sends large frames uncompressed at a few a
                # second at most. (A camera without it keeps the format it had.)
                self._cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            # The driver takes the nearest size it has; a webcam left at its default gives 640x480.
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        w, h = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        if w * h > MAX_IMAGE_PIXELS:  # refused before a frame is decoded, as for image files
            self._cap.release()
            raise FrameSourceError(f"{target}: frames of {w}x{h} pixels, more than board-pi reads "
                                   f"({MAX_IMAGE_PIXELS // 1_000_000} megapixels)")
        self.settings: dict[str, float] = {}
        if self.live:
            if v4l2:
                self._automatic()  # from what the camera settles on, not what a last run left
            settled = self.settle()
            if v4l2 and settled is not None:
                self.settings = self.freeze(settled)

    SETTLE_FRAMES = 90
    """At most this many frames (3 s at 30 a second) for a webcam's automatic exposure to settle."""
    STEADY = 0.02
    """The settled exposure: the frame's middle half as bright as the frame before, within this
    share, ..."""
    STEADY_FRAMES = 5
    """... this many frames in a row."""
    NO_FRAME_MOST = 3
    """Reads in a row that give no frame after which settling stops (OpenCV waits up to ten
    seconds for each)."""
    TAKE_FRAMES = 8
    """Frames read after a control is set before a frame shows it: the camera applies it a few
    frames later, and OpenCV holds a few frames captured before it (four buffers)."""
    SAME_LIGHT = 0.2
    """How much brighter or darker (a share) the frame with the exposure fixed may be than the
    last the camera chose for itself. Some webcams report the exposure time they were last set
    to, not the one their automatic exposure is using: fixed at that, the board would come out
    in another light, so the exposure is left automatic."""
    SAME_COLOUR = 0.1
    """The same for the white balance: how far (a share) the frame's blue and red against its
    green may move when it is fixed."""
    SAME_SHARPNESS = 0.2
    """And for the focus: how much less sharp (a share, :func:`_sharpness`) the board may come
    out when the focus the camera reports is fixed."""

    V4L2_MANUAL = 1
    """Video4Linux's manual exposure (OpenCV passes the value of ``CAP_PROP_AUTO_EXPOSURE``
    through unchanged to ``V4L2_CID_EXPOSURE_AUTO``)."""
    V4L2_AUTOMATIC = (3, 0)
    """Video4Linux's automatic exposures, the first the camera takes: aperture priority (what USB
    webcams, UVC, call automatic), else fully automatic (what other drivers offer)."""

    def settle(self) -> np.ndarray | None:
        """Read frames until the automatic exposure has stopped moving (:attr:`STEADY`); the last
        frame read, None if the camera gave none. A webcam's first frames are dark."""
        last: float | None = None
        steady = failed = 0
        frame = None
        for _ in range(self.SETTLE_FRAMES):
            ok, f = self._cap.read()
            if not ok or f is None:
                failed += 1
                if failed >= self.NO_FRAME_MOST:
                    break  # each may have waited seconds: the camera gives none (the reads will say so)
                continue
            failed = 0
            frame = as_bgr(f)
            level = _light(frame)[0]
            steady = steady + 1 if last is not None and abs(level - last) <= self.STEADY * max(last, 1.0) else 0
            last = level
            if steady >= self.STEADY_FRAMES:
                break
        return frame

    def freeze(self, settled: np.ndarray) -> dict[str, float]:
        """Fix the exposure time, the white balance and the focus at what the camera settled on
        (``settled``, its last frame); returns the values fixed (``exposure`` in Video4Linux's
        units of 100 microseconds, ``white_balance`` in kelvin, ``focus`` in the camera's own
        units), without those the camera cannot fix or does not report truly (:attr:`SAME_LIGHT`,
        :attr:`SAME_COLOUR`, :attr:`SAME_SHARPNESS`: those stay automatic).
        Where the board is burnt out (:attr:`BURNT_OUT`), the exposure is taken down by
        :attr:`DARKER`, at most :attr:`DARKER_STEPS` times."""
        cap, fixed = self._cap, {}
        light, blue, red = _light(settled)
        exposure = cap.get(cv2.CAP_PROP_EXPOSURE)
        if exposure > 0 and cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, self.V4L2_MANUAL) and cap.set(cv2.CAP_PROP_EXPOSURE, exposure):
            frame = self._taken()
            if frame is not None and abs(_light(frame)[0] - light) <= self.SAME_LIGHT * max(light, 1.0):
                fixed["exposure"] = float(exposure)
                settled = frame
        if "exposure" not in fixed:
            self._automatic_exposure()
        temperature = cap.get(cv2.CAP_PROP_WB_TEMPERATURE)
        if temperature > 0 and cap.set(cv2.CAP_PROP_AUTO_WB, 0) and cap.set(cv2.CAP_PROP_WB_TEMPERATURE, temperature):
            frame = self._taken()
            if frame is not None:
                _, b, r = _light(frame)
                if abs(b - blue) <= self.SAME_COLOUR * blue and abs(r - red) <= self.SAME_COLOUR * red:
                    fixed["white_balance"] = float(temperature)
                    settled = frame
        if "white_balance" not in fixed:
            cap.set(cv2.CAP_PROP_AUTO_WB, 1)
        # Autofocus hunts when a hand comes over the board and back when it goes: a press's
        # frames would be out of focus while it does.
        focus = cap.get(cv2.CAP_PROP_FOCUS)
        if cap.get(cv2.CAP_PROP_AUTOFOCUS) == 1 and focus >= 0:
            frame = None
            if cap.set(cv2.CAP_PROP_AUTOFOCUS, 0) and cap.set(cv2.CAP_PROP_FOCUS, focus):
                frame = self._taken()
            if frame is not None and _sharpness(frame) >= (1 - self.SAME_SHARPNESS) * _sharpness(settled):
                fixed["focus"] = float(focus)
                settled = frame
            else:
                cap.set(cv2.CAP_PROP_AUTOFOCUS, 1)
        for _ in range(self.DARKER_STEPS if "exposure" in fixed else 0):
            if washed_out(middle_half(settled)) <= self.BURNT_OUT:
                break
            lower = max(1.0, float(round(fixed["exposure"] * self.DARKER)))
            if lower >= fixed["exposure"] or not cap.set(cv2.CAP_PROP_EXPOSURE, lower):
                break
            fixed["exposure"] = lower
            frame = self._taken()
            if frame is None:
                break
            settled = frame
        return fixed

    def _taken(self) -> np.ndarray | None:
        """A frame that shows a control just set (the last of :attr:`TAKE_FRAMES`), None if none came."""
        frame = None
        for _ in range(self.TAKE_FRAMES):
            ok, f = self._cap.read()
            if ok and f is not None:
                frame = f
        return None if frame is None else as_bgr(frame)

    def _automatic(self) -> None:
        """The camera's own automatic exposure, white balance and focus (Video4Linux's controls stay
        set on the device after it is closed: the next program, or the next run, starts from
        these)."""
        self._automatic_exposure()
        self._cap.set(cv2.CAP_PROP_AUTO_WB, 1)
        if self._cap.get(cv2.CAP_PROP_AUTOFOCUS) >= 0:  # a camera with no autofocus has no such control
            self._cap.set(cv2.CAP_PROP_AUTOFOCUS, 1)

    def _automatic_exposure(self) -> None:
        """The first of the automatic exposures (:attr:`V4L2_AUTOMATIC`) the camera takes."""
        for mode in self.V4L2_AUTOMATIC:
            if self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, mode):
                return

    FRESH_WAIT = 0.005
    """A webcam's frame handed over sooner than this (seconds) after it was asked for was one the
    driver had ready: taken while nobody was reading, and then perhaps long before (OpenCV's
    Video4Linux backend keeps four, and the driver fills them and then drops what comes after).
    A table reads only from a press on: the board those show may be from before the play."""
    STALE_MOST = 8
    """At most this many ready frames are passed over for one read (a device that always has one,
    such as a stream, is then read as it comes)."""

    def read(self) -> np.ndarray | None:
        if self._cap is None:
            return None
        if not self.live:
            ok, frame = self._cap.read()
        else:
            # The frames the driver had ready are passed over (grabbed, not decoded), up to the
            # first the camera was waited for: the board as it is now.
            for _ in range(self.STALE_MOST):
                asked = time.monotonic()
                if not self._cap.grab():
                    return None
                if time.monotonic() - asked >= self.FRESH_WAIT:
                    break
            ok, frame = self._cap.retrieve()
        if not ok or frame is None:
            return None
        return as_bgr(frame)

    def close(self) -> None:
        if self._cap is not None:
            try:
                if self.settings:
                    self._automatic()
            finally:
                self._cap.release()
                self._cap = None


def _backend(cap: Any) -> str:
    """The name of the OpenCV backend a capture is opened with ("V4L2", "MSMF", ...), "" if it
    cannot say."""
    try:
        return str(cap.getBackendName())
    except (cv2.error, AttributeError):
        return ""


def _sharpness(frame: np.ndarray) -> float:
    """How sharp the middle half of a BGR frame is: the variance of its grey's Laplacian (edges
    out of focus answer it weakly)."""
    grey = cv2.cvtColor(np.ascontiguousarray(middle_half(frame)), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def _light(frame: np.ndarray) -> tuple[float, float, float]:
    """The middle half of a BGR frame (where the board lies): its mean grey, and its blue and
    red each against its green (the white balance)."""
    b, g, r = cv2.mean(middle_half(frame))[:3]
    return (b + g + r) / 3, b / max(g, 1.0), r / max(g, 1.0)


class PiCameraSource(_Camera):
    """The Raspberry Pi camera through picamera2.

    One still configuration at the sensor's full field of view, started once and kept running,
    so a capture never waits for a mode switch. After ``settle`` seconds the automatic exposure
    and white balance have found the table's light; their values are read from the frame
    metadata and set back as fixed controls, so a lamp switched on later or a player's shadow
    does not shift the colours between frames (the reader compares frames). ``controls`` (for
    example a calibration's ``camera`` settings) sets them straight away instead of settling.
    ``sleep`` waits that long (injected: tests give their own clock).
    """

    name = "picamera2"

    def __init__(self, size: tuple[int, int] | None = None, settle: float = 2.0, camera: int = 0,
                 controls: dict[str, Any] | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as e:
            raise FrameSourceError(PICAMERA2_MISSING) from e
        try:
            self._cam = Picamera2(camera)
        except (RuntimeError, IndexError) as e:
            raise FrameSourceError(f"cannot open the Raspberry Pi camera {camera}: {e}") from e
        full = tuple(self._cam.sensor_resolution)
        main_size = tuple(size) if size else full
        # The raw stream at the full sensor size makes libcamera pick a sensor mode that reads
        # the whole array, so the main stream sees the full field of view, only scaled.
        config = self._cam.create_still_configuration(
            main={"size": main_size, "format": "RGB888"}, raw={"size": full}, buffer_count=2
        )
        self._cam.configure(config)
        crop = self._cam.camera_properties.get("ScalerCropMaximum")
        if crop:
            self._cam.set_controls({"ScalerCrop": tuple(crop)})
        self._cam.start()
        if controls:
            # Settings saved with a calibration: the same exposure and colour gains as the frames
            # the board was calibrated (and the tiles enrolled) with.
            fixed = {"AeEnable": False, "AwbEnable": False}
            fixed.update({k: (tuple(v) if isinstance(v, list) else v) for k, v in controls.items()
                          if k in ("ExposureTime", "AnalogueGain", "ColourGains")})
            self._cam.set_controls(fixed)
            sleep(min(settle, self.CONTROLS_TAKE))
            self.settings = fixed
        else:
            sleep(settle)
            self.settings = self.freeze(sleep)

    CONTROLS_TAKE = 0.5
    """Seconds for controls set to reach the frames captured: libcamera applies them a few frames
    later, and a full-sensor still mode runs at ten to fifteen frames a second."""
    def freeze(self, sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
        """Fix exposure and white balance at what the camera has settled on; returns those values.

        The automatic exposure meters the whole frame, and a pale board on a dark table under a
        lamp comes out burnt white, where a blank tile and an empty square look alike. While more
        than :attr:`BURNT_OUT` of the frame's middle half is, the exposure is taken down by
        :attr:`DARKER`: the analogue gain first (it adds noise), down to 1, then the time."""
        md = self._cam.capture_metadata()
        fixed: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in md:
                fixed[key] = tuple(md[key]) if key == "ColourGains" else md[key]
        self._cam.set_controls(fixed)
        if "ExposureTime" not in fixed:
            return fixed
        for _ in range(self.DARKER_STEPS):
            if washed_out(middle_half(self._cam.capture_array("main"))) <= self.BURNT_OUT:
                break
            gain = float(fixed.get("AnalogueGain", 1.0))
            lower = max(1.0, gain * self.DARKER)
            fixed["ExposureTime"] = max(1, int(round(fixed["ExposureTime"] * self.DARKER * gain / lower)))
            if "AnalogueGain" in fixed:
                fixed["AnalogueGain"] = lower
            self._cam.set_controls(fixed)
            sleep(self.CONTROLS_TAKE)
        return fixed

    def read(self) -> np.ndarray | None:
        if self._cam is None:
            return None
        # "RGB888" in libcamera's naming is B, G, R in memory: OpenCV's order already.
        frame = self._cam.capture_array("main")
        return None if frame is None else as_bgr(np.ascontiguousarray(frame))

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
            finally:
                self._cam.close()
                self._cam = None


# Named sources beyond files and cameras: "synthetic" and whatever else registers itself.
_FACTORIES: dict[str, Callable[[str], FrameSource]] = {}


def register_source(name: str, factory: Callable[[str], FrameSource]) -> None:
    """Make ``open_source("NAME")`` or ``open_source("NAME:OPTIONS")`` call ``factory(OPTIONS)``."""
    _FACTORIES[name] = factory


register_source("synthetic", lambda options: synthetic_source(options))


def open_source(spec: str, repeat: bool = False, sleep: Callable[[float], None] = time.sleep,
                width: int | None = None, height: int | None = None) -> FrameSource:
    """Open a frame source from its description (see the module's table).

    ``repeat`` makes an image or a folder start again instead of ending; ``sleep`` is how a
    camera waits for its exposure to settle (injected: tests give their own clock). ``width``
    and ``height``: the frame size asked of a camera (the Pi's, or a webcam: one left at its
    own default gives 640x480), unless the description names one (``picamera2:2028x1520``,
    ``0:1920x1080``); files keep their own size. Raises :class:`FrameSourceError` with a
    message for the user when the source cannot be opened.
    """
    spec = str(spec).strip()
    if not spec:
        raise FrameSourceError("no frame source given (a camera index, a device, an image, a folder, a video, picamera2 or synthetic)")
    asked = (int(width), int(height)) if width and height else None
    head, _, options = spec.partition(":")
    if head == "picamera2":
        size = asked
        if options:
            m = re.fullmatch(r"(\d+)x(\d+)", options)
            if not m:
                raise FrameSourceError(f"picamera2 size {options!r} is not like 2028x1520")
            size = (int(m.group(1)), int(m.group(2)))
        return PiCameraSource(size=size, sleep=sleep)
    webcam = re.fullmatch(r"(\d+|/dev/[^:]+):(\d+)x(\d+)", spec)
    if webcam:
        spec, asked = webcam.group(1), (int(webcam.group(2)), int(webcam.group(3)))
        head = spec
    w, h = asked or (None, None)
    if head in _FACTORIES and not Path(spec).exists():
        return _FACTORIES[head](options)
    if spec.isdigit():
        return VideoSource(int(spec), w, h, live=True)
    if spec.startswith("/dev/"):
        if not Path(spec).exists():
            raise FrameSourceError(f"no such camera device: {spec}")
        return VideoSource(spec, w, h, live=True)
    p = Path(spec)
    if p.is_dir():
        return FolderSource(p, repeat=repeat)
    if not p.exists():
        raise FrameSourceError(f"no such camera, file or folder: {spec}")
    suffix = p.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return ImageSource(p, repeat=repeat)
    if suffix in VIDEO_SUFFIXES:
        return VideoSource(str(p), live=False)
    # Unknown suffix: an image if OpenCV can decode it, else try it as a video.
    try:
        return ImageSource(p, repeat=repeat)
    except FrameSourceError:
        pass
    try:
        return VideoSource(str(p), live=False)
    except FrameSourceError:
        raise FrameSourceError(f"{spec} is neither an image nor a video OpenCV can read") from None


class SyntheticSource(_Source):
    """A camera over a rendered board: a fixed camera (one pose), frames differing by sensor noise.

    ``open_source("synthetic")`` or ``open_source("synthetic:seed=3,size=1280x960")``; ``rows``
    sets the board shown (the table's demo changes it as the game goes on). A camera stand-in
    must give frames anywhere: a catalogue font that is not installed is replaced by Pillow's own,
    and ``notes`` (also printed once on stderr) say which, since the frames are then not the seed's.
    """

    name = "synthetic"

    def __init__(self, rows: Sequence[str] | None = None, seed: int = 0,
                 size: tuple[int, int] = (1280, 960), fonts: str | Path | None = None) -> None:
        from .render import SAMPLE_ROWS, _check_rows, random_style, with_stand_ins  # the renderer: only when used

        rows = SAMPLE_ROWS if rows is None else rows
        _check_rows(rows)
        w, h = size
        if not (16 <= w and 16 <= h and w * h <= MAX_IMAGE_PIXELS):
            raise FrameSourceError(f"synthetic camera: size {w}x{h} is not between 16x16 and "
                                   f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels")
        self.rows = tuple(rows)
        self.seed = seed
        self.size = size
        self.fonts = fonts
        self.style, self.notes = with_stand_ins(random_style(np.random.default_rng(seed)), fonts)
        for note in self.notes:
            print(f"synthetic camera: {note}; Pillow's own font stands in", file=sys.stderr, flush=True)
        self._frame = 0  # frames differ by sensor noise only: the board and camera stay put

    def read(self) -> np.ndarray:
        from .render import render_board

        self._frame += 1
        return render_board(self.rows, seed=self.seed * 7919 + self._frame, size=self.size, hand=False,
                            tilt=15.0, style=self.style, pose_seed=self.seed, fonts=self.fonts).image


def synthetic_source(options: str = "") -> SyntheticSource:
    """The frame source ``open_source("synthetic[:seed=N,size=WxH]")`` gives."""
    seed, size = 0, (1280, 960)
    for item in filter(None, (o.strip() for o in options.split(","))):
        key, _, value = item.partition("=")
        try:
            if key == "seed":
                seed = int(value)
            elif key == "size":
                w, h = value.lower().split("x")
                size = (int(w), int(h))
            else:
                raise ValueError(key)
        except ValueError:
            raise FrameSourceError(f"synthetic camera: {item!r} is not seed=N or size=WxH") from None
    return SyntheticSource(seed=seed, size=size)


_LAPLACE = np.float32([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])


def grain(image: np.ndarray) -> float:
    """The standard deviation of the sensor's noise in a picture (BGR or grey), in grey levels,
    estimated from the median response to a filter that cancels smooth shading and answers noise
    (Immerkaer's): the median, because letters' and lines' edges answer it too, but cover few of
    the pixels. A dim room's camera turns its gain up, and its frames are grainy.

    >>> flat = np.full((60, 60, 3), 128, np.uint8)
    >>> grain(flat)
    0.0
    >>> noisy = np.clip(flat + np.random.default_rng(0).normal(0, 10, (60, 60, 1)), 0, 255).astype(np.uint8)
    >>> 8 < grain(noisy) < 12
    True
    """
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    response = cv2.convertScaleAbs(cv2.filter2D(grey, cv2.CV_16S, _LAPLACE)[1:-1, 1:-1])
    counts = np.cumsum(cv2.calcHist([response], [0], None, [256], [0, 256]).ravel())
    # For Gaussian noise of sigma s the filter's output has deviation 6 s, its median magnitude 0.6745 of that.
    return float(np.searchsorted(counts, counts[-1] / 2)) / (6 * 0.6745)


WHITE_FROM = 250
"""The level from which a pixel's brightest colour counts as burnt out: the sensor's top, less
the ripple a JPEG leaves on a flat white."""


def washed_out(image: np.ndarray) -> float:
    """The share of a picture's pixels (BGR or grey) burnt out white, their brightest colour at
    the sensor's top. A lamp close over a pale board, or an automatic exposure metering a dark
    table round it, burns the board out, and there a blank tile and an empty square look alike.

    >>> board = np.full((40, 40, 3), 200, np.uint8)
    >>> washed_out(board)
    0.0
    >>> board[:10, :, 2] = 255   # a quarter of it, its red at the top
    >>> washed_out(board)
    0.25
    """
    brightest = image.max(axis=2) if image.ndim == 3 else image
    return float(np.count_nonzero(brightest >= WHITE_FROM)) / max(1, brightest.size)


def middle_half(frame: np.ndarray) -> np.ndarray:
    """The middle half of a frame each way (a view, not a copy): where a table's camera has the
    board, clear of the table round it.

    >>> middle_half(np.zeros((480, 640, 3), np.uint8)).shape
    (240, 320, 3)
    """
    h, w = frame.shape[:2]
    return frame[h // 4:h - h // 4, w // 4:w - w // 4]
