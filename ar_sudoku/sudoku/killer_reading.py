"""From what a killer page seems to print to a checked puzzle: cages, sums, and one solution, or why not.

The image side (:mod:`ar_sudoku.vision.cages`) hands over odds: for each cell, that its top-left corner holds
no sum or each of 1-45; for each border between two cells, that it parts two cages. A reading is a choice of
every one of those: the borders cut the grid into regions, the sums name them. It is a killer puzzle only if
the rules hold: every region holds exactly one sum, printed in its first cell (top-most, then left-most), no
more than nine cells, a sum its cells can make, and the sums add up to 405; and it is the page's puzzle only if
the solver finds exactly one solution.

The likeliest reading is tried first. Readings a little less likely are tried too (the doubtful borders and
sum marks turned, up to ``max_turns`` at once; the doubtful sums at their next likeliest values, in the
likeliest combinations that keep 405), and the answer is given only when every reading within ``margin`` of
the likeliest that keeps the rules solves to the same one grid. Two readings that both keep the rules and
solve differently leave the page unanswered, and the doubtful sums or borders are named; so is a page that
no reading makes whole. A sum or border taken against its likeliest reading is said. Pure logic (numpy for
the odds), no OpenCV.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ar_sudoku.sudoku.killer import NCELLS, SIDE, TOTAL, Cage, Killer, sum_range
from ar_sudoku.sudoku.killer_solver import some_solutions
from ar_sudoku.sudoku.solver import Board, cell_name, parse_line, validate


@dataclass(frozen=True)
class ReadingRules:
    """How far a killer reading is questioned; one line of reason a field."""

    sure: float = 0.97  # a border or sum mark at these odds (or the reverse) is not turned
    doubtful: int = 10  # at most this many of the least sure marks are considered for turning
    max_turns: int = 2  # ... this many at once: three misreads at once is another page
    sum_odds: float = 0.01  # a sum's other values tried when the model gives them this share of its best ...
    sum_choices: int = 4  # ... at most this many values a sum
    readings: int = 24  # the likeliest sums' readings that add up to 405 kept for each cutting into cages
    margin: float = math.log(50)  # readings this much less likely than the best that keeps the rules are checked
    least_sums: int = 12  # fewer sums than this seen surely: not a killer page (an ordinary page's corners are bare)
    sure_sum: float = 0.8  # ... a sum is seen surely at these odds
    budget: float = 1.0  # seconds for all the solving (each reading gets a share of what is left)


RULES = ReadingRules()


@dataclass(frozen=True)
class KillerReading:
    """A page's killer reading: the puzzle and its solution, or why there is none."""

    killer: Killer | None
    solution: str | None
    message: str
    doubts: tuple[str, ...] = ()  # the sums and borders in doubt, in a person's words
    taken: tuple[str, ...] = ()  # marks taken against their likeliest reading, in a person's words
    looks_killer: bool = True  # the page prints cage sums (else it is no killer page at all)


def looks_like_killer(sum_odds: np.ndarray, rules: ReadingRules = RULES) -> bool:
    """Whether the page prints cage sums: at least ``least_sums`` corners hold one surely."""
    return int((sum_odds[:, 0] < 1 - rules.sure_sum).sum()) >= rules.least_sums


def border_cells(k: int) -> tuple[int, int]:
    """The two cells of border ``k``: 72 between cells side by side (row by row), then 72 between cells one
    above the other (column by column)."""
    half = (SIDE - 1) * SIDE
    if k < half:
        r, c = divmod(k, SIDE - 1)
        return r * SIDE + c, r * SIDE + c + 1
    c, r = divmod(k - half, SIDE - 1)
    return r * SIDE + c, (r + 1) * SIDE + c


BORDERS = tuple(border_cells(k) for k in range(2 * (SIDE - 1) * SIDE))


@dataclass
class _Marks:
    """One reading's structural choices: which borders part cages, which corners hold a sum."""

    parted: np.ndarray  # (144,) bool
    summed: np.ndarray  # (81,) bool
    loglik: float
    turned: tuple[tuple[str, int], ...] = field(default=())


