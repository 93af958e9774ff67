"""Run the photo pipeline over a folder of photos with .dat truth and print the figures.

    python scripts/eval_photos.py ../shared/data/sudoku-photos/printed
    python scripts/eval_photos.py DIR --failures        # list what went wrong, photo by photo

Prints, for all photos and for the held-out validation subset (never trained
on: the held-out puzzles' photos, ``photos.held_out_puzzles``): photos, grid found, fully correct (all 81 cells
right, blanks included), cell accuracy, digits read where the cell is empty,
digits missed, solved, median and max ms per photo (grid + cells + model +
rules, excluding start-up and model load).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_image
from photos import DEFAULT_DIR, held_out_puzzles, load


def corner_error(found, truth) -> float | None:
    """Mean distance of the four corners to the truth (any rotation: the truth is in picture order)."""
    if found is None or truth is None:
        return None
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).mean()) for k in range(4))


def summarize(name: str, rows: list[dict]) -> None:
    if not rows:
        return
    n = len(rows)
    found = sum(r["found"] for r in rows)
    correct = sum(r["correct"] for r in rows)
    cells = sum(r["cells_right"] for r in rows)
    extra = sum(r["extra"] for r in rows)
    missed = sum(r["missed"] for r in rows)
    wrong = sum(r["wrong_digit"] for r in rows)
    solved = sum(r["solved"] for r in rows)
    ms = [r["ms"] for r in rows]
    print(f"{name}: {n} photos")
    print(f"  grid found      {found}/{n} ({100 * found / n:.1f}%)")
    print(f"  fully correct   {correct}/{n} ({100 * correct / n:.1f}%)")
    print(f"  cell accuracy   {100 * cells / (81 * n):.2f}%  ({81 * n - cells} wrong cells)")
    print(f"  digits read where empty {extra}, digits missed {missed}, wrong digit {wrong}")
    print(f"  solved          {solved}/{n}")
    print(f"  ms per photo    median {statistics.median(ms):.1f}, max {max(ms):.1f}")
    errs = [r["corner_px"] for r in rows if r["corner_px"] is not None]
    if errs:
        print(f"  corner error    median {statistics.median(errs):.1f} px, p90 {np.percentile(errs, 90):.1f} px "
              f"(mean of 4 corners vs outlines.csv)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, nargs="?", default=DEFAULT_DIR / "printed")
    ap.add_argument("--failures", action="store_true", help="list each photo not fully correct")
    ap.add_argument("--model", help="another digits.onnx")
    ap.add_argument("--no-kinds", action="store_true", help="the digit model alone (no cell-kind model), as before")
    args = ap.parse_args()
    photos = load(args.folder)
    if not photos:
        print(f"no photos with .dat truth in {args.folder}", file=sys.stderr)
        return 2
    reader = DigitReader(args.model)
    kinds = None if args.no_kinds else KindReader()
    held = held_out_puzzles()
    rows = []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        res = process_image(img, reader, kinds=kinds)
        read = res.givens or "." * 81
        truth = ph.givens
        row = {
            "name": ph.name, "val": ph.name in held, "found": res.corners is not None,
            "correct": read == truth, "cells_right": sum(a == b for a, b in zip(read, truth)),
            "extra": sum(a != "." and b == "." for a, b in zip(read, truth)),
            "missed": sum(a == "." and b != "." for a, b in zip(read, truth)),
            "wrong_digit": sum(a != "." and b != "." and a != b for a, b in zip(read, truth)),
            "solved": res.status == "solved", "ms": res.ms, "status": res.status, "message": res.message,
            "corner_px": corner_error(res.corners, ph.corners),
        }
        rows.append(row)
        if args.failures and not row["correct"]:
            diffs = [f"r{i // 9 + 1}c{i % 9 + 1} {b}->{a}" for i, (a, b) in enumerate(zip(read, truth)) if a != b]
            print(f"  {ph.name}{' (val)' if row['val'] else ''}: {res.status} {res.message[:60]} | "
                  + ", ".join(diffs[:8]) + (" ..." if len(diffs) > 8 else ""))
    summarize("all", rows)
    summarize("held-out validation", [r for r in rows if r["val"]])
    summarize("training split", [r for r in rows if not r["val"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
