"""Frame sources: real files, folders and videos written here; picamera2 through a stand-in library,
and a webcam through a stand-in for OpenCV's VideoCapture driving it as its Video4Linux backend does."""

from __future__ import annotations

import functools
import sys
import time
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import board_pi.vision.frames as frames_module
from board_pi.vision.frames import (
    PICAMERA2_MISSING,
    FolderSource,
    FrameSource,
    FrameSourceError,
    ImageSource,
    PiCameraSource,
    VideoSource,
    as_bgr,
    load_image,
    open_source,
    register_source,
    washed_out,
)


def _frame(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    img = np.zeros((size[1], size[0], 3), np.uint8)
    img[:] = (value, 255 - value, 128)
    cv2.putText(img, str(value), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return img


def test_image_file_once_or_repeated(tmp_path: Path) -> None:
    p = tmp_path / "board.png"
    cv2.imwrite(str(p), _frame(10))
    with open_source(str(p)) as src:
        assert isinstance(src, ImageSource) and isinstance(src, FrameSource)
        first = src.read()
        assert first is not None and first.shape == (48, 64, 3) and first.dtype == np.uint8
        assert src.read() is None
    with open_source(str(p), repeat=True) as src:
        assert all(src.read() is not None for _ in range(3))


def test_grey_image_comes_out_bgr(tmp_path: Path) -> None:
    p = tmp_path / "grey.png"
    cv2.imwrite(str(p), np.full((20, 30), 77, np.uint8))
    with open_source(str(p)) as src:
        f = src.read()
    assert f is not None and f.shape == (20, 30, 3)


def test_folder_in_natural_order_skipping_broken_files(tmp_path: Path) -> None:
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"IMG_{i}.jpg"), _frame(i * 10))
    (tmp_path / "IMG_5.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    with open_source(str(tmp_path)) as src:
        assert isinstance(src, FolderSource)
        names = []
        while src.read() is not None:
            assert src.current is not None
            names.append(src.current.name)
        assert names == ["IMG_1.jpg", "IMG_2.jpg", "IMG_10.jpg"]
        assert [p.name for p in src.skipped] == ["IMG_5.jpg"]


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FrameSourceError, match="holds no images"):
        open_source(str(tmp_path))


def test_video_replay(tmp_path: Path) -> None:
    p = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(6):
        writer.write(_frame(i * 40))
    writer.release()
    with open_source(str(p)) as src:
        assert isinstance(src, VideoSource) and src.settings == {}  # a file: no camera to fix
        got = list(src)
    assert len(got) == 6
    # The colours survive the compression well enough to tell the frames apart, in order.
    assert [round(int(f[40, 60, 0]) / 40) for f in got] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "no frame source"),
        ("/nonexistent/board.jpg", "no such camera, file or folder"),
        ("/dev/video-not-here", "no such camera device"),
        ("picamera2:big", "not like 2028x1520"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(FrameSourceError, match=message):
        open_source(spec)


def test_unreadable_files(tmp_path: Path) -> None:
    p = tmp_path / "board.jpg"
    p.write_bytes(b"\xff\xd8 broken")
    with pytest.raises(FrameSourceError, match="not an image"):
        open_source(str(p))
    # An iPhone's photo (HEIC): the way to a photo board-pi reads is said.
    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64)
    with pytest.raises(FrameSourceError, match="not an image .*HEIC or AVIF photo: save it as JPEG"):
        load_image(heic)
    q = tmp_path / "mystery.bin"
    q.write_bytes(b"\x00" * 100)
    with pytest.raises(FrameSourceError, match="neither an image nor a video"):
        open_source(str(q))


def test_missing_webcam_index_is_a_clear_error() -> None:
    # Index 99 is no camera on any machine this runs on.
    with pytest.raises(FrameSourceError, match="cannot open camera 99"):
        open_source("99")


def test_registered_sources_and_the_synthetic_hook(tmp_path: Path) -> None:
    made: list[str] = []

    def factory(options: str) -> FrameSource:
        made.append(options)
        p = tmp_path / "x.png"
        cv2.imwrite(str(p), _frame(1))
        return ImageSource(p)

    register_source("test-source", factory)
    with open_source("test-source:seed=3") as src:
        assert src.read() is not None
    assert made == ["seed=3"]
    with open_source("synthetic") as src:  # the renderer's camera, a frame source like the others
        f = src.read()
        assert f is not None and f.ndim == 3


