"""Which digit is each handwritten entry: the cell-kind model against the entry-digit model, held-out photos only.

For every labelled handwritten entry of the held-out photos (the held-out fifth of
``sudoku-photos/mixed`` and the ``train_cells.HELD_OUT`` puzzles of ``handwritten-photos``),
with the labelled grid corners:

  (a) the cell-kind model's digit: ``KindReader().read(cell_views(gray, corners))``, its given
      and entry heads summed (probs[1:10] + probs[10:19]) so a cell it called a given still
      gets its digit;
  (b) the entry-digit model (``models/entries.onnx``) on ``entry_crops`` of the same warp;
  (c) their product, normalised.

Reports accuracy and cell counts per photo set and overall, the confusions (true -> read)
that remain, and the model's time per batch of 50 crops (and the cutting's)::

    python scripts/eval_entries.py [--model models/entries.onnx]
    python scripts/eval_entries.py --jitter 0.1     # corners off by 10% of a cell (sigma), both models
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.entries import EntryReader, entry_crops
from ar_sudoku.vision.kinds import KindReader, cell_views, warp_views_grid
from photos import HELD_OUT, hw_photos, jitter, sudoku_photos

METHODS = ("kinds", "entries", "product")
# the cell-kind model's known confusions of handwritten digits (either direction)
KNOWN = {frozenset(p) for p in ((9, 4), (9, 5), (3, 7), (5, 6), (7, 9), (6, 1))}


def read_photo(sample, corners: np.ndarray, kreader: KindReader,
               ereader: EntryReader) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """True digits of the photo's entries and each method's (n, 9) probabilities, both cut at ``corners``."""
    cells = np.flatnonzero((sample.labels >= 10) & (sample.labels <= 18))
    gray = cv2.imread(str(sample.path), cv2.IMREAD_GRAYSCALE)
    probs = kreader.read(cell_views(gray, corners)).probs[cells]
    pa = probs[:, 1:10] + probs[:, 10:19]
    pa = pa / np.maximum(pa.sum(axis=1, keepdims=True), 1e-9)
    pb = ereader.probabilities(entry_crops(warp_views_grid(gray, corners), cells))
    pc = pa * pb
    pc = pc / np.maximum(pc.sum(axis=1, keepdims=True), 1e-12)
    return sample.labels[cells] - 9, {"kinds": pa, "entries": pb, "product": pc}


def report(name: str, truth: np.ndarray, preds: dict[str, np.ndarray]) -> None:
    print(f"\n{name}: {len(truth)} entry cells")
    for m in METHODS:
        right = int((preds[m] == truth).sum())
        print(f"  ({'abc'[METHODS.index(m)]}) {m:8s} {right / max(len(truth), 1):.4f}  ({right}/{len(truth)})")
    known = {m: int(sum(frozenset((t, p)) in KNOWN for t, p in zip(truth, preds[m]) if t != p)) for m in METHODS}
    print("  the known confusions (9-4, 9-5, 3-7, 5-6, 7-9, 6-1): "
          + ", ".join(f"{m} {n}" for m, n in known.items()))
    for m in METHODS:
        wrong = Counter(zip(truth[preds[m] != truth].tolist(), preds[m][preds[m] != truth].tolist()))
        pairs = ", ".join(f"{t}->{p} x{n}" for (t, p), n in wrong.most_common())
        print(f"  {m} confusions (true->read): {pairs or 'none'}")


def timing(ereader: EntryReader, sample) -> None:
    """Median time of the model on 50 crops, and of cutting 50 crops from a warped grid."""
    gray = cv2.imread(str(sample.path), cv2.IMREAD_GRAYSCALE)
    warped = warp_views_grid(gray, sample.corners)
    cells = np.resize(np.flatnonzero(sample.labels >= 10), 50)
    crops = entry_crops(warped, cells)
    ereader.probabilities(crops)
    t_model, t_cut = [], []
    for _ in range(30):
        t = time.perf_counter()
        ereader.probabilities(crops)
        t_model.append(time.perf_counter() - t)
        t = time.perf_counter()
        entry_crops(warped, cells)
        t_cut.append(time.perf_counter() - t)
    print(f"\ntime per batch of 50: model {1000 * np.median(t_model):.2f} ms (one thread), "
          f"entry_crops {1000 * np.median(t_cut):.2f} ms (median of 30)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, help="entry model (default: the shipped models/entries.onnx)")
    ap.add_argument("--jitter", type=float, default=0.0,
                    help="move the labelled corners at random by this many cells (sigma), as a grid finder's error")
    ap.add_argument("--seed", type=int, default=0, help="of the corner jitter")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    kreader, ereader = KindReader(), EntryReader(args.model)
    _, sp_held = sudoku_photos()
    sets = {
        "held-out mixed photos (sudoku-photos)": [s for s in sp_held if s.group == "mixed"],
        f"held-out handwritten-photos puzzles {', '.join(HELD_OUT)}": [s for s in hw_photos()
                                                                       if s.name[:5] in HELD_OUT],
    }
    all_truth, all_preds = [], {m: [] for m in METHODS}
    for name, samples in sets.items():
        truth, preds = [], {m: [] for m in METHODS}
        for s in samples:
            corners = jitter(s.corners, rng, args.jitter) if args.jitter else s.corners
            t, p = read_photo(s, corners, kreader, ereader)
            truth.append(t)
            for m in METHODS:
                preds[m].append(p[m].argmax(axis=1) + 1)
        truth_a = np.concatenate(truth)
        preds_a = {m: np.concatenate(v) for m, v in preds.items()}
        report(f"{name}, {len(samples)} photos", truth_a, preds_a)
        all_truth.append(truth_a)
        for m in METHODS:
            all_preds[m].append(preds_a[m])
    report("all held-out", np.concatenate(all_truth), {m: np.concatenate(v) for m, v in all_preds.items()})
    timing(ereader, sets[next(iter(sets))][0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
