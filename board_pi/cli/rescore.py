"""``board-pi rescore [--tiles NAME] [--players A,B] [--lexicon LIST] [--json] FRAME...``: a game
re-scored from the photos taken at each clock press (see :mod:`board_pi.table.rescore`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    import numpy as np


def cmd_rescore(args: argparse.Namespace) -> int:
    from ..rules.lexicon import LexiconError
    from ..rules.tiles import UnknownTileSet, tile_set
    from ..table.rescore import RescoreError, rescore
    from ..vision.frames import FrameSourceError, check_image
    from ..vision.read import ReadError, washed_out_note
    from ..wordlists import NoLexicon, load_lexicon

    def fail(message: str) -> int:
        print(f"board-pi rescore: {message}", file=sys.stderr)
        return 2

    try:
        tiles = tile_set(args.tiles or "english")
    except UnknownTileSet as e:
        return fail(f"--tiles: {e.args[0]}")
    players = [p.strip() for p in (args.players or "Player1,Player2").split(",")]
    if len(players) < 2 or len(players) > 4 or not all(players) or len(set(players)) != len(players):
        return fail(f"--players: give two to four different names separated by commas, not {args.players!r}")
    if len(args.frames) < 2:
        return fail("give the photo of the board before the first play, then one photo per press")
    lexicon = None
    try:
        lexicon = load_lexicon(args.lexicon, tiles=tiles)
    except NoLexicon as e:
        if args.lexicon:
            return fail(str(e))
        # no word list for this set: blanks are listed as doubtful rather than settled
        print(f"board-pi rescore: {e}; blank tiles' letters are not checked", file=sys.stderr)
    except (LexiconError, OSError) as e:
        return fail(f"--lexicon: {e}")
    for path in args.frames:  # every photo checked before the first is read
        try:
            check_image(path)
        except FrameSourceError as e:
            return fail(str(e))
    # Each photo decoded when its turn comes and let go after: a game of phone photos takes the
    # memory of one, not of all of them at once. All at the size the first one's board needs.
    first, longest, share = _first_look(args.frames[0])
    burnt = washed_out_note(share)
    if burnt:
        print(f"board-pi rescore: the first photo: {burnt}", file=sys.stderr)
    frames = _photos(args.frames, first, longest)
    del first  # held by the frames alone, so let go with them once read
    try:
        result = rescore(frames, tiles, players, lexicon)
    except (RescoreError, ReadError, FrameSourceError) as e:
        return fail(str(e))
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        sys.stdout.write(result.gcg())
        for d in result.doubtful:
            print(f"doubtful: {d}", file=sys.stderr)
    return 0


def _photos(paths: list[str], first: np.ndarray | None, longest: int) -> Iterator[tuple[str, np.ndarray]]:
    """(path, image) of each photo, decoded at ``longest`` when its turn comes; the first as
    :func:`_first_look` decoded it (at that size), where it did, not decoded twice."""
    from ..vision.frames import load_photo

    for path in paths:
        if first is not None:
            yield path, first
            first = None  # let go once read, as every other photo is
        else:
            yield path, load_photo(path, longest)[0]


def _first_look(path: str) -> tuple[np.ndarray | None, int, float | None]:
    """The first photo decoded (None where no board is found in it) and the long side the
    photos of a game are decoded at: as ``board-pi read`` decodes the first
    (:func:`~board_pi.vision.read.photo_board`), with every pixel a board standing small in it
    needs; where no board is found there, the usual size (rescore then says so). And the
    share of the board burnt out white in it (:func:`~board_pi.vision.read.board_washed_out`),
    None with no board."""
    from ..vision.frames import PHOTO_SIDE, FrameSourceError
    from ..vision.read import NoBoard, ReadError, board_washed_out, photo_board

    try:
        image, corners, _ = photo_board(path, None)
    except (NoBoard, ReadError, FrameSourceError):
        return None, PHOTO_SIDE, None
    return image, max(image.shape[:2]), board_washed_out(image, corners)