def _regions(parted: np.ndarray) -> list[list[int]] | None:
    """The grid cut along the parted borders: each region's cells, sorted, in order of their first cell."""
    parent = list(range(NCELLS))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for k, (a, b) in enumerate(BORDERS):
        if not parted[k]:
            parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for i in range(NCELLS):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _cages_of(marks: _Marks) -> list[list[int]] | None:
    """The regions, when each holds exactly one sum mark, in its first cell, and at most nine cells."""
    regions = _regions(marks.parted)
    if regions is None:
        return None
    for cells in regions:
        if len(cells) > SIDE or not marks.summed[cells[0]] or any(marks.summed[c] for c in cells[1:]):
            return None
        # a border between two cells of one region that the marks part is a border inside a cage: a misreading
    inside = {c: k for k, cells in enumerate(regions) for c in cells}
    if any(marks.parted[k] and inside[a] == inside[b] for k, (a, b) in enumerate(BORDERS)):
        return None
    return regions


def _log(p: float) -> float:
    return math.log(min(max(p, 1e-6), 1 - 1e-6))


def _structures(sum_odds: np.ndarray, border_odds: np.ndarray, rules: ReadingRules) -> list[_Marks]:
    """The likeliest marks and those with up to ``max_turns`` of the least sure turned, likeliest first."""
    p_sum = 1.0 - sum_odds[:, 0]
    parted = border_odds >= 0.5
    summed = p_sum >= 0.5
    base = sum(_log(p if on else 1 - p) for p, on in zip(border_odds, parted)) + sum(
        _log(p if on else 1 - p) for p, on in zip(p_sum, summed))
    marks = [("border", k, float(border_odds[k])) for k in range(len(border_odds))] + [
        ("sum", i, float(p_sum[i])) for i in range(NCELLS)]
    unsure = sorted((m for m in marks if 1 - rules.sure < m[2] < rules.sure), key=lambda m: abs(m[2] - 0.5))
    unsure = unsure[: rules.doubtful]
    out = []
    for n in range(rules.max_turns + 1):
        for turn in itertools.combinations(unsure, n):
            pb, ps = parted.copy(), summed.copy()
            ll = base
            for kind, k, p in turn:
                arr = pb if kind == "border" else ps
                ll += _log(1 - p if arr[k] else p) - _log(p if arr[k] else 1 - p)
                arr[k] = not arr[k]
            out.append(_Marks(pb, ps, ll, tuple((kind, k) for kind, k, _ in turn)))
    return sorted(out, key=lambda m: -m.loglik)


def _split(structure: _Marks, border_odds: np.ndarray) -> _Marks | None:
    """The marks made whole the cheapest way a misread border allows: a region holding several sums is parted
    between them along its least costly borders (a minimum cut, each border's cost the log-odds given up by
    parting it), and a parted border left inside a region is closed. A shade change or a dash the border model
    missed merges two cages into a region of two sums; the sums say where the cages are, the odds say where
    they part. None when nothing is to be split, or a region holds no sum (nothing to part it by)."""
    parted = structure.parted.copy()
    ll, turned = structure.loglik, list(structure.turned)
    changed = False
    for _ in range(NCELLS):
        regions = _regions(parted)
        assert regions is not None
        many = next((cells for cells in regions if sum(bool(structure.summed[c]) for c in cells) > 1), None)
        if many is None:
            break
        sums = [c for c in many if structure.summed[c]]
        for k in _min_cut(set(many), parted, border_odds, sums[0], sums[1]):
            parted[k] = True
            p = float(border_odds[k])
            ll += _log(p) - _log(1 - p)
            turned.append(("border", k))
        changed = True
    if not changed:
        return None
    inside = {c: r for r, cells in enumerate(_regions(parted) or []) for c in cells}
    for k, (a, b) in enumerate(BORDERS):
        if parted[k] and inside[a] == inside[b]:  # a parted border that parts nothing: a stray mark
            parted[k] = False
            p = float(border_odds[k])
            ll += _log(1 - p) - _log(p)
            turned.append(("border", k))
    return _Marks(parted, structure.summed, ll, tuple(dict.fromkeys(turned)))


def _min_cut(cells: set[int], parted: np.ndarray, border_odds: np.ndarray, s: int, t: int) -> list[int]:
    """The borders (unparted, between ``cells``) whose parting separates ``s`` from ``t`` at the least cost
    (each the log-odds given up by parting it: Edmonds-Karp on the region's cells)."""
    cap: dict[tuple[int, int], float] = {}
    border_of: dict[tuple[int, int], int] = {}
    near: dict[int, list[int]] = {c: [] for c in cells}
    for k, (a, b) in enumerate(BORDERS):
        if a in cells and b in cells and not parted[k]:
            p = float(border_odds[k])
            cap[a, b] = cap[b, a] = max(_log(1 - p) - _log(p), 1e-6)
            border_of[a, b] = border_of[b, a] = k
            near[a].append(b)
            near[b].append(a)
    flow = dict.fromkeys(cap, 0.0)
    while True:
        prev = {s: s}
        queue = [s]
        for u in queue:
            for v in near[u]:
                if v not in prev and cap[u, v] - flow[u, v] > 1e-9:
                    prev[v] = u
                    queue.append(v)
        if t not in prev:
            break
        path, v = [], t
        while v != s:
            path.append((prev[v], v))
            v = prev[v]
        push = min(cap[e] - flow[e] for e in path)
        for a, b in path:
            flow[a, b] += push
            flow[b, a] -= push
    return sorted(border_of[a, b] for (a, b) in cap if a in prev and b not in prev)


