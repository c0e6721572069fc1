"""The synthetic renderer: deterministic, truthful corners, the board drawn where it says."""

from __future__ import annotations

import numpy as np
import pytest

from board_pi.rules.board import Premium
from board_pi.vision.read import SQUARE_PX, PAD, _warp
from board_pi.vision.fonts import (BUILTIN, FONT_DIR_ENV, FONT_PACKAGES, FONTS, FontMissing, catalogue_font, font_dir,
                                   missing_fonts)
from board_pi.vision.frames import SyntheticSource
from board_pi.vision.render import random_rows, random_style, render_board, style_fonts

EMPTY = ["." * 15] * 15


def _cell(warped: np.ndarray, r: int, c: int) -> np.ndarray:
    """Mean colour of the middle of square (r, c) in a rectified board."""
    y, x = PAD + r * SQUARE_PX, PAD + c * SQUARE_PX
    q = SQUARE_PX // 4
    return warped[y + q:y + SQUARE_PX - q, x + q:x + SQUARE_PX - q].reshape(-1, 3).mean(0)


def test_same_seed_same_frame_other_seed_other_frame():
    rows = random_rows(np.random.default_rng(3))
    a, b, c = (render_board(rows, seed=s, size=(640, 480)) for s in (7, 7, 8))
    assert np.array_equal(a.image, b.image) and np.array_equal(a.corners, b.corners)
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (480, 640, 3) and a.image.dtype == np.uint8
    assert a.corners.shape == (4, 2) and a.rows == tuple(rows)


def test_corners_put_the_premium_squares_where_the_layout_has_them():
    style = random_style(np.random.default_rng(11))
    r = render_board(EMPTY, seed=2, style=style, hand=False, effects=False)
    w = _warp(r.image, r.corners)
    tw = np.array(style.premium[Premium.TRIPLE_WORD], float)
    plain = np.array(style.square, float)
    for rc in [(0, 0), (0, 14), (14, 0), (14, 14), (7, 0)]:
        # label text covers part of the square: compare with the nearer of the two colours
        got = _cell(w, *rc)
        assert np.linalg.norm(got - tw) < np.linalg.norm(got - plain), rc
    for rc in [(0, 1), (1, 0), (6, 1), (12, 7)]:
        got = _cell(w, *rc)
        assert np.linalg.norm(got - plain) < 25, (rc, got, plain)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_corners_name_the_boards_own_top_left_when_it_is_turned(turns):
    rows = ["Q" + "." * 14] + ["." * 15] * 14
    style = random_style(np.random.default_rng(5))
    r = render_board(rows, seed=4, style=style, hand=False, effects=False, quarter_turns=turns)
    w = _warp(r.image, r.corners)
    tw = np.array(style.premium[Premium.TRIPLE_WORD], float)
    # the tile on A1 covers the triple-word colour there; O15's triple word is bare
    assert np.linalg.norm(_cell(w, 0, 0) - tw) > np.linalg.norm(_cell(w, 14, 14) - tw) + 20


def test_a_hand_hides_squares_and_is_reported():
    r = render_board(random_rows(np.random.default_rng(1)), seed=9, hand=True)
    plain = render_board(random_rows(np.random.default_rng(1)), seed=9, hand=False)
    assert r.occluded.shape == (15, 15) and r.occluded.any() and not plain.occluded.any()


def test_pillows_builtin_font_is_enough(tmp_path):
    style = random_style(np.random.default_rng(0))
    style = type(style)(**{**style.__dict__, "letter_font": BUILTIN, "value_font": BUILTIN, "label_font": BUILTIN})
    r = render_board(["ABCDEFGHIJKLMNO"] * 15, seed=1, style=style, size=(320, 240), fonts=tmp_path)  # no fonts at all
    assert r.image.std() > 10 and r.fonts == (BUILTIN,)


def test_bad_board_states_are_refused():
    with pytest.raises(ValueError):
        render_board(["." * 15] * 14)
    with pytest.raises(ValueError):
        render_board(["1" + "." * 14] + ["." * 15] * 14)


# --------------------------------------------------------------------------- the same picture everywhere


def _font_folder(folder, names):
    """A font directory holding the catalogue fonts ``names``, as a machine with only those
    installed would (links to this machine's files, which must be the catalogue's own)."""
    why = missing_fonts([f.name for f in FONTS])
    if why:
        pytest.skip("needs the renderer's fonts: " + "; ".join(why))
    for name in names:
        f = catalogue_font(name)
        if not f.bundled:
            (folder / f.file).parent.mkdir(parents=True, exist_ok=True)
            (folder / f.file).symlink_to(font_dir() / f.file)
    return folder


