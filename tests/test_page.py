"""A page of several puzzles (issue 24): found, ordered, read and drawn each on its own."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest
from conftest import PHOTOS, need

from ar_sudoku.cli import main
from ar_sudoku.vision.page_grids import reading_order
from ar_sudoku.vision.quads import GridQuad

TWO = ("image10", "image1004")  # two puzzles that read right alone (one training, one held-out photo)
THREE = ("image10", "image1004", "image125")
HARD = ("image199", "image29")  # a photo cut close above and below its grid; a faint, blurred puzzle


@pytest.fixture(scope="module")
def page_kit():
    need(PHOTOS / "printed")
    import eval_page
    import photos

    by_name = {p.name: p for p in photos.load(PHOTOS / "printed")}
    return eval_page, by_name


def _page(kit, names: tuple[str, ...], seed: int = 0):
    eval_page, by_name = kit
    return eval_page.real_page([by_name[n] for n in names], random.Random(seed))


def _image_json(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["image", *args, "--json"])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def _on(corners: np.ndarray, obj: dict) -> bool:
    """The object's grid lies on the truth grid ``corners`` (its centre inside them)."""
    c = np.float32(obj["corners"]).mean(axis=0)
    return cv2.pointPolygonTest(corners.reshape(-1, 1, 2).astype(np.float32), (float(c[0]), float(c[1])), False) > 0


@pytest.mark.data
@pytest.mark.parametrize(("names", "seed"), [(TWO, 0), (THREE, 0), (HARD, 1)],
                         ids=["two photos", "three photos", "framed and faint"])
def test_a_page_of_real_photos_side_by_side_is_read_as_each_puzzle_in_order(page_kit, tmp_path, capsys, names, seed):
    page = _page(page_kit, names, seed)
    path = tmp_path / "page.png"
    cv2.imwrite(str(path), page.image)
    code, rows, _ = _image_json(capsys, str(path))
    assert code == 0
    assert [r["puzzle"] for r in rows] == list(range(len(names)))
    assert {r["path"] for r in rows} == {str(path)}
    for row, givens, corners in zip(rows, page.givens, page.corners):
        assert _on(corners, row), "the puzzles come left to right"
        assert row["givens"] == givens and row["status"] == "solved"
        assert all(s == g for s, g in zip(row["solution"], givens) if g != ".")


# pages whose blurred or faint photo had its pasted edge taken for the grid's border (fitted curled, or a row
# off): one answer drawn on the wrong puzzle (image90), one puzzle not found (image195), one cell lost (image22)
# and pages found wanting in the train pages (each fails on main with these seeds): a blurred grid
# whose photo is cut along its top line, the photo's edge beside it taken for its right border (image23);
# a grid whose top six rows alone make an outline at the page's working size, the rest in shadow (image209);
# the same grid with no outline of its own at that size, on a page twice as wide as high (searched in squares)
FRAMED = [(("image115", "image90"), 0), (("image195", "image41"), 0), (("image22", "image104"), 1),
          (("image44", "image23", "image36"), 1), (("image209", "image136"), 0), (("image209", "image136"), 3)]


@pytest.mark.data
@pytest.mark.parametrize(("names", "seed"), FRAMED, ids=["blurred beside clear", "red print", "faint beside clear",
                                                         "grid on its photo's edge", "top rows an outline",
                                                         "no outline at the page's size"])
def test_a_pasted_photos_edge_is_not_taken_for_its_grids_border(page_kit, names, seed):
    eval_page, _ = page_kit
    page = _page(page_kit, names, seed)
    found, held, got = _read(page_kit, page)
    assert held == len(names)
    assert got["all_right"] and got["wrong"] == 0, got
    for analysis, corners in zip(found, page.corners):  # each grid on its puzzle's lines, not the photo's edge
        cell = float(np.ptp(corners[:, 0])) / 9
        assert np.abs(analysis.result.corners - corners).max() < 0.5 * cell