@dataclass(frozen=True)
class _Candidate:
    cages: tuple[Cage, ...]
    loglik: float
    turned: tuple[tuple[str, int], ...]
    changed: tuple[tuple[int, int, int], ...]  # (cell, read, taken) for sums taken at another value


def _sum_choices(odds: np.ndarray, size: int, rules: ReadingRules) -> list[tuple[int, float]]:
    """A sum mark's values a cage of ``size`` cells can have, likeliest first, with their log-odds."""
    lo, hi = sum_range(size)
    p = odds[1:] / max(float(odds[1:].sum()), 1e-9)
    vals = sorted(((v, float(p[v - 1])) for v in range(lo, hi + 1)), key=lambda t: -t[1])
    best = vals[0][1]
    return [(v, _log(q)) for v, q in vals if q >= rules.sum_odds * best][:rules.sum_choices]


def _candidates(structure: _Marks, cells: list[list[int]], sum_odds: np.ndarray,
                rules: ReadingRules) -> list[_Candidate]:
    """The sums' readings of one structure that add up to 405, likeliest first: each sum at a value the model
    gives some odds (:func:`_sum_choices`), the likeliest combinations found best-first (:func:`_best_totals`)."""
    choices = [_sum_choices(sum_odds[c[0]], len(c), rules) for c in cells]
    base = structure.loglik + sum(ch[0][1] for ch in choices)
    out = []
    for cost, picks in _best_totals(choices, TOTAL, rules.readings):
        vals = [choices[k][i][0] for k, i in enumerate(picks)]
        cages = tuple(Cage(v, tuple(c)) for v, c in zip(vals, cells))
        changed = tuple((cells[k][0], choices[k][0][0], vals[k]) for k, i in enumerate(picks) if i)
        out.append(_Candidate(cages, base - cost, structure.turned, changed))
    return out


def _best_totals(choices: list[list[tuple[int, float]]], total: int, limit: int,
                 pops: int = 4000) -> list[tuple[float, tuple[int, ...]]]:
    """Up to ``limit`` picks (an index into each cage's choices) whose values add up to ``total``, cheapest first
    (the cost: the log-odds given up against every cage's likeliest value); a best-first search over the picks,
    each step one cage's next choice, stopped after ``pops`` steps."""
    open_: list[int] = [k for k, ch in enumerate(choices) if len(ch) > 1]
    fixed = sum(choices[k][0][0] for k in range(len(choices)) if k not in set(open_))
    start = (0.0, (0,) * len(open_))
    heap, seen = [start], {start[1]}
    out: list[tuple[float, tuple[int, ...]]] = []
    while heap and pops > 0 and len(out) < limit:
        pops -= 1
        cost, idx = heapq.heappop(heap)
        if fixed + sum(choices[k][i][0] for k, i in zip(open_, idx)) == total:
            picks = [0] * len(choices)
            for k, i in zip(open_, idx):
                picks[k] = i
            out.append((cost, tuple(picks)))
        for j, (k, i) in enumerate(zip(open_, idx)):
            if i + 1 < len(choices[k]):
                nxt = idx[:j] + (i + 1,) + idx[j + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (cost + choices[k][i][1] - choices[k][i + 1][1], nxt))
    return out


