"""Train the tile classifier and export it to ONNX: ``make model`` (needs torch, only here).

Recipe (recorded beside the model in ``model/recipe.json``):
1. Synthetic boards from :mod:`board_pi.vision.render` (random editions, tile sets, typefaces,
   camera poses, light, glare, shadows, hands, blur, noise, JPEG), warped back top-down through
   corners disturbed as a board finder would disturb them, cut into square patches exactly as
   :mod:`board_pi.vision.read` does. Squares under a hand are left out.
2. Photos of real boards (``../shared/data/real-boards``) other than ``eval_board``, which stays
   out of training and tuning and is reported on its own; each is re-cut many times with jittered
   corners, scale, blur, colour and JPEG quality.
3. A small CNN (about 294k parameters, 7.3M multiply-adds per square) trained with cross-entropy; exported with two outputs,
   ``logits`` and ``embedding`` (used by enrolment's nearest neighbours). With ``--hard-share``,
   each epoch after the first draws that share of the data again from the patches the epoch
   before read worst (misread, or read right with little belief).

Usage: ``python -m board_pi.vision.train [--boards 1000] [--epochs 10] [--seed 4]``.

With ``--accents``, the accents network instead (``model/accents/``, :mod:`.accents`): the same
network telling apart only the faces of families (A Ą Ä, Z Ź Ż, ...), warm-started from the tile
model (``--init``) and trained on boards dense with those faces (:func:`accent_board`).

With ``--values``, the value network (``model/values/``, :mod:`.values`): the same network reading
the value printed at a tile's bottom right (or none), from scratch, on the tiles of rendered
boards (:func:`value_board`) and of the real training photos, cut as :func:`.values.value_patches`
cuts them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from board_pi.rules.board import split_row
from board_pi.rules.tiles import ENGLISH, TILE_SETS, TileSet, all_glyphs
from board_pi.vision.editions import edition_style, tournament_tiles
from board_pi.vision.read import MODEL_PATH, N, PATCH, SQUARE_PX, Reader, _warp, label_of, patches
from board_pi.vision.render import Rendered, Style, jitter_colour, random_rows, random_style, render_board

CLASSES: tuple[str, ...] = (".",) + all_glyphs() + ("?",)
"""What the model tells apart: empty, every face of every tile set (rules.tiles.TILE_SETS), a blank."""
SET_SHARE = 0.3
"""Boards of the English set in the training data; the rest are shared among the other sets."""

SIZES = ((1280, 960), (960, 720), (800, 600), (1600, 1200))
ROOT = Path(__file__).resolve().parents[2]
REAL_DIR = ROOT.parent / "shared" / "data" / "real-boards" / "declanfinerty"
HELD_OUT = "eval_board"


def jitter_corners(rng: np.random.Generator, corners: np.ndarray, amount: float = 0.12) -> np.ndarray:
    """Move each corner by about ``amount`` of a square, as an imperfect board finder would."""
    side = np.linalg.norm(corners[1] - corners[0]) / N
    return (corners + rng.normal(0, amount * side, corners.shape)).astype(np.float32)


def tiles_like_squares(rng: np.random.Generator, style: Style) -> Style:
    """``style`` with tiles the colour of its squares (cream tiles on a cream board), plain or
    wooden, lettered in near-black: the boards where a blank tile is hardest to see."""
    from dataclasses import replace

    tile = jitter_colour(rng, style.square, 10)
    return replace(style, tile=tile, tile_kind=("plain", "wood")[int(rng.random() < 0.4)], ink=(25, 25, 30))


def draw_set(rng: np.random.Generator, set_weights: dict[str, float] | None = None) -> TileSet:
    """The tile set of a training board: English :data:`SET_SHARE` of the time, else one of the
    others, each as often as the rest, or as ``set_weights`` weighs it (1 when not named)."""
    others = [ts for ts in TILE_SETS.values() if ts is not ENGLISH]
    if rng.random() < SET_SHARE:
        return ENGLISH
    if set_weights:  # a set whose glyphs are harder to tell apart, drawn more often
        w = np.array([set_weights.get(ts.name, 1.0) for ts in others], np.float64)
        return others[int(rng.choice(len(others), p=w / w.sum()))]
    return others[int(rng.integers(len(others)))]


def draw_style(rng: np.random.Generator, edition_share: float, tournament_share: float,
               like_squares_on_editions: bool = False) -> Style:
    """A training board's look: a club edition ``edition_share`` of the time, else a random
    style; tiles the colour of their squares a third of the time (on editions too where
    ``like_squares_on_editions``), else, on boards other than the editions, tournament tiles
    ``tournament_share`` of the time. A share of 0 draws nothing from ``rng``, so that the
    committed networks' data stay as they were."""
    edition = edition_share > 0 and rng.random() < edition_share
    style = edition_style(rng) if edition else random_style(rng)
    if (like_squares_on_editions or not edition) and rng.random() < 0.33:
        style = tiles_like_squares(rng, style)
    elif not edition and tournament_share > 0 and rng.random() < tournament_share:
        style = tournament_tiles(rng, style)
    return style


