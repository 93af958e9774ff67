"""A killer page's odds made into a checked puzzle: the rules and the solver decide, doubtful marks are named."""

from __future__ import annotations

import numpy as np
import pytest

from ar_sudoku.sudoku.killer_generator import generate_killer
from ar_sudoku.sudoku.killer_reading import BORDERS, looks_like_killer, read_killer


@pytest.fixture(scope="module")
def page():
    return generate_killer(seed=21)


def odds_of(killer, sure: float = 0.995) -> tuple[np.ndarray, np.ndarray]:
    """The odds a perfect reader would give the page: each sum and border at ``sure``."""
    sums = np.full((81, 46), (1 - sure) / 45, np.float32)
    sums[:, 0] = sure
    for cage in killer.cages:
        sums[cage.first] = (1 - sure) / 45
        sums[cage.first, cage.total] = sure
    cage_of = killer.cage_of()
    borders = np.array([sure if cage_of[a] != cage_of[b] else 1 - sure for a, b in BORDERS], np.float32)
    return sums, borders


def test_sure_odds_read_the_page(page):
    sums, borders = odds_of(page.killer)
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.killer is not None and found.killer.cages == page.killer.cages
    assert found.solution == page.solution and not found.taken


def test_a_misread_sum_is_set_right_only_by_the_rules_and_said(page):
    sums, borders = odds_of(page.killer)
    cage = max(page.killer.cages, key=lambda c: len(c.cells))
    wrong = cage.total + 1
    sums[cage.first, cage.total], sums[cage.first, wrong] = 0.3, 0.69  # read as one more: 406 in all
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.solution == page.solution
    assert any(f"(read {wrong}, taken as {cage.total})" in t for t in found.taken)
    assert "the only reading that keeps the rules and solves one way" in found.message


def test_two_readings_that_both_solve_leave_the_page_unanswered(page, monkeypatch):
    """Two sums each unsure between their value and one off (one up, one down): two readings of 405. When both
    solve one way (the solver stood in for here: which solution depends on the first sum read), nothing is
    answered and the two sums are named."""
    from ar_sudoku.sudoku import killer_reading

    sums, borders = odds_of(page.killer)
    a, b = page.killer.cages[0], page.killer.cages[-1]
    for cage, other in ((a, a.total + 1), (b, b.total - 1)):
        sums[cage.first, cage.total], sums[cage.first, other] = 0.5, 0.49
    monkeypatch.setattr(killer_reading, "_solve", lambda board, cand, left: str(cand.cages[0].total % 9 + 1) * 81)
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.solution is None and "solve differently" in found.message
    assert any(d.startswith(f"the sum at r{a.first // 9 + 1}c{a.first % 9 + 1}") for d in found.doubts)


def test_a_broken_border_that_no_reading_mends_is_named(page):
    sums, borders = odds_of(page.killer)
    inner = next(k for k, (x, y) in enumerate(BORDERS) if page.killer.cage_of()[x] == page.killer.cage_of()[y])
    borders[inner] = 0.995  # a cage cut in two, surely: one half has no sum
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.solution is None and "no reading" in found.message


def test_a_doubtful_border_is_turned_when_that_alone_keeps_the_rules(page):
    sums, borders = odds_of(page.killer)
    inner = next(k for k, (x, y) in enumerate(BORDERS) if page.killer.cage_of()[x] == page.killer.cage_of()[y])
    borders[inner] = 0.7
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.solution == page.solution and any("the border between" in t for t in found.taken)


def test_an_ordinary_page_is_no_killer_page():
    sums = np.zeros((81, 46), np.float32)
    sums[:, 0] = 0.99
    sums[:5, 0], sums[:5, 7] = 0.05, 0.95  # a few pencil marks in corners are not a page of sums
    assert not looks_like_killer(sums)
    found = read_killer(sums, np.full(144, 0.5, np.float32), None)
    assert not found.looks_killer and found.killer is None


@pytest.mark.parametrize("sure_sums, taken", [(12, False), (24, True)])
def test_an_unanswered_killer_reading_replaces_the_ordinary_one_only_on_a_page_of_many_sums(
        sure_sums, taken, monkeypatch):
    """Pencilled candidates in an ordinary puzzle's corners can look like a dozen cage sums: a killer reading
    that is not answered stands in for the ordinary reading only when the page prints many sums surely
    (``KillerReadConfig.named_sums``); an answered one always does."""
    from ar_sudoku.sudoku.rules import BoardResult
    from ar_sudoku.sudoku.vocabulary import Status
    from ar_sudoku.vision import killer_read
    from ar_sudoku.vision.cages import CageOdds
    from ar_sudoku.vision.killer_read import PageSight, killer_or

    sums = np.zeros((81, 46), np.float32)
    sums[:, 0] = 1.0
    sums[:sure_sums, 0], sums[:sure_sums, 10] = 0.02, 0.98
    sight = PageSight(CageOdds(sums, np.zeros(144, np.float32), 0, np.zeros((4, 4, 3), np.uint8)),
                      np.zeros((4, 2), np.float32), None, "." * 81)
    monkeypatch.setattr(killer_read, "see_pages", lambda *a, **k: [sight])
    unanswered = BoardResult(Status.UNSOLVABLE, corners=sight.corners, message="a killer page, not answered")
    monkeypatch.setattr(killer_read, "decide", lambda seen, timeout: unanswered)
    ordinary = BoardResult(Status.UNSOLVABLE, corners=np.zeros((4, 2), np.float32), givens="." * 81,
                           message="the reading has several solutions")
    image = np.zeros((8, 8, 3), np.uint8)
    got = killer_or(image, ordinary, None)  # type: ignore[arg-type]
    assert got.message == (unanswered if taken else ordinary).message
    answered = BoardResult(Status.SOLVED, corners=sight.corners, solution="1" * 81)
    monkeypatch.setattr(killer_read, "decide", lambda seen, timeout: answered)
    assert killer_or(image, ordinary, None).solution == "1" * 81  # type: ignore[arg-type]


def test_two_cages_a_missed_shade_change_merged_are_parted_by_their_sums(page):
    """A shade change the border model missed along three cells at once (more than ``max_turns`` doubtful
    borders to turn): the region it leaves holds two sums, and the least costly cut between them is the missed
    border (``killer_reading._split``); the rules and the solver still decide, and the borders taken are said."""
    sums, borders = odds_of(page.killer)
    cage_of = page.killer.cage_of()
    # two touching cages that share three borders or more: their whole shared border read as no border
    shared: dict[tuple[int, int], list[int]] = {}
    for k, (a, b) in enumerate(BORDERS):
        if cage_of[a] != cage_of[b]:
            shared.setdefault((min(cage_of[a], cage_of[b]), max(cage_of[a], cage_of[b])), []).append(k)
    pair = next(ks for ks in shared.values() if len(ks) >= 3)
    borders[pair] = 0.3
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.killer is not None and found.killer.cages == page.killer.cages
    assert found.solution == page.solution
    assert sum("the border between" in t for t in found.taken) == len(pair)


def test_a_region_holding_no_sum_is_not_made_up(page):
    """A cage whose sum was not seen at all: no cut can give it one; the page is not answered."""
    sums, borders = odds_of(page.killer)
    cage = page.killer.cages[3]
    sums[cage.first] = 0.0
    sums[cage.first, 0] = 1.0
    found = read_killer(sums, borders, page.killer.to_string())
    assert found.solution is None
