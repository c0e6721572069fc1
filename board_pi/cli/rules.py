"""Handlers for the rules commands of ``board-pi``: judge, replay, lexicon."""

from __future__ import annotations

import argparse
import json
import sys
import time

from .errors import UsageError


def _tiles(name: str | None):  # type: ignore[no-untyped-def]
    """The tile set --tiles names (None when not given), or a UsageError listing the known ones."""
    from ..rules.tiles import UnknownTileSet, tile_set

    try:
        return tile_set(name) if name else None
    except UnknownTileSet as e:
        raise UsageError(str(e)) from None


def cmd_judge(args: argparse.Namespace) -> int:
    from ..rules.judge import Adjudication, NotAWord, WordJudge
    from ..rules.lexicon import LexiconError
    from ..rules.tiles import ENGLISH
    from ..wordlists import load_lexicon

    tiles = _tiles(getattr(args, "tiles", None)) or ENGLISH
    try:
        # A set with no word list configured is a NoLexicon: its message names the setting.
        lexicon = load_lexicon(args.lexicon, tiles=tiles)
    except LexiconError as e:
        raise UsageError(str(e)) from None

    def log_line(entry: Adjudication) -> None:
        if args.log:
            try:
                with open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(entry.time)),
                                        "words": list(entry.words), "acceptable": entry.acceptable,
                                        "lexicon": entry.lexicon}) + "\n")
            except OSError as e:
                print(f"board-pi judge: cannot write the log {args.log}: {e}", file=sys.stderr)

    judge = WordJudge(lexicon, clock=time.time, on_log=log_line, tiles=tiles)
    try:
        verdict = judge.judge(args.words)
    except NotAWord as e:
        raise UsageError(str(e)) from None
    print(verdict)
    return 0 if verdict.acceptable else 1


def cmd_replay(args: argparse.Namespace) -> int:
    from ..rules.gcg import GcgError, read_gcg
    from ..rules.replay import replay

    tiles = _tiles(args.tiles)
    try:
        record = read_gcg(args.file)
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror or e}") from None
    except GcgError as e:
        raise UsageError(f"{args.file}: {e}") from None
    report = replay(record, tiles)
    names = report.game.players
    final = report.game.state.scores
    recorded = report.recorded_final
    if args.json:
        out = {
            "moves": report.moves,
            "agree": report.agree,
            "tiles": report.tiles.name,
            "players": names,
            "final": final,
            "recorded": recorded,
            "complete": report.complete,
            "warnings": report.warnings,
            "error": str(report.error) if report.error else None,
            "events": [
                {"line": r.line, "player": names[r.player], "kind": r.kind, "text": r.text,
                 "score": r.score, "recorded_score": r.recorded_score, "total": r.total,
                 "recorded_total": r.recorded_total, "agree": r.agrees,
                 **({"note": r.message} if r.message else {})}
                for r in report.lines
            ],
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        for w in report.warnings:
            print(f"warning: {w}")
        for r in report.lines:
            mark = "ok" if r.agrees else (
                f"DIFFERS: computed {r.score:+d} total {r.total}, recorded {r.recorded_score:+d} "
                f"total {r.recorded_total}")
            extra = f" ({r.message})" if r.message else ""
            print(f"{r.line:4d}  {r.text:<44} {mark}{extra}")
        if report.error:
            print(f"error: {args.file}: {report.error}")
        state = "complete" if report.complete else "incomplete (the record stops before the end)"
        print(f"{report.agree}/{report.moves} events agree; final "
              + ", ".join(f"{n} {s}" for n, s in zip(names, final))
              + f" (recorded {', '.join(str(s) for s in recorded)}); game {state}")
    if report.error:
        print(f"board-pi replay: {args.file}: {report.error}", file=sys.stderr)
        return 2
    if not report.ok:
        bad = report.first_disagreement()
        if bad is not None:
            print(f"board-pi replay: {args.file}: line {bad.line}: recorded {bad.recorded_score:+d} "
                  f"(total {bad.recorded_total}), the rules give {bad.score:+d} (total {bad.total})",
                  file=sys.stderr)
        return 1
    return 0


def cmd_lexicon(args: argparse.Namespace) -> int:
    from ..rules.lexicon import LexiconError
    from ..wordlists import cache_dir, load_lexicon

    tiles = _tiles(getattr(args, "tiles", None))
    try:
        t = time.perf_counter()
        lex = load_lexicon(args.source, tiles=tiles)
        dt = time.perf_counter() - t
    except LexiconError as e:
        raise UsageError(str(e)) from None
    print(f"{lex.name}: {len(lex)} words, letters {''.join(sorted(lex.alphabet))}"
          + (f", read as {lex.tiles} tiles" if lex.tiles else "")
          + f"; loaded in {dt * 1000:.0f} ms (compiled copy in {cache_dir()})")
    if lex.unspellable:
        # Reported, never dropped silently: the list may be for another set, or hold typos.
        print(f"{lex.unspellable} words cannot be spelt with the {lex.tiles} tiles and were left out, "
              f"such as {', '.join(lex.unspellable_examples[:5])}")
    return 0
