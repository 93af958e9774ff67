"""Train the killer page's two models and export ``models/killer_sums.onnx`` and ``models/killer_borders.onnx``.

Both learn from rendered pages only, drawn here by a training renderer of their own: random cuttings of
random grids into cages, each page in a random look (dashed or dotted outlines of any inset, dash, dot and
width; pale shading in random colours or greys (some a few levels apart, as newsprint shades), with or
without an outline; thin and thick grid lines of random
weight and grey; givens here and there), and each cage's sum (any of 1-45, so every number is seen as
often) printed small in its first cell's top-left corner in a random face: the print faces installed here
less those renderer B prints in (DejaVu, Liberation, FreeFont, Noto, Roboto: the held-out evaluation's
faces are never trained on), and OpenCV's Hershey faces. Each page is photographed
(``killer_pages.photograph``: perspective, light, blur, noise, JPEG; some pages also through
``degrade.camera``), its grid found by the app's own finder (its corners as the reader will get them), and
cut with :mod:`ar_sudoku.vision.cages` exactly as the reader cuts:

- the sum model reads every cell's top-left corner: 0 (no sum) or 1-45; a quarter of the pages are also cut
  turned by a quarter, a half or three quarters, every corner labelled 0 there, so that a sum seen sideways
  is no sum (which is how the reader tells which way is up);
- the border model says whether the two cells of a border lie in different cages.

    pip install torch==2.13.0 && pip install -e '.[train]'
    python scripts/train_killer.py                 # about 40 minutes on 2 cores
    python scripts/train_killer.py --pages 200 --epochs 2 --out-dir /tmp/k   # a quick try
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.sudoku.generator import _full_grid
from ar_sudoku.sudoku.killer import SIDE, make_killer
from ar_sudoku.sudoku.killer_generator import cut_cages
from ar_sudoku.sudoku.killer_reading import border_cells
from ar_sudoku.vision.cages import GEOMETRY, SUM_HEADS, border_patches, squared, sum_crops
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.killer_render import cage_colours, cage_segments, dashes
from ar_sudoku.vision.quads import to_gray
from degrade import camera
from killer_pages import KillerPage, photograph
from train_digits import HERSHEY, find_fonts

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT_FACES = ("dejavu", "liberation", "freefont", "noto", "roboto")  # renderer B's: never trained on


def training_fonts() -> list[Path]:
    return [p for p in find_fonts() if not any(h in str(p).lower() for h in HELD_OUT_FACES)]


# --------------------------------------------------------------------------- the training renderer


def _pastels(rng: random.Random) -> list[tuple[int, int, int]]:
    """Four to six pale colours (BGR), or greys, for shaded cages: some greys as newsprint shades, a few levels
    apart (the sums small on them, the borders only a change of grey)."""
    n = rng.randint(4, 6)
    if rng.random() < 0.2:
        levels = rng.sample(range(200, 256, 6), n)
        return [(v, v, v) for v in levels]
    if rng.random() < 0.25:
        top, step = rng.randint(238, 255), rng.randint(7, 16)
        return [(top - k * step,) * 3 for k in range(n)]
    out = []
    for _ in range(n):
        hsv = np.uint8([[[rng.randrange(180), rng.randint(10, 70), rng.randint(215, 255)]]])
        out.append(tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]))
    if rng.random() < 0.5:
        out[0] = (255, 255, 255)
    return out


def _text(img: np.ndarray, text: str, top_left: tuple[float, float], height: float, font: Path | int,
          ink: tuple[int, int, int], clear: tuple[int, int, int] | None) -> None:
    """``text`` with its ink's top-left at ``top_left``, ``height`` px tall (a PIL face or a Hershey one)."""
    if isinstance(font, int):
        scale = height / cv2.getTextSize("8", font, 1.0, 1)[0][1]
        th = max(1, round(scale * random.Random(text).uniform(1.0, 2.0)))
        (w, h), _ = cv2.getTextSize(text, font, scale, th)
        x, y = round(top_left[0]), round(top_left[1])
        if clear is not None:
            cv2.rectangle(img, (x - 2, y - 2), (x + w + 2, y + h + 2), clear, -1)
        cv2.putText(img, text, (x, y + h), font, scale, ink, th, cv2.LINE_AA)
        return
    from PIL import Image, ImageDraw, ImageFont

    # drawn on a patch around the text only: the whole page through Pillow for each sum is the slow part
    x0, y0 = max(0, int(top_left[0] - height)), max(0, int(top_left[1] - height))
    x1, y1 = min(img.shape[1], int(top_left[0] + 4 * height)), min(img.shape[0], int(top_left[1] + 3 * height))
    pil = Image.fromarray(np.ascontiguousarray(img[y0:y1, x0:x1]))
    draw = ImageDraw.Draw(pil)
    face = ImageFont.truetype(str(font), 60)
    bx0, by0, bx1, by1 = draw.textbbox((0, 0), "8", font=face)
    face = ImageFont.truetype(str(font), max(6, round(60 * height / max(1, by1 - by0))))
    bx0, by0, bx1, by1 = draw.textbbox((0, 0), text, font=face)
    x, y = top_left[0] - x0 - bx0, top_left[1] - y0 - by0
    if clear is not None:
        draw.rectangle((x + bx0 - 2, y + by0 - 2, x + bx1 + 2, y + by1 + 2), fill=clear)
    draw.text((x, y), text, fill=ink, font=face)
    img[y0:y1, x0:x1] = np.asarray(pil)


