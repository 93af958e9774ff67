"""Curled pages: a rendered puzzle bent through a known smooth mapping, as a photo and as a moving video."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from conftest import EASY, EASY_SOLUTION

from ar_sudoku.ar.session import ARSession, SessionConfig
from ar_sudoku.cli import main
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import open_source
from ar_sudoku.vision import lattice as L
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.reading import process_image
from ar_sudoku.vision.synth import background, bend, page, place, quad


def _best_error(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    return min((np.linalg.norm(L.rotate(found, k) - truth, axis=2) for k in range(4)), key=lambda e: float(e.mean()))


def bent_photo(bow: float, axis: int = 0, size=(1280, 960), seed: int = 1):
    img, corners = page(EASY, seed=seed)
    q = quad((size[0] / 2, size[1] / 2), 0.62 * size[1], 4, 0.05)
    flat = place(img, corners, q, background(size, seed), blur=0.8)
    return bend(flat, q, bow, lean=0.08, axis=axis)


def test_lattice_tools_agree_with_the_flat_homography():
    corners = np.float32([[100, 80], [520, 100], [540, 500], [90, 480]])
    lat = L.from_corners(corners)
    assert np.allclose(L.corners_of(lat), corners, atol=1e-3) and L.bend_of(lat) < 1e-4
    for k in range(4):  # turning the lattice is rolling its corners
        assert np.allclose(L.rotate(lat, k), L.from_corners(np.roll(corners, -k, axis=0)), atol=1e-3)
    mx, my = L.dense_map(lat, 20, 20)
    assert abs(mx[20, 20] - 100) < 1e-3 and abs(my[20 + 180, 20 + 180] - 500) < 1e-3


@pytest.mark.parametrize("bow,axis", [(0.03, 0), (0.06, 0), (-0.06, 1)])
def test_a_curled_page_is_found_read_and_its_crossings_placed(bow, axis, reader):
    image, truth = bent_photo(bow, axis)
    q = find_grid(image)
    assert q is not None and q.bent
    err = _best_error(q.crossings(), truth)
    assert np.median(err) < 1.5 and np.percentile(err, 95) < 3.0
    result = process_image(image, reader)
    assert result.givens == EASY and result.solution == EASY_SOLUTION
    assert np.percentile(_best_error(result.lattice, truth), 95) < 3.0


def test_flat_pages_stay_flat(reader):
    image, truth = bent_photo(0.0)
    q = find_grid(image)
    assert q is not None and not q.bent
    assert np.median(_best_error(q.crossings(), truth)) < 1.0  # fitted to the lines' centres


def test_image_json_has_the_lattice_and_digits_sit_in_bent_cells(tmp_path, capsys):
    image, truth = bent_photo(0.06)
    src, out = tmp_path / "bent.png", tmp_path / "solved.png"
    cv2.imwrite(str(src), image)
    assert main(["image", str(src), "--json", "-o", str(out)]) == 0
    obj = json.loads(capsys.readouterr().out)
    lat = np.float32(obj["lattice"]).reshape(10, 10, 2)
    assert np.percentile(np.linalg.norm(lat - truth, axis=2), 95) < 3.0  # puzzle-ordered, from its top-left
    drawn = cv2.imread(str(out))
    diff = cv2.absdiff(drawn, image).max(axis=2) > 60
    # every empty cell got ink near its own centre (bilinear centre of its four crossings)
    for i, ch in enumerate(EASY):
        r, c = divmod(i, 9)
        centre = truth[r : r + 2, c : c + 2].reshape(-1, 2).mean(axis=0)
        x, y = int(round(centre[0])), int(round(centre[1]))
        size = float(np.linalg.norm(truth[r, c] - truth[r + 1, c + 1])) / 2**0.5
        h = int(size * 0.25)
        inked = diff[y - h : y + h, x - h : x + h].mean()
        assert (inked > 0.05) == (ch == "."), (i, inked)


def bending_video(path, frames: int, seed: int, sway: tuple[float, float, float], bow) -> list[np.ndarray]:
    """A 640x480 video of Wikipedia's puzzle swaying (``sway``: px across, px down, degrees) and bowed by
    ``bow(t)`` (t from 0 to 1), written to ``path``; each frame's true crossings."""
    size = (640, 480)
    img, corners = page(EASY, seed=seed)
    back = background(size, seed)
    truths = []
    with VideoSink(path, size, 25) as sink:
        for i in range(frames):
            t = i / (frames - 1)
            q = quad((320 + sway[0] * np.sin(3 * t), 240 + sway[1] * np.cos(2 * t)), 330, sway[2] * np.sin(2 * t),
                     0.04)
            frame, truth = bend(place(img, corners, q, back, blur=0.6), q, bow(t), lean=0.05)
            sink.write(frame)
            truths.append(truth)
    return truths


