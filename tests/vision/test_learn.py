"""A table learns its own tiles from the plays it commits: the real renderer, tile model, tracker and
files, no stand-ins."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from board_pi.table.vision import VisionReader  # noqa: E402
from board_pi.vision.calibration import Tracker, calibrate  # noqa: E402
from board_pi.vision.learn import TableMemory, model_fingerprint  # noqa: E402
from board_pi.vision.read import CLASSES, MODEL_PATH, Reader  # noqa: E402
from board_pi.vision.render import random_style, render_board  # noqa: E402

EMPTY = ["." * 15] * 15
MODEL = model_fingerprint(MODEL_PATH)


def frame(rows, n: int):  # type: ignore[no-untyped-def]
    """A fixed camera over one table: the same pose, light and tile set in every frame."""
    r = render_board(rows, seed=300 + n, hand=False, tilt=10.0, style=random_style(np.random.default_rng(8)),
                     pose_seed=8, effects=False)
    return r.image, r.corners


def put(rows: list[str], square: tuple[int, int], ch: str) -> list[str]:
    r, c = square
    out = list(rows)
    out[r] = out[r][:c] + ch + out[r][c + 1:]
    return out


def test_memory_keeps_the_newest_examples_of_each_class_and_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "learned-tiles.npz"
    memory = TableMemory.open(path, MODEL, per_class=3)
    assert memory.size == 0 and memory.profile() is None
    emb = np.eye(8, 96, dtype=np.float32)
    memory.add(emb[:5], [1, 1, 1, 1, 2])  # four A's: the first one goes
    assert memory.size == 4 and list(memory.labels) == [1, 1, 1, 2]
    assert np.array_equal(memory.embeddings[0], emb[1])
    memory.save()
    again = TableMemory.open(path, MODEL, per_class=3)
    assert np.array_equal(again.embeddings, memory.embeddings) and list(again.labels) == [1, 1, 1, 2]
    profile = again.profile()
    assert profile is not None and len(profile.labels) == 4


def test_a_memory_written_behind_the_press_is_on_the_disk_once_flushed(tmp_path: Path) -> None:
    """A table writes what it learnt on a thread of its own (a press does not wait for the disk);
    what is written is the memory as it stood when asked, whole, however it changes after."""
    from board_pi.vision import learn

    path = tmp_path / "learned-tiles.npz"
    memory = TableMemory.open(path, MODEL, per_class=3)
    emb = np.eye(8, 96, dtype=np.float32)
    memory.add(emb[:2], [1, 2])
    stalled = threading.Event()
    learn._WRITER.put(stalled.wait)  # the writing thread held, as a stalled card holds it
    memory.save_behind()
    memory.add(emb[2:5], [3, 3, 3])  # learnt meanwhile: not in the write asked for
    assert not memory.flush(timeout=0.2) and not path.exists()
    stalled.set()
    assert memory.flush(timeout=10)
    again = TableMemory.open(path, MODEL, per_class=3)
    assert list(again.labels) == [1, 2] and np.array_equal(again.embeddings, emb[:2])
    memory.save_behind()
    assert memory.flush(timeout=10)
    assert list(TableMemory.open(path, MODEL, per_class=3).labels) == [1, 2, 3, 3, 3]


@pytest.mark.parametrize("damage", ["another model", "garbage"])
def test_a_memory_that_cannot_be_used_is_set_aside_and_learning_starts_again(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "learned-tiles.npz"
    memory = TableMemory.open(path, MODEL)
    memory.add(np.eye(2, 96, dtype=np.float32), [1, 2])
    memory.save()
    if damage == "garbage":
        path.write_bytes(b"not a memory at all")
    again = TableMemory.open(path, "another-model" if damage == "another model" else MODEL)
    assert again.size == 0
    assert not path.exists() and (tmp_path / "learned-tiles.unused.npz").exists()  # kept for a look


def test_a_tile_the_players_corrected_is_read_as_they_said_at_the_next_play(tmp_path: Path) -> None:
    """This table's E looks, to the model, like an O (a set it was never trained on): the players
    correct it on the page once; the next E laid down reads as E."""
    reader = Reader()
    image, corners = frame(EMPTY, 0)
    eyes = VisionReader(reader=reader, tracker=Tracker(calibrate(image, corners, rotation=0, use_markers=False)),
                        memory=TableMemory.open(tmp_path / "learned-tiles.npz", MODEL))
    assert eyes.read(image) is not None
    eyes.commit(EMPTY)
    # The first play: what the model sees as O's are this set's E's.
    first = put(put(put(EMPTY, (7, 7), "O"), (7, 8), "O"), (7, 6), "O")
    image, _ = frame(first, 1)
    seen = eyes.read(image)
    assert seen is not None and seen.grid[7][6:9] == "OOO"  # as the model sees them
    corrected = [row.replace("O", "E") for row in first]
    eyes.commit(corrected)  # the players' correction is what stands
    assert eyes.memory is not None and eyes.memory.size == 0  # learnt once the score is shown:
    eyes.learn()
    assert eyes.memory.flush(timeout=10) and (tmp_path / "learned-tiles.npz").exists()
    assert CLASSES.index("E") in set(eyes.memory.labels.tolist())
    # The next play puts down another of those tiles.
    second = put(corrected, (8, 7), "O")
    image, _ = frame(second, 2)
    seen = eyes.read(image)
    assert seen is not None and seen.grid[8][7] == "E"
    # Without what was learnt, the same frame reads O: the memory made the difference.
    plain = VisionReader(reader=Reader(), tracker=Tracker(calibrate(frame(EMPTY, 0)[0], corners, rotation=0,
                                                                    use_markers=False)))
    assert plain.read(image).grid[8][7] == "O"  # type: ignore[union-attr]


def test_what_a_table_learnt_is_there_at_the_next_game(tmp_path: Path) -> None:
    path = tmp_path / "learned-tiles.npz"
    image, corners = frame(EMPTY, 0)
    eyes = VisionReader(reader=Reader(), tracker=Tracker(calibrate(image, corners, rotation=0, use_markers=False)),
                        memory=TableMemory.open(path, MODEL))
    eyes.read(image)
    eyes.commit(EMPTY)
    board = put(put(EMPTY, (7, 7), "A"), (7, 8), "T")
    image, _ = frame(board, 1)
    eyes.read(image)
    eyes.commit(board)
    eyes.learn()
    learnt = eyes.memory.size  # type: ignore[union-attr]
    assert learnt >= 2 and eyes.memory.flush(timeout=10)  # type: ignore[union-attr]
    # A new game, or the Pi restarted: the table's reader starts with what it had learnt.
    reader = Reader()
    VisionReader(reader=reader, memory=TableMemory.open(path, MODEL))
    assert reader.memory is not None and len(reader.memory.labels) == learnt
    assert {CLASSES.index("A"), CLASSES.index("T"), 0} <= set(reader.memory.labels.tolist())
    assert reader.profile is None  # the enrolled profile is another thing, kept apart
