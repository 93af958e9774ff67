"""Planted mistakes: swap two handwritten cells of a mixed photo, then see whether both are flagged.

    python scripts/eval_mistakes.py              # the held-out mixed photos, 3 swaps each
    python scripts/eval_mistakes.py --all
    python scripts/eval_mistakes.py --split train   # the side to tune on
    python scripts/eval_mistakes.py --source hand --split all   # the 80 handwritten-photos (pen and pencil, 12 MP)

In ``sudoku-photos/mixed`` every blank is filled by hand and the .dat says
which cells are printed. Two handwritten cells with different digits are
swapped in the photo itself (each cell's pixels moved through the grid's
homography from outlines.csv, its corners put in the puzzle's own order and
turned with a mixed photo that is stored turned, as ``train_cells.sudoku_photos``
gives them), so both now hold a wrong digit: those are the planted mistakes.
With ``--source hand`` the photos are the handwritten-photos set (held out: the cell models' four held-out
puzzles, ``photos.HELD_OUT``; entries in pen and pencil; a real mistake
of the person's own is neither planted nor a false alarm), each swapped photo JPEG-encoded and decoded as
``ar-sudoku image`` decodes a 12 MP photo (at half size). Reported: planted mistakes found, and false alarms (cells
flagged as mistakes that are not), per photo, and the cells said only as doubts
("looks like"), through the full pipeline (``process_image`` with both models),
as ``ar-sudoku image --json`` reads it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import cv2
import numpy as np

from ar_sudoku.io.images import decode_image
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_image
from photos import HELD_OUT, hw_photos, sudoku_photos

CELL = 64


def swap_cells(image: np.ndarray, corners: np.ndarray, a: int, b: int) -> np.ndarray:
    """The photo with cells ``a`` and ``b`` (0-80, row by row of the picture's grid) exchanged."""
    side = 9 * CELL
    flat = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    to_flat = cv2.getPerspectiveTransform(np.float32(corners), flat)
    h, w = image.shape[:2]
    square = cv2.warpPerspective(image, to_flat, (side, side), flags=cv2.INTER_LINEAR)
    swapped = square.copy()
    (ra, ca), (rb, cb) = divmod(a, 9), divmod(b, 9)
    m = CELL // 10  # keep the grid lines where they are
    pa = square[ra * CELL + m : (ra + 1) * CELL - m, ca * CELL + m : (ca + 1) * CELL - m].copy()
    pb = square[rb * CELL + m : (rb + 1) * CELL - m, cb * CELL + m : (cb + 1) * CELL - m].copy()
    swapped[ra * CELL + m : (ra + 1) * CELL - m, ca * CELL + m : (ca + 1) * CELL - m] = pb
    swapped[rb * CELL + m : (rb + 1) * CELL - m, cb * CELL + m : (cb + 1) * CELL - m] = pa
    back = cv2.warpPerspective(swapped, np.linalg.inv(to_flat), (w, h), flags=cv2.INTER_LINEAR)
    mask = np.zeros((side, side), np.uint8)
    for r, c in ((ra, ca), (rb, cb)):
        mask[r * CELL + m : (r + 1) * CELL - m, c * CELL + m : (c + 1) * CELL - m] = 255
    mask = cv2.warpPerspective(mask, np.linalg.inv(to_flat), (w, h)) > 127
    out = image.copy()
    out[mask] = back[mask]
    return out


def planted_pairs(labels: np.ndarray, rng: np.random.Generator, swaps: int) -> Iterator[tuple[int, int]]:
    """Up to ``swaps`` pairs (a, b) of handwritten cells (labels 10-18) holding different digits, each drawn with
    ``rng`` as it is asked for: the same generator state gives the same pairs."""
    full = [int(v) if v <= 9 else int(v) - 9 for v in labels]
    hand = [i for i in range(81) if 10 <= labels[i] <= 18]
    pairs = [(a, b) for a in hand for b in hand if a < b and full[a] != full[b]]
    if pairs:
        for _ in range(swaps):
            yield pairs[int(rng.integers(len(pairs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--all", action="store_true", help="train and held-out photos (as --split all)")
    ap.add_argument("--split", choices=("held", "train", "all"), default="held")
    ap.add_argument("--source", choices=("mixed", "hand"), default="mixed",
                    help="sudoku-photos' mixed photos (red pen), or the handwritten-photos (pen and pencil)")
    ap.add_argument("--swaps", type=int, default=None, help="swaps a photo (3 on mixed photos, 1 on hand)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--failures", action="store_true", help="list every missed mistake and false alarm")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    digits, kinds = DigitReader(), KindReader()
    train, held = sudoku_photos()
    planted = found = alarms = photos = doubts_planted = doubts_else = 0
    split = "all" if args.all else args.split
    if args.source == "hand":  # the cell models' held-out puzzles (all four photos of each), or the rest
        hand = hw_photos()
        train = [x for x in hand if x.name[:5] not in HELD_OUT]
        held = [x for x in hand if x.name[:5] in HELD_OUT]
    chosen = {"held": held, "train": train, "all": train + held}[split]
    swaps = args.swaps or (3 if args.source == "mixed" else 1)
    for s in [x for x in chosen if x.group in ("mixed", "hand")]:
        # corners in the puzzle's own order (turned with a mixed photo stored turned): cell i is r/c of the puzzle
        labels = s.labels
        full = [int(v) if v <= 9 else int(v) - 9 for v in labels]
        img = cv2.imread(str(s.path))
        for a, b in planted_pairs(labels, rng, swaps):
            swapped = swap_cells(img, s.corners, a, b)
            if s.group == "hand":  # as the command reads a 12 MP photo: from its JPEG, at half size
                swapped = decode_image(cv2.imencode(".jpg", swapped, [cv2.IMWRITE_JPEG_QUALITY, 95])[1],
                                       full=False).image
            res = process_image(swapped, digits, kinds=kinds)
            photos += 1
            planted += 2
            if res.written is None or res.solution is None:
                if args.failures:
                    print(f"    {s.path.name}: missed both ({res.status}: {res.message})")
                continue
            flagged = set(res.written.mistakes(res.solution))
            truth_cells = {a, b}
            found += len(flagged & truth_cells)
            right = {i for i in flagged - truth_cells if full[i] == int(res.solution[i])}  # not the person's own slip
            alarms += len(right)
            doubted = {i for i, _ in res.written.doubts}
            doubts_planted += len(doubted & truth_cells)
            doubts_else += len(doubted - truth_cells)
            if args.failures and flagged != truth_cells:
                w = res.written
                print(f"    {s.path.name}: missed "
                      + ", ".join(f"r{i // 9 + 1}c{i % 9 + 1} ({w.cells[i]}{w.entries[i]})"
                                  for i in sorted(truth_cells - flagged))
                      + "; false " + ", ".join(f"r{i // 9 + 1}c{i % 9 + 1} ({w.entries[i]}, is {res.solution[i]})"
                                              for i in sorted(right)))
    print(f"{photos} photos with 2 planted mistakes each: found {found}/{planted} "
          f"({found / max(planted, 1):.1%}); false alarms {alarms} ({alarms / max(photos, 1):.2f} per photo); "
          f"said as doubts (\"looks like\"): {doubts_planted} planted, {doubts_else} others")


if __name__ == "__main__":
    main()
