"""Killer puzzles as text: the puzzle type and its checks, the solver, the logical steps, and the commands."""

from __future__ import annotations

import json

import cv2
import pytest

from ar_sudoku.cli import main
from ar_sudoku.sudoku.killer import (
    KillerFormatError,
    combos,
    is_killer_solution,
    make_killer,
    parse_killer_line,
)
from ar_sudoku.sudoku.killer_generator import generate_killer
from ar_sudoku.sudoku.killer_logic import explain_killer, killer_leftovers, next_killer_step
from ar_sudoku.sudoku.killer_solver import count_killer, solve_killer
from ar_sudoku.sudoku.vocabulary import Status

EASY_GRID = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


@pytest.fixture(scope="module")
def made():
    """Two generated puzzles: the first with no givens."""
    return [generate_killer(seed=s) for s in (3, 11)]


def _line(killer) -> str:
    return json.dumps({"givens": killer.to_string(), "cages": [{"sum": c.total, "cells": list(c.cells)}
                                                                for c in killer.cages]})


def _dominoes(grid: str) -> list[tuple[int, list[int]]]:
    """A full caging of a solved grid by horizontal dominoes (and the last column as single cells)."""
    cages = []
    for r in range(9):
        for c in range(0, 8, 2):
            cells = [r * 9 + c, r * 9 + c + 1]
            cages.append((int(grid[cells[0]]) + int(grid[cells[1]]), cells))
        cages.append((int(grid[r * 9 + 8]), [r * 9 + 8]))
    return cages


def test_combinations_are_the_digit_sets_of_a_sum():
    assert combos(2, 3) == (0b11,)  # 1+2
    assert combos(3, 24) == (0b111000000,)  # 7+8+9
    assert len(combos(2, 10)) == 4 and combos(9, 45) == (0b111111111,) and combos(2, 18) == ()


@pytest.mark.parametrize("cages, says", [
    ([(3, [0, 1]), (4, [1, 2])], "r1c2 is in cages 1 and 2"),
    ([(3, [0, 2])], "not orthogonally connected"),
    ([(18, [0, 1])], r"sum 18 is impossible for 2 different digits \(3-17\)"),
    ([(5, [0, 81])], "cell 81 is not a cell number 0-80"),
    ([(5, [])], "cage 1 has no cells"),
    ([(45, list(range(10)))], "at most 9"),
])
def test_a_bad_puzzle_is_one_clear_line(cages, says):
    with pytest.raises(KillerFormatError, match=says):
        make_killer("." * 81, cages, line=4)


def test_a_fully_caged_grid_must_add_up_to_405():
    cages = _dominoes(EASY_GRID)
    assert make_killer("." * 81, cages).cages[0].total == 8
    cages[0] = (cages[0][0] + 1, cages[0][1])
    with pytest.raises(KillerFormatError, match="add up to 406"):
        make_killer("." * 81, cages)


@pytest.mark.parametrize("text, says", [
    ('{"cages": [', "not a JSON object"),
    ('[1, 2]', "JSON object"),
    ('{"givens": "...."}', "\"cages\" is missing"),
    ('{"cages": [{"sum": 3}]}', "cage 1 is not"),
    ('{"givens": 5, "cages": []}', "\"givens\" is a string"),
])
def test_bad_json_lines(text, says):
    with pytest.raises(KillerFormatError, match=says):
        parse_killer_line(text, 2)


def test_the_solver_solves_checks_and_counts(made):
    for p in made:
        result = solve_killer(p.killer, timeout=10)
        assert result.status == Status.SOLVED and result.solution == p.solution
        assert is_killer_solution(p.killer, result.solution)
        assert count_killer(p.killer, 2, timeout=10).count == 1
    # the dominoes of a grid with one domino's sum raised: no solution (proved, not timed out)
    cages = _dominoes(EASY_GRID)
    cages[0], cages[1] = (cages[0][0] + 1, cages[0][1]), (cages[1][0] - 1, cages[1][1])
    broken = make_killer("." * 81, cages)
    assert not is_killer_solution(broken, EASY_GRID)
    # and a grid caged only in part has several solutions
    assert count_killer(make_killer("." * 81, [(3, [0, 1])]), 2, timeout=5).count == 2


def test_the_deadline_and_cancel_stop_the_search(made):
    assert solve_killer(made[0].killer, timeout=10, cancel=lambda: True).status == Status.TIMEOUT
    assert not count_killer(made[0].killer, 2, timeout=0.0).complete


