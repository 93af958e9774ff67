"""The logical solver: one textbook example per technique, agreement with the solution, hints and the CLI."""

from __future__ import annotations

import json

import pytest
from conftest import EASY, EASY_SOLUTION, HARDEST, HARDEST_SOLUTION, PHOTOS, PUZZLES, need

from ar_sudoku.cli import main
from ar_sudoku.io.records import explanation_json, step_json
from ar_sudoku.sudoku.logic import (
    explain,
    find_step,
    next_step,
    next_steps,
    solvable_within,
)
from ar_sudoku.sudoku.steps import NAMES, NoSolutionError, Step

ALL = "123456789"


def cell(name: str) -> int:
    return NAMES.index(name)


def row(r: int) -> list[str]:
    return [f"r{r}c{c}" for c in range(1, 10)]


def col(c: int) -> list[str]:
    return [f"r{r}c{c}" for r in range(1, 10)]


def box(b: int) -> list[str]:
    r0, c0 = (b - 1) // 3 * 3, (b - 1) % 3 * 3
    return [f"r{r0 + r + 1}c{c0 + c + 1}" for r in range(3) for c in range(3)]


def pencil(*, remove: dict[str, list[str]] | None = None, only: dict[str, str] | None = None) -> list[str]:
    """A pencil-mark grid: every cell 1-9, then digits removed from cells, or cells narrowed to a few digits."""
    grid = {name: ALL for name in NAMES}
    for digits, cells in (remove or {}).items():
        for c in cells:
            grid[c] = "".join(d for d in grid[c] if d not in digits)
    for c, digits in (only or {}).items():
        grid[c] = digits
    return [grid[name] for name in NAMES]


def elims(step: Step) -> set[str]:
    return {f"{NAMES[c]}-{d}" for c, d in step.eliminations}


def expect(cells: list[str], digits: str) -> set[str]:
    return {f"{c}-{d}" for c in cells for d in digits}


def but(cells: list[str], *skip: str) -> list[str]:
    return [c for c in cells if c not in skip]


# --------------------------------------------------------------------------- one textbook example each


def test_naked_single_on_wikipedias_puzzle():
    step = next_step(EASY)
    assert (step.technique, NAMES[step.cell], step.digit) == ("naked single", "r5c5", 5)
    assert step.text == "r5c5 is 5: every other digit is already in its row, column or box"
    # the proof: one peer holding each of the other eight digits
    assert sorted(int(EASY[c]) for c in step.cells) == [1, 2, 3, 4, 6, 7, 8, 9]


def test_naked_single_last_cell_of_a_unit():
    step = find_step(pencil(), values="12345678." + "." * 72)
    assert (step.technique, NAMES[step.cell], step.digit, step.unit) == ("naked single", "r1c9", 9, "row 1")
    assert step.text == "r1c9 is 9: it is the last empty cell of row 1"


def test_hidden_single_the_issues_sentence():
    step = find_step(pencil(remove={"4": but(box(2), "r3c5")}))
    assert (step.technique, NAMES[step.cell], step.digit, step.unit) == ("hidden single", "r3c5", 4, "box 2")
    assert step.text == "r3c5 is 4: it is the only cell of box 2 where 4 fits"
    assert step.eliminations == ()


def test_pointing():
    step = find_step(pencil(remove={"7": but(box(1), "r2c1", "r2c3")}))
    assert step.technique == "pointing" and step.unit == "box 1"
    assert elims(step) == expect(row(2)[3:], "7")
    assert [NAMES[c] for c in step.cells] == ["r2c1", "r2c3"]
    assert step.text.startswith("in box 1, 7 fits only in row 2 (r2c1, r2c3), so no other cell of row 2 can be 7")


def test_claiming():
    step = find_step(pencil(remove={"3": row(1)[:6]}))
    assert step.technique == "claiming" and step.unit == "row 1"
    assert elims(step) == expect(but(box(3), *row(1)), "3")


def test_naked_pair():
    step = find_step(pencil(only={"r1c1": "27", "r1c5": "27"}))
    assert step.technique == "naked pair" and step.unit == "row 1"
    assert elims(step) == expect(but(row(1), "r1c1", "r1c5"), "27")
    assert step.text.startswith("r1c1 and r1c5 hold only 2 and 7 between them")


def test_hidden_pair():
    step = find_step(pencil(remove={"48": but(row(1), "r1c1", "r1c9")}))
    assert step.technique == "hidden pair" and step.unit == "row 1"
    assert elims(step) == expect(["r1c1", "r1c9"], "1235679")


def test_naked_triple():
    step = find_step(pencil(only={"r5c1": "12", "r5c4": "23", "r5c9": "13"}))
    assert step.technique == "naked triple" and step.unit == "row 5"
    assert elims(step) == expect(but(row(5), "r5c1", "r5c4", "r5c9"), "123")