def test_picamera2_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as when not installed
    with pytest.raises(FrameSourceError) as e:
        open_source("picamera2")
    assert "sudo apt install python3-picamera2" in str(e.value)
    assert str(e.value) == PICAMERA2_MISSING


class _StandInPicamera2:
    """A stand-in for picamera2's Picamera2 class, recording how board-pi drives it."""

    instances: list["_StandInPicamera2"] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.sensor_resolution = (4056, 3040)
        self.camera_properties = {"ScalerCropMaximum": (0, 0, 4056, 3040), "PixelArraySize": (4056, 3040)}
        self.calls: list[tuple[str, Any]] = []
        self.controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
        self.started = False
        _StandInPicamera2.instances.append(self)

    def create_still_configuration(self, main: dict, raw: dict | None = None, buffer_count: int = 1) -> dict:
        self.calls.append(("create_still_configuration", (main, raw)))
        return {"main": main, "raw": raw, "buffer_count": buffer_count}

    def configure(self, config: dict) -> None:
        self.calls.append(("configure", config))
        self.config = config

    def set_controls(self, controls: dict) -> None:
        self.calls.append(("set_controls", dict(controls)))
        self.controls.update(controls)

    def start(self) -> None:
        self.calls.append(("start", None))
        self.started = True

    def capture_metadata(self) -> dict:
        # What the automatic algorithms settled on, as libcamera reports it.
        return {"ExposureTime": 16650, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "Lux": 300.0}

    def capture_array(self, name: str = "main") -> np.ndarray:
        assert self.started, "capture before start"
        self.calls.append(("capture_array", name))
        w, h = self.config["main"]["size"]
        return np.full((h, w, 3), 100, np.uint8)

    def stop(self) -> None:
        self.calls.append(("stop", None))
        self.started = False

    def close(self) -> None:
        self.calls.append(("close", None))


def _picamera2_is(monkeypatch: pytest.MonkeyPatch, camera: type) -> None:
    """``import picamera2`` gives a module whose Picamera2 is ``camera`` (a stand-in), none made yet."""
    module = types.ModuleType("picamera2")
    module.Picamera2 = camera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    _StandInPicamera2.instances.clear()


def test_picamera2_one_configuration_full_view_frozen_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    _picamera2_is(monkeypatch, _StandInPicamera2)
    slept: list[float] = []
    with PiCameraSource(size=(2028, 1520), sleep=slept.append) as src:
        cam = _StandInPicamera2.instances[0]
        frames_read = [src.read() for _ in range(3)]
        assert src.settings == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 16650, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6)}
    names = [c[0] for c in cam.calls]
    # Configured and started once; every frame after that is a plain capture, no mode switch.
    assert names.count("configure") == 1 and names.count("start") == 1
    assert names[-2:] == ["stop", "close"]
    assert names.count("capture_array") == 1 + 3  # one to see the exposure is not burning the board out
    main, raw = cam.calls[0][1]
    assert main == {"size": (2028, 1520), "format": "RGB888"} and raw == {"size": (4056, 3040)}
    assert ("set_controls", {"ScalerCrop": (0, 0, 4056, 3040)}) in cam.calls
    assert cam.controls["AeEnable"] is False and cam.controls["ExposureTime"] == 16650
    assert all(f is not None and f.shape == (1520, 2028, 3) for f in frames_read)
    assert slept == [2.0]  # the settle, waited on the injected clock before the settings were read


def test_picamera2_by_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    _picamera2_is(monkeypatch, _StandInPicamera2)
    slept: list[float] = []
    with open_source("picamera2:1332x990", sleep=slept.append) as src:
        f = src.read()
    assert f is not None and f.shape == (990, 1332, 3) and slept == [2.0]


def test_picamera2_takes_saved_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    _picamera2_is(monkeypatch, _StandInPicamera2)
    # As read back from a calibration's JSON: lists, and keys that are not controls.
    saved = {"source": "picamera2", "ExposureTime": 20000, "AnalogueGain": 1.5, "ColourGains": [2.0, 1.4]}
    slept: list[float] = []
    with PiCameraSource(controls=saved, sleep=slept.append) as src:
        assert src.settings == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 20000, "AnalogueGain": 1.5, "ColourGains": (2.0, 1.4)}
    cam = _StandInPicamera2.instances[0]
    assert cam.controls["ColourGains"] == (2.0, 1.4) and cam.controls["AwbEnable"] is False
    assert slept == [0.5]  # a few frames for the saved controls, not the whole settle


