"""Figures of issue 10 for the cell-kind reader, on photos it was never trained on.

    python scripts/eval_written.py                 # held-out figures, then all 80 handwritten photos
    python scripts/eval_written.py --failures      # also list every wrong cell
    python scripts/eval_written.py --reader my_module:read_cells   # the full pipeline instead

Reports:
  * cell-state accuracy, the handwritten-photos dataset's own 11-class measure (blank / digit
    1-9 printed or handwritten / candidates), on the held-out puzzles (``train_cells.HELD_OUT``,
    all four photos each); then on all 80 photos for reference (these include training data);
  * solution agrees: the reader's givens, checked by ``rules.check_reading``, solve to a grid
    that agrees with every labelled digit of the photo;
  * split exact on the held-out ``mixed`` photos (givens and entries both exactly right), and
    printed-only held-out photos fully right (every cell blank or the right given);
  * ms per photo for the reader alone (views + model, from the grayscale picture and the
    labelled corners; decoding and grid finding excluded), for the 12 MP photos and for
    640x480 ones (the held-out sudoku-photos of that size, and the 12 MP held-out photos
    shrunk to 640x480).

The grid corners are the labelled ones (metadata.csv / outlines.csv, turned upright by the
truth for the sideways sudoku-photos), so grid finding is not part of these figures.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import check_reading
from ar_sudoku.vision.kinds import CellKinds, KindReader, cell_views
from photos import HELD_OUT, Sample, hw_photos, state11, sudoku_photos, truth_strings

# A reader takes a BGR photo and its grid corners (TL, TR, BR, BL; None = find them yourself)
# and returns (cells, givens, entries, solution): 81-char strings as in the `image --json` output
# (`cells` g/e/c/., `givens` and `entries` digits or '.', `solution` 81 digits or None).
ReadCells = Callable[[np.ndarray, "np.ndarray | None"], tuple[str, str, str, "str | None"]]

_READER: KindReader | None = None
# the views' warp geometry (cell_views' cell, margin) when --model was trained at another size than kinds.py's
_GEOMETRY: dict[str, int] = {}


def read_cells(image: np.ndarray, corners: np.ndarray | None) -> tuple[str, str, str, str | None]:
    """The hook: this reader alone with known corners; point ``--reader`` at the full pipeline later."""
    global _READER
    if _READER is None:
        _READER = KindReader()
    if corners is None:
        raise ValueError("the kinds reader alone needs the grid corners")
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    kinds = _READER.read(cell_views(gray, corners, **_GEOMETRY))
    return kinds.cells, kinds.givens, kinds.entries, solve(kinds)


def solve(kinds: CellKinds) -> str | None:
    res = check_reading(kinds.given_reading(), timeout=1.0, require_unique=True)
    return res.solution if res.status == "solved" else None


def run(samples: list[Sample], reader: ReadCells, failures: bool) -> list[dict]:
    rows = []
    for s in samples:
        img = cv2.imread(str(s.path))
        t0 = time.perf_counter()
        cells, givens, entries, solution = reader(img, s.corners)
        ms = (time.perf_counter() - t0) * 1e3
        tc, tg, te = truth_strings(s.labels)
        got, want = state11(cells, givens, entries), state11(tc, tg, te)
        right11 = sum(a == b for a, b in zip(got, want))
        agrees = solution is not None and all(w == 0 or w == 10 or solution[i] == str(w) for i, w in enumerate(want))
        row = {"name": s.name, "group": s.group, "right11": right11, "split_exact": givens == tg and entries == te,
               "kinds_right": sum(a == b for a, b in zip(cells, tc)), "agrees": agrees, "ms": ms}
        rows.append(row)
        if failures and (right11 < 81 or not row["split_exact"]):
            wrong = [f"r{i // 9 + 1}c{i % 9 + 1} {tc[i]}{want[i] if want[i] not in (0, 10) else ''}->"
                     f"{cells[i]}{got[i] if got[i] not in (0, 10) else ''}"
                     for i in range(81) if cells[i] != tc[i] or got[i] != want[i]]
            print(f"    {s.group} {s.name}: " + ", ".join(wrong[:10]) + (" ..." if len(wrong) > 10 else ""))
    return rows


def report(title: str, rows: list[dict]) -> None:
    n = len(rows)
    if not n:
        return
    right = sum(r["right11"] for r in rows)
    kinds = sum(r["kinds_right"] for r in rows)
    ms = [r["ms"] for r in rows]
    print(f"{title}: {n} photos")
    print(f"  cell-state accuracy (11-class)  {100 * right / (81 * n):.2f}%  ({81 * n - right} wrong of {81 * n})")
    print(f"  kind accuracy (. g e c)         {100 * kinds / (81 * n):.2f}%  ({81 * n - kinds} wrong)")
    print(f"  split exact                     {sum(r['split_exact'] for r in rows)}/{n}")
    print(f"  solution agrees                 {sum(r['agrees'] for r in rows)}/{n}")
    print(f"  ms per photo (reader + solve)   median {statistics.median(ms):.1f}, max {max(ms):.1f}")


def timing(title: str, samples: list[Sample], reader: KindReader, size: tuple[int, int] | None) -> None:
    """ms of ``cell_views`` + ``read`` only, from the grayscale picture (optionally resized to ``size``)."""
    ms = []
    for s in samples:
        gray = cv2.imread(str(s.path), cv2.IMREAD_GRAYSCALE)
        corners = s.corners
        if size is not None:
            h, w = gray.shape
            gray = cv2.resize(gray, size if w >= h else size[::-1], interpolation=cv2.INTER_AREA)
            corners = corners * np.float32([gray.shape[1] / w, gray.shape[0] / h])
        reader.read(cell_views(gray, corners, **_GEOMETRY))  # warm
        t0 = time.perf_counter()
        for _ in range(3):
            reader.read(cell_views(gray, corners, **_GEOMETRY))
        ms.append((time.perf_counter() - t0) / 3 * 1e3)
    print(f"  {title}: {len(ms)} photos, median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reader", help="module:function with the read_cells signature (default: this reader)")
    ap.add_argument("--model", help="another cells.onnx (its .json's input cell/margin are used for the views)")
    ap.add_argument("--failures", action="store_true", help="list the wrong cells of each photo")
    ap.add_argument("--skip-all", action="store_true", help="only the held-out photos")
    args = ap.parse_args()
    global _READER
    if args.model:
        _READER = KindReader(args.model)
        geo = _READER.meta.get("input", {})
        if "cell" in geo and "margin" in geo:  # a model of another input size than kinds.py's, before adopting it
            _GEOMETRY.update(cell=int(geo["cell"]), margin=int(geo["margin"]))
    reader: ReadCells = read_cells
    if args.reader:
        mod, fn = args.reader.split(":")
        reader = getattr(importlib.import_module(mod), fn)

    hand = hw_photos()
    held = [s for s in hand if s.name[:5] in HELD_OUT]
    _, sp_held = sudoku_photos()
    print(f"held-out handwritten puzzles: {', '.join(HELD_OUT)} (4 photos each, 12 MP)")
    report("HELD-OUT handwritten photos", run(held, reader, args.failures))
    mixed = [s for s in sp_held if s.group == "mixed"]
    printed = [s for s in sp_held if s.group == "printed"]
    rows_m = run(mixed, reader, args.failures)
    rows_p = run(printed, reader, args.failures)
    print(f"HELD-OUT mixed photos: split exact (givens and entries) {sum(r['split_exact'] for r in rows_m)}"
          f"/{len(rows_m)}; cells of the right kind and digit "
          f"{100 * sum(r['right11'] for r in rows_m) / (81 * max(1, len(rows_m))):.2f}%")
    print(f"HELD-OUT printed-only photos: fully right {sum(r['split_exact'] for r in rows_p)}/{len(rows_p)}; "
          f"solution agrees {sum(r['agrees'] for r in rows_p)}/{len(rows_p)}")
    if args.reader is None:
        kr = _READER or KindReader()
        print("ms per photo, this reader alone (cell_views + model; no decoding, no grid finding, no solving):")
        timing("12 MP held-out handwritten photos", held, kr, None)
        timing("the same shrunk to 640x480", held, kr, (640, 480))
        timing("640x480 held-out sudoku-photos", [s for s in printed if cv2.imread(str(s.path)).shape[1] == 640],
               kr, None)
    if not args.skip_all:
        print()
        report("ALL 80 handwritten photos (for reference: 64 of them are TRAINING photos)",
               run(hand, reader, False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
