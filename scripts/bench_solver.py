"""Benchmark the solver over the shared puzzle sets, beside the textbook backtracker.

Every puzzle is solved and its solution checked against the rules and the
givens. The textbook algorithm (first empty cell in row-major order, try 1..9,
check row/column/box, backtrack) runs in the same process with a per-puzzle
cap, so the speed ratio is measured, not quoted.

    python scripts/bench_solver.py                      # all sets in ../shared/data/puzzles
    python scripts/bench_solver.py path/to/set.txt --textbook-cap 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from ar_sudoku.sudoku.solver import is_solution, parse_line, solve

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "puzzles"


def textbook(cells: list[int], deadline: float) -> bool | None:
    """The classic backtracker; True solved, False none, None when the cap hit."""
    grid = cells[:]
    empties = [i for i in range(81) if not grid[i]]
    steps = 0

    def ok(i: int, v: int) -> bool:
        r, c = divmod(i, 9)
        for k in range(9):
            if grid[r * 9 + k] == v or grid[k * 9 + c] == v:
                return False
        br, bc = r // 3 * 3, c // 3 * 3
        for dr in range(3):
            for dc in range(3):
                if grid[(br + dr) * 9 + bc + dc] == v:
                    return False
        return True

    def rec(k: int) -> bool | None:
        nonlocal steps
        if k == len(empties):
            return True
        steps += 1
        if steps % 4096 == 0 and time.perf_counter() > deadline:
            return None
        i = empties[k]
        for v in range(1, 10):
            if ok(i, v):
                grid[i] = v
                r = rec(k + 1)
                if r or r is None:
                    return r
                grid[i] = 0
        return False

    return rec(0)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", type=Path, help="puzzle files (default: the shared sets)")
    ap.add_argument("--textbook-cap", type=float, default=1.0, metavar="S",
                    help="seconds the textbook solver gets per puzzle (default 1)")
    ap.add_argument("--no-textbook", action="store_true", help="skip the textbook comparison")
    args = ap.parse_args()
    sets = args.sets or sorted(DEFAULT_DIR.glob("*.txt"))
    if not sets:
        print(f"no puzzle sets found (looked in {DEFAULT_DIR})", file=sys.stderr)
        return 2
    worst = 0.0
    failures = 0
    print(f"{'set':<16}{'n':>6}{'mean ms':>10}{'median':>9}{'p99':>9}{'max':>9}"
          f"{'textbook mean':>15}{'ratio':>8}{'tb unfinished':>15}", flush=True)
    for path in sets:
        ours: list[float] = []
        theirs: list[float] = []
        unfinished = 0
        lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]
        for line in lines:
            board = parse_line(line)
            t0 = time.perf_counter()
            res = solve(board)
            ours.append((time.perf_counter() - t0) * 1e3)
            if res.status != "solved" or not res.solution or not is_solution(board, res.solution):
                failures += 1
                print(f"  WRONG: {path.name}: {line}", file=sys.stderr)
            if not args.no_textbook:
                t0 = time.perf_counter()
                r = textbook(list(board.cells), t0 + args.textbook_cap)
                dt = (time.perf_counter() - t0) * 1e3
                theirs.append(dt)
                if r is None:
                    unfinished += 1
        worst = max(worst, max(ours))
        tb = statistics.mean(theirs) if theirs else float("nan")
        ratio = tb / statistics.mean(ours) if theirs else float("nan")
        print(f"{path.stem:<16}{len(ours):>6}{statistics.mean(ours):>10.2f}{statistics.median(ours):>9.2f}"
              f"{pct(ours, 0.99):>9.2f}{max(ours):>9.2f}{tb:>15.2f}{ratio:>7.0f}x"
              f"{unfinished:>9}/{len(ours)}", flush=True)
    print(f"all solutions checked: {failures} wrong; slowest puzzle {worst:.1f} ms"
          + ("" if args.no_textbook else f"; textbook capped at {args.textbook_cap:g} s a puzzle,"
             " so its mean and the ratio are lower bounds"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
