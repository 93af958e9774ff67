"""Curled pages: real photos bent through a known smooth mapping, then read as a user's photo is.

    python scripts/eval_bent.py                      # the held-out photos, bows 0, 3% and 6%
    python scripts/eval_bent.py --all --bows 0.06    # every photo, one bow

Each photo is scaled to 1280x960 and bent (``ar_sudoku.vision.synth.bend``):
a bow of the given share of the grid's side across the page (rows or columns,
either way, chosen by a seeded draw), the lean of a page turning away, and a
small camera tilt. The truth for every crossing is the mapping applied to the
crossings found on the flat photo (line centres fitted at full resolution,
kept only where they agree with outlines.csv's corners within a few pixels,
so the reference is checked against the human annotation). Reported per bow:
grids found, photos read fully right (givens exactly the .dat), lattice error
against the truth (median and 95th percentile over all crossings), ms per photo.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from photos import DEFAULT_DIR, is_validation, load  # noqa: E402

from ar_sudoku.vision.digits import DigitReader  # noqa: E402
from ar_sudoku.vision.grid import find_grid  # noqa: E402
from ar_sudoku.vision.lattice import rotate  # noqa: E402
from ar_sudoku.vision.reading import process_image  # noqa: E402
from ar_sudoku.vision.synth import bend  # noqa: E402

SIZE = (1280, 960)


def camera(rng: np.random.Generator) -> np.ndarray:
    """A small random tilt of the whole picture, a little further away so the bent grid stays in view."""
    w, h = SIZE
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    centre = np.float32([w / 2, h / 2])
    dst = (src - centre) * 0.85 + centre + rng.uniform(-0.04, 0.04, (4, 2)).astype(np.float32) * np.float32([w, h])
    return cv2.getPerspectiveTransform(src, dst)


def reference(image: np.ndarray, outline: np.ndarray) -> np.ndarray | None:
    """The flat photo's crossings (line centres), if they agree with the annotated outline."""
    q = find_grid(image)
    if q is None:
        return None
    lat = q.crossings()
    best = min(range(4), key=lambda k: float(np.abs(np.roll(outline, -k, axis=0) - rotate(lat, k)[[0, 0, 9, 9],
                                                                                              [0, 9, 9, 0]]).max()))
    lat = rotate(lat, best) if best else lat
    corners = lat[[0, 0, 9, 9], [0, 9, 9, 0]]
    side = float(np.linalg.norm(corners[0] - corners[2]))
    return lat if float(np.abs(corners - outline).max()) < 0.03 * side else None


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
    args = ap.parse_args()
    photos = [p for p in load(Path(args.folder)) if p.corners is not None and (args.all or is_validation(p))]
    reader = DigitReader()
    for bow in (float(b) for b in args.bows.split(",")):
        rng = np.random.default_rng(args.seed)
        found = right = refs = 0
        errors: list[float] = []
        ms: list[float] = []
        for p in photos:
            img = cv2.imread(str(p.path))
            scaled = cv2.resize(img, SIZE, interpolation=cv2.INTER_CUBIC)
            outline = p.corners * np.float32([SIZE[0] / img.shape[1], SIZE[1] / img.shape[0]])
            ref = reference(scaled, outline)
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
                    refs += 1
                    errors.extend(lattice_error(q.crossings(), truth.reshape(10, 10, 2)).ravel().tolist())
            if args.failures and not ok:
                print(f"  {p.name}: {res.status} {res.message}")
        n = len(photos)
        err = (f"median {statistics.median(errors):.2f} px, p95 {np.percentile(errors, 95):.2f} px "
               f"over {refs} photos") if errors else "-"
        print(f"bow {bow:.0%}: {n} photos; grid found {found}/{n}; read fully right {right}/{n}; "
              f"lattice error {err}; ms median {statistics.median(ms):.0f}, max {max(ms):.0f}")


if __name__ == "__main__":
    main()
