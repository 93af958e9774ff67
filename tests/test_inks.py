"""A page's two inks: a blue or red pen tells the person's entries from the printer's givens."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import PHOTOS, need

from ar_sudoku.vision.kinds import N_CLASSES, apply_votes, cell_inputs, ink_votes

BLACK = (0.34, 0.33, 0.33)  # shares of (B, G, R) light absorbed: neutral print
BLUE = (0.12, 0.44, 0.44)  # a blue pen takes red and green


def _probs(kinds: list[str]) -> np.ndarray:
    """Softmax rows: 'G' sure given 5, 'E' sure entry 5, 'g' a doubtful given 5 (0.6 / entry 0.4), '.' blank."""
    p = np.zeros((len(kinds), N_CLASSES), np.float32)
    for i, k in enumerate(kinds):
        if k == "G":
            p[i, 5] = 1.0
        elif k == "E":
            p[i, 14] = 1.0
        elif k == "g":
            p[i, 5], p[i, 14] = 0.6, 0.4
        else:
            p[i, 0] = 1.0
    return p


def test_two_inks_move_a_doubtful_given_to_the_entries() -> None:
    kinds = ["G"] * 20 + ["E"] * 20 + ["g", "g"] + ["."] * 39
    inks = np.full((81, 3), np.nan, np.float32)
    inks[:20], inks[20:40] = BLACK, BLUE
    inks[40], inks[41] = BLUE, BLACK  # the first doubtful "given" is in pen, the second in print
    rng = np.random.default_rng(0)
    inks[:42] += rng.normal(0, 0.01, (42, 3)).astype(np.float32)
    probs = _probs(kinds)
    votes = ink_votes(probs, inks)
    assert votes[40] == 1 and votes[41] == -1
    assert (votes[:20] == -1).all() and (votes[20:40] == 1).all() and (votes[42:] == 0).all()
    moved = apply_votes(probs, votes)
    assert moved[40, 14] == pytest.approx(1.0) and moved[40, 5] == 0  # the entry keeps the digit
    assert moved[41, 5] == pytest.approx(1.0)
    assert np.allclose(moved.sum(axis=1), 1.0)


def test_one_ink_gives_no_votes() -> None:
    """Entries in black pen (or the printer's own blue for both) leave the model to decide alone."""
    kinds = ["G"] * 20 + ["E"] * 20 + ["g"] + ["."] * 40
    inks = np.full((81, 3), np.nan, np.float32)
    inks[:41] = np.float32(BLACK) + np.random.default_rng(1).normal(0, 0.02, (41, 3)).astype(np.float32)
    assert not ink_votes(_probs(kinds), inks).any()


def _mixed(name: str) -> tuple[np.ndarray, np.ndarray, str, str]:
    """A mixed photo (every blank written in pen), its labelled corners, and its printed and full digits."""
    import csv

    folder = need(PHOTOS / "mixed")

    def dat(path):
        lines = path.read_text().splitlines()[2:11]
        return "".join(t for ln in lines for t in ln.split())

    with (PHOTOS / "outlines.csv").open() as f:
        row = next(r for r in csv.DictReader(f) if r["filepath"] == f"printed/{name}.jpg")
    corners = np.array([[float(row[f"p{k}_x"]), float(row[f"p{k}_y"])] for k in range(1, 5)], np.float32)
    return cv2.imread(str(folder / f"{name}.jpg")), corners, dat(PHOTOS / "printed" / f"{name}.dat"), \
        dat(folder / f"{name}.dat")


@pytest.mark.data
def test_a_blue_pen_page_is_split_by_its_inks() -> None:
    """image1055 (a bold blue pen): every cell's ink votes for its true kind, and no cell against it."""
    image, corners, printed, full = _mixed("image1055")
    _, inks = cell_inputs(image, corners)
    assert inks is not None
    given = np.array([d != "0" for d in printed])
    entry = np.array([p == "0" and d != "0" for p, d in zip(printed, full)])
    probs = np.zeros((81, N_CLASSES), np.float32)
    probs[given, 1] = 1.0  # the model's sure cells, as the truth: the inks are learnt from these
    probs[entry, 10] = 1.0
    votes = ink_votes(probs, inks)
    assert (votes[given] <= 0).all() and (votes[entry] >= 0).all()
    assert (votes[entry] > 0).mean() > 0.9 and (votes[given] < 0).mean() > 0.9
    gray_inputs = cell_inputs(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), corners)
    assert gray_inputs[1] is None  # a grey picture has no inks to vote


@pytest.mark.data
def test_the_photo_pipeline_reads_the_blue_page_exactly(reader) -> None:
    """Through ``process_image`` with both models: givens and entries exactly the photo's."""
    from ar_sudoku.vision.kinds import KindReader
    from ar_sudoku.vision.reading import process_image

    image, _, printed, full = _mixed("image1055")
    res = process_image(image, reader, kinds=KindReader())
    assert res.status == "solved" and res.written is not None
    assert res.givens == printed.replace("0", ".")
    assert res.written.entries == "".join(d if p == "0" else "." for p, d in zip(printed, full))
    assert res.written.mistakes(res.solution) == ()


@pytest.mark.data
def test_a_thin_blue_stroke_on_yellowed_paper_reads_blue() -> None:
    """image203: a small blue 9 at r9c9 on yellowed paper. A blue pen is brighter than yellowed paper in the
    blue channel; taken as the paper's own, it made the paper around the stroke seem to absorb blue, and the
    entry was voted to the givens' ink."""
    image, corners, printed, full = _mixed("image203")
    _, inks = cell_inputs(image, corners)
    assert inks is not None and printed[80] == "0" and full[80] == "9"
    entries = [i for i in range(81) if printed[i] == "0" and not np.isnan(inks[i]).any()]
    pen = np.median(inks[entries], axis=0)
    assert pen[0] < 0.1  # the page's blue pen absorbs red and green, hardly blue
    assert inks[80][0] < 0.2 and np.linalg.norm(inks[80] - pen) < 0.2


@pytest.mark.data
def test_a_red_pen_brighter_than_its_shadowed_paper_reads_red(reader) -> None:
    """image201: its bottom row lies in shadow, where the red entries (B, G, R about 34, 36, 116) are brighter by
    grey level than their paper (45, 45, 45). Taken for the paper's own colour, they made the paper seem to absorb
    red: those cells' ink read as a red pen's opposite, and the entries as blanks or print. Now the paper is the
    brightest block of an unsaturated colour, the row's entries are in the page's pen, and the photo is read
    exactly."""
    from ar_sudoku.vision.kinds import KindReader
    from ar_sudoku.vision.reading import process_image

    image, corners, printed, full = _mixed("image201")
    _, inks = cell_inputs(image, corners)
    assert inks is not None
    entries = [i for i in range(81) if printed[i] == "0" and not np.isnan(inks[i]).any()]
    pen = np.median(inks[[i for i in entries if i < 72]], axis=0)  # the lit rows' red pen
    assert pen[2] < 0.1  # a red pen absorbs blue and green, hardly red
    shadowed = [i for i in entries if i >= 72]
    assert len(shadowed) >= 4
    for i in shadowed:
        assert inks[i][2] < 0.2 and np.linalg.norm(inks[i] - pen) < 0.25, (i, inks[i])
    res = process_image(image, reader, kinds=KindReader())
    assert res.status == "solved" and res.written is not None
    assert res.givens == printed.replace("0", ".")
    assert res.written.entries == "".join(d if p == "0" else "." for p, d in zip(printed, full))
    assert res.written.mistakes(res.solution) == ()
