from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from conftest import ROOT, photo_truth, rendered_frame

from ar_sudoku.cli import main
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.solver import is_solution, parse_line, solve
from ar_sudoku.vision.reading import process_image
from ar_sudoku.vision.synth import quad

KEYS = {"path", "corners", "givens", "confidence", "solution", "status", "message", "ms", "lattice", "cells",
        "entries", "candidates", "mistakes", "doubts", "unreadable", "puzzle", "size", "box", "symbols"}


@pytest.mark.data
@pytest.mark.parametrize("name", ["image10", "image1000", "image1040", "image1045", "image105"])
def test_real_photos_read_right(name, reader):
    path, givens, _ = photo_truth(name)
    res = process_image(cv2.imread(str(path)), reader)
    assert res.givens == givens
    assert res.status == "solved" and is_solution(parse_line(givens), res.solution)


@pytest.mark.data
def test_faint_print_that_agrees_with_the_solution_is_a_given(reader):
    """image77's r4c3 is printed too faint for the cutter; the model's weak 2 is the solution's, so it is a given
    and no answer is drawn over it. A faint digit the user cleared stays cleared."""
    from ar_sudoku.sudoku.rules import Reading, check_reading, faint_givens

    path, givens, _ = photo_truth("image77")
    res = process_image(cv2.imread(str(path)), reader)
    assert givens[27 + 2] == "2" and res.givens == givens
    # the rule itself: a faint cell (most of its mass on "empty") reading the solution's digit is added back;
    # one that reads another digit, or that the user set empty, is not
    puzzle = generate(seed=3).puzzle
    solution = solve(parse_line(puzzle)).solution
    blanks = [i for i, ch in enumerate(puzzle) if ch == "."][:3]
    probs = np.zeros((81, 10), np.float32)
    for i, ch in enumerate(puzzle):
        probs[i, 0 if ch == "." else int(ch)] = 1.0
    for i, digit in zip(blanks, (int(solution[blanks[0]]), int(solution[blanks[1]]) % 9 + 1,
                                 int(solution[blanks[2]]))):
        probs[i] = 0.0
        probs[i, 0], probs[i, digit] = 0.82, 0.18
    reading = Reading(probs.argmax(axis=1), probs.max(axis=1), probs)
    out = faint_givens(check_reading(reading), reading, overrides={blanks[2]: 0})
    assert out.givens[blanks[0]] == solution[blanks[0]] and out.givens[blanks[1]] == "."
    assert out.givens[blanks[2]] == "." and out.solution == solution


@pytest.mark.data
def test_a_sideways_photo_gives_the_puzzles_own_corner_order(reader):
    # image1040 is rotated a quarter turn: its top-left corner is not the picture's
    path, givens, _ = photo_truth("image1040")
    res = process_image(cv2.imread(str(path)), reader)
    assert res.givens == givens
    img = cv2.imread(str(path))
    upright = process_image(np.ascontiguousarray(np.rot90(img, 1)), reader)
    assert upright.givens == givens


def test_rendered_board_solved_in_any_orientation(reader):
    p = generate("hard", seed=4)
    for angle in (0, 90, 180, 270):
        truth = quad((640, 360), 440, angle + 4, 0.05)
        res = process_image(rendered_frame(p.puzzle, truth), reader)
        assert res.givens == p.puzzle, angle
        assert res.solution == p.solution
        assert np.abs(res.corners - truth).max() < 8, angle  # TL of the puzzle itself, whatever the turn


def _run(capsys, args):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.data
def test_json_contract_and_bad_inputs(tmp_path, capsys):
    path, givens, _ = photo_truth("image10")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff" + bytes(range(256)) * 4)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 230, np.uint8))
    code, out, err = _run(capsys, ["image", str(path), str(tmp_path / "missing.jpg"), str(empty), str(corrupt),
                                   str(blank), "--json"])
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in rows] == ["solved", "error", "error", "error", "no_grid"]
    for r in rows:
        assert set(r) == KEYS
    # the one puzzle of a photo is puzzle 0; a photo without one has none
    assert [r["puzzle"] for r in rows] == [0, None, None, None, None]
    ok = rows[0]
    assert ok["givens"] == givens and len(ok["solution"]) == 81 and len(ok["confidence"]) == 81
    assert all(0 <= c <= 1 for c in ok["confidence"])
    assert len(ok["corners"]) == 4 and all(len(p) == 2 for p in ok["corners"])
    assert ok["ms"] > 0
    assert "no such file" in rows[1]["message"] and "empty" in rows[2]["message"]
    assert rows[4]["corners"] is None and rows[4]["message"]
    # unreadable photos among read ones had no answer: 1 (issue #59: 2, "refused before any work", came after
    # the work); the others are still read
    assert code == 1
    assert "Traceback" not in err


