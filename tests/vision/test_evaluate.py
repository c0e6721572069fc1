"""The real-set split and the evaluation's counting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board_pi.vision.evaluate import SPLIT_PATH, real_split


def test_the_split_keeps_the_agreed_photos_out():
    split = real_split()
    assert split["declanfinerty"].held_out == ("eval_board.jpeg",)
    assert split["declanfinerty"].part("board_002.jpeg") == "tuning"
    game = split["jheidel-2015"]
    # the team's rule: up to and including 170248 may inform decisions, from 170317 on held out
    assert game.tuning and game.held_out
    assert max(game.tuning) == "IMG_20151016_170248.jpg"
    assert min(game.held_out) == "IMG_20151016_170317.jpg"
    assert all(p.startswith("IMG_20151016_") for p in game.tuning + game.held_out)
    assert split["jheidel-2014"].tuning == () and split["jheidel-2014"].held_out == ()
    assert game.part("IMG_20141025_163920.jpg") is None


def test_the_split_names_every_photo_of_its_folders_once(shared_data):
    split = real_split()
    for s in split.values():
        named = s.tuning + s.held_out + s.robustness
        assert len(named) == len(set(named)), s.name
        folder = shared_data / s.folder
        assert all((folder / p).is_file() for p in named), s.name
    photos = {p.name for p in (shared_data / "real-photos" / "jheidel-game").glob("*.jpg")}
    in_split = {p for name in ("jheidel-2015", "jheidel-2014") for s in [split[name]]
                for p in s.tuning + s.held_out + s.robustness}
    assert photos == in_split


def test_a_photo_in_two_parts_is_refused(tmp_path: Path):
    data = json.loads(SPLIT_PATH.read_text())
    data["sets"]["declanfinerty"]["tuning"].append("eval_board.jpeg")
    bad = tmp_path / "split.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="eval_board"):
        real_split(bad)