def _words(c: _Candidate | None, turned: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """The marks a reading takes against their likeliest reading, as a person would say them."""
    out = []
    for kind, k in turned:
        if kind == "sum":
            out.append(f"the corner of {cell_name(k)}")
        else:
            a, b = BORDERS[k]
            out.append(f"the border between {cell_name(a)} and {cell_name(b)}")
    if c is not None:
        out += [f"the sum at {cell_name(i)} (read {a}, taken as {b})" for i, a, b in c.changed]
    return tuple(out)


def doubtful_marks(sum_odds: np.ndarray, border_odds: np.ndarray, rules: ReadingRules = RULES) -> tuple[str, ...]:
    """The sums and borders the models are unsure of, as a person would name them (at most six)."""
    p_sum = 1.0 - sum_odds[:, 0]
    out = []
    for i in range(NCELLS):
        if p_sum[i] >= 0.5:
            vals = np.argsort(-sum_odds[i, 1:])[:2] + 1
            top = sum_odds[i, 1:] / max(float(sum_odds[i, 1:].sum()), 1e-9)
            if top[vals[0] - 1] < rules.sure:
                out.append(f"the sum at {cell_name(i)} ({vals[0]} or {vals[1]}?)")
        elif p_sum[i] > 1 - rules.sure:
            out.append(f"the corner of {cell_name(i)} (a sum?)")
    for k, p in enumerate(border_odds):
        if 1 - rules.sure < p < rules.sure:
            a, b = BORDERS[k]
            out.append(f"the border between {cell_name(a)} and {cell_name(b)}")
    return tuple(out[:6])


def read_killer(sum_odds: np.ndarray, border_odds: np.ndarray, givens: str | None = None,
                rules: ReadingRules = RULES, cancel=None) -> KillerReading:
    """The page's killer puzzle and its one solution from the models' odds (module docstring), or why not.

    ``sum_odds`` (81, 46): no sum, then 1-45; ``border_odds`` (144,): the border parts two cages;
    ``givens``: the digits printed in the cells, as read (81 characters, '.' blank).
    """
    if not looks_like_killer(sum_odds, rules):
        return KillerReading(None, None, "no cage sums seen: not a killer page", looks_killer=False)
    board = parse_line(givens or "." * NCELLS)
    if validate(board):
        return KillerReading(None, None, "the given digits read break the rules",
                             doubtful_marks(sum_odds, border_odds, rules))
    deadline = time.perf_counter() + rules.budget
    best_ll: float | None = None
    found: dict[str, _Candidate] = {}
    tried = kept = 0
    pending: list[_Candidate] = []
    structures = _structures(sum_odds, border_odds, rules)
    split = None if _cages_of(structures[0]) is not None else _split(structures[0], border_odds)
    if split is not None:  # the likeliest marks break the rules: parted by their sums too
        structures = sorted([*structures, split], key=lambda m: -m.loglik)
    for structure in structures:
        cells = _cages_of(structure)
        if cells is not None:
            pending += _candidates(structure, cells, sum_odds, rules)
    for cand in sorted(pending, key=lambda c: -c.loglik):
        if best_ll is not None and cand.loglik < best_ll - rules.margin:
            break
        left = deadline - time.perf_counter()
        if left <= 0 or (cancel is not None and cancel()):
            return _unsure(sum_odds, border_odds, rules, "out of time checking the readings")
        kept += 1
        solved = _solve(board, cand, left)
        tried += 1
        if solved is None:
            continue
        if solved == "timeout":
            return _unsure(sum_odds, border_odds, rules, "a reading could not be solved in time")
        best_ll = cand.loglik if best_ll is None else best_ll
        found.setdefault(solved, cand)
        if len(found) > 1:
            return _unsure(sum_odds, border_odds, rules, "two readings of the page keep the rules and solve "
                                                         "differently")
    if not found:
        why = ("no reading of the cages and sums keeps the rules (each cage one sum in its first cell, 405 in all)"
               if not kept else "no reading of the cages and sums solves one way")
        return _unsure(sum_odds, border_odds, rules, why)
    solution, cand = next(iter(found.items()))
    killer = Killer(board, cand.cages)
    taken = _words(cand, cand.turned)
    note = "killer" + (f"; {'; '.join(taken)}: the only reading that keeps the rules and solves one way"
                       if taken else "")
    return KillerReading(killer, solution, note, taken=taken)


def _unsure(sum_odds: np.ndarray, border_odds: np.ndarray, rules: ReadingRules, why: str) -> KillerReading:
    doubts = doubtful_marks(sum_odds, border_odds, rules)
    said = f"; in doubt: {', '.join(doubts)}" if doubts else ""
    return KillerReading(None, None, f"a killer page, not answered: {why}{said}", doubts)


def _solve(board: Board, cand: _Candidate, left: float) -> str | None:
    """The one solution of a candidate reading; None when it has none or several; "timeout" when unsure."""
    killer = Killer(board, cand.cages)
    found, complete = some_solutions(killer, 2, timeout=min(left, 0.5))
    if not complete:
        return "timeout"
    return found[0] if len(found) == 1 else None
