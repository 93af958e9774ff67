"""Curled pages: real photos bent through a known smooth mapping, then read as a user's photo is.

    python scripts/eval_bent.py                      # the held-out photos, bows 0, 3% and 6%
    python scripts/eval_bent.py --all --bows 0.06    # every photo, one bow
    python scripts/eval_bent.py --rebuild-truth      # measure the flat references again (see below)

Each photo is scaled to 1280x960 and bent (``ar_sudoku.vision.synth.bend``):
a bow of the given share of the grid's side across the page (rows or columns,
either way, chosen by a seeded draw), the lean of a page turning away, and a
small camera tilt. The truth for every crossing is the mapping applied to the
flat photo's crossings, which are frozen in ``data/bent_truth.json`` (so the
truth does not move with the code under test). They were measured once
(``--rebuild-truth``): the grid found on the flat photo, kept where its corners
agree with outlines.csv's annotation (else the annotated corners), every
crossing then moved onto the lines' centres by several rounds of ``refine``,
crossings outside the picture filled in from a smooth fit of the others; then
checked by eye, drawn on the photos. Reported per bow:
grids found, photos read fully right (givens exactly the .dat), lattice error
against the truth (median and 95th percentile over all crossings), ms per photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.lattice import GRID_UV, from_corners, refine, rotate
from ar_sudoku.vision.quads import to_gray
from ar_sudoku.vision.reading import process_image
from ar_sudoku.vision.synth import bend
from photos import DEFAULT_DIR, is_validation, load

SIZE = (1280, 960)
TRUTH = Path(__file__).resolve().parent / "data" / "bent_truth.json"
# references the grid search gets wrong on the flat photo (checked by eye): built from the annotated corners
FROM_OUTLINE: set[str] = set()


def camera(rng: np.random.Generator) -> np.ndarray:
    """A small random tilt of the whole picture, a little further away so the bent grid stays in view."""
    w, h = SIZE
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    centre = np.float32([w / 2, h / 2])
    dst = (src - centre) * 0.85 + centre + rng.uniform(-0.04, 0.04, (4, 2)).astype(np.float32) * np.float32([w, h])
    return cv2.getPerspectiveTransform(src, dst)


def measure_reference(image: np.ndarray, outline: np.ndarray, name: str) -> tuple[np.ndarray, str]:
    """The flat photo's crossings (line centres), oriented as the annotated outline; and how they were started."""
    gray = to_gray(image)
    side = float(np.linalg.norm(outline[0] - outline[2]))
    lat, how = None, "find_grid"
    q = None if name in FROM_OUTLINE else find_grid(image)
    if q is not None:
        lat = q.crossings()
        best = min(range(4), key=lambda k: float(np.abs(np.roll(outline, -k, axis=0) - rotate(lat, k)[[0, 0, 9, 9],
                                                                                                  [0, 9, 9, 0]]).max()))
        lat = rotate(lat, best)
        if float(np.abs(lat[[0, 0, 9, 9], [0, 9, 9, 0]] - outline).max()) > 0.03 * side:
            lat = None
    if lat is None:  # the annotated corners (the border's outer edge), brought onto the lines
        lat, how = refine(gray, from_corners(outline), cell=24, reach=0.3, rounds=2)[0], "outline"
    for _ in range(6):  # rounds until the crossings settle (median move under 0.05 px)
        lat = refine(gray, lat, cell=24, reach=0.15, rounds=1)[0]
    # a crossing outside the picture (or on its edge) has no line to fit: a smooth fit of the others places it
    h, w = gray.shape[:2]
    cell = side / (9 * 2**0.5)
    margin = 0.1 * cell
    inside = ((lat[..., 0] > margin) & (lat[..., 0] < w - 1 - margin) & (lat[..., 1] > margin)
              & (lat[..., 1] < h - 1 - margin))
    if not inside.all():
        u, v = GRID_UV[..., 0].ravel() / 9, GRID_UV[..., 1].ravel() / 9
        basis = np.stack([u**i * v**j for i in range(4) for j in range(4 - i)], axis=1)
        coef = np.linalg.lstsq(basis[inside.ravel()], lat.reshape(-1, 2)[inside.ravel()], rcond=None)[0]
        lat = np.where(inside[..., None], lat, (basis @ coef).reshape(10, 10, 2)).astype(np.float32)
        how += f", {int((~inside).sum())} filled"
    return lat, how


