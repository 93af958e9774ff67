"""The human techniques, easiest first: each finder looks at a board of candidates and gives one step, or None.

Singles, locked candidates, naked and hidden subsets, fish, wings and simple coloring; every one a deduction
valid in every solution (no uniqueness arguments). ``FINDERS`` lists them in ``steps.TECHNIQUES``' order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from ar_sudoku.sudoku.steps import (
    TECHNIQUES,
    Candidates,
    Step,
    elimination_step,
    listed,
    names_of,
    place_step,
    removals,
)

# --------------------------------------------------------------------------- singles


def _naked_single(g: Candidates) -> Step | None:
    geo = g.geo
    cand, values = g.cand, g.values
    for i in range(geo.ncells):
        m = cand[i]
        if m and not m & (m - 1):
            d = m.bit_length()
            for u in (geo.cell_units[i][2], geo.cell_units[i][0], geo.cell_units[i][1]):
                if all(values[j] for j in geo.units[u] if j != i):
                    return place_step(geo, "naked single", i, d, [j for j in geo.units[u] if j != i], u,
                                  f"it is the last empty cell of {geo.unit_names[u]}")
            proof: dict[int, int] = {}
            for p in geo.peer_list[i]:
                if values[p] and values[p] not in proof:
                    proof[values[p]] = p
            return place_step(geo, "naked single", i, d, sorted(proof.values()), None,
                          "every other digit is already in its row, column or box")
    return None


def _hidden_single(g: Candidates) -> Step | None:
    geo = g.geo
    cand, values = g.cand, g.values
    for u in geo.scan_order:
        unit = geo.units[u]
        once = twice = 0
        for i in unit:
            m = cand[i]
            twice |= once & m
            once |= m
        hidden = once & ~twice
        if hidden:
            bit = hidden & -hidden
            d = bit.bit_length()
            i = next(j for j in unit if cand[j] & bit)
            proof: list[int] = []
            for j in unit:  # for each other empty cell, a peer outside the unit already holding d
                if j != i and not values[j]:
                    p = next((p for p in geo.peer_list[j] if values[p] == d and p not in unit), None)
                    if p is not None and p not in proof:
                        proof.append(p)
            return place_step(geo, "hidden single", i, d, sorted(proof), u,
                          f"it is the only cell of {geo.unit_names[u]} where {d} fits")
    return None


def singles_bulk(g: Candidates) -> tuple[int, int]:
    """Place every single that follows, without writing steps: (naked, hidden) placed.

    Used to score a reveal and by the generator, where only the outcome counts.
    """
    geo = g.geo
    cand, values = g.cand, g.values
    naked = hidden = 0
    progress = True
    while progress and g.empty:
        progress = False
        for i in range(geo.ncells):
            m = cand[i]
            if m and not m & (m - 1):
                g.place(i, m.bit_length())
                naked += 1
                progress = True
        if progress:
            continue
        for unit in geo.units:
            once = twice = 0
            for i in unit:
                m = cand[i]
                twice |= once & m
                once |= m
            hidden_bits = once & ~twice
            while hidden_bits:
                bit = hidden_bits & -hidden_bits
                hidden_bits ^= bit
                for i in unit:
                    if cand[i] & bit and not values[i]:
                        g.place(i, bit.bit_length())
                        hidden += 1
                        progress = True
                        break
    return naked, hidden


# --------------------------------------------------------------------------- locked candidates


def _pointing(g: Candidates) -> Step | None:
    geo = g.geo
    for b in range(geo.size):
        box = geo.boxes[b]
        for d in range(1, geo.size + 1):
            bit = 1 << (d - 1)
            spots = g.where(box, bit)
            if len(spots) < 2:
                continue
            for line_of, lines, base in ((geo.row_of, geo.rows, 0), (geo.col_of, geo.cols, geo.size)):
                k = line_of[spots[0]]
                if all(line_of[s] == k for s in spots):
                    elims = [(j, d) for j in g.where(lines[k], bit) if geo.box_of[j] != b]
                    if elims:
                        line = geo.unit_names[base + k]
                        return elimination_step(
                            geo, "pointing", elims, spots, 2 * geo.size + b,
                            f"in box {b + 1}, {d} fits only in {line} ({names_of(geo, spots)}), so no other cell of "
                            f"{line} can be {d}: {removals(geo, elims)}")
    return None


def _claiming(g: Candidates) -> Step | None:
    geo = g.geo
    for u in range(2 * geo.size):
        bit_spots = [(d, g.where(geo.units[u], 1 << (d - 1))) for d in range(1, geo.size + 1)]
        for d, spots in bit_spots:
            if len(spots) < 2:
                continue
            b = geo.box_of[spots[0]]
            if all(geo.box_of[s] == b for s in spots):
                elims = [(j, d) for j in g.where(geo.boxes[b], 1 << (d - 1)) if j not in spots]
                if elims:
                    return elimination_step(
                        geo, "claiming", elims, spots, u,
                        f"in {geo.unit_names[u]}, {d} fits only in box {b + 1} ({names_of(geo, spots)}),"
                        f" so no other cell "
                        f"of box {b + 1} can be {d}: {removals(geo, elims)}")
    return None


# --------------------------------------------------------------------------- subsets

_SIZE_NAMES = {2: "pair", 3: "triple", 4: "quad"}


def _naked_subset(size: int) -> Callable[[Candidates], Step | None]:
    name = f"naked {_SIZE_NAMES[size]}"

    def find(g: Candidates) -> Step | None:
        geo = g.geo
        cand = g.cand
        for u in geo.scan_order:
            empties = [i for i in geo.units[u] if cand[i]]
            if len(empties) <= size:
                continue
            small = [i for i in empties if 2 <= geo.pop[cand[i]] <= size]
            for combo in combinations(small, size):
                m = 0
                for i in combo:
                    m |= cand[i]
                if geo.pop[m] != size:
                    continue
                elims = [(j, d) for j in empties if j not in combo for d in geo.digits[cand[j] & m]]
                if elims:
                    return elimination_step(
                        geo, name, elims, combo, u,
                        f"{listed([geo.names[i] for i in combo])} hold only {listed(geo.digits[m])} between them, "
                        f"so no other cell of {geo.unit_names[u]} can: {removals(geo, elims)}")
        return None

    find.__name__ = f"_naked_{_SIZE_NAMES[size]}"
    return find


def _hidden_subset(size: int) -> Callable[[Candidates], Step | None]:
    name = f"hidden {_SIZE_NAMES[size]}"

    def find(g: Candidates) -> Step | None:
        geo = g.geo
        cand = g.cand
        for u in geo.scan_order:
            unit = geo.units[u]
            if sum(1 for i in unit if cand[i]) <= size:
                continue
            spots: dict[int, int] = {}  # digit -> mask of positions within the unit
            for k, i in enumerate(unit):
                for d in geo.digits[cand[i]]:
                    spots[d] = spots.get(d, 0) | 1 << k
            digits = [d for d, m in spots.items() if 2 <= geo.pop[m] <= size]
            for combo in combinations(sorted(digits), size):
                pos = 0
                for d in combo:
                    pos |= spots[d]
                if geo.pop[pos] != size:
                    continue
                keep = sum(1 << (d - 1) for d in combo)
                cells = [unit[k] for k in range(geo.size) if pos >> k & 1]
                elims = [(c, d) for c in cells for d in geo.digits[cand[c] & ~keep]]
                if elims:
                    return elimination_step(
                        geo, name, elims, cells, u,
                        f"in {geo.unit_names[u]}, {listed(combo)} fit only in {listed([geo.names[c] for c in cells])}, "
                        f"so those cells hold nothing else: {removals(geo, elims, by_cell=True)}")
        return None

    find.__name__ = f"_hidden_{_SIZE_NAMES[size]}"
    return find


# --------------------------------------------------------------------------- fish

_FISH_NAMES = {2: "x-wing", 3: "swordfish", 4: "jellyfish"}


def _fish(size: int) -> Callable[[Candidates], Step | None]:
    name = _FISH_NAMES[size]

    def find(g: Candidates) -> Step | None:
        geo = g.geo
        cand = g.cand
        for d in range(1, geo.size + 1):
            bit = 1 << (d - 1)
            for base_lines, cover_lines, base_word, cover_word in ((geo.rows, geo.cols, "rows", "columns"),
                                                                   (geo.cols, geo.rows, "columns", "rows")):
                lines = []  # (line index, mask of cover positions)
                for k, line in enumerate(base_lines):
                    m = 0
                    for p, i in enumerate(line):
                        if cand[i] & bit:
                            m |= 1 << p
                    if 2 <= geo.pop[m] <= size:
                        lines.append((k, m))
                for combo in combinations(lines, size):
                    cover = 0
                    for _, m in combo:
                        cover |= m
                    if geo.pop[cover] != size:
                        continue
                    base = {k for k, _ in combo}
                    covers = [p for p in range(geo.size) if cover >> p & 1]
                    elims = [(cover_lines[p][k], d) for p in covers for k in range(geo.size)
                             if k not in base and cand[cover_lines[p][k]] & bit]
                    if elims:
                        cells = sorted(base_lines[k][p] for k in base for p in covers if cand[base_lines[k][p]] & bit)
                        return elimination_step(
                            geo, name, elims, cells, None,
                            f"in {base_word} {listed(sorted(k + 1 for k in base))}, {d} fits only in {cover_word} "
                            f"{listed([p + 1 for p in covers])}, so those {cover_word} have their {d} in these "
                            f"{base_word}: {removals(geo, elims)}")
        return None

    find.__name__ = f"_{name.replace('-', '_')}"
    return find


# --------------------------------------------------------------------------- wings


def _xy_wing(g: Candidates) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for pivot in bivalue:
        xy = cand[pivot]
        wings = [j for j in bivalue if j in geo.peers[pivot] and geo.pop[cand[j] & xy] == 1]
        for a, b in combinations(wings, 2):
            ca, cb = cand[a], cand[b]
            z = ca & ~xy
            if ca & xy == cb & xy or z != cb & ~xy:
                continue
            elims = [(k, z.bit_length()) for k in sorted(geo.peers[a] & geo.peers[b]) if cand[k] & z]
            if elims:
                x, y, zd = (ca & xy).bit_length(), (cb & xy).bit_length(), z.bit_length()
                return elimination_step(
                    geo, "xy-wing", elims, (pivot, a, b), None,
                    f"{geo.names[pivot]} is {x} or {y};"
                    f" if {x}, {geo.names[a]} is {zd}, if {y}, {geo.names[b]} is {zd}; "
                    f"either way one of them is {zd}, so no cell that sees both can be {zd}: {removals(geo, elims)}")
    return None


def _xyz_wing(g: Candidates) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for pivot in range(geo.ncells):
        xyz = cand[pivot]
        if geo.pop[xyz] != 3:
            continue
        wings = [j for j in bivalue if j in geo.peers[pivot] and cand[j] & xyz == cand[j]]
        for a, b in combinations(wings, 2):
            z = cand[a] & cand[b]
            if cand[a] | cand[b] != xyz or geo.pop[z] != 1:
                continue
            elims = [(k, z.bit_length()) for k in sorted(geo.peers[pivot] & geo.peers[a] & geo.peers[b]) if cand[k] & z]
            if elims:
                zd = z.bit_length()
                return elimination_step(
                    geo, "xyz-wing", elims, (pivot, a, b), None,
                    f"{geo.names[pivot]} is {listed(geo.digits[xyz], 'or')},"
                    f" {geo.names[a]} is {listed(geo.digits[cand[a]], 'or')}, "
                    f"{geo.names[b]} is {listed(geo.digits[cand[b]], 'or')}: one of the three is {zd}, so no cell that "
                    f"sees all three can be {zd}: {removals(geo, elims)}")
    return None


def _strong_links(g: Candidates, bit: int) -> list[tuple[int, int, int]]:
    """Units where a digit fits in exactly two cells: (cell, cell, unit)."""
    geo = g.geo
    links = []
    for u in range(len(geo.units)):
        spots = g.where(geo.units[u], bit)
        if len(spots) == 2:
            links.append((spots[0], spots[1], u))
    return links


def _w_wing(g: Candidates) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for a, b in combinations(bivalue, 2):
        if cand[a] != cand[b] or b in geo.peers[a]:
            continue
        both = geo.peers[a] & geo.peers[b]
        for x, y in (geo.digits[cand[a]], geo.digits[cand[a]][::-1]):
            ybit = 1 << (y - 1)
            elims = [(k, y) for k in sorted(both) if cand[k] & ybit]
            if not elims:
                continue
            for p, q, u in _strong_links(g, 1 << (x - 1)):
                if {p, q} & {a, b}:
                    continue
                if (p in geo.peers[a] and q in geo.peers[b]) or (p in geo.peers[b] and q in geo.peers[a]):
                    return elimination_step(
                        geo, "w-wing", elims, (a, b, p, q), u,
                        f"{geo.names[a]} and {geo.names[b]} are both {x} or {y},"
                        f" and {geo.unit_names[u]} has its {x} in "
                        f"{geo.names[p]} or {geo.names[q]},"
                        f" which see them: one of {geo.names[a]}, {geo.names[b]} is {y}, so no "
                        f"cell that sees both can be {y}: {removals(geo, elims)}")
    return None


def _simple_coloring(g: Candidates) -> Step | None:
    """Chains of strong links on one digit: color them on/off alternately; a color is true."""
    geo = g.geo
    cand = g.cand
    for d in range(1, geo.size + 1):
        bit = 1 << (d - 1)
        adj: dict[int, list[int]] = {}
        for p, q, _ in _strong_links(g, bit):
            adj.setdefault(p, []).append(q)
            adj.setdefault(q, []).append(p)
        seen: set[int] = set()
        for start in sorted(adj):
            if start in seen:
                continue
            color = {start: 0}
            queue = [start]
            for c in queue:
                for n in adj[c]:
                    if n not in color:
                        color[n] = 1 - color[c]
                        queue.append(n)
            seen.update(color)
            if len(color) < 4:
                continue
            groups = [sorted(c for c, k in color.items() if k == 0), sorted(c for c, k in color.items() if k == 1)]
            chain = ", ".join(f"{geo.names[c]}{'+' if color[c] == 0 else '-'}" for c in sorted(color))
            lead = f"where {d} fits only twice in a unit, one cell is {d} and the other not: color them + and -"
            for k in (0, 1):  # color wrap: two cells of one color see each other, so that color is false
                clash = next(((a, b) for a, b in combinations(groups[k], 2) if b in geo.peers[a]), None)
                if clash:
                    elims = [(c, d) for c in groups[k]]
                    return elimination_step(
                        geo, "simple coloring", elims, sorted(color), None,
                        f"{lead} ({chain}); {geo.names[clash[0]]} and {geo.names[clash[1]]} share a color and see each "
                        f"other, so that color cannot be {d}: {removals(geo, elims)}")
            elims = [(c, d) for c in range(geo.ncells) if cand[c] & bit and c not in color
                     and any(p in geo.peers[c] for p in groups[0]) and any(p in geo.peers[c] for p in groups[1])]
            if elims:
                return elimination_step(
                    geo, "simple coloring", elims, sorted(color), None,
                    f"{lead} ({chain}) and one color holds the {d}s, so no cell that sees both colors can be "
                    f"{d}: {removals(geo, elims)}")
    return None


# --------------------------------------------------------------------------- the driver

Finder = Callable[[Candidates], Step | None]
FINDERS: tuple[tuple[str, Finder], ...] = (
    ("naked single", _naked_single),
    ("hidden single", _hidden_single),
    ("pointing", _pointing),
    ("claiming", _claiming),
    ("naked pair", _naked_subset(2)),
    ("hidden pair", _hidden_subset(2)),
    ("naked triple", _naked_subset(3)),
    ("hidden triple", _hidden_subset(3)),
    ("x-wing", _fish(2)),
    ("swordfish", _fish(3)),
    ("xy-wing", _xy_wing),
    ("xyz-wing", _xyz_wing),
    ("naked quad", _naked_subset(4)),
    ("hidden quad", _hidden_subset(4)),
    ("jellyfish", _fish(4)),
    ("w-wing", _w_wing),
    ("simple coloring", _simple_coloring),
)
assert [n for n, _ in FINDERS] == [t for t in TECHNIQUES if t != "reveal"]


def find_step_with(g: Candidates, finders: Sequence[tuple[str, Finder]] = FINDERS) -> Step | None:
    for _, finder in finders:
        step = finder(g)
        if step is not None:
            return step
    return None