def test_hidden_triple():
    step = find_step(pencil(remove={"147": but(col(5), "r2c5", "r5c5", "r8c5")}))
    assert step.technique == "hidden triple" and step.unit == "column 5"
    assert elims(step) == expect(["r2c5", "r5c5", "r8c5"], "235689")


def test_naked_quad():
    step = find_step(pencil(only={"r5c1": "12", "r5c3": "23", "r5c5": "34", "r5c7": "14"}))
    assert step.technique == "naked quad"
    assert elims(step) == expect(but(row(5), "r5c1", "r5c3", "r5c5", "r5c7"), "1234")


def test_x_wing():
    step = find_step(pencil(remove={"5": but(row(2), "r2c3", "r2c8") + but(row(7), "r7c3", "r7c8")}))
    assert step.technique == "x-wing"
    assert elims(step) == expect(but(col(3) + col(8), "r2c3", "r2c8", "r7c3", "r7c8"), "5")
    assert step.text.startswith("in rows 2 and 7, 5 fits only in columns 3 and 8")


def test_swordfish():
    keep = {"r1c2", "r1c5", "r5c5", "r5c8", "r9c2", "r9c8"}
    step = find_step(pencil(remove={"9": [c for c in row(1) + row(5) + row(9) if c not in keep]}))
    assert step.technique == "swordfish"
    assert elims(step) == expect([c for c in col(2) + col(5) + col(8) if c[1] not in "159"], "9")
    assert {NAMES[c] for c in step.cells} == keep


def test_xy_wing():
    step = find_step(pencil(only={"r5c5": "37", "r5c1": "35", "r1c5": "75"}))
    assert step.technique == "xy-wing"
    assert elims(step) == {"r1c1-5"}
    assert NAMES[step.cells[0]] == "r5c5" and {NAMES[c] for c in step.cells[1:]} == {"r5c1", "r1c5"}


def test_xyz_wing():
    step = find_step(pencil(only={"r5c5": "124", "r5c1": "14", "r4c6": "24"}))
    assert step.technique == "xyz-wing"
    assert elims(step) == {"r5c4-4", "r5c6-4"}


def test_w_wing():
    step = find_step(pencil(only={"r1c1": "49", "r9c9": "49"}, remove={"9": but(row(5), "r5c1", "r5c9")}))
    assert step.technique == "w-wing" and step.unit == "row 5"
    assert elims(step) == {"r1c9-4", "r9c1-4"}


def test_simple_coloring_trap():
    step = find_step(pencil(remove={"6": but(box(1), "r1c1", "r3c3") + but(col(3), "r3c3", "r8c3")
                                    + but(row(8), "r8c3", "r8c7")}))
    assert step.technique == "simple coloring"
    assert elims(step) == {"r1c7-6"}
    assert {NAMES[c] for c in step.cells} == {"r1c1", "r3c3", "r8c3", "r8c7"}


def test_nothing_to_find_on_a_full_pencil_grid():
    assert find_step(pencil()) is None


# --------------------------------------------------------------------------- whole puzzles


def _check(puzzle: str) -> bool:
    """Every placement and elimination of the explanation agrees with the solution; solved by logic alone?"""
    e = explain(puzzle)
    grid = list(puzzle)
    for s in e.steps:
        for c, d in s.eliminations:
            assert e.solution[c] != str(d), f"{puzzle}: {s}"
        if s.cell is not None:
            assert grid[s.cell] == "." and e.solution[s.cell] == str(s.digit), f"{puzzle}: {s}"
            grid[s.cell] = str(s.digit)
        else:
            assert s.eliminations, f"{puzzle}: a step that does nothing: {s}"
    assert "".join(grid) == e.solution
    return e.logical


def _sample(name: str, every: int) -> list[str]:
    lines = need(PUZZLES / name).read_text().split()
    return lines[::every]


@pytest.mark.data
@pytest.mark.parametrize("name,every", [("easy50.txt", 1), ("hardest.txt", 1), ("top95.txt", 3),
                                        ("17clue_1000.txt", 25)])
def test_every_step_agrees_with_the_solution(name, every):
    results = [_check(p) for p in _sample(name, every)]
    if name == "easy50.txt":
        assert sum(results) >= 0.95 * len(results)


@pytest.mark.data
def test_newspaper_puzzles_are_logical():
    """Their speed (median <= 50 ms) is measured by scripts/bench_hints.py, not by a stopwatch here."""
    files = sorted(need(PHOTOS / "printed").glob("*.dat"))
    puzzles = set()
    for f in files:
        rows = f.read_text().splitlines()[2:11]
        puzzles.add("".join("".join(r.split()) for r in rows).replace("0", "."))
    results = [_check(p) for p in sorted(puzzles)]
    assert sum(results) >= 0.9 * len(results)


def test_explanation_of_wikipedias_puzzle():
    e = explain(EASY)
    assert e.solution == EASY_SOLUTION and e.logical and e.rating == "easy"
    assert len(e.steps) == EASY.count(".")
    assert explanation_json(e)["steps"][0] == step_json(next_step(EASY))