def training_page(rng: random.Random, fonts: list[Path | int]) -> tuple[KillerPage, list[int]]:
    """A page in a random look; its cages' printed numbers (any of 1-45, or the true sums)."""
    solution = _full_grid(rng)
    weights = rng.choice(((0.03, 0.32, 0.35, 0.22, 0.08), (0.0, 0.1, 0.2, 0.25, 0.2, 0.15, 0.1)))
    cuts = cut_cages(solution, rng, weights)
    true_sums = [sum(int(solution[c]) for c in cage) for cage in cuts]
    shown = true_sums if rng.random() < 0.3 else [rng.randint(1, 45) for _ in cuts]
    givens = "".join(solution[i] if rng.random() < rng.choice((0.0, 0.03, 0.08)) else "." for i in range(81))
    killer = make_killer(givens, list(zip(true_sums, cuts)))
    cell = rng.randint(44, 80)
    margin = rng.randint(40, 100)
    side = SIDE * cell
    paper = tuple(rng.randint(225, 255) for _ in range(3)) if rng.random() < 0.3 else (rng.randint(232, 252),) * 3
    img = np.full((side + 2 * margin, side + 2 * margin, 3), paper, np.uint8)
    x0 = y0 = margin
    style = rng.choice(("dashed", "dotted", "shaded", "shaded+dashed"))

    def px(x: float, y: float) -> tuple[int, int]:
        return round(x0 + x * cell), round(y0 + y * cell)

    if style.startswith("shaded"):
        pal = _pastels(rng)
        for cage, k in zip(killer.cages, cage_colours(killer, len(pal))):
            for i in cage.cells:
                r, c = divmod(i, SIDE)
                cv2.rectangle(img, px(c, r), px(c + 1, r + 1), pal[k], -1)
    ink = (rng.randint(0, 60),) * 3
    if style != "shaded":
        inset, width = rng.uniform(0.04, 0.17), max(1, round(rng.uniform(0.012, 0.045) * cell))
        dash, gap = ((0.001, rng.uniform(0.04, 0.1)) if style == "dotted"
                     else (rng.uniform(0.03, 0.16), rng.uniform(0.03, 0.1)))
        for cage in killer.cages:
            for seg in cage_segments(cage.cells, inset):
                for a, b, c, d in dashes(seg, dash, gap):
                    cv2.line(img, px(a, b), px(c, d), ink, width, cv2.LINE_AA)
    thin, thick = rng.uniform(0.008, 0.04), rng.uniform(0.045, 0.11)
    grey = (rng.randint(0, 150),) * 3
    for k in range(SIDE + 1):
        w = max(1, round((thick if k % 3 == 0 else thin) * cell))
        colour = ink if k % 3 == 0 else grey
        cv2.line(img, px(k, 0), px(k, SIDE), colour, w)
        cv2.line(img, px(0, k), px(SIDE, k), colour, w)
    font = rng.choice(fonts)
    height = rng.uniform(0.14, 0.28) * cell
    at = (rng.uniform(0.03, 0.12), rng.uniform(0.02, 0.1))
    clear = paper if style != "shaded" and rng.random() < 0.6 else None
    for cage, number in zip(killer.cages, shown):
        r, c = divmod(cage.first, SIDE)
        _text(img, str(number), (x0 + (c + at[0]) * cell, y0 + (r + at[1]) * cell), height, font, ink, clear)
    digit_font = rng.choice(fonts)
    for i, v in enumerate(killer.givens.cells):
        if v:
            r, c = divmod(i, SIDE)
            h = rng.uniform(0.45, 0.6) * cell
            _text(img, str(v), (x0 + (c + 0.5) * cell - 0.3 * h, y0 + (r + 0.5) * cell - 0.5 * h), h, digit_font,
                  ink, None)
    corners = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])
    return KillerPage(img, corners, killer, solution, style), shown