def test_a_bending_page_in_a_video_is_tracked_and_solved(tmp_path, reader):
    path = tmp_path / "bending.avi"
    truths = bending_video(path, 70, 2, (30, 15, 6), lambda t: 0.03 + 0.03 * np.sin(np.pi * t))
    solved, errors = 0, []
    with open_source(str(path)) as src, ARSession(reader, config=SessionConfig(solve_lag=1)) as session:
        for frame, truth in zip(src, truths):
            r = session.step(frame)
            if r.solution is not None:
                assert r.solution == EASY_SOLUTION
                solved += 1
                lat = r.lattice if r.lattice is not None else L.from_corners(r.corners)
                errors.extend(_best_error(lat, truth).ravel().tolist())
    assert solved >= 50
    assert np.median(errors) < 2.0


@pytest.mark.data
def test_the_frozen_flat_references_agree_with_the_annotated_outlines():
    """scripts/data/bent_truth.json: one lattice per annotated photo, its corners on the annotated outline."""
    import csv
    from pathlib import Path

    from conftest import PHOTOS, need

    outlines = need(PHOTOS / "outlines.csv")
    doc = json.loads((Path(__file__).resolve().parents[1] / "scripts" / "data" / "bent_truth.json").read_text())
    refs = doc["photos"]
    with outlines.open() as f:
        rows = [r for r in csv.DictReader(f) if r["filepath"].startswith("printed/")]
    assert len(rows) == len(refs)
    for row in rows:
        name = Path(row["filepath"]).stem
        img = cv2.imread(str(PHOTOS / row["filepath"]))
        scale = np.float32(doc["size"]) / np.float32([img.shape[1], img.shape[0]])
        outline = np.float32([[row[f"p{k}_x"], row[f"p{k}_y"]] for k in range(1, 5)]) * scale
        lat = np.float32(refs[name]["lattice"]).reshape(10, 10, 2)
        side = float(np.linalg.norm(outline[0] - outline[2]))
        assert np.abs(L.corners_of(lat) - outline).max() < 0.04 * side, name


