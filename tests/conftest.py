"""Shared fixtures: where the shared data lives, and classic puzzles with known answers.

Tests that read ../shared/data are marked ``@pytest.mark.data`` (and reach its files through ``need``). When
the data is missing they fail, naming the path, under ``CI=true`` (a CI run without its data proves nothing);
elsewhere they skip, and the run ends with one line that says how many did. ``AR_SUDOKU_DATA`` points
elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AR_SUDOKU_DATA") or ROOT.parent / "shared" / "data")
PHOTOS = SHARED / "sudoku-photos"
PUZZLES = SHARED / "puzzles"

# Wikipedia's example puzzle and its solution
EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
EASY_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
# Arto Inkala's "world's hardest sudoku" (2012)
HARDEST = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
HARDEST_SOLUTION = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"


MISSING = "shared data not found"
_skipped: set[str] = set()  # the tests skipped for want of the data


def _no_data(path: Path) -> NoReturn:
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{MISSING}: {path} (CI=true: the tests that need it cannot be skipped)", pytrace=False)
    pytest.skip(f"{MISSING}: {path}")


def need(path: Path) -> Path:
    """``path`` (under the shared data), or the test is failed (CI) or skipped (elsewhere)."""
    if not path.exists():
        _no_data(path)
    return path


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("data") is not None and not SHARED.is_dir():
        _no_data(SHARED)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and isinstance(report.longrepr, tuple) and MISSING in str(report.longrepr[2]):
        _skipped.add(report.nodeid)


def pytest_terminal_summary(terminalreporter) -> None:
    if _skipped:
        terminalreporter.write_line(f"{len(_skipped)} tests skipped: {MISSING} ({SHARED})", yellow=True, bold=True)


# Norvig's "impossible" puzzle: no solution (a naive search needs minutes to prove it; ours a few ms)
PATHOLOGICAL = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
# a sparse 16x16 with one wrong given: the search runs for minutes (60 s was not enough)
SLOW = (
    "....F..3....A.G...9......C2.B........C2...........G......8.....4C..........8..A..5....7.CAF..."
    "....A.....GE..........2.....DB....2.3..FA.5............3.C..A7.......C4.....8F.B....4........"
    "..........G......D..25.CF....2.B..A......5...9.C.....A....2.........."
)


@pytest.fixture(scope="session")
def reader():
    from ar_sudoku.vision.digits import DigitReader

    return DigitReader()


def rendered_frame(puzzle: str, grid_quad, size=(1280, 720), seed: int = 0, blur: float = 0.7):
    """A camera-like frame of a printed puzzle whose grid lands exactly on ``grid_quad``."""
    from ar_sudoku.vision.synth import background, page, place

    img, corners = page(puzzle, seed=seed)
    return place(img, corners, grid_quad, background(size, seed), blur=blur)


def photo_truth(name: str):
    """(image path, givens, corners or None) of one shared photo."""
    import csv

    import numpy as np

    folder = need(PHOTOS / "printed")
    jpg = folder / f"{name}.jpg"
    lines = jpg.with_suffix(".dat").read_text().splitlines()[2:11]
    givens = "".join(t for ln in lines for t in ln.split()).replace("0", ".")
    corners = None
    with (PHOTOS / "outlines.csv").open() as f:
        for row in csv.DictReader(f):
            if row["filepath"] == f"printed/{name}.jpg":
                corners = np.array([[float(row[f"p{k}_x"]), float(row[f"p{k}_y"])] for k in range(1, 5)])
    return jpg, givens, corners