def test_the_rule_of_45_holds_on_every_region(made):
    """Innies and outies add up to what each region's whole cages leave over, in the true solution."""
    for p in made:
        groups = killer_leftovers(p.killer)
        assert {g.kind for g in groups} == {"innies", "outies"}
        for g in groups:
            assert sum(int(p.solution[c]) for c in g.cells) == g.total, g


def test_every_step_agrees_with_the_solution_and_proves_it_unique(made):
    techniques = set()
    for p in made:
        e = explain_killer(p.killer, solution=p.solution)
        for step in e.steps:
            techniques.add(step.technique)
            if step.cell is not None and step.technique != "reveal":
                assert str(step.digit) == p.solution[step.cell], step
            assert all(p.solution[c] != str(d) for c, d in step.eliminations), step
        assert e.logical and e.rating in ("easy", "medium", "hard")
    assert {"cage combination", "innies/outies", "cage sum"} <= techniques


def test_a_hint_starts_from_the_cages_and_names_a_wrong_entry(made):
    p = made[0]
    step = next_killer_step(p.killer)
    assert step is not None and step.technique in ("cage combination", "cage sum", "innies/outies")
    i = next(i for i in range(81) if p.killer.givens.cells[i] == 0)
    wrong = str(int(p.solution[i]) % 9 + 1)
    entries = "." * i + wrong + "." * (80 - i)
    mistake = next_killer_step(p.killer, entries)
    assert mistake is not None and mistake.technique == "mistake" and mistake.cell == i


def test_solve_reads_killer_lines_among_ordinary_puzzles(tmp_path, capsys, made):
    f = tmp_path / "mixed.txt"
    ordinary = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    f.write_text(f"{_line(made[0].killer)}\n{ordinary}\n{_line(made[1].killer)}\n")
    assert main(["solve", str(f)]) == 0
    assert capsys.readouterr().out.split() == [made[0].solution, EASY_GRID, made[1].solution]
    assert main(["solve", str(f), "--json"]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["solution"] for o in objs] == [made[0].solution, EASY_GRID, made[1].solution]
    assert "cages" not in objs[1]
    back = make_killer(objs[2]["givens"], [(c["sum"], c["cells"]) for c in objs[2]["cages"]])
    assert back == made[1].killer and objs[2]["rating"] and objs[2]["steps"]


def test_solve_names_a_bad_killer_line_and_solves_the_rest(tmp_path, capsys, made):
    f = tmp_path / "k.jsonl"
    bad = '{"cages": [{"sum": 3, "cells": [0, 2]}]}'
    f.write_text(f"{_line(made[0].killer)}\n{bad}\n")
    assert main(["solve", str(f)]) == 1
    out, err = capsys.readouterr()
    assert out.split() == [made[0].solution]
    assert "line 2: cage 1 (r1c1, r1c3): its cells are not orthogonally connected; skipped" in err
    f.write_text(bad + "\n")
    assert main(["solve", str(f)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_explain_count_hint_and_png(tmp_path, capsys, made):
    f = tmp_path / "one.jsonl"
    f.write_text(_line(made[0].killer) + "\n")
    assert main(["solve", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "rule of 45" in out and "cage combination" in out and out.strip().endswith(made[0].solution)
    assert main(["solve", str(f), "--count"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["hint", str(f), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["technique"] in ("cage combination", "cage sum", "innies/outies")
    png = tmp_path / "solved.png"
    assert main(["solve", str(f), "--png", str(png)]) == 0
    img = cv2.imread(str(png))
    assert img is not None and img.shape[0] == img.shape[1] == 9 * 60 + 40


def test_generate_killer_lines_and_sheets(tmp_path, capsys):
    sheet = tmp_path / "killer.png"
    assert main(["generate", "--variant", "killer", "--seed", "5", "--count", "2", "--sheet", str(sheet)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2 and "killer" in err and "wrote" in err
    for line in lines:
        killer = parse_killer_line(line)
        assert count_killer(killer, 2, timeout=10).count == 1 and killer.givens.givens <= 3
    img = cv2.imread(str(sheet))
    assert img is not None and img.shape[0] > img.shape[1]
    svg = tmp_path / "killer.svg"
    assert main(["generate", "--variant", "killer", "--seed", "5", "--sheet", str(svg)]) == 0
    text = svg.read_text()
    assert text.count("stroke-dasharray") > 50 and text.count("<text") >= 1 + len(parse_killer_line(lines[0]).cages)
    assert main(["generate", "--variant", "killer", "--size", "6"]) == 2
