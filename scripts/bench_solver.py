"""Benchmark the solver over the shared puzzle sets, beside the textbook backtracker.

Every puzzle is solved and its solution checked against the rules and the
givens. The textbook algorithm (first empty cell in row-major order, try 1..9,
check row/column/box, backtrack) runs in the same process with a per-puzzle
cap, so the speed ratio is measured, not quoted.

Then it times proofs of "no solution": Norvig's "impossible" puzzle, a few of
its symmetric twins (same puzzle, other search order), and every top95 puzzle
with one extra given that breaks no rule but differs from the unique solution
(so none of them can be solved; the script checks the originals are unique).

Last, the deadlines the live loop relies on (these were once stopwatch asserts in the tests): how far a
search overruns its deadline, how long ``SolveWorker.submit`` and polling a running handle take (targets:
overrun < 0.8 s on a 0.2 s deadline, submit < 50 ms, a poll < 20 ms).

    python scripts/bench_solver.py                      # all sets in ../shared/data/puzzles
    python scripts/bench_solver.py path/to/set.txt --textbook-cap 2
    python scripts/bench_solver.py --no-textbook --baseline old_solver.py   # side by side
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from ar_sudoku.sudoku import solver
from ar_sudoku.sudoku.solver import count_solutions, is_solution, parse_line, solve

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "puzzles"
IMPOSSIBLE = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."


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


def load_module(path: Path) -> ModuleType:
    """Another solver.py (say, the previous version) to time beside this one."""
    spec = importlib.util.spec_from_file_location("baseline_solver", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


def twin(puzzle: str, rng: random.Random) -> str:
    """The same puzzle relabelled, with rows, columns, bands and stacks shuffled, maybe transposed."""
    rows = [b * 3 + r for b in rng.sample(range(3), 3) for r in rng.sample(range(3), 3)]
    cols = [b * 3 + c for b in rng.sample(range(3), 3) for c in rng.sample(range(3), 3)]
    relabel = dict(zip("123456789", rng.sample("123456789", 9), strict=True)) | {".": "."}
    if rng.random() < 0.5:
        rows, cols = cols, rows
        return "".join(relabel[puzzle[cols[c] * 9 + rows[r]]] for r in range(9) for c in range(9))
    return "".join(relabel[puzzle[rows[r] * 9 + cols[c]]] for r in range(9) for c in range(9))


def with_wrong_given(puzzle: str, rng: random.Random) -> str:
    """``puzzle`` plus one given that breaks no rule but is not its (unique) solution's digit."""
    board = parse_line(puzzle)
    res = count_solutions(board, limit=2)  # no timeout: exhaustive
    if res.count != 1 or res.first is None:
        raise SystemExit(f"not a unique puzzle, cannot derive an unsolvable one: {puzzle}")
    options = []
    for i, ch in enumerate(puzzle):
        if ch != ".":
            continue
        for d in "123456789":
            if d != res.first[i]:
                p = puzzle[:i] + d + puzzle[i + 1 :]
                if not solver.validate(parse_line(p)):
                    options.append(p)
    return rng.choice(options)


def unsolvable(sets: list[Path], timeout: float, baseline: ModuleType | None, base_timeout: float) -> int:
    """Time the proofs of "no solution"; returns how many were not proved."""
    rng = random.Random(8)
    groups = [("impossible", [IMPOSSIBLE]), ("impossible x8", [twin(IMPOSSIBLE, rng) for _ in range(8)])]
    top = next((p for p in sets if p.stem == "top95"), None)
    if top is not None:
        groups.append(("top95 +1 given", [with_wrong_given(ln, rng) for ln in top.read_text().split()]))
    print(f"\n{'no solution':<16}{'n':>6}{'mean ms':>10}{'median':>9}{'max':>9}{'nodes max':>11}"
          + (f"{'baseline mean':>15}{'max':>9}{'timeouts':>10}" if baseline else ""), flush=True)
    bad = 0
    for name, puzzles in groups:
        ours: list[float] = []
        nodes: list[int] = []
        theirs: list[float] = []
        base_timeouts = 0
        for p in puzzles:
            res = solve(parse_line(p), timeout=timeout)
            ours.append(res.seconds * 1e3)
            nodes.append(res.nodes)
            if res.status != "unsolvable":
                bad += 1
                print(f"  NOT PROVED ({res.status}): {p}", file=sys.stderr)
            if baseline is not None:
                r = baseline.solve(baseline.parse_line(p), timeout=base_timeout)
                theirs.append(r.seconds * 1e3)
                base_timeouts += r.status == "timeout"
        line = (f"{name:<16}{len(ours):>6}{statistics.mean(ours):>10.2f}{statistics.median(ours):>9.2f}"
                f"{max(ours):>9.2f}{max(nodes):>11}")
        if baseline is not None:
            line += f"{statistics.mean(theirs):>15.2f}{max(theirs):>9.2f}{base_timeouts:>6}/{len(theirs)}"
        print(line, flush=True)
    if baseline is not None:
        print(f"(baseline capped at {base_timeout:g} s a puzzle, so its figures are lower bounds where it timed out)")
    return bad


