"""Issue 24: grids of every printed size (4x4, 6x6 with 2x3 or turned 3x2 boxes, 16x16) in the logic and the text
commands. Solutions are checked against the rules by an independent brute force, not by the solver itself."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import cv2
import numpy as np
import pytest

from ar_sudoku.cli import main
from ar_sudoku.io.records import step_json
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.logic import explain, next_step
from ar_sudoku.sudoku.solver import (
    SYMBOLS,
    PuzzleFormatError,
    count_solutions,
    format_grid,
    is_solution,
    parse_line,
    parse_puzzle,
    solve,
)

# made from the grid below (2x3 boxes); its transpose is the same puzzle with 3x2 boxes
SIX = "1.........23.315....4.......4.6....2"
SIX_SOLUTION = "123456456123231564564231312645645312"


def turn(text: str, size: int = 6) -> str:
    """The grid mirrored on its main diagonal: rows become columns, 2x3 boxes become 3x2."""
    return "".join(text[c * size + r] for r in range(size) for c in range(size))


SIX_TURNED, SIX_TURNED_SOLUTION = turn(SIX), turn(SIX_SOLUTION)


def brute_force(puzzle: str, box: tuple[int, int], limit: int = 2) -> list[str]:
    """Every solution (up to ``limit``) by plain backtracking over the rules, with its own unit tables."""
    rows_per_box, cols_per_box = box
    size = rows_per_box * cols_per_box
    grid = [SYMBOLS.index(ch) + 1 if ch != "." else 0 for ch in puzzle]
    found: list[str] = []

    def fits(i: int, v: int) -> bool:
        r, c = divmod(i, size)
        br, bc = r - r % rows_per_box, c - c % cols_per_box
        return (all(grid[r * size + k] != v and grid[k * size + c] != v for k in range(size))
                and all(grid[(br + a) * size + bc + b] != v for a in range(rows_per_box) for b in range(cols_per_box)))

    def rec() -> None:
        if len(found) >= limit:
            return
        i = next((k for k, v in enumerate(grid) if not v), None)
        if i is None:
            found.append("".join(SYMBOLS[v - 1] for v in grid))
            return
        for v in range(1, size + 1):
            if fits(i, v):
                grid[i] = v
                rec()
                grid[i] = 0

    rec()
    return found


def obeys_rules(solution: str, box: tuple[int, int]) -> bool:
    """Every row, column and box of ``box`` shape holds each symbol once."""
    rows_per_box, cols_per_box = box
    size = rows_per_box * cols_per_box
    want = set(SYMBOLS[:size])
    rows = [solution[r * size:(r + 1) * size] for r in range(size)]
    cols = ["".join(row[c] for row in rows) for c in range(size)]
    boxes = ["".join(rows[br + a][bc + b] for a in range(rows_per_box) for b in range(cols_per_box))
             for br in range(0, size, rows_per_box) for bc in range(0, size, cols_per_box)]
    return all(set(u) == want for u in rows + cols + boxes)


# --------------------------------------------------------------------------- the solver


def test_a_hand_made_6x6_has_exactly_its_known_solution():
    assert brute_force(SIX, (2, 3)) == [SIX_SOLUTION]
    board = parse_line(SIX)
    assert board.box == (2, 3) and board.size == 6 and board.givens == 10
    assert solve(board).solution == SIX_SOLUTION
    res = count_solutions(board)
    assert res.count == 1 and res.complete and res.first == SIX_SOLUTION


def test_turned_3x2_boxes_change_the_answer_and_are_asked_for_by_name():
    assert obeys_rules(SIX_TURNED_SOLUTION, (3, 2)) and not obeys_rules(SIX_TURNED_SOLUTION, (2, 3))
    assert brute_force(SIX_TURNED, (3, 2)) == [SIX_TURNED_SOLUTION]
    turned = parse_line(SIX_TURNED, box=(3, 2))
    assert turned.box == (3, 2) and solve(turned).solution == SIX_TURNED_SOLUTION
    # read with the default wide boxes the same givens have no solution at all
    assert brute_force(SIX_TURNED, (2, 3)) == [] and solve(parse_line(SIX_TURNED)).status == "unsolvable"
    with pytest.raises(PuzzleFormatError, match="cannot have 3x2 boxes"):
        parse_line("." * 81, box=(3, 2))


def test_six_rows_of_six_values_are_a_6x6_grid():
    rows = "\n".join(" ".join(SIX[r * 6:(r + 1) * 6]) for r in range(6))
    board = parse_puzzle(rows)
    assert board.to_string() == SIX and board.box == (2, 3)
    with pytest.raises(PuzzleFormatError, match="expected 6"):
        parse_puzzle(rows.replace("\n. . . . 2 3\n", "\n. . . 2 3\n", 1))
    with pytest.raises(PuzzleFormatError, match="unexpected '7'"):
        parse_line("7" + SIX[1:])


def test_4x4_and_16x16_still_solve_and_pretty_prints_draw_every_box_shape():
    four = parse_line("1..." + "..2." + ".3.." + "...4")
    assert [solve(four).solution] == brute_force(four.to_string(), (2, 2), 1)
    grid = format_grid(SIX_SOLUTION, (2, 3)).splitlines()
    assert grid[0] == "+-------+-------+" and grid[1] == "| 1 2 3 | 4 5 6 |" and grid[3] == "+-------+-------+"
    assert len(grid) == 6 + 4
    turned = format_grid(SIX_TURNED_SOLUTION, (3, 2)).splitlines()
    assert turned[0] == "+-----+-----+-----+" and turned[4] == "+-----+-----+-----+" and len(turned) == 6 + 3


# --------------------------------------------------------------------------- the generator


@pytest.mark.parametrize("box,difficulty,seed", [((2, 2), "easy", 3), ((2, 3), "hard", 0), ((3, 2), "medium", 5),
                                                  ((2, 3), "easy", 11), ((4, 4), "easy", 2)])
def test_generated_puzzles_of_every_size_have_one_solution_and_repeat_with_their_seed(box, difficulty, seed):
    p = generate(difficulty, seed, box=box)
    size = box[0] * box[1]
    assert len(p.puzzle) == size * size and p.box == box and p.size == size
    res = count_solutions(parse_line(p.puzzle, box=box), 2)
    assert res.count == 1 and res.complete and res.first == p.solution
    assert obeys_rules(p.solution, box) and is_solution(parse_line(p.puzzle, box=box), p.solution)
    if size <= 6:  # the independent check is quick enough on small grids
        assert brute_force(p.puzzle, box) == [p.solution]
    assert generate(difficulty, seed, box=box).puzzle == p.puzzle
    assert p.rating.level in ("easy", "medium", "hard")


def test_a_hard_6x6_needs_techniques_beyond_singles_and_is_rated_so():
    p = generate("hard", 0, box=(2, 3))
    used = {s.technique for s in explain(p.puzzle).steps}
    assert p.rating.level == "hard" and used - {"naked single", "hidden single", "reveal"}


# --------------------------------------------------------------------------- hints on every size


@pytest.mark.parametrize("puzzle,box", [
    (SIX, (2, 3)), (SIX_TURNED, (3, 2)),
    ("1...6..5...4.1.6....5.3.2...5..3...6", (2, 3)),  # claiming, x-wing, xy-wing
    ("....53...4..4..2....5..1..4...21....", (2, 3)),  # naked pair, x-wing, w-wing
    ("......513.....5..36..5.....124......", (2, 3)),  # pointing
    ("....6....4.5..1..33..5..1.2....6....", (3, 2)),  # hidden pair, xy-wing
])
def test_every_hint_step_on_6x6_agrees_with_the_unique_solution(puzzle, box):
    [solution] = brute_force(puzzle, box)
    e = explain(puzzle, box=box)
    assert e.solution == solution and e.box == box
    grid = list(puzzle)
    removed: set[tuple[int, int]] = set()
    for step in e.steps:
        for cell, digit in step.eliminations:  # a removed candidate is never the cell's answer
            assert SYMBOLS[digit - 1] != solution[cell], step
            removed.add((cell, digit))
        if step.cell is not None:
            assert grid[step.cell] == "." and SYMBOLS[step.digit - 1] == solution[step.cell], step
            assert (step.cell, step.digit) not in removed
            grid[step.cell] = solution[step.cell]
            assert brute_force("".join(grid), box) == [solution]  # still consistent, still unique
        assert all(re.fullmatch(r"r[1-6]c[1-6]", n) for n in step_json(step)["cells"])
    assert "".join(grid) == solution


def test_the_logic_solves_4x4_and_16x16_and_the_next_hint_follows_the_entries():
    p = generate("medium", 4, box=(4, 4))
    e = explain(p.puzzle, box=(4, 4))
    assert e.solution == p.solution and e.logical
    assert {s.technique for s in e.steps} - {"naked single", "hidden single"}  # a medium 16x16 needs more
    four = generate("easy", 1, box=(2, 2))
    assert explain(four.puzzle, box=(2, 2)).solution == four.solution
    # a wrong entry comes first, with its cell named on the 6x6 board
    wrong = list(SIX_SOLUTION)
    empty = SIX.index(".")
    wrong[empty] = "6" if SIX_SOLUTION[empty] != "6" else "5"
    step = next_step(SIX, "".join(wrong), reveal_digit=True)
    assert step.technique == "mistake" and step.cell == empty and step_json(step)["cell"] == "r1c2"
    assert next_step(SIX, SIX_SOLUTION) is None


# --------------------------------------------------------------------------- the commands


def _dark_run(img: np.ndarray, y: int, x: int) -> int:
    """How many dark pixels wide the line through (x, y) is."""
    row = img[y, :, :].max(axis=1) < 128
    left = right = x
    while left > 0 and row[left - 1]:
        left -= 1
    while right < len(row) - 1 and row[right + 1]:
        right += 1
    return right - left + 1 if row[x] else 0


def test_solve_command_on_a_6x6_pretty_count_json_explain_and_png(tmp_path, capsys):
    assert main(["solve", SIX]) == 0
    assert capsys.readouterr().out.strip() == SIX_SOLUTION
    assert main(["solve", SIX, "--pretty"]) == 0
    assert "| 1 2 3 | 4 5 6 |\n| 4 5 6 | 1 2 3 |\n+-------+-------+" in capsys.readouterr().out
    assert main(["solve", SIX, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["solve", SIX_TURNED, "--box", "3x2", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["size"] == 6 and obj["box"] == "3x2" and obj["solution"] == SIX_TURNED_SOLUTION and obj["steps"]
    assert main(["solve", SIX, "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. ") and lines[-2].startswith("rating: ") and lines[-1] == SIX_SOLUTION

    out = tmp_path / "six.png"
    assert main(["solve", SIX_TURNED, "--box", "3x2", "--png", str(out)]) == 0
    img = cv2.imread(str(out))
    assert img.shape == (6 * 60 + 40, 6 * 60 + 40, 3)
    margin, cell = 20, 60
    y_mid = margin + cell // 2  # across row 1: thick lines only between boxes, here every 2 columns
    x_mid = margin + cell // 2
    widths = [_dark_run(img, y_mid, margin + k * cell) for k in range(7)]
    heights = [_dark_run(img.transpose(1, 0, 2), x_mid, margin + k * cell) for k in range(7)]
    assert [w >= 5 for w in widths] == [True, False, True, False, True, False, True], widths
    assert [h >= 5 for h in heights] == [True, False, False, True, False, False, True], heights
    assert all(w >= 1 for w in widths + heights)


def test_a_box_that_does_not_fit_is_one_line_and_exit_2():
    for args in (["solve", "." * 81, "--box", "3x2"], ["solve", SIX, "--box", "4x4"], ["hint", SIX, "--box", "5x5"],
                 ["generate", "--size", "9", "--box", "2x3"], ["hint", SIX, "--entries", "123"]):
        r = subprocess.run([sys.executable, "-m", "ar_sudoku", *args], capture_output=True, text=True)
        assert r.returncode == 2, (args, r.stderr)
        assert "Traceback" not in r.stderr and r.stderr.strip(), args


def test_hint_command_on_6x6_and_16x16(capsys):
    assert main(["hint", SIX_TURNED, "--box", "3x2", "--json"]) == 0
    step = json.loads(capsys.readouterr().out)
    assert step["cell"] is not None and step["digit"] == int(SIX_TURNED_SOLUTION[int(step["cell"][1]) * 6 - 6
                                                                                 + int(step["cell"][3]) - 1])
    p = generate("easy", 2, box=(4, 4))
    assert main(["hint", p.puzzle]) == 0
    text = capsys.readouterr().out
    m = re.search(r"r(\d+)c(\d+) is (\d+)", text)
    assert m, text
    r, c, d = (int(g) for g in m.groups())
    assert p.solution[(r - 1) * 16 + c - 1] == SYMBOLS[d - 1]


def test_generate_command_sizes_and_6x6_sheets(tmp_path, capsys):
    assert main(["generate", "--size", "6", "--seed", "7", "--count", "2"]) == 0
    cap = capsys.readouterr()
    puzzles = cap.out.split()
    assert len(puzzles) == 2 and all(len(p) == 36 for p in puzzles) and "6x6 (2x3 boxes)" in cap.err
    assert all(count_solutions(parse_line(p)).count == 1 for p in puzzles)
    svg = tmp_path / "six.svg"
    assert main(["generate", "--box", "3x2", "--seed", "7", "--sheet", str(svg)]) == 0
    capsys.readouterr()
    text = svg.read_text()
    # 3x2 boxes: thick vertical lines every 2 cells (0, 2, 4, 6), thick horizontal ones every 3 (0, 3, 6)
    thick = re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="black" '
                       r'stroke-width="0.9"', text)
    vertical = sum(1 for x1, _, x2, _ in thick if x1 == x2)
    assert vertical == 4 and len(thick) - vertical == 3
    png = tmp_path / "six.png"
    assert main(["generate", "--size", "6", "--seed", "7", "--sheet", str(png)]) == 0
    capsys.readouterr()
    assert cv2.imread(str(png)).shape[:2] == (1754, 1240)


def test_16x16_written_0_to_f_is_solved_and_answered_in_the_same_symbols(capsys):
    p = generate("easy", 2, box=(4, 4))
    zero_f = str.maketrans(SYMBOLS[:16], "0123456789ABCDEF")
    written = p.puzzle.translate(zero_f)
    assert "0" in written and "G" not in written  # the style really differs from the default
    assert main(["solve", written, "--symbols", "0-F"]) == 0
    assert capsys.readouterr().out.strip() == p.solution.translate(zero_f)
    assert main(["solve", written, "--symbols", "0-F", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["puzzle"] == written and obj["solution"] == p.solution.translate(zero_f) and obj["size"] == 16
    assert main(["solve", SIX, "--symbols", "0-F"]) == 2
    assert "is for 16x16 puzzles; this one (line 1) is 6x6" in capsys.readouterr().err