@pytest.mark.data
def test_print_the_digit_model_misses_and_the_kind_model_reads_as_the_solutions_digit_is_a_given():
    """image209: a thin "1" (r7c4) and a pale "3" (r8c2) are blank to the digit model; the kind model reads
    them as print, short of the surety asked before the solve. Once the puzzle has its one solution they are
    its digits there: givens, not cells to draw an answer over (they used to come back blank)."""
    import photos
    from ar_sudoku.ar.photo import analyse_page
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    photo = next(p for p in photos.load(need(PHOTOS / "printed")) if p.name == "image209")
    found, held = analyse_page(cv2.imread(str(photo.path)), DigitReader(), kinds=KindReader())
    assert held == 1
    result = found[0].result
    assert result.status == "solved" and result.givens == photo.givens


@pytest.mark.data
def test_a_clean_printed_grid_the_digit_model_reads_against_the_rules_is_read_by_both_models(page_kit):
    """image209 on a page (seed 1): its font's 6s read as 5s and a thin 1 as a 3, three cells, more than the
    rules' second choices mend: no solution. The kind model's digit joined to the digit model's on each
    inked cell (``reading.both_models``) reads it right; asked only of a reading that breaks the rules."""
    eval_page, _ = page_kit
    page = _page(page_kit, ("image1078", "image209"), 1)
    found, held, got = _read(page_kit, page)
    assert held == 2
    assert got["all_right"] and got["wrong"] == 0, got


@pytest.mark.data
def test_a_grid_fitted_curled_on_a_page_is_read_through_a_flat_refit_that_solves(page_kit):
    """``eval_page.py --split train --pages 60 --seed 1``, page 2x #38: image1062's grid is fitted curled, its
    top-right corner pulled two rows down along the print beside it; the reading still solves, with r1c9's
    given lost. On a page a curled grid is doubted: the flat refit, which solves as soundly, is taken."""
    eval_page, by_name = page_kit
    import photos

    held = photos.held_out_puzzles()
    train = [p for p in by_name.values() if p.name not in held and p.corners is not None]
    train.sort(key=lambda p: p.name)  # as photos.load gives them
    rng = random.Random(1)
    groups = eval_page.real_pages(train, 60, 2, rng)
    for group in groups[:39]:
        page = eval_page.real_page(group, rng)
    assert [p.name for p in groups[38]] == ["image1022", "image1062"]
    found, held, got = _read(page_kit, page)
    assert held == 2
    assert got["all_right"] and got["wrong"] == 0, got
    cell = float(np.ptp(page.corners[1][:, 0])) / 9
    assert np.abs(found[1].result.corners - page.corners[1]).max() < 0.5 * cell


@pytest.mark.data
def test_one_photo_is_one_puzzle_numbered_0_as_read_before(capsys):
    photo = need(PHOTOS / "printed") / "image10.jpg"
    code, rows, _ = _image_json(capsys, str(photo))
    assert code == 0 and len(rows) == 1 and rows[0]["puzzle"] == 0 and rows[0]["status"] == "solved"


@pytest.mark.data
def test_puzzle_n_reads_only_that_puzzle_and_one_not_there_is_said_with_exit_1(page_kit, tmp_path, capsys):
    page = _page(page_kit, TWO)
    path = tmp_path / "page.png"
    cv2.imwrite(str(path), page.image)
    code, rows, err = _image_json(capsys, str(path), "--puzzle", "1")
    assert code == 0 and len(rows) == 1
    assert rows[0]["puzzle"] == 1 and rows[0]["givens"] == page.givens[1] and _on(page.corners[1], rows[0])
    assert err == ""
    code, rows, err = _image_json(capsys, str(path), "--puzzle", "2")
    assert code == 1 and [r["status"] for r in rows] == ["no_grid"]
    assert err.count("\n") == 1 and "no puzzle 2" in err and "holds 2 puzzles" in err


