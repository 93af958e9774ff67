"""Puzzles people have written on: entries told from givens, checked against the solution, live and on photos."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from conftest import EASY, EASY_SOLUTION, SHARED, need

from ar_sudoku.ar.session import ARSession, SessionConfig
from ar_sudoku.cli import main
from ar_sudoku.io.records import frame_json, written_json
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import open_source
from ar_sudoku.sudoku.written import Written, from_kinds, settle
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.synth import background, page, place, quad

CELL, MARGIN = 60, 90  # synth.page's layout
NAMES = [f"r{i // 9 + 1}c{i % 9 + 1}" for i in range(81)]


@pytest.fixture(scope="module")
def hand():
    """Real handwriting: one digit of each value cut from a training photo of sudoku-photos/mixed
    (red ink; only the ink is kept, as alpha), to write into a rendered puzzle."""

    from photos import DEFAULT_DIR, is_validation, load, read_dat

    need(DEFAULT_DIR / "mixed")
    out: dict[str, np.ndarray] = {}
    c = CELL
    for p in load(DEFAULT_DIR / "printed"):
        mixed = DEFAULT_DIR / "mixed" / p.path.name
        if is_validation(p) or p.corners is None or not mixed.exists():
            continue
        full = read_dat(mixed.with_suffix(".dat"))
        hmat = cv2.getPerspectiveTransform(np.float32(p.corners), np.float32([[0, 0], [9 * c, 0], [9 * c, 9 * c],
                                                                              [0, 9 * c]]))
        flat = cv2.cvtColor(cv2.warpPerspective(cv2.imread(str(mixed)), hmat, (9 * c, 9 * c)), cv2.COLOR_BGR2GRAY)
        for i in range(81):
            if p.givens[i] == "." and full[i] != "." and full[i] not in out:
                r, col = divmod(i, 9)
                patch = flat[r * c + 8 : (r + 1) * c - 8, col * c + 8 : (col + 1) * c - 8].astype(np.float32)
                paper, ink = np.percentile(patch, 90), np.percentile(patch, 2)
                out[full[i]] = np.clip((paper - patch) / max(paper - ink, 1.0) * 1.3 - 0.15, 0, 1)
        if len(out) == 9:
            return out
    pytest.skip("no handwriting found")


def write(img: np.ndarray, cell: int, alpha: np.ndarray) -> None:
    """A handwritten digit (its ink as alpha) in a cell of synth.page, in blue pen."""
    r, c = divmod(cell, 9)
    y0, x0 = MARGIN + CELL // 2 + r * CELL + 8, MARGIN + c * CELL + 8
    h, w = alpha.shape
    roi = img[y0 : y0 + h, x0 : x0 + w].astype(np.float32)
    a = alpha[..., None]
    img[y0 : y0 + h, x0 : x0 + w] = (roi * (1 - a) + np.float32([150, 40, 30]) * a).astype(np.uint8)


@pytest.fixture(scope="module")
def kinds():
    return KindReader()


def test_the_written_part_is_checked_against_the_solution():
    givens = EASY
    w = from_kinds(givens, "." * 81, "." * 81)
    assert w.entries == "." * 81 and set(w.cells) <= {"g", "."}
    # a cell read as a given that the rules did not keep is an entry; a wrong one is a mistake
    kinds = list("." * 81)
    digits = list("." * 81)
    kinds[2], digits[2] = "g", "4"  # r1c3 (the solution has 4): a right entry
    kinds[3], digits[3] = "e", "2"  # r1c4 (the solution has 6): a mistake
    kinds[5], digits[5] = "c", "."
    w = from_kinds(givens, "".join(kinds), "".join(digits))
    assert w.cells[2:6] == "eegc" and w.entries[2:4] == "42"
    assert w.mistakes(EASY_SOLUTION) == (3,)
    assert w.mistake_lines(EASY_SOLUTION) == ["r1c4: written 2, the solution has 6"]
    assert w.mistake_lines(EASY_SOLUTION, reveal=False) == ["r1c4: written 2 is wrong"]
    assert written_json(w, EASY_SOLUTION)["mistakes"] == ["r1c4"]
    clash = Written("." * 81, "." * 2 + "5" + "." * 78)  # a 5 in row 1, which has a printed 5
    assert clash.clashes(givens) == ["r1c1 and r1c3 are both 5 in row 1", "r1c1 and r1c3 are both 5 in box 1"]


def _frame(entries: dict[int, str], pen: dict[str, np.ndarray], size=(1280, 720),
           hand: bool = False) -> tuple[np.ndarray, np.ndarray]:
    img, corners = page(EASY, seed=3)
    for i, d in entries.items():
        write(img, i, pen[d])
    q = quad((640, 360), 520, 3, 0.04)
    f = place(img, corners, q, background(size, 3), blur=0.6)
    if hand:
        cv2.ellipse(f, (700, 420), (160, 90), -25, 0, 360, (120, 150, 205), -1)
    return f, q


def test_entries_settle_givens_that_leave_several_solutions():
    """A given misread as an entry leaves the puzzle open; the person's right entries close it again."""
    from ar_sudoku.sudoku.solver import count_solutions, parse_line

    givens = [i for i, ch in enumerate(EASY) if ch != "."]
    for drop in givens:  # find a given whose loss opens the puzzle
        open_ = EASY[:drop] + "." + EASY[drop + 1:]
        if count_solutions(parse_line(open_), 2).count > 1:
            break
    else:
        pytest.skip("every single given of EASY is redundant")
    blanks = [i for i, ch in enumerate(EASY) if ch == "."]
    entries = [(drop, EASY[drop])] + [(i, EASY_SOLUTION[i]) for i in blanks[:10]]
    solution, used = settle(open_, entries)
    assert solution == EASY_SOLUTION and used[0] == drop
    wrong = [(i, str(int(EASY_SOLUTION[i]) % 9 + 1)) for i in blanks]  # all wrong: nothing settles it
    found = settle(open_, wrong)
    assert found is None or found[0] != EASY_SOLUTION


