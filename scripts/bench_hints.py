"""Benchmark the logical solver: how much falls to named techniques, how fast, and whether it is ever wrong.

For each puzzle set in ../shared/data/puzzles and the givens of the printed
newspaper photos (sudoku-photos/printed/*.dat), every puzzle is explained in
full (``logic.explain``, which includes finding the solution) and reports:

- logical: the share solved by named techniques alone (no revealed cell);
- median / max ms per full explanation;
- wrong: placements or eliminations that disagree with the solution (must be 0);
- the distribution of ratings.

    python scripts/bench_hints.py [--limit N]

Targets (issue 12): newspaper >= 90 % logical, easy50 >= 95 % logical, newspaper median <= 50 ms.
Last, the generator: five "hard" puzzles (seeds 100-104) in under 10 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.logic import explain
from ar_sudoku.sudoku.steps import LEVELS

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SETS = ("easy50", "top95", "hardest", "17clue_1000")


def printed_givens(folder: Path) -> list[str]:
    """The distinct puzzles of the newspaper photos: line 1 phone, line 2 resolution, then 9 rows of 9 digits."""
    seen: dict[str, None] = {}
    for path in sorted(folder.glob("*.dat")):
        rows = path.read_text(encoding="utf-8").splitlines()[2:11]
        seen["".join("".join(r.split()) for r in rows).replace("0", ".")] = None
    return list(seen)


def bench(puzzles: list[str]) -> dict:
    times, wrong, logical, ratings = [], 0, 0, Counter()
    for p in puzzles:
        t = time.perf_counter()
        e = explain(p)
        times.append((time.perf_counter() - t) * 1000)
        for s in e.steps:
            if s.cell is not None and e.solution[s.cell] != str(s.digit):
                wrong += 1
            wrong += sum(e.solution[c] == str(d) for c, d in s.eliminations)
        logical += e.logical
        ratings[e.rating] += 1
    return {"n": len(puzzles), "logical": logical / len(puzzles), "median": statistics.median(times),
            "max": max(times), "wrong": wrong, "ratings": ratings}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="at most N puzzles per set (default all)")
    args = ap.parse_args()
    sets: list[tuple[str, list[str]]] = []
    for name in SETS:
        path = DATA / "puzzles" / f"{name}.txt"
        if path.exists():
            sets.append((name, path.read_text().split()))
    printed = DATA / "sudoku-photos" / "printed"
    if printed.exists():
        sets.append(("newspaper", printed_givens(printed)))
    if not sets:
        print(f"no puzzles found under {DATA}", file=sys.stderr)
        return 1
    print(f"{'set':<12} {'puzzles':>7} {'logical':>8} {'median ms':>10} {'max ms':>8} {'wrong':>6}  ratings")
    total_wrong = 0
    for name, puzzles in sets:
        r = bench(puzzles[: args.limit])
        total_wrong += r["wrong"]
        dist = " ".join(f"{lvl} {r['ratings'][lvl]}" for lvl in LEVELS if r["ratings"][lvl])
        print(f"{name:<12} {r['n']:>7} {r['logical']:>8.1%} {r['median']:>10.1f} {r['max']:>8.1f} "
              f"{r['wrong']:>6}  {dist}")
    t0 = time.perf_counter()
    made = [generate("hard", seed=100 + seed).rating.level for seed in range(5)]
    secs = time.perf_counter() - t0
    print(f"\ngenerator: five hard puzzles in {secs:.2f} s (target < 10 s){'' if secs < 10 else '  MISSED'}")
    return 1 if total_wrong or made != ["hard"] * 5 or secs >= 10 else 0


if __name__ == "__main__":
    sys.exit(main())
