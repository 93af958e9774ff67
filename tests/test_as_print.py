"""A page whose print the cell-kind model takes for a hand still locks live (issue 57): when the givens without
its "entries" leave several solutions, the page read as print alone is solved (``rules.or_as_print``), as the
photo path's ``passes.page_as_print`` does; a wrong "entry" keeps the reading as it was."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EASY, EASY_SOLUTION, need

from ar_sudoku.sudoku.rules import AS_PRINT, NOT_UNIQUE, Reading, check_reading, or_as_print
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.kinds import KindReader


@pytest.fixture(scope="module")
def kinds():
    return KindReader()


def reading(givens: str, sure: float = 0.97) -> Reading:
    digits = np.array([0 if ch == "." else int(ch) for ch in givens])
    probs = np.full((81, 10), (1 - sure) / 9)
    probs[np.arange(81), digits] = sure
    return Reading(digits, probs.max(axis=1), probs)


def without(givens: str, cells: list[int]) -> str:
    return "".join("." if i in cells else ch for i, ch in enumerate(givens))


# the print taken for a hand: nine of Wikipedia's givens, enough to leave the rest several solutions
DOUBTED = [i for i, ch in enumerate(EASY) if ch != "."][:9]


def test_givens_that_leave_several_solutions_are_solved_as_the_page_prints_them():
    fused = check_reading(reading(without(EASY, DOUBTED)), require_unique=True)
    assert fused.status == Status.UNSOLVABLE and fused.message == NOT_UNIQUE
    out = or_as_print(fused, reading(EASY))
    assert out.status == Status.SOLVED and out.solution == EASY_SOLUTION and out.givens == EASY
    assert out.message == AS_PRINT


def test_a_wrong_entry_read_as_print_leaves_the_reading_as_it_was():
    fused = check_reading(reading(without(EASY, DOUBTED)), require_unique=True)
    blank = next(i for i, ch in enumerate(EASY) if ch == ".")
    wrong = str(int(EASY_SOLUTION[blank]) % 9 + 1)  # a person's mistake in a blank cell
    printed = reading(EASY[:blank] + wrong + EASY[blank + 1:])
    assert or_as_print(fused, printed) is fused


def test_a_sound_or_broken_reading_is_never_replaced():
    sound = check_reading(reading(EASY), require_unique=True)
    assert or_as_print(sound, reading(EASY)) is sound
    broken = check_reading(reading("55" + EASY[2:], sure=1.0), require_unique=True)
    assert or_as_print(broken, reading(EASY)) is broken
    assert or_as_print(check_reading(reading(without(EASY, DOUBTED)), require_unique=True), None).solution is None


@pytest.mark.data
def test_a_page_whose_print_the_kind_model_doubts_locks_live(tmp_path, reader, kinds):
    """Generator P's page 34 (Nimbus Mono, small, in checked shading) moved under the camera, written as a real
    video and read back: main never locked on it (the print model read all its givens, the kind model took
    some for a hand, the rest left several solutions); now its answer is drawn from the first seconds on, and
    never a wrong one."""
    import scenes
    import scenes_p
    from ar_sudoku.ar.page import Page
    from ar_sudoku.ar.session import SessionConfig
    from ar_sudoku.io.records import frame_json
    from ar_sudoku.io.sources import open_source

    need(scenes_p.PUZZLES)
    maker = scenes_p.ScenePrint()
    if not any(f.stem == "NimbusMonoPS-Regular" for f in maker.faces):
        pytest.skip("fonts-urw-base35 is not installed")
    shots = maker.scene("moving@P34")[:45]
    path = tmp_path / "p34.mp4"
    scenes.write_scene(path, shots, maker.size, maker.fps, maker.render, {"gen": "P"})
    truth = shots[0].placed[0][0].grids[0].solution
    with open_source(str(path)) as source, Page(reader, kinds=kinds, config=SessionConfig(solve_lag=1)) as page:
        logs = [frame_json(page.step(frame)) for frame in source]
    drawn = [log["solution"] for log in logs]
    assert len(drawn) == 45 and all(d in (None, truth) for d in drawn)
    assert drawn[-30:] == [truth] * 30
