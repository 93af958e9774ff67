"""Warp each handwritten-photos grid to a square, for labelling printed givens by eye.

For every photo in ``../shared/data/handwritten-photos`` this writes to ``/tmp/hw_crops/``:

- ``NAME.png``: the grid warped (from the corners in ``metadata.csv``) to ``--size`` px square;
- ``NAME_ann.png``: the same, with each cell's label (``.`` blank, ``c`` candidates, or the
  digit) and its ``rXcY`` drawn small in the top-left corner;
- ``cells/NAME_rXcY.png`` (with ``--cells``): one crop per labelled cell, with a margin.

Usage: ``python scripts/handwritten_crops.py [--data DIR] [--out DIR] [--size 900] [--only 02_17]``
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "handwritten-photos"


def read_label(path: Path) -> list[int]:
    vals = [int(v) for v in path.read_text().split()]
    if len(vals) != 81:
        raise ValueError(f"{path}: {len(vals)} values, expected 81")
    return vals


def corners(row: dict[str, str]) -> np.ndarray:
    """Grid corners as top-left, top-right, bottom-right, bottom-left (clockwise)."""
    names = ("topleft", "topright", "bottomright", "bottomleft")
    return np.array(
        [[float(row[f"x_{n}_absolute"]), float(row[f"y_{n}_absolute"])] for n in names], dtype=np.float32
    )


def warp(image: np.ndarray, quad: np.ndarray, size: int, margin: int = 0) -> np.ndarray:
    """Perspective-warp the quad to a ``size`` square, plus ``margin`` px of context around it."""
    dst = np.array(
        [[margin, margin], [margin + size, margin], [margin + size, margin + size], [margin, margin + size]],
        dtype=np.float32,
    )
    m = cv2.getPerspectiveTransform(quad, dst)
    side = size + 2 * margin
    return cv2.warpPerspective(image, m, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def annotate(square: np.ndarray, labels: list[int]) -> np.ndarray:
    out = square.copy()
    cell = out.shape[0] / 9
    scale = cell / 220
    for i, v in enumerate(labels):
        r, c = divmod(i, 9)
        x, y = int(c * cell) + 2, int(r * cell) + 2
        text = "." if v == 0 else ("c" if v == 10 else str(v))
        tag = f"{text} r{r + 1}c{c + 1}"
        (w, h), _ = cv2.getTextSize(tag, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.rectangle(out, (x, y), (x + w + 2, y + h + 4), (255, 255, 255), -1)
        color = (0, 0, 200) if 1 <= v <= 9 else (160, 0, 0)
        cv2.putText(out, tag, (x + 1, y + h + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, color, 1, cv2.LINE_AA)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=Path("/tmp/hw_crops"))
    ap.add_argument("--size", type=int, default=900, help="side of the warped grid in px")
    ap.add_argument("--only", default="", help="only photos whose name starts with this")
    ap.add_argument("--cells", action="store_true", help="also write one crop per labelled digit cell")
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.data / "metadata.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["Name"].startswith(args.only)]
    for row in rows:
        name = Path(row["Name"]).stem
        image = cv2.imread(str(args.data / "images" / row["Name"]), cv2.IMREAD_COLOR)
        if image is None:
            print(f"{name}: cannot read")
            continue
        if (image.shape[1], image.shape[0]) != (int(row["Width"]), int(row["Height"])):
            print(f"{name}: size {image.shape[1]}x{image.shape[0]} differs from metadata")
        labels = read_label(args.data / "labels" / f"{name}.txt")
        square = warp(image, corners(row), args.size)
        cv2.imwrite(str(args.out / f"{name}.png"), square)
        cv2.imwrite(str(args.out / f"{name}_ann.png"), annotate(square, labels))
        if args.cells:
            cell_dir = args.out / "cells"
            cell_dir.mkdir(exist_ok=True)
            cell = args.size // 9
            big = warp(image, corners(row), args.size, margin=cell // 4)
            for i, v in enumerate(labels):
                if 1 <= v <= 9:
                    r, c = divmod(i, 9)
                    crop = big[r * cell : r * cell + cell + cell // 2, c * cell : c * cell + cell + cell // 2]
                    cv2.imwrite(str(cell_dir / f"{name}_r{r + 1}c{c + 1}.png"), crop)
        print(name)


if __name__ == "__main__":
    main()
