"""Benchmark the killer solver on held-out killer puzzles given as text.

The set is ``scripts/data/killer_held_out.jsonl``: 50 puzzles this program's generator made from a seed that
nothing was ever tuned on (``HELD_OUT_SEED``), half cut as newspapers cut them (cages of 2-5 cells), half with
large cages (up to 9 cells: fewer sums, more search). Every puzzle is solved (``solve_killer``, what ``solve``
prints) and counted to two (``count_killer``: exactly one solution), and its answer checked against the rules
and every cage. The whole command, ``ar-sudoku solve FILE --json``, is timed too (one process, all puzzles).

    python scripts/bench_killer.py              # the held-out set: median/max ms, solved count
    python scripts/bench_killer.py --make       # write the set again (from HELD_OUT_SEED)
    python scripts/bench_killer.py other.jsonl  # any file of killer puzzles, one JSON line each
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ar_sudoku.sudoku.killer import is_killer_solution, parse_killer_line
from ar_sudoku.sudoku.killer_generator import WEIGHTS, generate_killer
from ar_sudoku.sudoku.killer_solver import count_killer, solve_killer

HELD_OUT = Path(__file__).resolve().parent / "data" / "killer_held_out.jsonl"
HELD_OUT_SEED = 61_000_061  # never used to tune anything
COUNT = 50
LARGE_CAGES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05)  # cages of 1-9 cells, most 4-7


def make(path: Path) -> None:
    """Write the held-out set: half newspaper-like, half with large cages."""
    lines = []
    for k in range(COUNT):
        weights = WEIGHTS if k % 2 == 0 else LARGE_CAGES
        p = generate_killer(seed=HELD_OUT_SEED + k, weights=weights)
        lines.append(json.dumps({"givens": p.killer.to_string(), "cages": [
            {"sum": c.total, "cells": list(c.cells)} for c in p.killer.cages]}))
        print(f"{k + 1}/{COUNT}: {len(p.killer.cages)} cages, {p.clues} givens, {p.level}", file=sys.stderr)
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}", file=sys.stderr)


def bench(path: Path, timeout: float) -> int:
    """Solve and count every puzzle; print the figures; 0 when every one is solved, uniquely and right."""
    killers = [parse_killer_line(line, n) for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip()]
    solve_ms, count_ms, solved, unique = [], [], 0, 0
    for killer in killers:
        t0 = time.perf_counter()
        result = solve_killer(killer, timeout)
        solve_ms.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        counted = count_killer(killer, 2, timeout)
        count_ms.append((time.perf_counter() - t0) * 1e3)
        solved += result.solution is not None and is_killer_solution(killer, result.solution)
        unique += counted.complete and counted.count == 1
    n = len(killers)
    print(f"{path.name}: {n} killer puzzles")
    print(f"solve: solved {solved}/{n}; median {statistics.median(solve_ms):.1f} ms, max {max(solve_ms):.1f} ms")
    print(f"count to two (one solution): {unique}/{n} unique; median {statistics.median(count_ms):.1f} ms, "
          f"max {max(count_ms):.1f} ms")
    answered = n
    for extra, what in (([], "solutions"), (["--json"], "steps, rating and solution")):
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "ar_sudoku", "solve", str(path), *extra], capture_output=True,
                             text=True)
        whole = time.perf_counter() - t0
        lines = run.stdout.splitlines()
        got = sum(1 for line in lines if (json.loads(line).get("solution") if extra else line.strip()))
        answered = min(answered, got)
        print(f"`{' '.join(['ar-sudoku solve FILE', *extra])}` ({what}): {got}/{n} answered, exit {run.returncode}, "
              f"{whole:.1f} s for {n} ({whole / n * 1e3:.0f} ms a puzzle, the process's start included)")
    return 0 if solved == unique == answered == n else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, default=HELD_OUT, help="killer puzzles, one JSON line each")
    ap.add_argument("--make", action="store_true", help="write the held-out set again, then benchmark it")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds a puzzle (default 10)")
    args = ap.parse_args()
    if args.make:
        make(args.file)
    return bench(args.file, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