def scaled_photo(p) -> tuple[np.ndarray, np.ndarray]:
    """The photo at SIZE and its annotated outline there."""
    img = cv2.imread(str(p.path))
    outline = p.corners * np.float32([SIZE[0] / img.shape[1], SIZE[1] / img.shape[0]])
    return cv2.resize(img, SIZE, interpolation=cv2.INTER_CUBIC), outline


def rebuild_truth(photos: list) -> None:
    old = json.loads(TRUTH.read_text())["photos"] if TRUTH.exists() else {}
    for p in photos:
        image, outline = scaled_photo(p)
        lat, how = measure_reference(image, outline, p.name)
        old[p.name] = {"how": how, "lattice": np.round(lat.reshape(-1, 2).astype(np.float64), 1).tolist()}
        print(f"  {p.name}: {how}", flush=True)
    doc = {"about": "flat crossings (line centres) of ../shared/data/sudoku-photos/printed, each photo scaled to "
                    "1280x960; row by row from the annotated outline's first corner; see scripts/eval_bent.py",
           "size": list(SIZE), "photos": dict(sorted(old.items()))}
    lines = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in doc["photos"].items())
    head = json.dumps({k: v for k, v in doc.items() if k != "photos"})[:-1]
    TRUTH.write_text(head + ', "photos": {\n' + lines + "\n}}\n")


def load_truth() -> dict[str, np.ndarray]:
    doc = json.loads(TRUTH.read_text())
    assert tuple(doc["size"]) == SIZE
    return {k: np.float32(v["lattice"]).reshape(10, 10, 2) for k, v in doc["photos"].items()}


def lattice_error(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per-crossing distance, for the turn of the found lattice that fits best."""
    return min((np.linalg.norm(rotate(found, k) - truth, axis=2) for k in range(4)), key=lambda e: float(e.mean()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(DEFAULT_DIR / "printed"))
    ap.add_argument("--all", action="store_true", help="every photo, not only the held-out ones")
    ap.add_argument("--bows", default="0,0.03,0.06")
    ap.add_argument("--lean", type=float, default=0.08)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("--rebuild-truth", action="store_true", help="measure the flat references again and save them")
    args = ap.parse_args()
    photos = [p for p in load(Path(args.folder)) if p.corners is not None and (args.all or is_validation(p))]
    if args.rebuild_truth:
        rebuild_truth(photos)
        return
    refs = load_truth()
    reader = DigitReader()
    for bow in (float(b) for b in args.bows.split(",")):
        rng = np.random.default_rng(args.seed)
        found = right = measured = 0
        errors: list[float] = []
        ms: list[float] = []
        for p in photos:
            scaled, outline = scaled_photo(p)
            ref = refs.get(p.name)
            axis, sign = int(rng.integers(2)), float(rng.choice([-1.0, 1.0]))
            cam = camera(rng)
            bent, truth = bend(scaled, outline, sign * bow, args.lean, axis, cam,
                               points=None if ref is None else ref.reshape(-1, 2))
            t = time.perf_counter()
            res = process_image(bent, reader)
            ms.append((time.perf_counter() - t) * 1e3)
            ok = res.givens == p.givens
            right += ok
            q = find_grid(bent)
            if q is not None:
                found += 1
                if ref is not None:
                    measured += 1
                    errors.extend(lattice_error(q.crossings(), truth.reshape(10, 10, 2)).ravel().tolist())
            if args.failures and not ok:
                print(f"  {p.name}: {res.status} {res.message}")
        n = len(photos)
        err = (f"median {statistics.median(errors):.2f} px, p95 {np.percentile(errors, 95):.2f} px "
               f"over {measured} photos") if errors else "-"
        print(f"bow {bow:.0%}: {n} photos; grid found {found}/{n}; read fully right {right}/{n}; "
              f"lattice error {err}; ms median {statistics.median(ms):.0f}, max {max(ms):.0f}")


if __name__ == "__main__":
    main()