def synthetic_board(seed: int, empty_keep: float = 0.35,
                    set_weights: dict[str, float] | None = None,
                    edition_share: float = 0.0, tournament_share: float = 0.0,
                    local_light: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Patches and labels from one rendered board.

    Weighted towards what is hard to tell apart: blank tiles are a sixth of the tiles, a third of
    the boards have tiles the colour of the squares (cream tiles on a cream board), and every empty
    square beside a tile is kept (its neighbour's side and shadow fall on it); other empty squares
    are mostly dropped, for balance. ``set_weights``: how often each set other than English is
    drawn, relative to the others (1 when not named); none given, all equally. ``edition_share``:
    the share of boards drawn as a club edition (:mod:`.editions`: green, sage, lavender and
    wooden boards); 0 for the committed model (a fine-tune with 0.3 read every set worse).
    ``tournament_share``: the share of the other boards whose tiles are tournament tiles
    (:func:`.editions.tournament_tiles`: navy, maroon, black, ... lettered in white or yellow).
    ``local_light``: the share of boards under light that falls on a few squares (a lamp's streak
    or reflection, a body's shadow edge, a strong cast: :func:`.render.light_on_squares`), drawn
    apart so that the board is otherwise the one drawn without it.
    """
    lit = np.random.default_rng(seed + 4_000_003)
    lit = lit if local_light > 0 and lit.random() < local_light else None
    rng = np.random.default_rng(seed + 1_000_003)
    tiles = draw_set(rng, set_weights)
    rows = random_rows(rng, blanks=0.16, tiles=tiles)
    size = SIZES[rng.integers(len(SIZES))]
    style = draw_style(rng, edition_share, tournament_share)
    r = render_board(rows, seed=seed, size=size, tilt=float(rng.uniform(5, 35)), style=style, tiles=tiles,
                     local_light=lit)
    corners = jitter_corners(rng, r.corners, rng.uniform(0.02, 0.15))
    warped = _warp(r.image, corners)

    cells = [split_row(row) for row in rows]

    def beside_tile(i: int, j: int) -> bool:
        return any(cells[a][b] != "." for a in range(max(i - 1, 0), min(i + 2, N))
                   for b in range(max(j - 1, 0), min(j + 2, N)))

    sq = [(i, j) for i in range(N) for j in range(N)
          if not r.occluded[i, j] and (cells[i][j] != "." or beside_tile(i, j) or rng.random() < empty_keep)]
    y = np.array([label_of(cells[i][j], CLASSES) for i, j in sq], np.int64)
    return patches(warped, sq), y


def tile_patches(image: np.ndarray, corners: np.ndarray, squares: list[tuple[int, int]]) -> np.ndarray:
    """The tile model's patches of ``squares``, cut as :mod:`.read` cuts them."""
    return patches(_warp(image, corners), squares)


def real_variants(path: Path, truth: list[str], corners: np.ndarray, n: int, seed: int,
                  cut=tile_patches) -> tuple[np.ndarray, np.ndarray]:
    """``n`` re-cuts of one real photo with jittered corners, scale, blur, colour and JPEG;
    ``cut`` cuts the patches (the value network's: :func:`.values.value_patches`)."""
    rng = np.random.default_rng(seed)
    img0 = cv2.imread(str(path))
    xs, ys = [], []
    sq = [(i, j) for i in range(N) for j in range(N)]
    y = np.array([label_of(truth[i][j], CLASSES) for i, j in sq], np.int64)
    for _ in range(n):
        f = rng.uniform(0.16, 0.5)  # the board 400-1200 px wide, as a table camera sees it
        img = cv2.resize(img0, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        img = (img.astype(np.float32) * rng.normal(1, 0.08, 3) * rng.uniform(0.7, 1.2)).clip(0, 255).astype(np.uint8)
        if rng.random() < 0.5:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        c = jitter_corners(rng, corners * f, rng.uniform(0.02, 0.12))
        xs.append(cut(img, c, sq))
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def load_hand_labelled() -> list[tuple[Path, list[str], np.ndarray]]:
    """The tuning photos of the real game labelled by hand (tests/data), never the held-out ones."""
    from board_pi.vision.evaluate import hand_labelled, real_split

    labels = ROOT / "tests" / "data"
    game = ROOT.parent / "shared" / "data" / "real-photos" / "jheidel-game"
    if not (labels / "jheidel_labels.json").is_file() or not game.is_dir():
        return []
    split = real_split()["jheidel-2015"]
    return [(path, truth, corners) for name, path, truth, corners in
            hand_labelled(labels / "jheidel_labels.json", labels / "jheidel_corners.json", game)
            if split.part(name) == "tuning"]


def load_real(names: list[str]) -> list[tuple[Path, list[str], np.ndarray]]:
    out = []
    for name in names:
        img = REAL_DIR / f"{name}.jpeg"
        if img.is_file():
            truth = (REAL_DIR / f"{name}.txt").read_text().split()
            corners = np.float32(json.loads((REAL_DIR / f"{name}.corners.json").read_text())["corners"])
            out.append((img, truth, corners))
    return out


ACCENT_SETS = {"polish": 0.6, "german": 0.25, "spanish": 0.15}
"""The sets whose faces come in families (:func:`.accents.families`) and how often each is drawn
for the accents network: Polish has eight families, German three, Spanish one."""


def specialist_render(rng: np.random.Generator, seed: int, rows: list[str], tiles: TileSet,
                      tournament_share: float = 0.0) -> tuple[Rendered, np.ndarray, Style]:
    """``rows`` rendered for a specialist network's training (:func:`accent_board`,
    :func:`value_board`): a random size and pose, a look drawn by :func:`draw_style` (a club
    edition 15% of the time, tiles the colour of their squares a third of the time, editions
    too); and its corners disturbed as a board finder would disturb them; and the style drawn."""
    size = SIZES[rng.integers(len(SIZES))]
    style = draw_style(rng, 0.15, tournament_share, like_squares_on_editions=True)
    r = render_board(rows, seed=seed, size=size, tilt=float(rng.uniform(5, 35)), style=style, tiles=tiles)
    return r, jitter_corners(rng, r.corners, rng.uniform(0.02, 0.15)), style


def accent_board(seed: int, tournament_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Patches and labels (indices into :data:`.accents.ACCENT_CLASSES`) of the tiles of one
    rendered board dense with faces of families, every face of a family as often as the others
    (the accented ones are the rare tiles of a real bag), drawn as :func:`synthetic_board` draws
    its boards. Only the tiles are kept: the accents network is asked only about them."""
    from board_pi.vision.accents import ACCENT_CLASSES, families

    rng = np.random.default_rng(seed + 2_000_003)
    names = list(ACCENT_SETS)
    w = np.array([ACCENT_SETS[n] for n in names])
    tiles = TILE_SETS[names[int(rng.choice(len(names), p=w / w.sum()))]]
    faces = sorted(set(families(tiles)))
    density = rng.uniform(0.25, 0.6)
    rows = ["".join(faces[int(rng.integers(len(faces)))] if rng.random() < density else "." for _ in range(N))
            for _ in range(N)]
    r, corners, _ = specialist_render(rng, seed, rows, tiles, tournament_share)
    warped = _warp(r.image, corners)
    sq = [(i, j) for i in range(N) for j in range(N) if rows[i][j] != "." and not r.occluded[i, j]]
    y = np.array([ACCENT_CLASSES.index(rows[i][j]) for i, j in sq], np.int64)
    return patches(warped, sq), y


def value_board(seed: int, tournament_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Value patches (:func:`.values.value_patches`) and labels (indices into
    :data:`.values.VALUE_CLASSES`) of the tiles of one rendered board of a set drawn as
    :func:`synthetic_board` draws it (a sixth of the tiles blanks, which show no value), its
    styles drawn as :func:`accent_board` draws them. Only the tiles are kept: the value network
    is asked only about squares read as tiles."""
    from board_pi.vision.values import value_label, value_patches

    rng = np.random.default_rng(seed + 3_000_003)
    tiles = draw_set(rng)
    rows = random_rows(rng, blanks=0.16, tiles=tiles)
    r, corners, style = specialist_render(rng, seed, rows, tiles, tournament_share)
    cells = [split_row(row) for row in rows]
    sq = [(i, j) for i in range(N) for j in range(N) if cells[i][j] != "." and not r.occluded[i, j]]
    # a style that prints no values shows none on any tile
    y = np.array([value_label(cells[i][j], tiles) if style.show_values else 0 for i, j in sq], np.int64)
    return value_patches(r.image, corners, sq), y


def _tiles_read_right(path: Path, board, seeds: Iterable[int]) -> dict:
    """The network at ``path`` on the patches and labels ``board(seed)`` gives for ``seeds``
    (never trained on), through OpenCV as the reader runs it: tiles, and the share read right."""
    net = cv2.dnn.readNetFromONNX(str(path))
    right = total = 0
    for seed in seeds:
        x, y = board(seed)
        if not len(x):
            continue
        net.setInput(Reader._blob(x))  # scaled as the reader scales them
        logits = net.forward("logits").reshape(len(x), -1)
        right += int((logits.argmax(1) == y).sum())
        total += len(y)
    return {"tiles": total, "accuracy": round(right / max(total, 1), 5)}


def evaluate_values(path: Path, seeds: Iterable[int]) -> dict:
    """The value network at ``path`` on boards of :func:`value_board`: how many tiles' values it
    reads right."""
    return _tiles_read_right(path, value_board, seeds)


def evaluate_accents(path: Path, seeds: Iterable[int]) -> dict:
    """The accents network at ``path`` on boards of :func:`accent_board`, over all its classes
    (the reader asks it only within a family of the set, an easier question)."""
    return _tiles_read_right(path, accent_board, seeds)


def build_model(n_classes: int = len(CLASSES), emb: int = 96):
    import torch.nn as nn

    def cbr(i: int, o: int, s: int = 1) -> list:
        return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class TileNet(nn.Module):
        """52x52 BGR patch -> (class logits, embedding). 52 -> 26 -> 13 -> 6 -> 3."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*cbr(3, 16), nn.MaxPool2d(2), *cbr(16, 32), nn.MaxPool2d(2),
                                          *cbr(32, 64), nn.MaxPool2d(2), *cbr(64, 128), *cbr(128, 96, 2))
            self.embed = nn.Sequential(nn.Flatten(), nn.Linear(96 * 9, emb), nn.ReLU(inplace=True))
            self.drop = nn.Dropout(0.2)
            self.head = nn.Linear(emb, n_classes)

        def forward(self, x):
            e = self.embed(self.features(x))
            return self.head(self.drop(e)), e

    return TileNet()


def _model_name(path: str) -> str:
    """An earlier model named as the recipe records it: its place among the committed models
    (``second/tiles.onnx``), or its file name when it is not one of them."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(MODEL_PATH.parent.resolve()))
    except ValueError:
        return p.name


def warm_start(model, onnx_path: Path, classes: tuple[str, ...]) -> int:
    """Start from an earlier exported model of the same shape: its convolutions (exported with
    their batch norms folded in, so the norms start as the identity), its embedding, and the head's
    rows of the classes it had; a new face starts from its base letter's row (Ä from A). Returns
    how many classes were carried over."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    from board_pi.vision.accents import base_letter
    from board_pi.vision.read import model_classes, named_classes

    m = onnx.load(str(onnx_path))
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    convs = [x for x in model.features if isinstance(x, nn.Conv2d)]
    norms = [x for x in model.features if isinstance(x, nn.BatchNorm2d)]
    nodes = [n for n in m.graph.node if n.op_type == "Conv"]
    if len(nodes) != len(convs):
        raise ValueError(f"{onnx_path} has {len(nodes)} convolutions, the model {len(convs)}")
    with torch.no_grad():
        for conv, norm, node in zip(convs, norms, nodes):
            conv.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(init[node.input[2]].copy()))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        model.embed[1].weight.copy_(torch.from_numpy(init["embed.1.weight"].copy()))
        model.embed[1].bias.copy_(torch.from_numpy(init["embed.1.bias"].copy()))
        # A specialist network's recipe names its own classes (the accents network's faces, no
        # empty square or blank), which model_classes would take for a recipe it cannot read.
        old = named_classes(onnx_path) or model_classes(onnx_path)
        if len(old) != len(init["head.bias"]):
            raise ValueError(f"{onnx_path} has {len(init['head.bias'])} outputs, its recipe names {len(old)} classes")
        w, b = init["head.weight"], init["head.bias"]
        carried = 0
        for i, c in enumerate(classes):
            base = c if c in old else base_letter(c[0])  # CH from C, IJ from I
            if base in old:
                j = old.index(base)
                model.head.weight[i].copy_(torch.from_numpy(w[j].copy()))
                model.head.bias[i] = float(b[j]) - (0.0 if c in old else 1.0)  # a new face starts less likely
                carried += c in old
    return carried


def augment(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """Per-patch brightness, contrast and colour, and a shift of a pixel or two."""
    x = x.astype(np.float32)
    n = len(x)
    gain = rng.uniform(0.75, 1.25, (n, 1, 1, 1)) * rng.normal(1, 0.05, (n, 1, 1, 3))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.8, 1.2, (n, 1, 1, 1))
    x = ((x - mean) * contrast + mean) * gain + rng.normal(0, 8, (n, 1, 1, 1))
    dx, dy = rng.integers(-2, 3, 2)
    x = np.roll(x, (int(dy), int(dx)), axis=(1, 2))
    return x.clip(0, 255)


def as_input(x: np.ndarray):
    """Patches (n, side, side, 3) BGR 0-255 as the network takes them: a float tensor (n, 3, side,
    side) scaled to [-1, 1], as :meth:`.Reader._blob` scales them for OpenCV."""
    import torch

    return torch.from_numpy(((x.astype(np.float32) - 127.5) / 127.5).transpose(0, 3, 1, 2))


def _forward(model, x: np.ndarray, batch: int) -> None:
    """Patches ``x`` through ``model`` in batches, for what its batch norms or hooks see."""
    import torch

    with torch.no_grad():
        for i in range(0, len(x), batch):
            model(as_input(x[i:i + batch]))


def match_norms(model, x: np.ndarray, batch: int = 256) -> None:
    """After :func:`warm_start`, each batch norm set so that training starts from the earlier
    model's own function. ``warm_start`` leaves the norms as the identity, which is the exported
    model in eval mode, but in training each batch is normalised by its own statistics, to unit
    variance, and the first steps are taken by another network (the committed model so loaded
    agreed with itself in train mode on 80% of patches; a fine-tune of it read 93.3% of its
    training patches right after 100 steps, 97.8% with this), spending part of the schedule on
    learning back what the earlier model knew. Measuring each norm's input on plain patches
    ``x`` and taking its mean and deviation as the norm's own (weight, bias and running
    statistics) keeps the function in both modes."""
    import torch
    import torch.nn as nn

    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    sums: dict = {}

    def measure(m, inputs, _out) -> None:
        z = inputs[0].double()
        n, s1, s2 = sums.get(m, (0, 0.0, 0.0))
        sums[m] = (n + z.shape[0] * z.shape[2] * z.shape[3], s1 + z.sum((0, 2, 3)), s2 + (z * z).sum((0, 2, 3)))

    hooks = [m.register_forward_hook(measure) for m in norms]
    model.eval()  # the identity norms: the earlier model exactly
    try:
        _forward(model, x, batch)
    finally:
        for h in hooks:
            h.remove()
    with torch.no_grad():
        for m in norms:
            n, s1, s2 = sums[m]
            mean = s1 / n
            var = (s2 / n - mean * mean).clamp_min(1e-6)
            m.running_mean.copy_(mean.float())
            m.running_var.copy_(var.float())
            m.weight.copy_((var + m.eps).sqrt().float())
            m.bias.add_(mean.float())


RECALIBRATION_PATCHES = 24_000
"""How many plain training patches :func:`match_norms` and :func:`recalibrate` measure the batch
norms on."""


def plain_patches(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """The training patches the batch norms are measured on: :data:`RECALIBRATION_PATCHES` of
    ``x`` drawn without augmentation (all of them when there are fewer)."""
    return x[rng.choice(len(x), min(len(x), RECALIBRATION_PATCHES), replace=False)]


def recalibrate(model, x: np.ndarray, batch: int = 256) -> None:
    """The batch norms' statistics measured anew on plain patches ``x`` (no augmentation) with the
    trained weights, then ``model`` in eval mode, as it is exported. The running averages kept in
    training follow weights still moving and inputs augmented. An accents network warm-started at
    twice the square size (2026-11-27, model/README.md) read 96% of its training patches right
    while training and 57% as exported; with its statistics measured again, 92-95%."""
    import torch.nn as nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a plain average over all the batches
    model.train()
    _forward(model, x, batch)
    model.eval()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=1000, help="synthetic training boards")
    ap.add_argument("--val-boards", type=int, default=40, help="held-out synthetic boards")
    ap.add_argument("--real-variants", type=int, default=40, help="re-cuts of each real training photo")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--out", default=str(MODEL_PATH))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--save-torch", metavar="FILE", help="also save the torch weights here (not committed)")
    ap.add_argument("--cache", help="keep the generated patches in this .npz file and reuse them")
    ap.add_argument("--init", metavar="ONNX", help="start from this earlier model's weights (see warm_start)")
    ap.add_argument("--lr", type=float, default=3e-3, help="the one-cycle schedule's peak learning rate")
    ap.add_argument("--set-weights", default="", metavar="NAME=W,...",
                    help="draw these tile sets more often than the other non-English ones (e.g. polish=3)")
    ap.add_argument("--edition-share", type=float, default=0.0,
                    help="share of boards drawn as club editions (green, sage, lavender, wooden)")
    ap.add_argument("--tournament-share", type=float, default=0.0,
                    help="share of the boards (not club editions nor tiles the squares' colour) with tournament "
                         "tiles; for every network")
    ap.add_argument("--empty-keep", type=float, default=0.35,
                    help="share of the empty squares away from tiles kept (more: more glare on empty squares)")
    ap.add_argument("--local-light", type=float, default=0.0,
                    help="share of the boards under light on a few squares: a lamp's streak or reflection, a "
                         "body's shadow edge, a strong cast (0 for the networks committed before 2026-12-03)")
    ap.add_argument("--accents", action="store_true",
                    help="train the accents network (model/accents/: the faces of families, A Ą Ä, Z Ź Ż, ...) "
                         "on boards dense with them, instead of the tile model")
    ap.add_argument("--hard-share", type=float, default=0.0,
                    help="from the second epoch on, draw this share of the data again from the patches it "
                         "last read worst (0: every patch once an epoch, as the committed networks were trained)")
    ap.add_argument("--values", action="store_true",
                    help="train the value network (model/values/: the value printed on a tile, or none) "
                         "instead of the tile model")
    args = ap.parse_args(argv)
    if args.accents and args.values:
        ap.error("--accents and --values train different networks: one at a time")
    if not 0 <= args.hard_share <= 1:
        ap.error(f"--hard-share: a share from 0 to 1, not {args.hard_share}")
    if not 0 <= args.local_light <= 1:
        ap.error(f"--local-light: a share from 0 to 1, not {args.local_light}")
    if args.local_light and (args.accents or args.values):
        ap.error("--local-light is drawn on the tile model's boards only, not with --accents or --values")
    try:
        set_weights = {k.strip(): float(v) for k, v in (x.split("=") for x in args.set_weights.split(",") if x)}
    except ValueError:
        ap.error(f"--set-weights: write NAME=WEIGHT,..., not {args.set_weights!r}")
    unknown = set(set_weights) - set(TILE_SETS)
    if unknown or any(w < 0 for w in set_weights.values()):
        ap.error(f"--set-weights: {sorted(unknown) or 'weights'}: tile sets are {', '.join(TILE_SETS)}; weights >= 0")
    from board_pi.vision.fonts import FONTS, missing_fonts

    why = missing_fonts(f.name for f in FONTS)
    if why:  # training on stand-ins would give another model, silently
        print("board_pi.vision.train: the renderer's fonts are needed: " + "; ".join(why), file=sys.stderr)
        return 2

    import torch
    import torch.nn.functional as F

    torch.set_num_threads(2)  # the development machines have 2 shared cores
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    from board_pi.vision.accents import ACCENT_CLASSES

    from board_pi.vision.values import VALUE_CLASSES, value_label, value_patches

    classes = ACCENT_CLASSES if args.accents else VALUE_CLASSES if args.values else CLASSES
    real = load_real(["board_001", "board_002", "board_003"]) + load_hand_labelled()
    if args.cache and Path(args.cache).is_file():
        with np.load(args.cache) as z:
            X, Y = z["X"], z["Y"]
    else:
        seeds = [args.seed * 100_000 + i for i in range(args.boards)]
        with mp.Pool(args.workers) as pool:
            if args.accents or args.values:
                parts = pool.starmap(accent_board if args.accents else value_board,
                                     [(s, args.tournament_share) for s in seeds], chunksize=8)
            else:
                parts = pool.starmap(synthetic_board, [(s, args.empty_keep, set_weights or None, args.edition_share,
                                                                    args.tournament_share, args.local_light)
                                                      for s in seeds],
                                     chunksize=8)
        xs = [p[0] for p in parts]
        ys = [p[1] for p in parts]
        for k, (img, truth, corners) in enumerate(real):
            x, y = real_variants(img, truth, corners, args.real_variants, args.seed * 10 + k,
                                 value_patches if args.values else tile_patches)
            if args.accents:  # the real tiles of a family's plain letter (A, E, L, ...), as the accents network numbers them
                keep = np.isin(np.array(CLASSES)[y], classes)
                x, y = x[keep], np.array([classes.index(CLASSES[j]) for j in y[keep]], np.int64)
            elif args.values:  # the real photos' tiles, of the English set (a blank: no value)
                keep = y != 0
                x, y = x[keep], np.array([value_label(CLASSES[j], ENGLISH) for j in y[keep]], np.int64)
            xs.append(x)
            ys.append(y)
        X = np.concatenate(xs)
        Y = np.concatenate(ys)
        if args.cache:
            np.savez(args.cache, X=X, Y=Y)
    what = "" if args.accents or args.values else f" ({(Y == 0).mean():.0%} empty)"
    print(f"data: {len(X)} patches{what} from {args.boards} boards and "
          f"{len(real)} real photos in {time.time() - t0:.0f}s", flush=True)

    model = build_model(len(classes))
    params = sum(p.numel() for p in model.parameters())
    print(f"model: {params} parameters, {len(classes)} classes", flush=True)
    if args.init:
        print(f"warm start from {args.init}: {warm_start(model, Path(args.init), classes)} classes carried over",
              flush=True)
        match_norms(model, plain_patches(rng, X))
    bs = 256
    hard = int(args.hard_share * len(X))
    # Each patch's loss when last read in training: the hard examples drawn again are those that
    # were misread, or read right with little belief, the epoch before (first epoch: none).
    last_loss = np.zeros(len(X), np.float32)
    steps = (len(X) // bs) + (args.epochs - 1) * ((len(X) + hard) // bs)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        order = np.arange(len(X))
        if epoch and hard:
            order = np.concatenate([order, np.argpartition(last_loss, len(X) - hard)[len(X) - hard:]])
        order = rng.permutation(order)
        tot, correct, seen = 0.0, 0, 0
        for b in range(len(order) // bs):
            idx = order[b * bs:(b + 1) * bs]
            xb = as_input(augment(rng, X[idx]))
            yb = torch.from_numpy(Y[idx])
            logits, _ = model(xb)
            each = F.cross_entropy(logits, yb, label_smoothing=0.05, reduction="none")
            if hard:
                last_loss[idx] = each.detach().numpy()
            loss = each.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tot += loss.item() * len(idx)
            correct += int((logits.argmax(1) == yb).sum())
            seen += len(idx)
            if b % 100 == 99:
                print(f"  step {b + 1}: loss {tot / seen:.4f} acc {correct / seen:.4f} ({time.time() - t0:.0f}s)",
                      flush=True)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {tot / seen:.4f} train acc {correct / seen:.4f} "
              f"({time.time() - t0:.0f}s)", flush=True)

    measured = plain_patches(rng, X)
    recalibrate(model, measured)
    if args.save_torch:
        torch.save(model.state_dict(), args.save_torch)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, PATCH, PATCH)
    torch.onnx.export(model, dummy, str(out), input_names=["patch"], output_names=["logits", "embedding"],
                      dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
                      opset_version=13, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB)", flush=True)
    # The classes beside the model first: the reader takes them from there.
    (out.parent / "recipe.json").write_text(json.dumps({"classes": list(classes)}, ensure_ascii=False) + "\n")
    # What both networks' recipes say: how they were trained, on what, from what.
    made = {
        "seed": args.seed, "boards": args.boards, "real_variants": args.real_variants, "epochs": args.epochs,
        "batch": bs, "optimiser": f"AdamW lr {args.lr:g} one-cycle, weight decay 1e-4, label smoothing 0.05",
        "patch": PATCH, "square_px": SQUARE_PX, "parameters": params, "classes": list(classes),
        "tournament_share": args.tournament_share, "hard_share": args.hard_share, "local_light": args.local_light,
        "batch_norms": (("set from the warm start's own function (match_norms), then " if args.init else "")
                        + f"measured again after training, on {len(measured):,} plain patches"),
        "warm_start": _model_name(args.init) if args.init else None, "torch": torch.__version__,
        # (the accents network takes from them only their tiles of a family's plain letter)
        "real_training_photos": [p.name for p, _, _ in real],
    }
    if args.accents:
        figures = evaluate_accents(out, range(10_000_000, 10_000_000 + args.val_boards))
        print("held-out accent boards:", json.dumps(figures), flush=True)
        recipe = {"network": "accents", **made, "sets": ACCENT_SETS, "training_seconds": round(time.time() - t0),
                  "held_out_accent_boards": figures}
        (out.parent / "recipe.json").write_text(json.dumps(recipe, indent=2, ensure_ascii=False) + "\n")
        return 0
    if args.values:
        figures = evaluate_values(out, range(10_000_000, 10_000_000 + args.val_boards))
        print("held-out value boards:", json.dumps(figures), flush=True)
        from board_pi.vision.values import cut

        made.pop("square_px")  # cut from the image itself, not from the board at 36 pixels a square
        recipe = {"network": "values", **made, "cut": cut(),
                  "training_seconds": round(time.time() - t0),
                  "held_out_value_boards": figures}
        (out.parent / "recipe.json").write_text(json.dumps(recipe, indent=2, ensure_ascii=False) + "\n")
        return 0

    # held-out figures, measured through the deployed path (OpenCV dnn)
    from board_pi.vision.evaluate import evaluate_real, evaluate_synthetic

    second = out.parent / Reader.SECOND_OPINION
    if second.is_dir():
        print(f"note: {second} beside the new model is the second opinion of the model it replaces, and "
              f"the figures below include it: train a second from the new one (--init {out} --out "
              f"{second / 'tiles.onnx'}, another seed) or remove the folder", file=sys.stderr, flush=True)
    reader = Reader(out)
    syn = evaluate_synthetic(reader, range(10_000_000, 10_000_000 + args.val_boards))
    print("held-out synthetic:", json.dumps(syn), flush=True)
    real_figs = evaluate_real(reader, REAL_DIR)
    print("real photos:", json.dumps(real_figs), flush=True)
    recipe = {
        **made, "peak_lr": args.lr, "empty_keep": args.empty_keep, "set_weights": set_weights,
        "edition_share": args.edition_share, "held_out_real": HELD_OUT, "training_seconds": round(time.time() - t0),
        "held_out_synthetic": syn, "real": real_figs,
    }
    (out.parent / "recipe.json").write_text(json.dumps(recipe, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
