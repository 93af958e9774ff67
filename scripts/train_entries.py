"""Train the entry-digit model from scratch and export ``models/entries.onnx`` (+ ``entries.json``).

The model reads which digit (1-9) a handwritten entry is, from the ink re-centred and
re-scaled by :func:`ar_sudoku.vision.entries.entry_crops` (see that module for why the
cell-kind model is not enough). Every sample goes through the app's own cutting: the
grid warped by ``kinds.warp_views_grid`` from corners jittered as a grid finder's would be
(5% or 10% of a cell), then ``entry_crops``. Data, all local:

  * ``../shared/data/sudoku-photos/mixed``: every blank filled by hand (red or blue pen);
    the training split of ``scripts/photos.py`` only (``train_cells.sudoku_photos``);
  * ``../shared/data/handwritten-photos``: pen and pencil entries, the puzzles of
    ``train_cells.HELD_OUT`` left out;
  * synthetic pages (``train_cells.synth_page``): handwriting fonts, OpenCV's script faces and
    the red strokes of the training ``mixed`` photos, here with an extra elastic distortion of
    each written digit; printed neighbours, pencil, curl, perspective, blur, noise and JPEG.

Colour never reaches the model (every picture is read grey, the crops are normalised to the
strokes' own darkness). Training adds small rotations, shears, scalings, shifts, thicker
strokes, blur and noise per batch. The held-out photos are read once at the end for the json;
``scripts/eval_entries.py`` gives the full comparison with the cell-kind model.

    pip install torch==2.13.0 && pip install -e '.[train]'   # fonts: see scripts/train_cells.py
    nice -n 15 python scripts/train_entries.py --cache /tmp/entries_data2.npz
    # 12 min 45 s on the shared 2-core machine: data 3 min (one process; 72k crops), 20 epochs
    # 9.5 min (one torch thread, 26-37 s each); a second run with the same --cache skips the data

Issue 21 (``--degraded``, default 0: off): a share of the synthetic pages and of the jittered photo
cuts is first seen through a random camera and room (``degrade.camera``: dim light with shot and
read noise, shadow, glare, blur of both kinds, down-scaling, JPEG) or, ``SCREEN_SHARE`` of them,
off a phone screen (``degrade.screen_photo``); cells a glare washed out are left out. Tried with a
tuning split carved by puzzle out of the training puzzles (``--tuning``: ``photos.tuning_puzzles``,
21 mixed photos, never the held-out ones)::

    nice -n 10 python scripts/train_entries.py --degraded 0.5 --tuning --cache /tmp/tune.npz --out /tmp/tune.onnx
    # 29 min on the loaded shared machine (145 print fonts installed, not 263)

On the tuning photos' 1037 entries (true corners, eval_robust's own conditions) it read 98.1% as
taken, 97.6% at 320 px, 96.3% blurred, 95.3% shaken, 93.4% dim, 96.3% off a screen; the shipped
model 99.5 / 99.4 / 96.2 / 96.6 / 90.6 / 96.1%, but it was trained on those very photos (the older
photo-number split). Read end to end (``eval_robust``'s mixed photos of the tuning puzzles, six
conditions) both split 123 of 126 exactly, with 0 false alarms and 8 doubts (shipped) against 11:
no gain shown, so the shipped model stays the one below.

Seeded (``--seed``, default 1): the data and the training repeat. The shipped model, trained on the split
by puzzle (``photos.held_out_puzzles``), is from ``python scripts/train_entries.py --threads 1 --workers 1``
(18 min on the shared machine); held-out entries read 99.0% (1793 cells, true corners).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.entries import FIT, SIZE, entry_crops
from ar_sudoku.vision.kinds import warp_views_grid
from degrade import camera, glared_cells, screen_photo
from photos import HELD_OUT, Sample, jitter, tuning_puzzles
from train_cells import Glyphs, grid_crop, hand_fonts, photo_splits, predict, red_bank, synth_page
from train_digits import export_onnx, find_fonts, fit

ROOT = Path(__file__).resolve().parents[1]
CLASSES = [str(d) for d in range(1, 10)]
# corner jitter, in cells: a grid finder's usual error, and a poor one (lines well inside the crop region)
SIGMAS = (0.05, 0.1)
SCREEN_SHARE = 0.15  # of the degraded pictures: a puzzle on a phone screen, photographed (moire)


# --------------------------------------------------------------------------- data


def entry_cells(labels: np.ndarray) -> np.ndarray:
    """The cells holding a handwritten entry (20-class labels 10..18)."""
    return np.flatnonzero((labels >= 10) & (labels <= 18))


def shot(img: np.ndarray, corners: np.ndarray, rng: random.Random) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``img`` (grey or BGR) through a random camera and room (``degrade.camera``) or, a ``SCREEN_SHARE`` of the
    time, off a phone screen (``degrade.screen_photo``): the grey picture, the corners in it, and the
    cells a glare washed out (left out of training, never relabelled)."""
    side = float(np.ptp(corners, axis=0).max())
    grey = lambda x: x if x.ndim == 2 else cv2.cvtColor(x, cv2.COLOR_BGR2GRAY)  # noqa: E731
    if rng.random() < SCREEN_SHARE:
        return grey(screen_photo(img, rng, side / 9)), corners, np.zeros(81, bool)
    out = camera(img, rng, side)
    corners = corners * np.float32(out.scale)
    return grey(out.image), corners, glared_cells(out.glare, corners)