def _seed_using_fonts(k: int) -> int:
    """A seed whose random style letters its board in at least ``k`` different catalogue fonts,
    none of them Pillow's (so each must come from the font directory)."""
    return next(s for s in range(1000) if len(fonts := style_fonts(random_style(np.random.default_rng(s)))) >= k
                and BUILTIN not in fonts)


def test_a_seed_is_one_picture_whatever_else_is_installed(tmp_path, monkeypatch):
    seed = _seed_using_fonts(3)
    used = style_fonts(random_style(np.random.default_rng(seed)))
    rows = random_rows(np.random.default_rng(seed))
    everything = _font_folder(tmp_path / "catalogue", [f.name for f in FONTS])
    # Another machine: the catalogue and fonts of its own, some where the old renderer looked
    # (a second copy of a font under another name, others in new folders).
    more = _font_folder(tmp_path / "more", [f.name for f in FONTS])
    (more / "truetype" / "zzz").mkdir()
    for i, f in enumerate(x for x in FONTS if not x.bundled):
        (more / "truetype" / "zzz" / f"Other{i}.ttf").symlink_to(font_dir() / f.file)
    # And one with only the fonts this seed uses: nothing else of the catalogue installed.
    fewer = _font_folder(tmp_path / "fewer", used)
    pictures = [render_board(rows, seed=seed, size=(640, 480), fonts=d) for d in (everything, more, fewer)]
    monkeypatch.setenv(FONT_DIR_ENV, str(fewer))  # the directory from the environment, as a service would set it
    pictures.append(render_board(rows, seed=seed, size=(640, 480)))
    assert all(p.fonts == used for p in pictures)
    assert all(np.array_equal(pictures[0].image, p.image) for p in pictures[1:])
    # Another seed in the same folders differs: the comparison can fail.
    assert not np.array_equal(pictures[0].image, render_board(rows, seed=seed + 1, size=(640, 480), fonts=everything).image)


def test_an_absent_or_different_font_is_refused_not_replaced(tmp_path):
    seed = _seed_using_fonts(2)
    rows = random_rows(np.random.default_rng(seed))
    used = style_fonts(random_style(np.random.default_rng(seed)))
    lacking = _font_folder(tmp_path / "lacking", [n for n in (f.name for f in FONTS) if n != used[0]])
    with pytest.raises(FontMissing) as e:
        render_board(rows, seed=seed, size=(640, 480), fonts=lacking)
    font = catalogue_font(used[0])
    assert font.package in str(e.value) and f"sudo apt-get install {font.package}" in str(e.value)
    # The file there, but another version of it (here: another font's file under its name).
    other = next(f for f in FONTS if not f.bundled and f.name != font.name)
    (lacking / font.file).parent.mkdir(parents=True, exist_ok=True)
    (lacking / font.file).symlink_to(font_dir() / other.file)
    with pytest.raises(FontMissing, match="is not the file board-pi draws with"):
        render_board(rows, seed=seed, size=(640, 480), fonts=lacking)


def test_the_catalogue_is_the_one_the_model_was_trained_on():
    # tiles.onnx was trained on boards lettered in these fonts, picked by position in this
    # order: reordering them changes every seeded picture (see fonts.txt).
    assert [f.name for f in FONTS] == [
        "DejaVu Sans", "DejaVu Sans Bold", "DejaVu Serif", "Liberation Sans", "Liberation Sans Bold",
        "Liberation Serif", "Liberation Sans Narrow", "FreeSans", "FreeSans Bold", "FreeSerif", "Noto Sans",
        "Noto Sans Bold", "Nimbus Sans", "Nimbus Sans Bold", "URW Gothic Book", "URW Gothic Demi", "C059 Roman",
        "P052 Roman", BUILTIN]
    assert FONT_PACKAGES == ("fonts-dejavu-core", "fonts-freefont-ttf", "fonts-liberation", "fonts-noto-core",
                             "fonts-urw-base35")
    assert all(len(f.sha256) == 64 and f.licence for f in FONTS if not f.bundled)
    with pytest.raises(ValueError, match="catalogue"):
        catalogue_font("Comic Sans")