def test_overlay_lands_in_the_empty_cells(tmp_path, capsys):
    p = generate("medium", seed=8)
    truth = quad((640, 360), 450, 0, 0.0)
    frame_path = tmp_path / "frame.png"
    cv2.imwrite(str(frame_path), rendered_frame(p.puzzle, truth, blur=0))
    out = tmp_path / "out.png"
    code, text, _ = _run(capsys, ["image", str(frame_path), "-o", str(out)])
    assert code == 0 and "solved" in text
    img = cv2.imread(str(out)).astype(int)
    green = (img[:, :, 1] > 120) & (img[:, :, 1] - img[:, :, 2] > 60) & (img[:, :, 1] - img[:, :, 0] > 40)
    x0, y0 = truth[0]
    cell = 450 / 9
    for i in range(81):
        r, c = divmod(i, 9)
        cx, cy = int(x0 + (c + 0.5) * cell), int(y0 + (r + 0.5) * cell)
        patch = green[cy - 15 : cy + 15, cx - 15 : cx + 15]
        if p.puzzle[i] == ".":
            assert patch.sum() > 20, f"no solved digit drawn in r{r + 1}c{c + 1}"
        else:
            assert patch.sum() == 0, f"a given was drawn over in r{r + 1}c{c + 1}"


@pytest.mark.data
def test_set_overrides_a_cell(tmp_path, capsys):
    path, givens, _ = photo_truth("image10")
    i = givens.index(".")
    right = solve(parse_line(givens)).solution[i]
    code, out, _ = _run(capsys, ["image", str(path), "--json", "--set", f"r{i // 9 + 1}c{i % 9 + 1}={right}"])
    row = json.loads(out)
    assert code == 0 and row["givens"][i] == right
    # copy one given of a row onto another: the user's word is kept, and the rules say invalid
    a, b = [k for k in range(81) if givens[k] != "." and k // 9 == next(
        r for r in range(9) if sum(ch != "." for ch in givens[r * 9 : r * 9 + 9]) >= 2)][:2]
    code, out, _ = _run(capsys, ["image", str(path), "--json", "--set", f"r{a // 9 + 1}c{a % 9 + 1}={givens[b]}"])
    assert json.loads(out)["status"] == "invalid" and code == 1
    code, _, err = _run(capsys, ["image", str(path), "--set", "r0c1=5"])
    assert code == 2 and "rRcC=D" in err


@pytest.mark.data
def test_usage_errors(tmp_path, capsys):
    path, _, _ = photo_truth("image10")
    code, _, err = _run(capsys, ["image", str(path), str(path), "-o", str(tmp_path / "x.png")])
    assert code == 2 and "--out-dir" in err
    code, _, err = _run(capsys, ["image", str(path), "-o", str(tmp_path / "nodir" / "x.png")])
    assert code == 2 and "does not exist" in err


def test_bundled_sample_photo(tmp_path, capsys):
    code, out, _ = _run(capsys, ["image", str(ROOT / "samples" / "photo.jpg"), "--out-dir", str(tmp_path)])
    assert code == 0 and (tmp_path / "photo_solved.png").exists()


def test_a_printed_sheet_reads_back(tmp_path, reader):
    """What a new user prints (generate --sheet) is what the camera must read."""
    from ar_sudoku.vision.render import sheet_png
    from ar_sudoku.vision.synth import background, place

    p = generate("hard", seed=12)
    sheet = sheet_png(p.puzzle, "test")
    h, w = sheet.shape[:2]
    page_quad = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    frame = place(sheet, page_quad, quad((640, 400), 560, 6, 0.08) * np.float32([1, 1.4]) - np.float32([0, 150]),
                  background((1280, 1000)), blur=0.8)
    res = process_image(frame, reader)
    assert res.givens == p.puzzle and res.solution == p.solution


@pytest.mark.data
def test_a_folder_of_photos_is_read_by_one_process_per_core_in_order(capsys):
    """Enough work: worker processes by default; the output in the order given, as with --jobs 1."""
    from conftest import PHOTOS, need

    from ar_sudoku.cli.image import auto_jobs, model_threads, usable_cores

    printed = sorted(need(PHOTOS / "printed").glob("*.jpg"))
    small = [p for p in printed if p.stat().st_size < 100_000][:40]  # 640x480 photos, under a second's work
    assert len(small) == 40 and auto_jobs(printed[:1]) == auto_jobs(small) == 1  # one process is as quick
    assert auto_jobs(printed) == min(usable_cores(), len(printed) // 8)  # 160 photos: one process per core
    # the models' threads are the cores the other processes leave: all of them for one, one each for a pool
    assert model_threads(1) == usable_cores() and model_threads(usable_cores()) == 1
    photos = [str(p) for p in printed if p.name.startswith("image1")][:16]
    main(["image", *photos, "--json", "--jobs", "1"])
    one = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    main(["image", *photos, "--json", "--jobs", "2"])
    auto = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["path"] for r in auto] == photos == [r["path"] for r in one]
    assert [(r["status"], r["givens"], r["solution"]) for r in auto] == [(r["status"], r["givens"], r["solution"])
                                                                         for r in one]


def test_a_folder_stands_for_its_photos(tmp_path, capsys):
    """``image FOLDER`` reads every photo in it, by name (other files are not photos); an empty folder is
    bad input with a one-line reason."""
    import shutil

    shutil.copy(ROOT / "samples" / "photo.jpg", tmp_path / "b.jpg")
    shutil.copy(ROOT / "samples" / "photo.jpg", tmp_path / "a.JPG")
    (tmp_path / "notes.txt").write_text("not a photo")
    code, out, _ = _run(capsys, ["image", str(tmp_path), "--json"])
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["path"] for r in rows] == [str(tmp_path / "a.JPG"), str(tmp_path / "b.jpg")]
    assert all(r["status"] == "solved" for r in rows)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = _run(capsys, ["image", str(empty)])
    assert code == 2 and "no photos in this folder" in err and "Traceback" not in err