class _LampOverTheBoard(_StandInPicamera2):
    """A camera whose automatic exposure, metering a dark table, burns the pale board out: its
    frames are as bright as the exposure (time x gain) set, a dark table round a board whose
    squares are pale and whose lines are dark."""

    def capture_metadata(self) -> dict:
        return {"ExposureTime": 20000, "AnalogueGain": 4.0, "ColourGains": (1.9, 1.6)}

    def capture_array(self, name: str = "main") -> np.ndarray:
        assert self.started, "capture before start"
        self.calls.append(("capture_array", name))
        w, h = self.config["main"]["size"]
        light = self.controls.get("ExposureTime", 20000) * self.controls.get("AnalogueGain", 4.0) / 80000
        scene = np.full((h, w), 40.0)  # the table
        scene[h // 8:h - h // 8, w // 8:w - w // 8] = 230.0  # the board's squares...
        scene[h // 8:h - h // 8:max(1, h // 20), :] = 90.0  # ...and its lines
        return np.repeat(np.clip(scene * light * 1.6, 0, 255).astype(np.uint8)[..., None], 3, axis=2)


def test_picamera2_takes_the_exposure_down_where_the_board_is_burnt_out(monkeypatch: pytest.MonkeyPatch) -> None:
    _picamera2_is(monkeypatch, _LampOverTheBoard)
    slept: list[float] = []
    with PiCameraSource(size=(640, 480), sleep=slept.append) as src:
        frame = src.read()
        settings = src.settings
    assert frame is not None
    h, w = frame.shape[:2]
    # As settled, the board's squares were burnt out (230 x 1.6); now they are not.
    assert washed_out(frame[h // 4:h - h // 4, w // 4:w - w // 4]) <= PiCameraSource.BURNT_OUT
    assert 150 < int(np.median(frame[h // 4:h - h // 4, w // 4:w - w // 4])) < 250
    # The gain went down first (it adds noise), then the time; the result is what is kept.
    assert settings["AnalogueGain"] < 4.0 and settings["ExposureTime"] <= 20000
    assert settings["AeEnable"] is False and settings["ColourGains"] == (1.9, 1.6)
    cam = _StandInPicamera2.instances[0]
    assert cam.controls["AnalogueGain"] == settings["AnalogueGain"]
    assert slept[0] == 2.0 and len(slept) >= 2  # the settle, then a wait after each step down


def test_picamera2_leaves_a_board_that_is_not_burnt_out_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    class Dim(_LampOverTheBoard):
        def capture_metadata(self) -> dict:
            return {"ExposureTime": 10000, "AnalogueGain": 2.0, "ColourGains": (1.9, 1.6)}

    _picamera2_is(monkeypatch, Dim)
    slept: list[float] = []
    with PiCameraSource(size=(640, 480), sleep=slept.append) as src:
        assert src.settings["ExposureTime"] == 10000 and src.settings["AnalogueGain"] == 2.0
    assert slept == [2.0]


class _StandInWebcam:
    """A stand-in for OpenCV's VideoCapture over a USB webcam, driven as OpenCV's Video4Linux
    backend drives one: controls passed through as they are (auto exposure 1 manual, 3
    automatic), -1 for a control the camera lacks; a control set reaching the frames three frames
    later. Its automatic exposure starts dark and brings the board's squares to 200 over the first
    frames; a fixed exposure makes the frame as bright as its time. Its automatic white balance
    gives the board's white as white; a fixed one tints it by how far its kelvin are from the
    room's light (4600 K). Its autofocus finds the board (at 30); a fixed focus blurs the frame by
    how far it is from that. It offers the nearest of its sizes to one asked, and keeps frames
    ready as the driver does (:meth:`idle`).

    ``stale``: it reports the exposure, colour temperature and focus it was last set to, not those
    its automatic controls are using (some webcams do). ``lamp``: a lamp close over the board, which
    the automatic exposure, metering the dark table too, burns out."""

    backend = "V4L2"
    exposure_modes = (1, 3)  # manual, aperture priority: a UVC webcam's
    autofocus = True  # its lens focuses: sharp at 30 (the board's distance), blurred off it
    stale = False
    lamp = False
    SETTLES_AT = 150.0  # exposure time (100 us) the automatic exposure settles on
    SIZES = ((640, 480), (1280, 720), (1920, 1080))
    instances: list["_StandInWebcam"] = []
    clock = 0.0  # seconds, the time board-pi's frame source sees (see _webcam_is)

    def __init__(self, target: object) -> None:
        # As a last run that was not closed left it: manual, at another light's settings.
        self.controls: dict[int, float] = {cv2.CAP_PROP_AUTO_EXPOSURE: 1, cv2.CAP_PROP_EXPOSURE: 400,
                                           cv2.CAP_PROP_AUTO_WB: 0, cv2.CAP_PROP_WB_TEMPERATURE: 6500}
        if self.autofocus:
            self.controls.update({cv2.CAP_PROP_AUTOFOCUS: 0, cv2.CAP_PROP_FOCUS: 0})
        self.auto_focus = 0.0
        self.auto_time = 20.0
        self.applied: list[tuple[float, float, float]] = [(400.0, 6500.0, 0.0)] * 3  # what the last frames were taken with
        self.sets: list[tuple[int, float]] = []
        self.size = self.SIZES[0]  # its default
        self.ready: list[np.ndarray] = []  # frames the driver holds ready
        self.played = False
        self.released = False
        _StandInWebcam.instances.append(self)

    def isOpened(self) -> bool:
        return True

    def getBackendName(self) -> str:
        return self.backend

    def _automatic_exposure(self) -> bool:
        return self.controls[cv2.CAP_PROP_AUTO_EXPOSURE] != 1

    def get(self, prop: int) -> float:
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            return float(self.size[0])
        if prop == cv2.CAP_PROP_FRAME_HEIGHT:
            return float(self.size[1])
        if prop == cv2.CAP_PROP_EXPOSURE and self._automatic_exposure() and not self.stale:
            return float(round(self.auto_time))
        if prop == cv2.CAP_PROP_WB_TEMPERATURE and self.controls[cv2.CAP_PROP_AUTO_WB] and not self.stale:
            return 4600.0
        if prop == cv2.CAP_PROP_FOCUS and self.controls.get(cv2.CAP_PROP_AUTOFOCUS) == 1 and not self.stale:
            return float(round(self.auto_focus))
        return float(self.controls.get(prop, -1))

    def set(self, prop: int, value: float) -> bool:
        self.sets.append((prop, value))
        if prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            # The driver's nearest size of those it has.
            want = (int(value), self.size[1]) if prop == cv2.CAP_PROP_FRAME_WIDTH else (self.size[0], int(value))
            self.size = min(self.SIZES, key=lambda wh: abs(wh[0] - want[0]) + abs(wh[1] - want[1]))
            return True
        if prop == cv2.CAP_PROP_AUTO_EXPOSURE and value not in self.exposure_modes:
            return False  # not in the driver's menu
        if prop in (cv2.CAP_PROP_AUTOFOCUS, cv2.CAP_PROP_FOCUS) and not self.autofocus:
            return False  # a fixed-focus camera has neither control
        self.controls[prop] = value
        return True

    def idle(self) -> None:
        """Nobody reads for a while: the driver fills its four buffers with the board as it is
        now, and then drops the frames that come after."""
        self.ready = [self._capture() for _ in range(4)]

    def grab(self) -> bool:
        if self.ready:
            self.current = self.ready.pop(0)  # at once
        else:
            _StandInWebcam.clock += 1 / 30  # waited for: the camera's next frame, at 30 a second
            self.current = self._capture()
        return True

    def retrieve(self) -> tuple[bool, np.ndarray]:
        return True, self.current

    def read(self) -> tuple[bool, np.ndarray]:
        self.grab()
        return self.retrieve()

    def _capture(self) -> np.ndarray:
        if self._automatic_exposure():
            target = self.SETTLES_AT * (1.6 if self.lamp else 1.0)
            self.auto_time += 0.4 * (target - self.auto_time)
        time_now = self.auto_time if self._automatic_exposure() else self.controls[cv2.CAP_PROP_EXPOSURE]
        kelvin = 4600.0 if self.controls[cv2.CAP_PROP_AUTO_WB] else self.controls[cv2.CAP_PROP_WB_TEMPERATURE]
        if self.controls.get(cv2.CAP_PROP_AUTOFOCUS) == 1:
            self.auto_focus += 0.5 * (30 - self.auto_focus)
        focus = self.auto_focus if self.controls.get(cv2.CAP_PROP_AUTOFOCUS) == 1 else self.controls.get(cv2.CAP_PROP_FOCUS, 30)
        self.applied.append((float(time_now), float(kelvin), float(focus)))
        exposure, kelvin, focus = self.applied[-4]  # what was set three frames before reaches this one
        blur = round(abs(focus - 30) / 10, 1) if self.autofocus else 0.0
        return self._picture(self.size, round(exposure, 3), kelvin, blur, self.lamp, self.played).copy()

    @staticmethod
    @functools.lru_cache(maxsize=8)
    def _picture(size: tuple[int, int], exposure: float, kelvin: float, blur: float, lamp: bool, played: bool) -> np.ndarray:
        w, h = size
        scene = np.full((h, w), 40.0)  # the table
        scene[h // 8:h - h // 8, w // 8:w - w // 8] = 200.0  # the board's squares...
        scene[h // 8:h - h // 8:h // 20, w // 8:w - w // 8] = 90.0  # ...and its lines
        light = scene * exposure / _StandInWebcam.SETTLES_AT * (1.6 if lamp else 1.0)
        tint = (kelvin / 4600.0, 1.0, 4600.0 / kelvin)  # B, G, R
        if played:
            light[h // 2:h // 2 + h // 20, w // 3:w // 2] = 30.0  # a play's dark tiles
        if blur:
            light = cv2.GaussianBlur(light, (0, 0), blur)
        return np.stack([np.clip(light * t, 0, 255) for t in tint], axis=2).astype(np.uint8)

    def release(self) -> None:
        self.released = True


def _webcam_is(monkeypatch: pytest.MonkeyPatch, camera: type) -> None:
    """OpenCV's VideoCapture is ``camera`` (a stand-in), and the frame source's clock the
    stand-in's, which moves only while a frame is waited for (so a frame the driver had ready is
    told from one waited for however busy this machine is)."""
    monkeypatch.setattr(cv2, "VideoCapture", camera)
    monkeypatch.setattr(frames_module, "time", types.SimpleNamespace(monotonic=lambda: _StandInWebcam.clock, sleep=time.sleep))
    _StandInWebcam.instances.clear()


def _middle(frame: np.ndarray) -> tuple[float, float, float]:
    h, w = frame.shape[:2]
    b, g, r = frame[h // 4:h - h // 4, w // 4:w - w // 4].reshape(-1, 3).mean(axis=0)
    return float((b + g + r) / 3), float(b / g), float(r / g)


def test_a_webcam_settles_then_its_exposure_and_white_balance_are_fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    _webcam_is(monkeypatch, _StandInWebcam)
    with open_source("0") as src:
        cam = _StandInWebcam.instances[0]
        # Put back to automatic first: what a last run left (manual, at 400) is not this light.
        assert cam.sets[:2] == [(cv2.CAP_PROP_AUTO_EXPOSURE, 3), (cv2.CAP_PROP_AUTO_WB, 1)]
        assert src.settings == {"exposure": 150.0, "white_balance": 4600.0, "focus": 30.0}  # what it settled on
        assert cam.controls[cv2.CAP_PROP_AUTO_EXPOSURE] == 1 and cam.controls[cv2.CAP_PROP_AUTO_WB] == 0
        assert cam.controls[cv2.CAP_PROP_AUTOFOCUS] == 0
        light, blue, red = _middle(src.read())
        assert 180 < light < 210 and abs(blue - 1) < 0.02 and abs(red - 1) < 0.02  # (its lines darker)
        cam.auto_time = 600.0  # a lamp switched on: the automatic exposure would follow it; fixed, it does not
        assert abs(_middle(src.read())[0] - light) < 1
    # Closed: the camera's own automatic controls again, for the next program or the next run.
    assert cam.controls[cv2.CAP_PROP_AUTO_EXPOSURE] == 3 and cam.controls[cv2.CAP_PROP_AUTO_WB] == 1
    assert cam.controls[cv2.CAP_PROP_AUTOFOCUS] == 1 and cam.released


def test_a_webcam_that_does_not_report_its_exposure_truly_is_left_automatic(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stale(_StandInWebcam):
        stale = True

    _webcam_is(monkeypatch, Stale)
    with VideoSource(0, live=True) as src:
        cam = _StandInWebcam.instances[0]
        # It said 400, 6500 K and 0, what a last run set (its automatic controls were at 150,
        # 4600 K and 30): fixed at those, the board came out more than twice as bright, blue
        # and out of focus, so all three went back to automatic.
        assert src.settings == {}
        assert (cv2.CAP_PROP_EXPOSURE, 400.0) in cam.sets and (cv2.CAP_PROP_WB_TEMPERATURE, 6500.0) in cam.sets
        assert (cv2.CAP_PROP_FOCUS, 0.0) in cam.sets
        assert cam.controls[cv2.CAP_PROP_AUTO_EXPOSURE] == 3 and cam.controls[cv2.CAP_PROP_AUTO_WB] == 1
        assert cam.controls[cv2.CAP_PROP_AUTOFOCUS] == 1
        for _ in range(10):  # the automatic controls settle again
            frame = src.read()
        light, blue, red = _middle(frame)
        assert 180 < light < 210 and abs(blue - 1) < 0.02


def test_a_webcam_burning_the_board_out_is_taken_down(monkeypatch: pytest.MonkeyPatch) -> None:
    class Lamp(_StandInWebcam):
        lamp = True

    _webcam_is(monkeypatch, Lamp)
    with VideoSource(0, live=True) as src:
        frame = src.read()
        # As settled, the board's squares were burnt out (200 x 1.6 x 1.6); now they are not.
        assert washed_out(frame[120:360, 160:480]) <= VideoSource.BURNT_OUT
        assert 150 < int(np.median(frame[120:360, 160:480])) < 250
        assert src.settings["exposure"] < 240 and src.settings["white_balance"] == 4600.0
        assert _StandInWebcam.instances[0].controls[cv2.CAP_PROP_EXPOSURE] == src.settings["exposure"]


def test_a_camera_whose_automatic_exposure_is_another_mode_gets_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotUvc(_StandInWebcam):
        exposure_modes = (0, 1)  # automatic, manual: no aperture priority

    _webcam_is(monkeypatch, NotUvc)
    with VideoSource(0, live=True) as src:
        assert src.settings["exposure"] == 150.0
    assert _StandInWebcam.instances[0].controls[cv2.CAP_PROP_AUTO_EXPOSURE] == 0


def test_a_webcam_is_asked_for_the_size_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    class Small(_StandInWebcam):
        SIZES = ((320, 240), (640, 360), (960, 540))  # small, for a quick test: its default first

    _webcam_is(monkeypatch, Small)
    with open_source("0") as src:
        assert src.read().shape == (240, 320, 3)  # left at its default
    with open_source("0", width=2304, height=1296) as src:  # the [camera] section's, as `run` and the doctor open it
        assert src.read().shape == (540, 960, 3)  # the nearest it has
    with open_source("0:640x360", width=2304, height=1296) as src:  # the description's own size first
        assert src.read().shape == (360, 640, 3)
    assert all(cam.released for cam in _StandInWebcam.instances)
    # Asked for compressed frames before the size (uncompressed, large frames come slowly over USB 2).
    sets = [prop for prop, _ in _StandInWebcam.instances[1].sets]
    assert sets.index(cv2.CAP_PROP_FOURCC) < sets.index(cv2.CAP_PROP_FRAME_WIDTH)
    assert (cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG")) in _StandInWebcam.instances[1].sets
    assert cv2.CAP_PROP_FOURCC not in [prop for prop, _ in _StandInWebcam.instances[0].sets]  # no size asked: as it is


def test_a_webcam_read_after_a_while_gives_the_board_as_it_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    _webcam_is(monkeypatch, _StandInWebcam)
    with VideoSource(0, live=True) as src:
        cam = _StandInWebcam.instances[0]
        h, w = 480, 640
        assert src.read()[h // 2 + 5, w // 2 - 60].max() > 150  # an empty square
        cam.idle()  # nobody reads between presses: the frames the driver holds show the board then...
        cam.played = True  # ...and a play goes down
        assert src.read()[h // 2 + 5, w // 2 - 60].max() < 60  # the press's frame shows it
        assert cam.ready == []  # the old frames were passed over


def test_a_webcam_with_a_fixed_focus_has_no_focus_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    class FixedFocus(_StandInWebcam):
        autofocus = False

    _webcam_is(monkeypatch, FixedFocus)
    with VideoSource(0, live=True) as src:
        assert src.settings == {"exposure": 150.0, "white_balance": 4600.0}
    cam = _StandInWebcam.instances[0]
    assert not any(prop in (cv2.CAP_PROP_AUTOFOCUS, cv2.CAP_PROP_FOCUS) for prop, _ in cam.sets)


def test_a_webcam_that_gives_no_frames_is_not_waited_on_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    class Dead(_StandInWebcam):
        reads = 0

        def grab(self) -> bool:
            Dead.reads += 1  # each would wait out OpenCV's ten seconds on a real one
            return False

        def read(self) -> tuple[bool, np.ndarray | None]:
            return self.grab(), None

    _webcam_is(monkeypatch, Dead)
    with VideoSource(0, live=True) as src:
        assert src.settings == {} and src.read() is None
    assert Dead.reads == VideoSource.NO_FRAME_MOST + 1  # settling gave up after three, then one read


def test_a_webcam_on_another_backend_keeps_its_own_controls(monkeypatch: pytest.MonkeyPatch) -> None:
    class Windows(_StandInWebcam):
        backend = "MSMF"  # whose controls' values mean other things

    _webcam_is(monkeypatch, Windows)
    with VideoSource(0, live=True) as src:
        assert src.settings == {} and _StandInWebcam.instances[0].sets == []
        assert src.read() is not None


def test_washed_out_counts_the_burnt_out_pixels() -> None:
    grey = np.full((10, 10), 120, np.uint8)
    grey[:3] = 252
    assert washed_out(grey) == pytest.approx(0.3)
    assert washed_out(np.dstack([grey] * 3)) == pytest.approx(0.3)


# --------------------------------------------------------------------------- bounded images


def test_an_image_of_too_many_pixels_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    from tests.vision.huge_image import huge_png

    big = huge_png(tmp_path / "big.png")  # 20000x20000: 1.2 GB decoded, 50 KB on disk
    with pytest.raises(FrameSourceError, match=r"400 megapixels, more than board-pi reads \(50 megapixels\)"):
        load_image(big)
    over = huge_png(tmp_path / "over.png", 8000, 7000)  # above our bound, below Pillow's own
    with pytest.raises(FrameSourceError, match=r"8000x7000 pixels \(56 megapixels\)"):
        load_image(over)
    # Every source that reads image files uses the one loader.
    with pytest.raises(FrameSourceError, match="megapixels"):
        open_source(str(big))
    with pytest.raises(FrameSourceError, match="megapixels"):
        ImageSource(big)
    fine = huge_png(tmp_path / "fine.png", 640, 480)
    assert load_image(fine).shape == (480, 640, 3)


def test_a_large_photo_is_decoded_reduced_and_says_its_scale(tmp_path: Path) -> None:
    # A phone's 12-megapixel photo is decoded at half size (still 2016 pixels across: squares of
    # 60 pixels and more where the reader cuts them to 36); what is small already stays as it is.
    from board_pi.vision.frames import PHOTO_SIDE, load_photo

    frame = _frame(40)
    cv2.imwrite(str(tmp_path / "phone.jpg"), cv2.resize(frame, (4032, 3024)))
    image, scale = load_photo(tmp_path / "phone.jpg")
    assert image.shape == (1512, 2016, 3) and scale == 2.0
    cv2.imwrite(str(tmp_path / "big.png"), cv2.resize(frame, (6000, 4000)))  # not a JPEG: reduced all the same
    image, scale = load_photo(tmp_path / "big.png")
    assert image.shape == (2000, 3000, 3) and scale == 2.0 and max(image.shape) >= PHOTO_SIDE
    cv2.imwrite(str(tmp_path / "frame.jpg"), frame)
    image, scale = load_photo(tmp_path / "frame.jpg")
    assert image.shape == frame.shape and scale == 1.0
    with pytest.raises(FrameSourceError, match="no such file"):
        load_photo(tmp_path / "missing.jpg")


def test_a_phone_photo_stored_sideways_is_turned_as_its_exif_says(tmp_path: Path) -> None:
    # Phones store a portrait photo's pixels sideways and say in the EXIF orientation how to turn
    # them; corners a person gives are in the photo as shown. Decoded whole and reduced alike.
    from PIL import Image

    from board_pi.vision.frames import load_photo

    shown = cv2.resize(_frame(40), (1500, 2000))  # portrait, as the phone shows it
    shown[:200, :300] = (0, 0, 255)  # its top-left corner red
    exif = Image.Exif()
    exif[0x0112] = 6  # "turn 90 degrees clockwise to show"
    stored = Image.fromarray(cv2.cvtColor(np.rot90(shown).copy(), cv2.COLOR_BGR2RGB))  # its pixels a quarter turn back
    stored.save(tmp_path / "phone.jpg", exif=exif.tobytes(), quality=95)
    assert stored.size == (2000, 1500)
    for image in (load_image(tmp_path / "phone.jpg"), load_photo(tmp_path / "phone.jpg", 700)[0]):
        h, w = image.shape[:2]
        assert h > w and abs(h / w - 4 / 3) < 0.01
        assert image[h // 40, w // 40].tolist() == pytest.approx([0, 0, 255], abs=40)


def test_a_folder_skips_too_large_images_and_says_why(tmp_path: Path) -> None:
    from tests.vision.huge_image import huge_png

    huge_png(tmp_path / "IMG_1.png")
    cv2.imwrite(str(tmp_path / "IMG_2.png"), _frame(20))
    with open_source(str(tmp_path)) as src:
        assert isinstance(src, FolderSource)
        assert src.read() is not None and src.current is not None and src.current.name == "IMG_2.png"
        assert [p.name for p in src.skipped] == ["IMG_1.png"] and "megapixels" in src.last_error


def test_empty_devices_and_folders_are_not_images(tmp_path: Path) -> None:
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(FrameSourceError, match="empty"):
        load_image(tmp_path / "empty.jpg")
    with pytest.raises(FrameSourceError, match="no such file"):
        load_image("/dev/zero")  # never read: it would never end
    with pytest.raises(FrameSourceError, match="folder"):
        load_image(tmp_path)


def test_synthetic_camera_size_is_bounded() -> None:
    with pytest.raises(FrameSourceError, match="megapixels"):
        open_source("synthetic:size=20000x20000")
    with pytest.raises(FrameSourceError, match="16x16"):
        open_source("synthetic:size=0x480")


@pytest.mark.parametrize(
    "frame, expect",
    [
        (np.full((4, 5), 65535, np.uint16), 255),  # 16-bit white is white, however dark the rest
        (np.full((4, 5), 257 * 100, np.uint16), 100),
        (np.full((4, 5, 1), 100, np.uint8), 100),
        (np.full((4, 5, 4), 100, np.uint8), 100),
        (np.full((4, 5, 3), 0.25, np.float32), 64),  # floats are 0..1, as OpenCV takes them
    ],
)
def test_one_conversion_to_bgr(frame: np.ndarray, expect: int) -> None:
    out = as_bgr(frame)
    assert out.dtype == np.uint8 and out.shape == (4, 5, 3) and int(out[0, 0, 0]) == expect


def test_a_16_bit_frame_keeps_its_brightness() -> None:
    # A dim 16-bit frame stays dim: scaled by the type's range, not stretched to its own brightest
    # pixel (which made two frames of one scene differ, and the reader compares frames).
    dim = np.full((4, 4), 1000, np.uint16)
    dim[0, 0] = 2000
    out = as_bgr(dim)
    assert int(out[1, 1, 0]) == round(1000 * 255 / 65535) and int(out[0, 0, 0]) == round(2000 * 255 / 65535)


@pytest.mark.parametrize("bad", ["board.jpg", np.zeros((0, 0, 3), np.uint8), np.zeros((4, 4, 2), np.uint8),
                                 np.zeros((2, 2, 2, 2), np.uint8), np.array([["a"]])])
def test_what_is_not_an_image_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        as_bgr(bad)  # type: ignore[arg-type]


def test_doctests() -> None:
    import doctest

    from board_pi.vision import frames, geometry

    for module in (frames, geometry):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
