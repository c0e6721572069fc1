"""Rules engine benchmarks: score a play, replay a game, load a lexicon, judge a play.

Prints each figure beside the issue's target (where it sets one). Run with ``make bench`` or
``.venv/bin/python benchmarks/bench_rules.py``. Uses ../shared/data/gcg/macondo when present.
Nothing is written outside a temporary folder.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.rules.game import Game  # noqa: E402
from board_pi.rules.events import PlayMade  # noqa: E402
from board_pi.rules.gcg import GcgError, parse_gcg, read_gcg  # noqa: E402
from board_pi.rules.replay import replay  # noqa: E402
from board_pi.rules.judge import WordJudge  # noqa: E402
from board_pi.rules.play import Play  # noqa: E402
from board_pi.rules.scoring import score_play  # noqa: E402
from board_pi.rules.tiles import ENGLISH  # noqa: E402

LEXICON_WORDS = 280_000
TARGET_LOAD_S, TARGET_LOAD_MB, TARGET_JUDGE_MS = 0.3, 30.0, 1.0

# A record that needs no shared data: used when ../shared/data is absent.
FALLBACK_GCG = """#player1 ann Ann
#player2 bob Bob
>ann: DINNVWY 8D WINDY +32 32
>bob: AEGLOPR 7C GALE +16 16
>ann: ?EIRSTU H8 .Es +5 37
>bob: ABCEIOU -ABC +0 16
>ann: ?IIRTTU - +0 37
>bob: EIOQUYZ 9H .ZO +22 38
>bob: EIOQUYZ -- -22 16
"""


def per_call(fn: Callable[[], object], min_time: float = 0.5) -> float:
    """Median seconds per call over batches filling about ``min_time``."""
    n = 1
    while True:  # find a batch size that takes a measurable time
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt > 0.05:
            break
        n *= 2
    runs = []
    for _ in range(max(3, int(min_time / dt))):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t) / n)
    return statistics.median(runs)


def line(what: str, figure: str, target: str = "") -> None:
    print(f"  {what:<46} {figure:>14}   {target}")


def shared_macondo() -> Path | None:
    env = os.environ.get("BOARD_PI_SHARED_DATA")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "data"]:
        d = cand / "gcg" / "macondo"
        if d.is_dir():
            return d
    return None


def bench_scoring(macondo: Path | None) -> None:
    print("score a play")
    # A real game's board, or the fallback record's.
    rec = read_gcg(str(macondo / "noah_vs_peter.gcg")) if macondo else parse_gcg(FALLBACK_GCG)
    full = replay(rec).game
    # The record's play with the most tiles, scored on the board as it stood before it.
    plays = [i for i, e in enumerate(full.events) if isinstance(e, PlayMade)]
    i = max(plays, key=lambda i: (len(full.events[i].play.word), i))
    before = Game(full.players, full.rules, events=full.events[:i])
    play = full.events[i].play
    board = before.state.board
    placements = play.placements(board, ENGLISH)
    sp = score_play(board, placements, ENGLISH)
    t = per_call(lambda: score_play(board, placements, ENGLISH))
    line(f"score_play ({play}, {len(sp.words)} word(s), {sp.score} points)", f"{t * 1e6:.1f} us", "(no target)")
    t = per_call(lambda: before.preview(play))
    line("Game.preview (placements + scoring)", f"{t * 1e6:.1f} us", "(no target)")
    text = str(play)
    t = per_call(lambda: Play.parse(text).placements(board, ENGLISH))
    line("Play.parse + placements", f"{t * 1e6:.1f} us", "(no target)")


def bench_replay(macondo: Path | None) -> None:
    print("replay a whole game (read, parse, replay every event)")
    files = sorted(macondo.glob("*.gcg")) if macondo else []
    times = []
    for f in files:
        try:
            report = replay(read_gcg(str(f)))
        except GcgError as e:  # Macondo's own negative test (an encoding it does not read)
            print(f"  {f.name}: refused, {e}")
            continue
        assert report.ok, f
        t = per_call(lambda f=f: replay(read_gcg(str(f))), min_time=0.2)
        times.append(t)
        line(f"{f.name} ({report.moves} events)", f"{t * 1e3:.2f} ms")
    if not files:
        t = per_call(lambda: replay(parse_gcg(FALLBACK_GCG)))
        times.append(t)
        line("built-in record (shared data absent)", f"{t * 1e3:.2f} ms")
    line(f"average over {len(times)} games", f"{statistics.mean(times) * 1e3:.2f} ms", "(no target)")


_CHILD = r"""
import sys, time, tracemalloc
sys.path.insert(0, sys.argv[2])
from board_pi.wordlists import load_lexicon
tracemalloc.start()
t = time.perf_counter()
lex = load_lexicon(sys.argv[1])
dt = time.perf_counter() - t
current, peak = tracemalloc.get_traced_memory()
print(dt, current, peak, len(lex))
"""


def bench_lexicon(tmp: Path) -> None:
    print(f"load a {LEXICON_WORDS:,}-word lexicon (synthetic, random letter strings)")
    from board_pi.wordlists import load_lexicon

    rng = random.Random(2024)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    weights = [9, 2, 2, 4, 12, 2, 3, 2, 9, 1, 1, 4, 2, 6, 8, 2, 1, 6, 4, 6, 4, 2, 2, 1, 2, 1]
    words: set[str] = set()
    while len(words) < LEXICON_WORDS:
        n = min(15, max(2, int(rng.gauss(8.5, 2.5))))  # lengths like a real list's
        words.add("".join(rng.choices(letters, weights, k=n)))
    src = tmp / "synthetic280k.txt"
    src.write_text("# synthetic list for the benchmark\n" + "\n".join(sorted(words)) + "\n", encoding="utf-8")
    line("source list", f"{src.stat().st_size / 1e6:.1f} MB")
    t = time.perf_counter()
    lex = load_lexicon(str(src))  # first use: compiled into the cache
    line("first load (compiles into the cache)", f"{time.perf_counter() - t:.2f} s", "(no target)")
    assert len(lex) == LEXICON_WORDS
    cached = sorted((tmp / "cache").rglob("*.lex"))
    line("compiled file", f"{cached[0].stat().st_size / 1e6:.1f} MB")
    # A cold load from the compiled cache, in a fresh interpreter (as a table starts).
    runs = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(src), str(ROOT)], capture_output=True,
                             text=True, check=True, env={**os.environ, "BOARD_PI_CACHE": str(tmp / "cache")})
        dt, current, peak, n = out.stdout.split()
        assert int(n) == LEXICON_WORDS
        runs.append((float(dt), int(current), int(peak)))
    dt = statistics.median(r[0] for r in runs)
    current = statistics.median(r[1] for r in runs) / 2**20
    peak = statistics.median(r[2] for r in runs) / 2**20
    ok_t = "OK" if dt <= TARGET_LOAD_S else "OVER TARGET"
    ok_m = "OK" if peak <= TARGET_LOAD_MB else "OVER TARGET"
    line("cold load from the compiled cache (median of 5)", f"{dt:.3f} s", f"target <= {TARGET_LOAD_S} s  {ok_t}")
    line("extra memory, peak during load (tracemalloc)", f"{peak:.1f} MB", f"target <= {TARGET_LOAD_MB:.0f} MB  {ok_m}")
    line("extra memory, held after load (tracemalloc)", f"{current:.1f} MB", f"target <= {TARGET_LOAD_MB:.0f} MB")


def bench_judge(tmp: Path) -> None:
    print("judge a 5-word play")
    from board_pi.wordlists import load_lexicon

    for spec, label in ((None, "default lexicon (kjxqz)"), (str(tmp / "synthetic280k.txt"), "280k synthetic")):
        lex = load_lexicon(spec)
        words = list(lex)
        rng = random.Random(7)
        play = [rng.choice(words) for _ in range(4)] + ["ZZZQ" if "Z" in lex.alphabet else words[0]]
        judge = WordJudge(lex)
        assert judge.judge(play).acceptable is False
        t = per_call(lambda: judge.judge(play))
        ok = "OK" if t * 1e3 <= TARGET_JUDGE_MS else "OVER TARGET"
        line(f"{label}, {len(lex):,} words", f"{t * 1e3:.4f} ms", f"target <= {TARGET_JUDGE_MS} ms  {ok}")
        judge.log.clear()


def main() -> int:
    macondo = shared_macondo()
    print(f"board-pi rules benchmarks (Python {sys.version.split()[0]}, "
          f"shared data {'found' if macondo else 'absent'})")
    bench_scoring(macondo)
    bench_replay(macondo)
    with tempfile.TemporaryDirectory(prefix="board-pi-bench-") as d:
        tmp = Path(d)
        os.environ["BOARD_PI_CACHE"] = str(tmp / "cache")  # never touch the user's cache
        bench_lexicon(tmp)
        bench_judge(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