# --------------------------------------------------------------------------- samples


SIZES = ((1280, 720), (960, 720), (800, 600), (640, 480))
KEEP_BLANK = 0.35  # the share of blank corners kept as samples
KEEP_BORDER = 0.5  # ... and of borders


def page_samples(seed: int, fonts: list[Path | int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One page's corner crops and labels, and its border strips and labels."""
    rng = random.Random(seed)
    page, shown = training_page(rng, fonts)
    photo = photograph(page, rng, rng.choice(SIZES), strength=rng.uniform(0.4, 1.3))
    image = photo.image
    if rng.random() < 0.3:
        side = float(np.linalg.norm(photo.corners[1] - photo.corners[0]))
        shot = camera(image, rng, side, strength=0.5)
        image = shot.image
        photo = KillerPage(image, photo.corners * shot.scale, photo.killer, photo.solution, photo.style)
    quad = find_grid(to_gray(image))
    cell = float(np.linalg.norm(photo.corners[1] - photo.corners[0])) / SIDE
    corners = photo.corners
    if quad is not None and np.abs(quad.corners - photo.corners).max() < 0.3 * cell:
        corners = quad.corners
    corners = corners + np.float32([[rng.gauss(0, 0.03 * cell) for _ in range(2)] for _ in range(4)])
    square = squared(image, corners)
    labels = np.zeros(81, np.int64)
    for cage, number in zip(page.killer.cages, shown):
        labels[cage.first] = number
    crops = sum_crops(square)
    cage_of = page.killer.cage_of()
    parts = np.array([int(cage_of[a] != cage_of[b]) for a, b in map(border_cells, range(144))], np.int64)
    patches = border_patches(square)
    if rng.random() < 0.25:  # turned: every corner holds no upright sum
        crops = np.concatenate([crops, sum_crops(np.ascontiguousarray(np.rot90(square, rng.randint(1, 3))))])
        labels = np.concatenate([labels, np.zeros(81, np.int64)])
    # every sum, a share of the blank corners and of the borders: the blanks are alike, and the time goes on sums
    keep = np.array([y > 0 or rng.random() < KEEP_BLANK for y in labels])
    some = np.array([rng.random() < KEEP_BORDER for _ in parts])
    return crops[keep], labels[keep], patches[some], parts[some]


def _chunk(seeds: list[int], fonts: list[Path | int]) -> tuple[np.ndarray, ...]:
    cv2.setNumThreads(1)
    out = [page_samples(s, fonts) for s in seeds]
    return tuple(np.concatenate([o[k] for o in out]) for k in range(4))


def samples(pages: int, seed: int, fonts: list[Path | int], workers: int = 2) -> tuple[np.ndarray, ...]:
    seeds = [seed * 100_000 + k for k in range(pages)]
    jobs = [(seeds[k::workers * 8], fonts) for k in range(workers * 8)]
    with Pool(workers) as pool:
        parts = pool.starmap(_chunk, jobs)
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


# --------------------------------------------------------------------------- models


def sum_model(fused: bool = False):
    """The sum model; ``fused``: its convolutions carry their batch norm (as an exported model does, to train on
    from one: :func:`from_onnx`)."""
    import torch.nn as nn

    def block(cin: int, cout: int, pool: bool = True) -> list:
        if fused:
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), *([nn.MaxPool2d(2)] if pool else [])]
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                *([nn.MaxPool2d(2)] if pool else [])]

    h, w = GEOMETRY.sum_size
    return nn.Sequential(*block(1, 24), *block(24, 48), *block(48, 64), nn.Flatten(), nn.Dropout(0.3),
                         nn.Linear(64 * (h // 8) * (w // 8), 128), nn.ReLU(), nn.Linear(128, sum(SUM_HEADS)))


def from_onnx(path: Path):
    """The sum model of an exported ``killer_sums.onnx`` (batch norm fused into its convolutions), to train on."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = sum_model(fused=True)
    weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    convs = [weights[n] for n in sorted((n for n in weights if n.startswith("onnx::Conv_")),
                                        key=lambda n: int(n.rsplit("_", 1)[1]))]
    layers = [m for m in model if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    linears = [(weights[f"{k}.weight"], weights[f"{k}.bias"]) for k in sorted(
        {n.split(".")[0] for n in weights if n.endswith(".weight")}, key=int)]
    pairs = [(convs[2 * i], convs[2 * i + 1]) for i in range(len(convs) // 2)] + linears
    with torch.no_grad():
        for layer, (w, b) in zip(layers, pairs):
            layer.weight.copy_(torch.from_numpy(np.array(w)))
            layer.bias.copy_(torch.from_numpy(np.array(b)))
    return model


def border_model():
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]

    along, across = GEOMETRY.border_size
    return nn.Sequential(*block(3, 12), *block(12, 24), *block(24, 32), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(32 * (along // 8) * (across // 8), 48), nn.ReLU(), nn.Linear(48, 2))


def _augment_sums(x, g, strong: bool = False):
    """A shift of a pixel and a gain; ``strong`` (``--augment strong``): each crop also scaled, sheared and
    moved a little (another face's size and slant, a corner cut a little off), its strokes made bolder or
    thinner, or blurred, so that faces and printing not trained on look like some that were."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    if strong:
        def uniform(lo: float, hi: float):
            return lo + (hi - lo) * torch.rand(n, generator=g)

        scale, shear = uniform(0.85, 1.15), uniform(-0.12, 0.12)
        aspect = uniform(0.9, 1.1)
        theta = torch.zeros(n, 2, 3)
        theta[:, 0, 0], theta[:, 0, 1], theta[:, 1, 1] = scale * aspect, shear, scale / aspect
        theta[:, 0, 2], theta[:, 1, 2] = uniform(-0.1, 0.1), uniform(-0.1, 0.1)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
        pick = torch.rand(n, 1, 1, 1, generator=g)
        bolder = F.max_pool2d(x, 3, 1, 1)
        thinner = -F.max_pool2d(-x, 3, 1, 1)
        blurred = F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
        x = torch.where(pick < 0.15, 0.5 * (x + bolder), torch.where(
            pick < 0.3, 0.5 * (x + thinner), torch.where(pick < 0.45, blurred, x)))
    else:
        shift = torch.randint(-1, 2, (2,), generator=g)
        x = torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
    gain = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=g)
    return (x * gain).clamp(0, 1)


def _augment_borders(x, g):
    import torch

    gain = 0.85 + 0.3 * torch.rand(x.shape[0], 1, 1, 1, generator=g)
    return torch.cat([x[:, :1] * gain, x[:, 1:] * (0.7 + 0.6 * torch.rand(x.shape[0], 1, 1, 1, generator=g))], 1)


def train(model, xs: np.ndarray, ys: np.ndarray, epochs: int, seed: int, augment, weights=None):
    import torch
    import torch.nn as nn

    from train_digits import fit

    torch.manual_seed(seed)
    lossf = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.02)
    return fit(model, torch.from_numpy(xs), torch.from_numpy(ys), epochs=epochs, batch=256,
               steps=epochs * (len(xs) // 256 + 1), g=torch.Generator().manual_seed(seed), augment=augment,
               batch_loss=lambda out, yb, idx: lossf(out, yb))


def sum_loss(out, yb):
    """A sum or none, and for a sum its tens and units digits: three cross-entropies over the heads."""
    import torch.nn.functional as F

    a, b = SUM_HEADS[0], SUM_HEADS[0] + SUM_HEADS[1]
    present = (yb > 0).long()
    loss = F.cross_entropy(out[:, :a], present, label_smoothing=0.02)
    some = yb > 0
    if some.any():
        loss = loss + F.cross_entropy(out[some, a:b], yb[some] // 10, label_smoothing=0.02) \
            + F.cross_entropy(out[some, b:], yb[some] % 10, label_smoothing=0.02)
    return loss


def train_sums(model, xs: np.ndarray, ys: np.ndarray, epochs: int, seed: int, lr: float = 3e-3,
               strong: bool = False):
    """AdamW with a one-cycle schedule over shuffled, augmented batches; the accuracy printed is the whole
    number's (no sum, or both digits right)."""
    import torch

    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    x_all, y_all = torch.from_numpy(xs), torch.from_numpy(ys)
    batch, n = 256, len(ys)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * (n // batch + 1))
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(n, generator=g)
        total, correct, t0 = 0.0, 0, time.time()
        for k in range(0, n, batch):
            idx = perm[k:k + batch]
            xb, yb = _augment_sums(x_all[idx], g, strong), y_all[idx]
            opt.zero_grad()
            out = model(xb)
            loss = sum_loss(out, yb)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            correct += int((_numbers(out.detach().numpy()) == yb.numpy()).sum())
        print(f"sums epoch {ep + 1}/{epochs}: loss {total / n:.4f}, train acc {correct / n:.4f}, "
              f"{time.time() - t0:.0f} s", flush=True)
    model.eval()
    return model


def _numbers(logits: np.ndarray) -> np.ndarray:
    from ar_sudoku.vision.cages import sum_odds

    return sum_odds(logits).argmax(axis=1)


def predict(model, xs: np.ndarray, numbers: bool = False) -> np.ndarray:
    import torch

    with torch.no_grad():
        outs = [model(torch.from_numpy(xs[k:k + 2048])).numpy() for k in range(0, len(xs), 2048)]
    logits = np.concatenate(outs)
    return _numbers(logits) if numbers else logits.argmax(axis=1)


def _lineage(path: Path) -> dict:
    """What a model trained on from ``path`` started from: that model's hash and how it was made (its .json)."""
    meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    keep = ("sha256", "command", "epochs", "seed", "training_data", "validation", "resumed_from")
    return {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), **{k: meta[k] for k in keep if k in meta}}


def export(model, out: Path, shape: tuple[int, ...], input_name: str, meta: dict) -> None:
    """``model`` as ONNX (a batch of ``shape`` in, logits out) and its ``.json`` metadata (sha256 and size)."""
    import torch

    buf = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, *shape), buf, input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    data = buf.getvalue()
    out.write_bytes(data)
    meta["sha256"] = hashlib.sha256(data).hexdigest()
    meta["bytes"] = len(data)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1600, help="training pages (default 1600)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out-dir", type=Path, default=ROOT / "models")
    ap.add_argument("--cache", type=Path, help="keep the samples in this .npz (made once, then read back)")
    ap.add_argument("--only", choices=("sums", "borders"), help="train one of the two models")
    ap.add_argument("--augment", choices=("light", "strong"), default="light",
                    help="the sum crops' augmentation: a pixel's shift and a gain, or also scale, slant and stroke")
    ap.add_argument("--threads", type=int, default=2, help="torch threads and sample workers (default 2)")
    ap.add_argument("--resume", type=Path, help="an exported killer_sums.onnx to train on from (at a third of the "
                                                "learning rate)")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    t0 = time.time()
    fonts: list[Path | int] = [*training_fonts(), *HERSHEY]
    print(f"{len(fonts)} faces ({len(HERSHEY)} Hershey); held out: {', '.join(HELD_OUT_FACES)}", flush=True)
    if args.cache is not None and args.cache.exists():
        data = np.load(args.cache)
        xs, ys, xb, yb, xv, yv, xbv, ybv = (data[k] for k in ("xs", "ys", "xb", "yb", "xv", "yv", "xbv", "ybv"))
    else:
        xs, ys, xb, yb = samples(args.pages, args.seed, fonts, args.threads)
        xv, yv, xbv, ybv = samples(max(20, args.pages // 10), args.seed + 7, fonts, args.threads)
        if args.cache is not None:
            np.savez(args.cache, xs=xs, ys=ys, xb=xb, yb=yb, xv=xv, yv=yv, xbv=xbv, ybv=ybv)
    print(f"{len(xs)} corners ({int((ys > 0).sum())} sums), {len(xb)} borders ({int(yb.sum())} parting cages); "
          f"validation {len(xv)} corners, {len(xbv)} borders ({time.time() - t0:.0f} s)", flush=True)
    common = {"training_data": {"pages": args.pages, "faces": len(fonts), "held_out_faces": list(HELD_OUT_FACES)},
              "epochs": args.epochs, "seed": args.seed,
              "command": "python scripts/train_killer.py " + " ".join(sys.argv[1:])}
    if args.only in (None, "sums"):
        sums = sum_model() if args.resume is None else from_onnx(args.resume)
        sums = train_sums(sums, xs[:, None], ys, args.epochs, args.seed, 3e-3 if args.resume is None else 1e-3,
                          args.augment == "strong")
        sum_acc = float((predict(sums, xv[:, None], numbers=True) == yv).mean())
        sum_seen = float((predict(sums, xv[yv > 0][:, None], numbers=True) == yv[yv > 0]).mean())
        print(f"validation: corners {sum_acc:.4f} (sums read {sum_seen:.4f})", flush=True)
        h, w = GEOMETRY.sum_size
        export(sums, args.out_dir / "killer_sums.onnx", (1, h, w), "corners", {
            "input": {"name": "corners", "shape": ["n", 1, h, w], "dtype": "float32",
                      "normalisation": "ar_sudoku.vision.cages.sum_crops: a cell's top-left corner, 0 paper, 1 ink"},
            "output": {"name": "logits", "shape": ["n", sum(SUM_HEADS)],
                       "heads": "no sum / a sum (2), its tens digit 0-4 (5), its units digit 0-9 (10): "
                                "ar_sudoku.vision.cages.sum_odds"},
            "validation": {"corners": round(sum_acc, 4), "sums_read": round(sum_seen, 4)}, **common,
            **({} if args.resume is None else {"resumed_from": _lineage(args.resume)})})
    if args.only in (None, "borders"):
        borders = train(border_model(), xb, yb, args.epochs, args.seed, _augment_borders)
        border_acc = float((predict(borders, xbv) == ybv).mean())
        print(f"validation: borders {border_acc:.4f}", flush=True)
        along, across = GEOMETRY.border_size
        export(borders, args.out_dir / "killer_borders.onnx", (3, along, across), "borders", {
            "input": {"name": "borders", "shape": ["n", 3, along, across], "dtype": "float32",
                      "normalisation": "ar_sudoku.vision.cages.border_patches: grey over the page's paper, Lab a "
                                       "and b about the page's own over 12"},
            "output": {"name": "logits", "shape": ["n", 2]}, "classes": ["same-cage", "two-cages"],
            "validation": {"borders": round(border_acc, 4)}, **common})
    print(f"wrote the models to {args.out_dir} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