def deadlines() -> int:
    """The deadline's overrun and the worker's submit and poll times; returns how many missed their target."""
    from ar_sudoku.ar.solve_worker import SolveWorker

    empty = parse_line("." * 81)
    t0 = time.perf_counter()
    res = count_solutions(empty, limit=10**9, timeout=0.2)
    overrun = time.perf_counter() - t0 - 0.2
    submits: list[float] = []
    polls: list[float] = []
    with SolveWorker() as worker:
        for _ in range(50):
            t0 = time.perf_counter()
            h = worker.submit(IMPOSSIBLE, timeout=0.3)  # each supersedes the last
            submits.append(time.perf_counter() - t0)
        h = worker.submit(empty, timeout=0.3)
        while not h.done():
            t0 = time.perf_counter()
            h.result()
            polls.append(time.perf_counter() - t0)
            time.sleep(0.002)
    checks = [("deadline overrun (0.2 s)", overrun, 0.8), ("submit, max", max(submits), 0.05),
              ("poll, max", max(polls), 0.02)]
    print(f"\n{'deadlines':<26}{'ms':>9}{'target':>9}")
    for name, secs, target in checks:
        print(f"{name:<26}{secs * 1e3:>9.2f}{target * 1e3:>9.0f}{'' if secs < target else '  MISSED'}")
    return int(res.complete) + sum(secs >= target for _, secs, target in checks)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", type=Path, help="puzzle files (default: the shared sets)")
    ap.add_argument("--textbook-cap", type=float, default=1.0, metavar="S",
                    help="seconds the textbook solver gets per puzzle (default 1)")
    ap.add_argument("--no-textbook", action="store_true", help="skip the textbook comparison")
    ap.add_argument("--baseline", type=Path, metavar="SOLVER_PY",
                    help="another solver.py to time beside this one, puzzle by puzzle (noisy machines)")
    ap.add_argument("--baseline-cap", type=float, default=10.0, metavar="S",
                    help="seconds the baseline gets per unsolvable puzzle (default 10)")
    ap.add_argument("--no-unsolvable", action="store_true", help="skip the 'no solution' timings")
    args = ap.parse_args()
    baseline = load_module(args.baseline) if args.baseline else None
    sets = args.sets or sorted(DEFAULT_DIR.glob("*.txt"))
    if not sets:
        print(f"no puzzle sets found (looked in {DEFAULT_DIR})", file=sys.stderr)
        return 2
    worst = 0.0
    failures = 0
    print(f"{'set':<16}{'n':>6}{'mean ms':>10}{'median':>9}{'p99':>9}{'max':>9}"
          f"{'textbook mean':>15}{'ratio':>8}{'tb unfinished':>15}"
          + (f"{'baseline mean':>15}{'max':>9}" if baseline else ""), flush=True)
    for path in sets:
        ours: list[float] = []
        theirs: list[float] = []
        base: list[float] = []
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
            if baseline is not None:
                b = baseline.parse_line(line)
                t0 = time.perf_counter()
                baseline.solve(b)
                base.append((time.perf_counter() - t0) * 1e3)
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
              f"{unfinished:>9}/{len(ours)}"
              + (f"{statistics.mean(base):>15.2f}{max(base):>9.2f}" if base else ""), flush=True)
    print(f"all solutions checked: {failures} wrong; slowest puzzle {worst:.1f} ms"
          + ("" if args.no_textbook else f"; textbook capped at {args.textbook_cap:g} s a puzzle,"
             " so its mean and the ratio are lower bounds"))
    if not args.no_unsolvable:
        failures += unsolvable(sets, 60.0, baseline, args.baseline_cap)
    failures += deadlines()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