def book_page(blur: float, shadow: float, size=(4000, 3000), seed: int = 1) -> np.ndarray:
    """A 12 MP phone photo of a puzzle in a book: the page bowed over its spine (its lines curved, the side
    nearer the spine foreshortened), the gutter's shadow falling off across the grid, a little out of focus."""
    img, corners = page(EASY, cell=200, margin=300, seed=seed)
    q = quad((size[0] / 2, size[1] / 2), 0.62 * size[1], 3, 0.04)
    bent, _ = bend(place(img, corners, q, background(size, seed)), q, 0.08, lean=0.25, axis=0)
    x = np.arange(size[0], dtype=np.float32)
    spine = float(q[:, 0].min()) - 0.05 * size[0]
    light = 1 - shadow * np.exp(-np.clip(x - spine, 0, None) / (0.12 * size[0])) * (x > spine - 0.1 * size[0])
    out = cv2.GaussianBlur(bent.astype(np.float32) * light[None, :, None], (0, 0), blur)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_bowed_blurred_book_page_in_its_gutter_shadow_is_found_and_read(tmp_path, capsys):
    """Read from its JPEG as ``image`` reads a photo: the grid is found curled and read whole, and the lit side
    of the gutter's shadow is not taken for a glare (no cell named unreadable)."""
    src = tmp_path / "book.jpg"
    cv2.imwrite(str(src), book_page(blur=12.0, shadow=0.7), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert main(["image", str(src), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["status"] == "solved" and obj["givens"] == EASY and obj["solution"] == EASY_SOLUTION
    assert obj["unreadable"] == [] and obj.get("lattice") is not None


def _a_column_off(quad):
    """``quad`` moved one column to the right along its own lines (what a re-detection of a curled page may do)."""
    from ar_sudoku.vision.quads import GridQuad

    lat = quad.crossings()
    step = np.concatenate([lat[:, 1:] - lat[:, :-1], (lat[:, -1:] - lat[:, -2:-1])], axis=1)
    moved = (lat + step).astype(np.float32)
    corners = np.float32([moved[0, 0], moved[0, 9], moved[9, 9], moved[9, 0]])
    return GridQuad(corners, quad.score, moved if quad.lattice is not None else None)


def test_a_re_detection_a_column_off_the_tracked_page_does_not_move_its_answer(tmp_path, reader, monkeypatch):
    """A solved curled page whose periodic re-detections all land a column off (a fault put into the detector):
    the page's look is where the flow has it, not there, so the board stays where the flow has it and its answer
    stays drawn in its cells (main took each such detection, read the board again a column off, and drew nothing
    for as long as the page stayed in view)."""
    from ar_sudoku.ar.locator import BoardLocator

    search = BoardLocator._search

    def off(self, tracked, prev, frame_index, *args):
        quad = search(self, tracked, prev, frame_index, *args)
        return _a_column_off(quad) if quad is not None and tracked is not None and frame_index >= 30 else quad

    monkeypatch.setattr(BoardLocator, "_search", off)
    path = tmp_path / "curled.avi"
    truths = bending_video(path, 80, 3, (12, 8, 3), lambda t: 0.05)
    cell = 330 / 9
    drawn = []
    with open_source(str(path)) as src, ARSession(reader, config=SessionConfig(solve_lag=1)) as session:
        for i, (frame, truth) in enumerate(zip(src, truths)):
            r = session.step(frame)
            if r.solution is not None:
                lat = r.lattice if r.lattice is not None else L.from_corners(r.corners)
                assert r.solution == EASY_SOLUTION and float(_best_error(lat, truth).max()) < cell / 2, i
                drawn.append(i)
    assert drawn and drawn[0] < 30 and len([i for i in drawn if i >= 30]) >= 45


def test_an_outline_crossing_that_moves_unlike_its_neighbours_is_not_followed_by_its_own_flow():
    """A clipping cut at its grid's bottom line, on another page: the bottom crossings' flow follows the page
    beneath. A crossing whose own motion (beyond the homography) its neighbours do not share is not its own;
    one a smooth curl moves with its neighbours is."""
    from ar_sudoku.vision.tracker import _agreed

    yy, xx = np.mgrid[0:10, 0:10].astype(np.float32)
    extra = np.stack([0.05 * (xx - 4.5) ** 2 / 4.5, np.zeros_like(yy)], axis=-1).reshape(-1, 2)  # a smooth bow
    own = np.ones(100, bool)
    assert _agreed(extra, own).all()
    beneath = extra.copy().reshape(10, 10, 2)
    beneath[9, 6] += (2.5, 1.5)  # one bottom crossing follows the page underneath
    agreed = _agreed(beneath.reshape(-1, 2), own).reshape(10, 10)
    assert not agreed[9, 6] and agreed[9, 2] and agreed[4, 4]
