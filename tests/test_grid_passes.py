"""The grid search is lists of named passes (``grid.VIEWS``, ``grid.OUTLINE_PASSES``, ``page_grids.PAGE_PASSES``):
with ``AR_SUDOKU_DEBUG=1`` each pass is logged on stderr with its time and what it found."""

from __future__ import annotations

import os
import subprocess
import sys

import cv2
from conftest import EASY, ROOT

from ar_sudoku.vision.grid import OUTLINE_PASSES, VIEWS
from ar_sudoku.vision.page_grids import PAGE_PASSES
from ar_sudoku.vision.synth import background, page, place, quad


def test_each_pass_of_the_grid_search_is_logged_with_its_time_and_find(tmp_path):
    photo = tmp_path / "puzzle.png"
    cv2.imwrite(str(photo), place(*page(EASY, seed=1), quad((480, 270), 380, 8, 0.1), background((960, 540), 3), 0.6))
    env = {**os.environ, "AR_SUDOKU_DEBUG": "1"}
    done = subprocess.run([sys.executable, "-m", "ar_sudoku", "image", str(photo), "--json", "--jobs", "1"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    for name, _ in OUTLINE_PASSES:
        assert any(line.startswith(f"ar-sudoku: grid pass {name} ") and " ms" in line for line in err)
    found = [line for line in err if line.startswith("ar-sudoku: grid pass outline ")]
    assert found and ": a grid, score 0." in found[0]  # a flat, clear grid: the first pass finds it
    for name, _ in PAGE_PASSES:
        assert any(line.startswith(f"ar-sudoku: page pass {name} ") and line.endswith("1 grid(s)") for line in err)
    assert [name for name, _ in VIEWS][0] == "as taken"
    assert '"status": "solved"' in done.stdout


def test_without_the_debug_flag_nothing_of_it_is_printed(tmp_path):
    photo = tmp_path / "puzzle.png"
    cv2.imwrite(str(photo), place(*page(EASY, seed=1), quad((480, 270), 380, 8, 0.1), background((960, 540), 3), 0.6))
    env = {k: v for k, v in os.environ.items() if k != "AR_SUDOKU_DEBUG"}
    done = subprocess.run([sys.executable, "-m", "ar_sudoku", "image", str(photo), "--json", "--jobs", "1"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "grid pass" not in done.stderr and "page pass" not in done.stderr