def test_the_synthetic_camera_stands_in_and_says_so(tmp_path, capsys):
    seed = _seed_using_fonts(1)
    cam = SyntheticSource(seed=seed, size=(320, 240), fonts=tmp_path)  # a machine with no fonts
    assert cam.read() is not None and cam.style.letter_font == BUILTIN
    assert cam.notes and "sudo apt-get install fonts-" in capsys.readouterr().err
    full = SyntheticSource(seed=seed, size=(320, 240), fonts=_font_folder(tmp_path / "all", [f.name for f in FONTS]))
    assert full.notes == [] and full.style == random_style(np.random.default_rng(seed))


def test_the_demo_letters_in_its_catalogue_font_or_says_why_not(tmp_path, capsys):
    from board_pi.cli.demo import DEMO_FONT, demo_style

    assert catalogue_font(DEMO_FONT).package == "fonts-dejavu-core"
    style = demo_style(3, fonts=_font_folder(tmp_path / "dejavu", [DEMO_FONT]))
    assert style_fonts(style) == (DEMO_FONT,) and capsys.readouterr().err == ""
    style = demo_style(3, fonts=tmp_path / "none")
    assert style_fonts(style) == (BUILTIN,) and "fonts-dejavu-core" in capsys.readouterr().err


def test_the_demo_board_can_be_a_club_edition(tmp_path):
    from dataclasses import replace

    from board_pi.cli.demo import DEMO_FONT, demo_style
    from board_pi.vision.editions import edition_style

    fonts = _font_folder(tmp_path / "dejavu", [DEMO_FONT])
    green = demo_style(3, fonts=fonts, edition="green")
    assert green == replace(edition_style(np.random.default_rng(3), "green"), letter_font=DEMO_FONT,
                            value_font=DEMO_FONT, label_font=DEMO_FONT)
    assert green.square[1] > max(green.square[0], green.square[2])  # green (BGR)
    assert demo_style(3, fonts=fonts).square != green.square


@pytest.mark.parametrize("name", ["green", "sage", "lavender", "wooden"])
def test_club_editions_draw_their_own_plain_squares(name):
    from board_pi.vision.editions import edition_style

    style = edition_style(np.random.default_rng(5), name)
    r = render_board(EMPTY, seed=2, style=style, hand=False, effects=False)
    w = _warp(r.image, r.corners)
    b, g, red = _cell(w, 1, 2)  # a plain square
    assert np.allclose((b, g, red), style.square, atol=20)
    if name == "green":  # green, darker than the cream tiles it carries
        assert g > red + 30 and g > b + 10 and sum(style.tile) > sum(style.square) + 150
    if name == "lavender":  # pale, blue and red above green
        assert min(b, red) > g and g > 180


def test_tournament_tiles_are_strong_colours_lettered_to_stand_out():
    from board_pi.vision.editions import tournament_tiles

    seen = set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        base = random_style(rng)
        style = tournament_tiles(rng, base)
        assert (style.square, style.premium, style.line) == (base.square, base.premium, base.line)
        assert style.tile_kind == "plain"
        # the letters stand out: dark tiles take light ink, the bright ones light or black
        contrast = abs(sum(style.ink) - sum(style.tile))
        assert contrast > 200, (style.tile, style.ink)
        seen.add(sum(style.tile) < 300)
    assert seen == {True, False}  # mostly dark tiles, and some bright ones
    # Drawn as such: a tile's face in the tile's colour, its letter in the ink's.
    rng = np.random.default_rng(7)
    style = tournament_tiles(rng, random_style(rng))
    rows = ["." * 15] * 7 + ["......." + "W" + "......."] + ["." * 15] * 7
    r = render_board(rows, seed=2, style=style, hand=False, effects=False)
    w = _warp(r.image, r.corners)
    y, x = PAD + 7 * SQUARE_PX, PAD + 7 * SQUARE_PX
    face = w[y + 4:y + SQUARE_PX - 4, x + 4:x + SQUARE_PX - 4].reshape(-1, 3).astype(float)
    tile_like = np.linalg.norm(face - np.array(style.tile), axis=1) < 60
    ink_like = np.linalg.norm(face - np.array(style.ink), axis=1) < 80
    assert tile_like.mean() > 0.3 and ink_like.mean() > 0.05, (style.tile, style.ink)


def test_the_editions_docstring_examples():
    import doctest

    from board_pi.vision import editions

    assert doctest.testmod(editions).failed == 0


def test_an_unknown_edition_is_a_key_error():
    from board_pi.vision.editions import edition_style

    with pytest.raises(KeyError):
        edition_style(np.random.default_rng(1), "purple")