def photo_crops(args: tuple[Sample, int, int, float]) -> tuple[np.ndarray, np.ndarray]:
    """Crops of one photo's entries: the true corners, then ``jitters - 1`` jittered ones (SIGMAS in turn),
    a share ``degraded`` of these seen through a random camera first (:func:`shot`)."""
    s, jitters, seed, degraded = args
    rng = random.Random(seed)
    cells = entry_cells(s.labels)
    if not len(cells):
        return np.zeros((0, SIZE, SIZE), np.float32), np.zeros(0, np.int64)
    img, corners = grid_crop(cv2.imread(str(s.path)), s.corners)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    xs, ys = [], []
    for j in range(jitters):
        c = corners if j == 0 else jitter(corners, rng, SIGMAS[j % 2])
        seen, keep = gray, cells
        if j and rng.random() < degraded:
            seen, c, lost = shot(img, c, rng)
            keep = cells[~lost[cells]]
        if len(keep):
            xs.append(entry_crops(warp_views_grid(seen, c), keep))
            ys.append(s.labels[keep] - 10)
    return np.concatenate(xs), np.concatenate(ys)


class ElasticGlyphs(Glyphs):
    """train_cells' glyphs, each written digit also bent by a smooth random displacement field."""

    def hand(self, rng: random.Random, d: int, height: float) -> np.ndarray:
        g = super().hand(rng, d, height)
        if rng.random() < 0.6 and min(g.shape) > 8:
            h, w = g.shape
            amp = rng.uniform(0.03, 0.08) * height
            field = np.random.default_rng(rng.randrange(2**32)).normal(0, 1, (2, 3, 3)).astype(np.float32)
            dx = cv2.resize(field[0], (w, h), interpolation=cv2.INTER_CUBIC) * amp
            dy = cv2.resize(field[1], (w, h), interpolation=cv2.INTER_CUBIC) * amp
            gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
            g = cv2.remap(g, gx + dx, gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        return g


def synth_crops(args: tuple[int, int, Glyphs, float]) -> tuple[np.ndarray, np.ndarray]:
    """The entries of ``pages`` synthetic pages, cut from grids warped with jittered corners, a share
    ``degraded`` of the pages seen through a random camera first (:func:`shot`)."""
    pages, seed, glyphs, degraded = args
    rng = random.Random(seed)
    xs, ys = [], []
    for _ in range(pages):
        pic, corners, labels = synth_page(rng, glyphs)
        cells = entry_cells(labels)
        corners = jitter(corners, rng, rng.choice(SIGMAS))
        if len(cells) and rng.random() < degraded:
            pic, corners, lost = shot(pic, corners, rng)
            cells = cells[~lost[cells]]
        if len(cells):
            xs.append(entry_crops(warp_views_grid(pic, corners), cells))
            ys.append(labels[cells] - 10)
    return np.concatenate(xs), np.concatenate(ys)


def gather(jobs: list, fn, workers: int) -> tuple[np.ndarray, np.ndarray]:
    if workers > 1:
        from multiprocessing import Pool

        with Pool(workers) as pool:
            parts = pool.map(fn, jobs)
    else:
        parts = [fn(j) for j in jobs]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


# --------------------------------------------------------------------------- model


def build_model(widths: tuple[int, ...] = (16, 32, 64)):
    """Three conv-BN-ReLU-maxpool blocks (32 -> 4 px), one more conv, then a linear layer over the 4x4 map.

    The linear layer over the map (not a global pool) keeps where the strokes are: a 4 and a 9
    differ by whether the top closes.
    """
    import torch.nn as nn

    layers, cin = [], 1
    for w in widths:
        layers += [nn.Conv2d(cin, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2)]
        cin = w
    side = SIZE // 2 ** len(widths)
    layers += [nn.Conv2d(cin, cin, 3, padding=1, bias=False), nn.BatchNorm2d(cin), nn.ReLU()]
    return nn.Sequential(*layers, nn.Flatten(), nn.Dropout(0.3), nn.Linear(cin * side * side, len(CLASSES)))


def augment(x, g):
    """Per-sample affine (rotation, shear, scale, shift), sometimes thicker strokes or blur, gain and noise."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]

    def u(lo: float, hi: float):
        return lo + (hi - lo) * torch.rand(n, generator=g)

    ang, shear = u(-0.17, 0.17), u(-0.2, 0.2)
    sx, sy = u(0.85, 1.12), u(0.85, 1.12)
    tx, ty = u(-0.1, 0.1), u(-0.1, 0.1)  # of the half side: about +-1.6 px
    c, s = torch.cos(ang), torch.sin(ang)
    theta = torch.stack([torch.stack([c * sx, -s * sy + shear, tx], 1), torch.stack([s * sx, c * sy, ty], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")
    r = torch.rand(n, 1, 1, 1, generator=g)
    thick = torch.maximum(x, 0.7 * F.max_pool2d(x, 3, 1, 1))
    blur = F.avg_pool2d(x, 3, 1, 1) * 1.3
    x = torch.where(r < 0.2, thick, torch.where(r < 0.3, blur, x))
    gain = 0.7 + 0.4 * torch.rand(n, 1, 1, 1, generator=g)
    noise = 0.05 * torch.rand(n, 1, 1, 1, generator=g) * torch.randn(x.shape, generator=g)
    return (x * gain + noise).clamp(0, 1)


def train(xs: np.ndarray, ys: np.ndarray, ws: np.ndarray, epochs: int, seed: int, batch: int = 128,
          threads: int = 1, widths: tuple[int, ...] = (16, 32, 64)):
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    model = build_model(widths)
    w_all = torch.from_numpy(ws)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05, reduction="none")
    return fit(model, torch.from_numpy(xs).unsqueeze(1), torch.from_numpy(ys), epochs=epochs, batch=batch,
               steps=epochs * ((len(xs) + batch - 1) // batch), g=torch.Generator().manual_seed(seed), augment=augment,
               batch_loss=lambda out, yb, idx: (lossf(out, yb) * w_all[idx]).sum() / w_all[idx].sum())


def export(model, out: Path, meta: dict) -> None:
    export_onnx(model, out, SIZE, "crops", meta)


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=2400, help="synthetic pages (their entry cells are used)")
    ap.add_argument("--mixed-jitters", type=int, default=4, help="corner-jittered cuts per training mixed photo")
    ap.add_argument("--hand-jitters", type=int, default=10, help="corner-jittered cuts per handwritten photo")
    ap.add_argument("--hand-weight", type=float, default=2.0, help="loss weight of the handwritten-photo cells")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--degraded", type=float, default=0.0,
                    help="share of synthetic pages and jittered photo cuts seen through a random camera and room")
    ap.add_argument("--tuning", action="store_true",
                    help="leave the tuning puzzles (photos.tuning_puzzles) out too, to compare recipes on them")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="processes making the data (the machine is shared)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--widths", default="16,32,64", help="channels of the three conv blocks")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "entries.onnx")
    ap.add_argument("--cache", type=Path, help="keep the made data in this .npz and reuse it (same options!)")
    args = ap.parse_args()
    widths = tuple(int(w) for w in args.widths.split(","))

    t0 = time.time()
    rng = random.Random(args.seed)
    np.random.seed(args.seed)
    hand_train, hand_held, sp_train, sp_held = photo_splits()
    if args.tuning:  # the tuning puzzles' photos (printed and mixed) leave training, red strokes included
        tuning = tuning_puzzles()
        sp_train = [s for s in sp_train if s.name not in tuning]
    mixed_train = [s for s in sp_train if s.group == "mixed"]
    mixed_held = [s for s in sp_held if s.group == "mixed"]
    print(f"photos: handwritten {len(hand_train)} train / {len(hand_held)} held out; mixed {len(mixed_train)} train "
          f"/ {len(mixed_held)} held out ({time.time() - t0:.0f} s)", flush=True)

    names = ("xs_s", "ys_s", "xs_m", "ys_m", "xs_h", "ys_h")
    if args.cache and args.cache.exists():
        data = np.load(args.cache)
        xs_s, ys_s, xs_m, ys_m, xs_h, ys_h = (data[k] for k in names)
        n_print, n_hand, n_bank = (int(v) for v in data["fonts"])
        print(f"data from {args.cache}", flush=True)
    else:
        pf, hf = find_fonts(), hand_fonts()
        bank = red_bank(sp_train)  # training photos only
        n_print, n_hand, n_bank = len(pf), len(hf), len(bank)
        glyphs = ElasticGlyphs(pf, hf, bank)
        print(f"fonts: {n_print} print, {n_hand} handwriting; {n_bank} real handwritten digits from mixed/ "
              f"({time.time() - t0:.0f} s)", flush=True)
        chunks = max(1, args.workers) * 4
        jobs = [(args.pages // chunks + (k < args.pages % chunks), args.seed * 1000 + k, glyphs, args.degraded)
                for k in range(chunks)]
        xs_s, ys_s = gather(jobs, synth_crops, args.workers)
        print(f"synthetic: {len(xs_s)} entries ({time.time() - t0:.0f} s)", flush=True)
        xs_m, ys_m = gather([(s, args.mixed_jitters, rng.randrange(2**31), args.degraded) for s in mixed_train],
                            photo_crops, args.workers)
        xs_h, ys_h = gather([(s, args.hand_jitters, rng.randrange(2**31), args.degraded) for s in hand_train],
                            photo_crops, args.workers)
        print(f"photo entries: mixed {len(xs_m)}, handwritten {len(xs_h)} ({time.time() - t0:.0f} s)", flush=True)
        if args.cache:
            np.savez(args.cache, **dict(zip(names, (xs_s, ys_s, xs_m, ys_m, xs_h, ys_h))),
                     fonts=np.array([n_print, n_hand, n_bank]))
    data_s = time.time() - t0

    xs = np.concatenate([xs_s, xs_m, xs_h]).astype(np.float32)
    ys = np.concatenate([ys_s, ys_m, ys_h]).astype(np.int64)
    ws = np.concatenate([np.ones(len(xs_s) + len(xs_m)), np.full(len(xs_h), args.hand_weight)]).astype(np.float32)
    counts = {c: int((ys == k).sum()) for k, c in enumerate(CLASSES)}
    print("class counts:", counts, flush=True)
    t_train = time.time()
    model = train(xs, ys, ws, args.epochs, args.seed, threads=args.threads, widths=widths)
    train_s = time.time() - t_train

    # the held-out photos, true corners: read once for the record (never used to choose anything)
    held = {}
    for name, samples in (("mixed", mixed_held), ("handwritten", hand_held)):
        hx, hy = gather([(s, 1, 0, 0.0) for s in samples], photo_crops, 1)
        acc = float((predict(model, hx) == hy).mean()) if len(hy) else float("nan")
        held[name] = {"accuracy": round(acc, 4), "cells": len(hy)}
        print(f"held-out {name} entries: accuracy {acc:.4f} ({len(hy)} cells, true corners)", flush=True)
    n_params = sum(p.numel() for p in model.parameters())
    meta = {
        "input": {"name": "crops", "shape": ["n", 1, SIZE, SIZE], "dtype": "float32",
                  "normalisation": f"ar_sudoku.vision.entries.entry_crops: from kinds.warp_views_grid's grid, the ink "
                                   f"blob of the cell (grid lines and neighbours left out), ink = local paper - pixel "
                                   f"over the strokes' own darkness (0..1), its bounding box scaled so the longer "
                                   f"side is {FIT} px, aspect kept, centred in {SIZE}x{SIZE}"},
        "output": {"name": "logits", "shape": ["n", len(CLASSES)]},
        "classes": CLASSES,
        "training_data": {
            "synthetic_pages": args.pages, "synthetic_entries": len(xs_s), "print_fonts": n_print,
            "handwriting_fonts": n_hand, "red_handwriting_masks": n_bank,
            "mixed_photo_entries": len(xs_m), "mixed_photos_train": len(mixed_train),
            "mixed_jitters": args.mixed_jitters,
            "handwritten_photo_entries": len(xs_h), "handwritten_photos_train": len(hand_train),
            "hand_jitters": args.hand_jitters,
            "handwritten_puzzles_held_out": list(HELD_OUT),
            "mixed_photos_held_out": sorted(s.name for s in mixed_held),
            "class_counts": counts, "degraded": args.degraded, "screen_share": SCREEN_SHARE,
            "tuning_puzzles_left_out": args.tuning,
        },
        "held_out_accuracy": {**held, "note": "true corners; scripts/eval_entries.py compares with the kind model"},
        "network": {"conv_widths": list(widths), "parameters": n_params},
        "loss_weights": {"synthetic": 1.0, "mixed_photos": 1.0, "handwritten_photos": args.hand_weight},
        "epochs": args.epochs, "seed": args.seed, "data_seconds": round(data_s), "train_seconds": round(train_s),
        "total_seconds": None, "command": "python scripts/train_entries.py " + " ".join(sys.argv[1:]),
    }
    meta["total_seconds"] = round(time.time() - t0)
    export(model, args.out, meta)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {n_params} parameters) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
