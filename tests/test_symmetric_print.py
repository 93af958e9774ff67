"""A newspaper's givens stand symmetric under a half turn: a reading one pair of cells off that pattern has
misread one of the two as print or as handwriting (``writing.symmetric_print``)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EASY_SOLUTION, PHOTOS, need

from ar_sudoku.vision.kinds import ENTRY, GIVEN, CellKinds, decide
from ar_sudoku.vision.writing import WRITING, symmetric_print

# EASY's givens are not symmetric: a pattern that is, with as many givens as a newspaper prints
SYMMETRIC = [i for i in range(41) if (i * 7) % 3 == 0 and i % 9 != 4]
GIVENS = sorted(set(SYMMETRIC) | {80 - i for i in SYMMETRIC})
WRITTEN = [i for i in range(81) if i not in GIVENS][:12]


def _kinds(given: dict[int, float], entry: dict[int, float], ink: np.ndarray | None = None) -> CellKinds:
    """A page read with ``given`` cells as print and ``entry`` cells as handwriting, each with its odds of that
    kind (the rest of the mass on the other kind), the solution's digit in every inked cell."""
    probs = np.zeros((81, 20), np.float32)
    probs[:, 0] = 1.0
    for cells, col in ((given, 0), (entry, 9)):
        for i, p in cells.items():
            d = int(EASY_SOLUTION[i])
            probs[i] = 0.0
            probs[i, col + d] = p
            probs[i, 9 - col + d] = 1.0 - p
    kinds, digits, conf = decide(probs)
    return CellKinds(kinds, digits, probs, conf, ink)


def _page(odd_given: int | None = None, odd_entry: int | None = None, **odds: float) -> CellKinds:
    given = {i: 0.99 for i in GIVENS if i != odd_entry}
    entry = {i: 0.99 for i in WRITTEN}
    if odd_given is not None:
        given[odd_given] = odds.get("given", 0.9)
        entry.pop(odd_given, None)
    if odd_entry is not None:
        entry[odd_entry] = odds.get("entry", 0.9)
    return _kinds(given, entry)


def test_the_pattern_is_symmetric_and_large_enough():
    assert len(GIVENS) >= 20 and all(80 - i in GIVENS for i in GIVENS) and not set(WRITTEN) & set(GIVENS)


def test_a_handwritten_digit_taken_for_print_off_the_pattern_is_an_entry_never_called_wrong():
    odd = WRITTEN[0]  # its partner across the half turn is blank: no given stands there
    assert 80 - odd not in GIVENS and 80 - odd not in WRITTEN
    read = _page(odd_given=odd, given=0.9)
    assert read.kinds[odd] == GIVEN
    fixed = symmetric_print(read)
    assert fixed.kinds[odd] == ENTRY and fixed.digits[odd] == int(EASY_SOLUTION[odd])
    assert fixed.probs[odd, 10:19].sum() == pytest.approx(WRITING.pale_pen_mass) and (
        WRITING.pale_pen_mass < WRITING.sure_written)
    assert [i for i in range(81) if fixed.kinds[i] != read.kinds[i]] == [odd]


def test_a_given_taken_for_handwriting_is_print_when_the_model_gives_it_more_print_odds_than_its_partner_entry():
    odd = GIVENS[3]
    read = _page(odd_entry=odd, entry=0.7)  # 0.3 print odds; its partner, a sure given, 0.01 entry odds
    assert read.kinds[odd] == ENTRY
    fixed = symmetric_print(read)
    assert fixed.kinds[odd] == GIVEN and fixed.digits[odd] == int(EASY_SOLUTION[odd])
    # ... but not a sure entry: the rule then changes the partner, if the model gives it odds of handwriting
    partner = 80 - odd
    sure = _page(odd_entry=odd, entry=0.999)
    assert symmetric_print(sure) is sure  # its partner is sure print too: nothing to choose by
    doubted = _kinds({**{i: 0.99 for i in GIVENS if i != odd}, partner: 0.8}, {i: 0.99 for i in [*WRITTEN, odd]})
    fixed = symmetric_print(doubted)
    assert fixed.kinds[odd] == ENTRY and fixed.kinds[partner] == ENTRY
    # on a page of two inks, the partner in the givens' ink is print: the sure "entry" is what changes
    ink = np.zeros(81, np.float32)
    ink[GIVENS] = -1.0
    inked = CellKinds(sure.kinds, sure.digits, sure.probs, sure.confidence, ink)
    assert symmetric_print(inked).kinds[odd] == GIVEN


@pytest.mark.parametrize("case", ["sure print", "two pairs off", "not written on", "entries' ink", "voted written"])
def test_a_reading_the_rule_cannot_trust_is_left_as_it_is(case):
    if case == "sure print":  # the model gives the odd given no odds of handwriting
        read = _page(odd_given=WRITTEN[0], given=0.999)
    elif case == "two pairs off":  # a pattern two pairs off a symmetric one is not a symmetric one misread
        read = _kinds({**{i: 0.99 for i in GIVENS}, WRITTEN[0]: 0.9, WRITTEN[2]: 0.9},
                      {i: 0.99 for i in WRITTEN[3:]})
    elif case == "not written on":  # a printed page: nothing is handwriting
        read = _kinds({**{i: 0.99 for i in GIVENS}, WRITTEN[0]: 0.9}, {})
    elif case == "voted written":  # the partner entry was made handwriting by its size: no print odds left to weigh
        odd = GIVENS[3]
        given = {**{i: 0.99 for i in GIVENS if i != odd}, 80 - odd: 0.75}
        read = _kinds(given, {i: 0.99 for i in WRITTEN} | {odd: 1.0})
    else:  # the odd given is in the givens' own ink on a page of two inks
        ink = np.zeros(81, np.float32)
        ink[WRITTEN[0]] = -1.0
        read = _kinds({**{i: 0.99 for i in GIVENS}, WRITTEN[0]: 0.9}, {i: 0.99 for i in WRITTEN[1:]}, ink)
    assert symmetric_print(read) is read


@pytest.mark.data
@pytest.mark.parametrize("name, cell, kind", [("image1078", "r1c5", "e"), ("image1086", "r9c1", "g")])
def test_off_a_phone_screen_a_black_pen_entry_and_a_faded_given_are_set_right_by_the_pattern(name, cell, kind):
    """Training photos under the benchmark's phone screen: image1078's black-pen 3 at r1c5 was read as print,
    image1086's printed 5 at r9c1 as handwriting; each stood one pair off the page's symmetric givens."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "mixed")
    from test_written_rooms import _read, _split_exactly

    import eval_robust

    item, obj, _, _ = _read(eval_robust, name, "screen")
    i = (int(cell[1]) - 1) * 9 + int(cell[3]) - 1
    assert obj["cells"][i] == kind
    assert _split_exactly(item, obj)
