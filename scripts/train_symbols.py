"""Train the 16x16 pages' symbol model and export ``models/symbols.onnx`` (+ ``symbols.json``).

25 classes (``ar_sudoku.vision.sizes.GLYPHS``): not a symbol, the glyphs 0-9 and A-G, and the numbers
10-16 printed in one cell, so every style a 16x16 page uses (1-9 then A-G, 0-F, 1-16) reads with one model.
Data, all made here: 3x3-cell pieces of a printed grid (thin and thick lines, neighbours printed or blank)
with a symbol in the middle cell, drawn from the Latin print fonts ``train_digits.find_fonts`` finds (and
OpenCV's Hershey faces) except DejaVu and Liberation, which the benchmark's pages are printed in
(``sized_pages.PAGE_FONTS``: they are the validation set here too); then perspective, blur, scale, noise
and uneven ink, and the app's own cutter (``cells.normalise``, ``sizes.symbol_patch``), so training sees
what inference sees. Seeded; CPU, one torch thread.

    pip install torch==2.13.0 && pip install -e '.[train]'
    python scripts/train_symbols.py          # a few minutes on a shared 2-core machine
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.cells import CELL, INPUT, normalise
from ar_sudoku.vision.sizes import GLYPHS, symbol_patch
from sized_pages import page_fonts
from train_digits import HERSHEY, accuracy, distinct_glyphs, export_onnx, find_fonts, fit

ROOT = Path(__file__).resolve().parents[1]
BIG = 64  # px a cell where the patch is drawn, before the camera scales it


@lru_cache(maxsize=8192)
def _face(path: Path, size: int):
    """A font at a size, loaded once (a Type 1 face takes milliseconds to load)."""
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def _draw(img: np.ndarray, text: str, centre: tuple[float, float], height: float, width: float,
          font: Path | int, rng: random.Random) -> None:
    """White ``text`` on ``img`` (uint8, one channel), its ink ``height`` tall and at most ``width`` wide."""
    if isinstance(font, int):  # a Hershey face
        scale = height / cv2.getTextSize("8", font, 1.0, 1)[0][1]
        th = max(1, round(scale * rng.uniform(1.0, 2.4)))
        (w, h), _ = cv2.getTextSize(text, font, scale, th)
        if w > width:
            scale *= width / w
            (w, h), _ = cv2.getTextSize(text, font, scale, th)
        cv2.putText(img, text, (round(centre[0] - w / 2), round(centre[1] + h / 2)), font, scale, 255, th,
                    cv2.LINE_AA)
        return
    from PIL import Image, ImageDraw

    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    face = _face(font, 40)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=face)
    k = min(height / max(1, y1 - y0), width / max(1, x1 - x0))
    face = _face(font, max(6, round(40 * k)))
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=face)
    draw.text((centre[0] - (x0 + x1) / 2, centre[1] - (y0 + y1) / 2), text, fill=255, font=face)
    img[:] = np.asarray(pil)


def sample(rng: random.Random, fonts: list[Path | int]) -> tuple[np.ndarray | None, int]:
    """One cell's model input and its class, from a photographed 3x3 piece of a printed 16x16 grid."""
    label = rng.randrange(len(GLYPHS)) if rng.random() > 0.04 else 0
    font = rng.choice(fonts)
    ink = np.zeros((3 * BIG, 3 * BIG), np.uint8)
    height = rng.uniform(0.4, 0.62) * BIG
    for r in range(3):
        for c in range(3):
            if (r, c) == (1, 1):
                text = GLYPHS[label]
            elif rng.random() < 0.5:
                text = rng.choice(GLYPHS[1:])
            else:
                continue
            if not text:
                continue
            dx, dy = rng.gauss(0, 0.04) * BIG, rng.gauss(0, 0.04) * BIG
            _draw(ink, text, ((c + 0.5) * BIG + dx, (r + 0.5) * BIG + dy), height, rng.uniform(0.7, 0.88) * BIG,
                  font, rng)
    if label == 0:  # a speck or a smudge where no symbol is: what the cutter may let through
        for _ in range(rng.randint(1, 3)):
            x, y = rng.uniform(0.3, 0.7) * BIG + BIG, rng.uniform(0.3, 0.7) * BIG + BIG
            cv2.ellipse(ink, (round(x), round(y)), (rng.randint(2, 12), rng.randint(1, 6)), rng.uniform(0, 180),
                        0, 360, 255, -1)
    thin, thick = max(1, round(rng.uniform(0.5, 2.0))), rng.randint(3, 6)
    heavy = [rng.random() < 0.25 for _ in range(8)]
    for k in range(4):
        cv2.line(ink, (k * BIG, 0), (k * BIG, 3 * BIG), 255, thick if heavy[k] else thin)
        cv2.line(ink, (0, k * BIG), (3 * BIG, k * BIG), 255, thick if heavy[4 + k] else thin)
    paper, dark = rng.uniform(150, 250), rng.uniform(0, 90)
    img = paper - (paper - dark) * (ink.astype(np.float32) / 255.0)
    # a camera: a little perspective, a scale (the photo's cell size), blur, noise, back to CELL px a cell
    side = 3 * BIG
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    jit = src + np.float32([[rng.gauss(0, 0.02) * side, rng.gauss(0, 0.02) * side] for _ in range(4)])
    img = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, jit), (side, side),
                              borderMode=cv2.BORDER_REPLICATE)
    px = rng.uniform(14, 40)  # px a cell in the photo
    small = cv2.resize(img, (round(3 * px), round(3 * px)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.1))
    small += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(1, 8), small.shape)
    grid = cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (3 * CELL, 3 * CELL), interpolation=cv2.INTER_LINEAR)
    norm = normalise(grid, CELL)
    cell = norm[CELL:2 * CELL, CELL:2 * CELL]
    patch = symbol_patch(cell)
    if patch is None:
        return None, label
    return patch, label