@pytest.mark.data
def test_a_photo_with_entries_is_solved_from_its_givens_and_a_mistake_is_marked(tmp_path, capsys, hand):
    wrong = 2  # r1c3: the solution has 4
    entries = {2: "7", 30: EASY_SOLUTION[30], 40: EASY_SOLUTION[40], 70: EASY_SOLUTION[70]}
    frame, _ = _frame(entries, hand)
    src, out = tmp_path / "started.png", tmp_path / "marked.png"
    cv2.imwrite(str(src), frame)
    assert main(["image", str(src), "--json", "-o", str(out)]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["givens"] == EASY and obj["solution"] == EASY_SOLUTION
    assert obj["mistakes"] == [NAMES[wrong]]
    assert {i for i, ch in enumerate(obj["cells"]) if ch == "e"} == set(entries)
    assert obj["entries"][wrong] == "7"
    assert main(["image", str(src), "--check"]) == 0
    text = capsys.readouterr().out
    assert "r1c3: written 7 is wrong" in text and "1 mistake" in text and EASY_SOLUTION[:9] not in text


@pytest.mark.data
def test_writing_while_the_camera_watches(tmp_path, reader, kinds, hand):
    """Digits written one by one (one wrong), a hand passing over: entries, not a new puzzle."""
    wrong_cell, wrong_digit = 2, "7"
    script = [(40, EASY_SOLUTION[40]), (wrong_cell, wrong_digit), (30, EASY_SOLUTION[30])]
    path = tmp_path / "writing.avi"
    plan = []  # per frame: the entries on the paper, and a hand over it
    written: dict[int, str] = {}
    for i in range(120):
        if i in (30, 55, 80):
            cell, d = script[(i - 30) // 25]
            written[cell] = d
        plan.append((dict(written), 95 <= i < 103))
    with VideoSink(path, (1280, 720), 25) as sink:
        for entries, over in plan:
            sink.write(_frame(entries, hand, hand=over)[0])
    rows = []
    # solve_lag: each solve is waited for on the next frame, so the frame counts below do not depend on the load
    with open_source(str(path)) as src, ARSession(reader, config=SessionConfig(solve_lag=1), kinds=kinds) as session:
        for frame in src:
            r = session.step(frame)
            rows.append((r, session.draw(frame.copy(), r)))
    # locked on the puzzle before anything was written, and never lost it to the writing
    assert rows[29][0].solution == EASY_SOLUTION
    assert all(r.givens == EASY for r, _ in rows[30:] if r.givens)
    # the wrong entry is marked within 10 frames of being written (it is steady from frame 55)
    marked = [k for k, (r, _) in enumerate(rows) if r.written is not None and wrong_cell in
              r.written.mistakes(EASY_SOLUTION)]
    assert marked and marked[0] <= 55 + 10
    last = rows[-1][0]
    assert last.written is not None and last.written.entries[40] == EASY_SOLUTION[40]
    line = frame_json(last)
    assert line["mistakes"] == [NAMES[wrong_cell]] and line["cells"][30] == "e"
    # the hand changed nothing: no reading of a new puzzle, the same entries after it as before
    before, after = rows[94][0], rows[110][0]
    assert before.written is not None and after.written is not None
    assert before.written.entries == after.written.entries
    assert all(r.status != "reading" for r, _ in rows[90:])


@pytest.mark.data
@pytest.mark.parametrize("name", ["02_21_iphone_14_0", "03_11_iphone_14_0"])
def test_real_pen_and_pencil_photos_agree_with_the_page(name, capsys):
    """One training and one held-out puzzle of the handwritten-photos set: the solution agrees with every
    labelled digit (printed or written), whatever else the reading got wrong."""
    folder = need(SHARED / "handwritten-photos")
    labels = [int(t) for t in (folder / "labels" / f"{name}.txt").read_text().split()]
    assert main(["image", str(folder / "images" / f"{name}.jpg"), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["solution"] is not None
    assert all(str(v) == obj["solution"][i] for i, v in enumerate(labels) if 1 <= v <= 9)


@pytest.mark.data
@pytest.mark.parametrize("name", ["02_28_iphone_14_0", "03_05_iphone_14_1"])
def test_large_pencil_marks_are_not_called_mistakes(name, capsys):
    """Held-out photos whose pencilled candidates ("25", "41") are written as large as entries: a cell
    that may be pencil marks is never called a mistake (every written digit on these pages is right)."""
    folder = need(SHARED / "handwritten-photos")
    assert main(["image", str(folder / "images" / f"{name}.jpg"), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["status"] == "solved" and obj["mistakes"] == []


def _dat(path) -> str:
    lines = path.read_text().splitlines()[2:11]
    return "".join(t for ln in lines for t in ln.split()).replace("0", ".")


def _splits_exactly(name: str, capsys) -> None:
    """``image --json`` on a mixed photo gives its printed givens and its handwritten entries exactly."""
    printed = need(SHARED / "sudoku-photos" / "printed" / f"{name}.dat")
    mixed = need(SHARED / "sudoku-photos" / "mixed" / f"{name}.jpg")
    givens, full = _dat(printed), _dat(mixed.with_suffix(".dat"))
    assert main(["image", str(mixed), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["givens"] == givens
    assert obj["entries"] == "".join(f if g == "." else "." for g, f in zip(givens, full))


@pytest.mark.data
@pytest.mark.parametrize("name", ["image1014", "image1001", "image1031"])
def test_small_or_faint_entries_are_measured_against_the_pages_own(name, capsys):
    """Training mixed photos (red pen in every blank): image1014's 9 in r4c1, written small, read as pencil
    marks alone; image1001's and image1031's thin 1 (r7c2, r9c9) too faint for the digit model's cutter.
    Each is as tall as the page's own sure entries and is the solution's digit, so it is an entry, and the
    photo's givens and entries split exactly."""
    _splits_exactly(name, capsys)


@pytest.mark.data
@pytest.mark.parametrize("name", ["image17", "image206"])
def test_handwriting_smaller_than_the_print_is_not_a_given(name, capsys):
    """Training mixed photos where the cell-kind model takes a handwritten digit for print (image17's red
    r1c9, image206's r8c2; the pen's colour does not show, or the model is sure of print).
    Each is under 0.8 of the page's printed digits' height, and print has one size, so it is an entry."""
    _splits_exactly(name, capsys)


@pytest.mark.data
def test_print_alone_is_never_taken_for_handwriting(capsys):
    """image1062 (printed only) has a given measured at 0.75 of its page's print (the smallest of 9,200
    training givens): with nothing handwritten on the page, the size rule is not applied."""
    printed = need(SHARED / "sudoku-photos" / "printed" / "image1062.jpg")
    assert main(["image", str(printed), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["givens"] == _dat(printed.with_suffix(".dat")) and set(obj["cells"]) <= {"g", "."}


@pytest.mark.data
def test_a_lone_pencil_mark_of_the_solutions_digit_stays_a_candidate(capsys):
    """A training photo (03_10) whose r9c2 holds one pencilled 6, the solution's digit, about half as tall as
    the page's entries: still candidates, not an entry."""
    folder = need(SHARED / "handwritten-photos")
    assert main(["image", str(folder / "images" / "03_10_iphone_14_0.jpg"), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["solution"][73] == "6" and obj["cells"][73] == "c" and obj["entries"][73] == "."


@pytest.mark.data
def test_an_unsure_entry_as_small_as_the_pages_pencil_marks_is_candidates(monkeypatch):
    """A training photo (03_10) with pen entries and pencil marks, read by the pipeline; then its lone pencilled
    6 (r9c2, about half as tall as the page's entries) and a real pen entry are both handed to ``written_part``
    as unsure entries that the digit model's cutter saw. The pencil mark goes back to candidates, the pen
    entry stays an entry."""
    from dataclasses import replace

    from ar_sudoku.vision import checking, passes, reading, writing
    from ar_sudoku.vision.digits import DigitReader

    folder = need(SHARED / "handwritten-photos")
    seen: dict = {}
    real = checking.written_part

    def spy(givens, kinds, printed, solution=None, second=None, unreadable=()):
        seen.update(givens=givens, kinds=kinds, printed=printed, solution=solution, second=second)
        return real(givens, kinds, printed, solution, second, unreadable)

    monkeypatch.setattr(passes, "written_part", spy)
    reading.process_image(cv2.imread(str(folder / "images" / "03_10_iphone_14_0.jpg")), DigitReader(),
                          kinds=KindReader())
    kinds, solution = seen["kinds"], seen["solution"]
    pen = next(i for i, ch in enumerate(kinds.cells) if ch == "e" and kinds.digits[i] == int(solution[i]))
    probs, k, d = kinds.probs.copy(), kinds.kinds.copy(), kinds.digits.copy()
    printed = seen["printed"].probs.copy()
    for i in (73, pen):  # an entry of the solution's digit, the model only 60% sure of it, the digit cutter saw ink
        probs[i] = 0.0
        probs[i, 9 + int(solution[i])], probs[i, 19] = 0.6, 0.4
        k[i], d[i] = 2, int(solution[i])
        printed[i] = 0.0
        printed[i, 0], printed[i, int(solution[i])] = 0.3, 0.7
    unsure = replace(kinds, probs=probs, kinds=k, digits=d)
    second = writing.EntryOpinion(seen["second"].kinds, seen["second"].image, seen["second"].corners)
    w = real(seen["givens"], unsure, replace(seen["printed"], probs=printed), solution, second)
    assert w.cells[73] == "c" and w.entries[73] == "."
    assert w.cells[pen] == "e" and w.entries[pen] == solution[pen]


@pytest.mark.data
@pytest.mark.parametrize("name", ["image102", "image171"])
def test_a_written_on_page_turned_sideways_is_read_upright(name, reader, kinds):
    """Training mixed photos whose handwriting left the print model unsure of every orientation: turned a
    quarter either way, or a half, each used to be read in a wrong one. Scored by the surer half of the
    cells, and the likeliest turn cut again properly, every turn gives the upright photo's givens and entries."""
    from ar_sudoku.vision.reading import process_image

    image = cv2.imread(str(need(SHARED / "sudoku-photos" / "mixed" / f"{name}.jpg")))
    givens = _dat(SHARED / "sudoku-photos" / "printed" / f"{name}.dat")
    for k in range(4):
        res = process_image(np.ascontiguousarray(np.rot90(image, k)), reader, kinds=kinds)
        assert res.givens == givens, k
        assert res.written is not None and "." not in res.written.cells, k


@pytest.mark.data
def test_a_written_on_grid_rebuilt_from_its_boxes_is_found(capsys):
    """image1049 (training, written in every blank): the outline merges with the page's print, so the grid is
    rebuilt from its nine boxes; the handwriting in every cell lowers the boxes' line contrast (structure
    score 0.056) below what the printed twin shows (0.175). The boxes' lattice is evidence enough at 0.05:
    the grid is found, fitted flat on its lines, and the photo splits exactly."""
    _splits_exactly("image1049", capsys)


@pytest.mark.data
def test_a_stain_on_a_printed_page_is_not_a_pencil_mark(capsys):
    """image1045 (printed only) has a grey stain in r4c5 that the cell-kind model takes for pencil marks; no
    digit can be read in it and nothing else on the page is written, so the cell is blank."""
    printed = need(SHARED / "sudoku-photos" / "printed" / "image1045.jpg")
    assert main(["image", str(printed), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["givens"] == _dat(printed.with_suffix(".dat")) and set(obj["cells"]) <= {"g", "."}
    assert obj["candidates"] == [""] * 81


@pytest.mark.data
def test_video_reads_a_written_on_still_as_image_does(tmp_path, capsys):
    """A still in ``video`` is read by the same core as ``image`` (both models, the rules, the entries): the
    held-out blue-pen page image1055 used to break the rules there, its entries taken for print."""
    import shutil

    photo = shutil.copy(need(SHARED / "sudoku-photos" / "mixed" / "image1055.jpg"), tmp_path / "page.jpg")
    assert main(["image", str(photo), "--json"]) == 0
    image = json.loads(capsys.readouterr().out)
    log = tmp_path / "stills.jsonl"
    assert main(["video", str(photo), "--headless", "--jsonl", str(log)]) == 0
    (row,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert image["status"] == row["status"] == "solved"
    assert (row["givens"], row["solution"], row["entries"], row["mistakes"]) == (
        image["givens"], image["solution"], image["entries"], image["mistakes"])


def test_corrections_name_a_cell_of_the_first_puzzle_read_or_of_a_numbered_puzzle_of_the_page():
    from ar_sudoku.sudoku.written import parse_corrections

    assert parse_corrections(["r3c5=7", "R1C1=0", "2:r9c9=.", "2:r1c2=4"]) == {None: {22: 7, 0: 0},
                                                                             2: {80: 0, 1: 4}}
    assert parse_corrections([]) == {}
    for bad in ["r0c1=1", "r1c1=10", "x:r1c1=1", "1r1c1=1", "100:r1c1=1", "r1c1"]:
        with pytest.raises(ValueError, match="N:rRcC=D"):
            parse_corrections([bad])