@pytest.mark.data
def test_the_annotated_page_has_answers_drawn_on_both_grids(page_kit, tmp_path, capsys):
    page = _page(page_kit, TWO)
    path, out = tmp_path / "page.png", tmp_path / "solved.png"
    cv2.imwrite(str(path), page.image)
    assert main(["image", str(path), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "page.png puzzle 0: solved" in text and "page.png puzzle 1: solved" in text
    drawn = cv2.imread(str(out))
    assert drawn.shape == page.image.shape
    changed = np.abs(drawn.astype(int) - page.image.astype(int)).max(axis=2) > 40
    for corners, givens in zip(page.corners, page.givens):
        mask = np.zeros(changed.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
        inked = int((changed & (mask > 0)).sum())
        # every blank cell gets a digit: far more changed pixels than a stray edge would give
        assert inked > 20 * givens.count("."), inked
    outside = np.ones(changed.shape, bool)
    for corners in page.corners:
        mask = np.zeros(changed.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
        outside &= mask == 0
    assert int((changed & outside).sum()) < 0.02 * int(changed.sum())  # nothing drawn off the puzzles


@pytest.mark.data
def test_rendered_photographed_pages_of_two_and_three_puzzles_are_read_in_order(page_kit):
    from ar_sudoku.ar.photo import analyse_page
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    eval_page, _ = page_kit
    rng = random.Random(3)
    readers = (DigitReader(), KindReader())
    for count in (2, 3):
        page = eval_page.rendered_page(count, rng)
        found, held = analyse_page(page.image, readers[0], kinds=readers[1])
        assert held == count
        got = eval_page.score(page, [a.result for a in found])
        assert got["all_right"] and got["wrong"] == 0, got


def _grid(x: float, y: float, side: float = 100) -> GridQuad:
    return GridQuad(np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]]), 1.0)


def test_grids_are_ordered_by_rows_that_overlap_then_left_to_right():
    # a tilted page: the right puzzle of the top row sits 30 px higher than the left one, still one row
    a, b, c, d = _grid(300, 20), _grid(0, 50), _grid(10, 200), _grid(290, 190)
    ordered = reading_order([c, a, d, b])
    assert [g.corners[0].tolist() for g in ordered] == [g.corners[0].tolist() for g in (b, a, c, d)]


def test_set_names_a_puzzle_of_the_page_and_a_puzzle_the_page_lacks_is_said(tmp_path, capsys):
    """``--set 1:rRcC=D`` corrects puzzle 1 alone; ``--set 4:...`` on a page of two is said, not dropped silently."""
    import eval_page

    page = eval_page.rendered_page(2, random.Random(3))
    path = tmp_path / "two.jpg"
    assert cv2.imwrite(str(path), page.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    cell = next(i for i, ch in enumerate(page.givens[1]) if ch != ".")
    name = f"r{cell // 9 + 1}c{cell % 9 + 1}"
    assert main(["image", str(path), "--json", "--set", f"1:{name}=0", "--set", "4:r1c1=5"]) in (0, 1)
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert got[0]["givens"] == page.givens[0]
    assert got[1]["givens"] == page.givens[1][:cell] + "." + page.givens[1][cell + 1:]
    assert "--set 4:" in got[0]["message"] and "holds 2 puzzles" in got[0]["message"]



def _read(kit, page):
    """``page`` read as ``image --json`` reads it (both models): its puzzles, how many it holds, eval_page's score."""
    from ar_sudoku.ar.photo import analyse_page
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    eval_page, _ = kit
    found, held = analyse_page(page.image, DigitReader(), kinds=KindReader())
    return found, held, eval_page.score(page, [a.result for a in found])

def _train_page(kit, seed: int, pages: int, per_page: int, index: int):
    """``eval_page.py --split train --pages PAGES --seed SEED``'s real page ``index`` of ``per_page`` photos."""
    eval_page, by_name = kit
    import photos

    held = photos.held_out_puzzles()
    train = sorted((p for p in by_name.values() if p.name not in held and p.corners is not None),
                   key=lambda p: p.name)  # as photos.load gives them
    rng = random.Random(seed)
    page = None
    for per, count in ((2, pages), (3, pages // 2)):
        for k, group in enumerate(eval_page.real_pages(train, count, per, rng)):
            page = eval_page.real_page(group, rng)
            if (per, k) == (per_page, index):
                return [p.name for p in group], page
    raise AssertionError("no such page")


# ``eval_page.py --split train --pages 120 --seed 2``: image209 (its grid's bottom line on the page's cut, the
# box's rule above it) and image87 (its outline run into the text column beside it): the squares searched around
# each gave a true flat grid and a shifted curled fit scored alike on their own crops; on the whole picture
# through their own crossings (``grid._clarity``) the true grid is clearer (each failed before)
# and ``--seed 1`` page 2x #65: image77's curled fit (0.731 on the whole picture, against its flat fit's 0.722)
# misreads a 6 as 5 and solves: a wrong answer drawn; a curled fit gives up ``grid.CURL_DOUBT`` there
CLEARER = [(2, 120, 2, 11, ["image209", "image136"]), (2, 120, 2, 23, ["image87", "image84"]),
           (1, 120, 2, 65, ["image188", "image77"])]


@pytest.mark.data
@pytest.mark.parametrize(("seed", "pages", "per_page", "index", "names"), CLEARER,
                         ids=["a box's rule above the grid", "text beside the grid", "a curled fit no clearer"])
def test_fits_found_on_different_crops_of_a_page_are_compared_on_the_whole_picture(page_kit, seed, pages,
                                                                                   per_page, index, names):
    eval_page, _ = page_kit
    got_names, page = _train_page(page_kit, seed, pages, per_page, index)
    assert got_names == names
    found, held, got = _read(page_kit, page)
    assert held == len(names)
    assert got["all_right"] and got["wrong"] == 0, got
    for analysis, corners in zip(found, page.corners):
        cell = float(np.ptp(corners[:, 0])) / 9
        assert np.abs(analysis.result.corners - corners).max() < 0.5 * cell


@pytest.mark.data
def test_a_blurred_grid_whose_outline_is_broken_open_at_the_pages_size_is_still_found(page_kit):
    """``eval_page.py --split train --pages 120 --seed 4``, page 3x #42: at the page's working size image44's
    blurred border breaks, and its outline is a thin open line with a twentieth of its quad's area, below the
    least area an outline needs; it looks clearly like a grid (``grid._open_outlines``) and is searched on its
    own. It was not found (two puzzles of three)."""
    eval_page, _ = page_kit
    names, page = _train_page(page_kit, 4, 120, 3, 42)
    assert names == ["image44", "image81", "image1067"]
    found, held, got = _read(page_kit, page)
    assert held == 3
    assert got["all_right"] and got["wrong"] == 0 and got["extra"] == 0, got


@pytest.mark.data
def test_a_flat_grid_whose_reading_the_rules_corrected_is_not_swapped_for_a_curled_refit_that_loses_a_given(
        page_kit):
    """image209 beside image136 (seed 14): its grid is found flat and on its lines, and its reading solves with
    one correction (a 6 read as 5). A refit bent a row up at one corner solved with none, a given lost on the
    way, and was taken for it; on a page a curled refit replaces a flat grid only when the flat one's reading
    does not solve."""
    eval_page, _ = page_kit
    page = _page(page_kit, ("image209", "image136"), 14)
    found, held, got = _read(page_kit, page)
    assert held == 2
    assert got["all_right"] and got["wrong"] == 0, got
    cell = float(np.ptp(page.corners[0][:, 0])) / 9
    assert np.abs(found[0].result.corners - page.corners[0]).max() < 0.5 * cell