def _chunk(count: int, seed: int, fonts: list[Path | int]) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    xs, ys = [], []
    while len(xs) < count:
        p, y = sample(rng, fonts)
        if p is not None:
            xs.append(p)
            ys.append(y)
    return np.stack(xs).astype(np.float32), np.asarray(ys, np.int64)


def samples(count: int, seed: int, fonts: list[Path | int], workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``count`` cells made in ``workers`` processes, chunk k seeded ``seed * 1000 + k`` (the same cells
    whatever the number of workers)."""
    from multiprocessing import Pool

    chunks = 8
    size = -(-count // chunks)
    jobs = [(min(size, count - k * size), seed * 1000 + k, fonts) for k in range(chunks) if count > k * size]
    with Pool(workers) as pool:
        parts = pool.starmap(_chunk, jobs)
    return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])


def build_model():
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(1, 16), *block(16, 32), *block(32, 64),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 3 * 3, 96), nn.ReLU(), nn.Linear(96, len(GLYPHS)),
    )


def augment(x, rng_t):
    """Small shifts and ink-strength changes on the fly, so epochs differ."""
    import torch

    shift = torch.randint(-1, 2, (2,), generator=rng_t)
    x = torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
    gain = 0.7 + 0.6 * torch.rand(x.shape[0], 1, 1, 1, generator=rng_t)
    return (x * gain).clamp(0, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=24000, help="training cells (default 24000)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "symbols.onnx")
    args = ap.parse_args()
    import torch
    import torch.nn as nn

    torch.set_num_threads(1)
    t0 = time.time()
    held = {p.name for p in page_fonts()}
    fonts: list[Path | int] = [p for p in find_fonts() if p.name not in held and "dejavu" not in str(p).lower()
                               and "liberation" not in str(p).lower() and distinct_glyphs(p, "0123456789ABCDEFG")]
    print(f"{len(fonts)} training fonts, {len(held)} held out ({time.time() - t0:.0f} s)", flush=True)
    xs, ys = samples(args.samples, args.seed, fonts + list(HERSHEY))
    val_fonts: list[Path | int] = list(page_fonts())
    xv, yv = samples(args.samples // 10, args.seed + 1000, val_fonts)
    print(f"{len(xs)} training cells, {len(xv)} validation cells (held-out fonts) ({time.time() - t0:.0f} s)",
          flush=True)
    torch.manual_seed(args.seed)
    model = build_model()
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    model = fit(model, torch.from_numpy(xs).unsqueeze(1), torch.from_numpy(ys), epochs=args.epochs, batch=256,
                steps=args.epochs * (len(xs) // 256 + 1), g=torch.Generator().manual_seed(args.seed),
                augment=augment, batch_loss=lambda out, yb, idx: lossf(out, yb))
    acc = accuracy(model, xv, yv)
    print(f"validation accuracy (held-out fonts): {acc:.4f}")
    meta = {
        "input": {"name": "cells", "shape": ["n", 1, INPUT, INPUT], "dtype": "float32",
                  "normalisation": "ink-normalised cell crop from ar_sudoku.vision.sizes.symbol_patch: 0 = paper, "
                                   "1 = ink, the cell's glyphs (two for 10-16) fitted together to 20 px and centred"},
        "output": {"name": "logits", "shape": ["n", len(GLYPHS)]},
        "classes": ["not-a-symbol", *GLYPHS[1:]],
        "training_data": {"synthetic_cells": len(xs), "fonts": len(fonts), "hershey_faces": len(HERSHEY),
                          "held_out_fonts": sorted(held)},
        "validation_accuracy": {"held_out_fonts": round(acc, 4), "cells": len(xv)},
        "epochs": args.epochs, "seed": args.seed,
        "command": "python scripts/train_symbols.py " + " ".join(sys.argv[1:]),
    }
    export_onnx(model, args.out, INPUT, "cells", meta)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