def test_reveal_when_stuck():
    """No named technique applies to Inkala's puzzle at the start: one cell is revealed."""
    step = next_step(HARDEST)
    assert step.technique == "reveal" and step.level == "fiendish"
    assert step.digit == int(HARDEST_SOLUTION[step.cell])
    assert "revealed" in step.text
    e = explain(HARDEST)
    assert not e.logical and e.rating == "fiendish" and e.steps[0] == step
    assert not solvable_within(HARDEST, "hard")


def test_mistake_is_the_first_hint():
    entries = list("." * 81)
    entries[0] = "9"  # on a given (5): ignored, a camera reads givens too
    entries[2] = "4"  # right (r1c3)
    entries[63] = "3"  # wrong: r8c1 is 2
    entries[72] = "9"  # wrong too (r9c1 is 3), but later
    entries = "".join(entries)
    step = next_step(EASY, entries)
    assert (step.technique, NAMES[step.cell], step.digit) == ("mistake", "r8c1", None)
    assert step.text == "r8c1 is wrong; remove it first"
    assert next_steps(EASY, entries) == (step,)
    told = next_step(EASY, entries, reveal_digit=True)
    assert told.digit == 2 and told.text == "r8c1 is wrong: it is 2, not 3; remove it first"


def test_hints_follow_the_entries():
    # with every cell but one filled in correctly, the hint is that cell
    entries = EASY_SOLUTION[:40] + "." + EASY_SOLUTION[41:]
    step = next_step(EASY, entries)
    assert step.cell == 40 and step.digit == int(EASY_SOLUTION[40])
    assert next_step(EASY, EASY_SOLUTION) is None
    chain = next_steps(HARDEST)
    assert chain[-1].cell is not None and all(s.cell is None for s in chain[:-1])


def test_unexplainable_puzzles():
    with pytest.raises(NoSolutionError, match="several solutions"):
        explain("." * 81)
    with pytest.raises(NoSolutionError, match="both 5"):
        explain("55" + EASY[2:])
    with pytest.raises(ValueError, match="81 characters"):
        next_step(EASY, "123")


# --------------------------------------------------------------------------- command line

STEP_KEYS = {"technique", "cell", "digit", "eliminations", "cells", "text"}


def test_solve_json_and_explain(capsys):
    assert main(["solve", HARDEST, "--json", "--explain"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj) == {"puzzle", "size", "box", "solution", "logical", "rating", "steps"}
    assert obj["size"] == 9 and obj["box"] == "3x3"
    assert obj["solution"] == HARDEST_SOLUTION and obj["logical"] is False and obj["rating"] == "fiendish"
    for s in obj["steps"]:
        assert set(s) == STEP_KEYS
        assert s["cell"] is None or (len(s["cell"]) == 4 and s["cell"][0] == "r")
        assert all(len(e) == 6 and e[4] == "-" for e in s["eliminations"])
        assert s["digit"] is None or 1 <= s["digit"] <= 9
    assert "reveal" in {s["technique"] for s in obj["steps"]}

    assert main(["solve", EASY, "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "1. naked single: r5c5 is 5: every other digit is already in its row, column or box"
    assert lines[-2].startswith("rating: easy") and lines[-1] == EASY_SOLUTION


def test_solve_json_one_object_per_puzzle(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text(f"{EASY}\n{'.' * 81}\n")
    assert main(["solve", str(f), "--json"]) == 1
    out = capsys.readouterr()
    first, second = (json.loads(line) for line in out.out.splitlines())
    assert first["rating"] == "easy" and second["solution"] is None and "several" in second["error"]
    assert "puzzle 2 (line 2): several solutions" in out.err
    assert main(["solve", EASY, "--json", "--count"]) == 2


def test_hint_command(capsys):
    assert main(["hint", EASY, "--json"]) == 0
    step = json.loads(capsys.readouterr().out)
    assert set(step) == STEP_KEYS and step["cell"] == "r5c5" and step["digit"] == 5
    wrong = "..1" + "." * 78
    assert main(["hint", EASY, "--entries", wrong]) == 0
    assert capsys.readouterr().out.strip() == "mistake: r1c3 is wrong; remove it first"
    assert main(["hint", EASY, "--entries", wrong, "--json", "--reveal"]) == 0
    assert json.loads(capsys.readouterr().out)["digit"] == 4
    assert main(["hint", EASY, "--entries", EASY_SOLUTION, "--json"]) == 0
    assert capsys.readouterr().out.strip() == "null"


def test_hint_bad_input(capsys):
    assert main(["hint", EASY, "--entries", "12x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--entries: 3 characters" in err
    assert main(["hint", EASY, "--entries", "x" * 81]) == 2
    assert "unexpected 'x' at column 1" in capsys.readouterr().err
    assert main(["hint", EASY[:-1] + "z"]) == 2
    assert main(["hint", "." * 81]) == 1
    assert "several solutions" in capsys.readouterr().err
