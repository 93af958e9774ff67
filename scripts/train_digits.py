"""Train the printed-digit model from scratch and export ``models/digits.onnx``.

Data (all made or read here, nothing downloaded):
  * synthetic cells: digits 1-9 rendered from every Latin font the Debian font
    packages install (plus OpenCV's Hershey faces), in a 3x3 patch of grid with
    neighbours, then put through what a phone camera does (perspective, blur,
    noise, JPEG, uneven light, off-centre crops) and through the app's own cell
    pipeline (``ar_sudoku.vision.cells``), so training sees what inference sees;
  * cells cut from the shared photos with their ``.dat`` labels, from the
    training split only (by puzzle: ``photos.held_out_puzzles``), warped with jittered corners.
Class 0 is "not a digit": ink that the cell cutter let through (line remnants,
specks). The held-out photos are read with their true corners and reported.
A share (``--degraded``, 0.5) of the synthetic patches and of the jittered photo cuts goes
through a random camera and room first (``scripts/degrade.py``, issue 21).

    pip install torch==2.13.0 && pip install -e '.[train]'
    apt-get install -y fonts-...             # the font packages scripts/train_cells.py lists
    python scripts/train_digits.py            # ~10 min on 2 cores

Without those packages a fresh machine has few faces (seen: 20 against the shipped model's 145),
and the model trained is not the one shipped: the script says so.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.cells import CELL, INPUT, cut_cells, digit_patch, normalise, warp_grid
from ar_sudoku.vision.quads import to_gray
from degrade import camera, glared_cells
from photos import DEFAULT_DIR, held_out_puzzles, load

ROOT = Path(__file__).resolve().parents[1]
FONT_DIRS = [Path("/usr/share/fonts")]
SKIP_FONTS = ("D050000L", "Symbol", "Z003", "Math", "ExtraLight", "Noto")
HERSHEY = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN]


# --------------------------------------------------------------------------- fonts


# handwriting-like font packages (installed for scripts/train_cells.py): never "print"
HAND_FONT_DIRS = ("breip", "bwht", "comic-neue", "dancingscript", "kaushanscript", "ecolier-court", "femkeklaver",
                  "fifthhorseman", "humor-sans", "klee", "kristi", "rufscript", "seto", "sjfonts", "tomsontalks",
                  "yozvox", "yusei-magic", "cabinsketch")


def distinct_glyphs(path: Path, chars: str) -> bool:
    """The font draws each of ``chars`` as a glyph of its own (not boxes or one fallback shape)."""
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    glyphs = set()
    for ch in chars:
        im = Image.new("L", (80, 60), 0)
        ImageDraw.Draw(im).text((10, 5), ch, fill=255, font=font)
        glyphs.add(im.tobytes())
    return len(glyphs) == len(chars)


def nine_digits(path: Path) -> bool:
    """The font renders 1-9 as nine different glyphs."""
    return distinct_glyphs(path, "123456789")


def find_fonts() -> list[Path]:
    """Latin print fonts whose digits render as nine different glyphs (handwriting faces left out)."""
    found = []
    for d in FONT_DIRS:
        for p in sorted(d.rglob("*")):
            if p.suffix.lower() not in (".ttf", ".otf", ".t1") or any(s in p.name for s in SKIP_FONTS):
                continue
            if any(h in p.parts for h in HAND_FONT_DIRS):
                continue
            if p.suffix.lower() == ".t1" and p.with_suffix(".otf").exists():
                continue
            if nine_digits(p):
                found.append(p)
    # NotoSans/NotoSerif Latin faces are worth having; the rest of Noto is other scripts
    for p in sorted(Path("/usr/share/fonts/truetype/noto").glob("Noto*-*.ttf")):
        if p.name.split("-")[0] in ("NotoSans", "NotoSerif", "NotoSansMono") and "Italic" not in p.name:
            found.append(p)
    return found


# --------------------------------------------------------------------------- synthetic cells


def render_digit(rng: random.Random, digit: int, side: int, fonts: list[Path]) -> np.ndarray:
    """A white-on-black digit image ``side`` x ``side``, font and size at random."""
    from PIL import Image, ImageDraw, ImageFont

    img = np.zeros((side, side), np.uint8)
    height = rng.uniform(0.45, 0.78) * side
    dx, dy = rng.gauss(0, 0.05) * side, rng.gauss(0, 0.05) * side
    if rng.random() < 0.12:
        font = rng.choice(HERSHEY)
        scale = height / cv2.getTextSize("8", font, 1.0, 1)[0][1]
        th = max(1, round(scale * rng.uniform(1.0, 2.6)))
        (w, h), _ = cv2.getTextSize(str(digit), font, scale, th)
        cv2.putText(img, str(digit), (round(side / 2 - w / 2 + dx), round(side / 2 + h / 2 + dy)),
                    font, scale, 255, th, cv2.LINE_AA)
        return img
    path = rng.choice(fonts)
    font = ImageFont.truetype(str(path), max(8, round(height * 1.35)))
    im = Image.new("L", (side, side), 0)
    draw = ImageDraw.Draw(im)
    x0, y0, x1, y1 = draw.textbbox((0, 0), str(digit), font=font)
    if y1 - y0 > 0:
        f = height / (y1 - y0)
        font = ImageFont.truetype(str(path), max(8, round(font.size * f)))
        x0, y0, x1, y1 = draw.textbbox((0, 0), str(digit), font=font)
    draw.text((side / 2 - (x0 + x1) / 2 + dx, side / 2 - (y0 + y1) / 2 + dy), str(digit), fill=255, font=font)
    return np.asarray(im)


def synth_patch(rng: random.Random, fonts: list[Path], degraded: float = 0.0) -> tuple[np.ndarray | None, int]:
    """A 3x3-cell piece of printed grid with the label of its centre cell.

    A share ``degraded`` of the patches goes through a random camera and room (``degrade.camera``:
    dim light and sensor noise, blur, motion, shadow, glare, JPEG) instead of the plain blur, noise
    and JPEG; a patch whose centre a glare washed out comes back as None (its digit may be gone).
    """
    s = 64
    canvas = np.zeros((3 * s, 3 * s), np.uint8)
    label = 0 if rng.random() < 0.12 else rng.randint(1, 9)
    for r in range(3):
        for c in range(3):
            d = label if (r, c) == (1, 1) else (rng.randint(1, 9) if rng.random() < 0.4 else 0)
            if d:
                canvas[r * s : (r + 1) * s, c * s : (c + 1) * s] = np.maximum(
                    canvas[r * s : (r + 1) * s, c * s : (c + 1) * s], render_digit(rng, d, s, fonts))
    thin = rng.randint(1, 3)
    for k in range(4):
        t = rng.choice([thin, thin, rng.randint(3, 7)])
        cv2.line(canvas, (k * s, 0), (k * s, 3 * s), 255, t)
        cv2.line(canvas, (0, k * s), (3 * s, k * s), 255, t)
    if label == 0 and rng.random() < 0.5:  # specks and smudges that a blank cell may show
        for _ in range(rng.randint(1, 4)):
            x, y = rng.randint(s, 2 * s), rng.randint(s, 2 * s)
            cv2.circle(canvas, (x, y), rng.randint(1, 6), 255, -1)
    paper = rng.uniform(120, 250)
    ink = rng.uniform(0, paper - 50)
    img = paper - (paper - ink) * (canvas.astype(np.float32) / 255.0)
    # uneven light: a linear gradient across the patch
    gx, gy = rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25)
    yy, xx = np.mgrid[0 : 3 * s, 0 : 3 * s] / (3 * s) - 0.5
    img = img * (1 + gx * xx + gy * yy)
    # perspective jitter of the whole patch, then the camera's resolution
    src = np.float32([[0, 0], [3 * s, 0], [3 * s, 3 * s], [0, 3 * s]])
    jit = src + np.float32([[rng.gauss(0, 3), rng.gauss(0, 3)] for _ in range(4)])
    m = cv2.getPerspectiveTransform(src, jit)
    img = cv2.warpPerspective(img, m, (3 * s, 3 * s), borderMode=cv2.BORDER_REPLICATE)
    low = rng.randint(14, 60)  # pixels per cell in the photo
    img = cv2.resize(img, (3 * low, 3 * low), interpolation=cv2.INTER_AREA)
    # the app warps the grid so a cell is CELL pixels; a detected corner is off by a little
    off = [rng.gauss(0, 0.04) * low for _ in range(8)]
    q = np.float32([[0, 0], [3 * low, 0], [3 * low, 3 * low], [0, 3 * low]]) + np.float32(off).reshape(4, 2)
    if rng.random() < degraded:
        shot = camera(np.clip(img, 0, 255).astype(np.uint8), rng, 9 * low)
        if shot.glare is not None and shot.glare[shot.glare.shape[0] // 2, shot.glare.shape[1] // 2] > 0.75:
            return None, label
        img, q = shot.image, q * np.float32(shot.scale)
    else:
        if rng.random() < 0.7:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
        img = img + np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(0, 8), img.shape)
        img = np.clip(img, 0, 255).astype(np.uint8)
        if rng.random() < 0.6:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(25, 90)])
            img = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    dst = np.float32([[0, 0], [3 * CELL, 0], [3 * CELL, 3 * CELL], [0, 3 * CELL]])
    warped = cv2.warpPerspective(img, cv2.getPerspectiveTransform(q, dst), (3 * CELL, 3 * CELL),
                                 flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return warped, label


def synth_samples(count: int, seed: int, fonts: list[Path], workers: int = 2,
                  degraded: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` cells, made in ``workers`` processes with seeds derived from ``seed``."""
    if workers > 1 and count >= 2000:
        from multiprocessing import Pool

        chunk = -(-count // (workers * 4))
        jobs = [(min(chunk, count - k * chunk), seed * 1000 + k, fonts, 1, degraded) for k in range(workers * 4)]
        with Pool(workers) as pool:
            parts = pool.starmap(synth_samples, [j for j in jobs if j[0] > 0])
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    rng = random.Random(seed)
    xs, ys = [], []
    while len(xs) < count:
        warped, label = synth_patch(rng, fonts, degraded)
        if warped is None:
            continue
        norm = normalise(warped, CELL)
        patch, _ = digit_patch(norm[CELL : 2 * CELL, CELL : 2 * CELL])
        if patch is None:
            continue  # the cutter calls it empty: the model never sees it
        xs.append(patch)
        ys.append(label)
    return np.stack(xs), np.array(ys, np.int64)


# --------------------------------------------------------------------------- photo cells


def upright(warped: np.ndarray, givens: str) -> np.ndarray:
    """Rotate a warped grid so its ink pattern matches the truth (some photos are sideways)."""
    want = np.array([ch != "." for ch in givens])
    best, best_k = -1, 0
    for k in range(4):
        has = cut_cells(np.ascontiguousarray(np.rot90(warped, k))).has_ink
        agree = int((has == want).sum())
        if agree > best:
            best, best_k = agree, k
    return np.ascontiguousarray(np.rot90(warped, best_k))


def photo_samples(photos, rng: random.Random, jitters: int, degraded: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The inked cells of the photos, cut with the true corners, then ``jitters - 1`` times with jittered
    ones; a share ``degraded`` of the jittered cuts from the photo through a random camera and room
    (``degrade.camera``), a cell a glare washed out left out."""
    xs, ys = [], []
    for ph in photos:
        if ph.corners is None:
            continue
        bgr = cv2.imread(str(ph.path))
        gray = to_gray(bgr)
        side = float(np.hypot(*(ph.corners[0] - ph.corners[2])))
        base = upright(warp_grid(gray, ph.corners), ph.givens)
        k_up = next(k for k in range(4) if np.array_equal(np.rot90(warp_grid(gray, ph.corners), k), base))
        for j in range(jitters):
            corners = ph.corners + (np.float32([[rng.gauss(0, 0.006) * side for _ in range(2)]
                                                for _ in range(4)]) if j else 0)
            seen, lost = gray, np.zeros(81, bool)
            if j and rng.random() < degraded:
                shot = camera(bgr, rng, float(np.ptp(ph.corners, axis=0).max()))
                seen, corners = to_gray(shot.image), corners * np.float32(shot.scale)
                lost = glared_cells(shot.glare, corners)  # in the picture's order; turned with the grid below
                lost = np.rot90(lost.reshape(9, 9), k_up).reshape(81)
            warped = np.ascontiguousarray(np.rot90(warp_grid(seen, corners), k_up))
            cuts = cut_cells(warped)
            for i in range(81):
                if cuts.has_ink[i] and not lost[i]:
                    xs.append(cuts.patches[i])
                    ys.append(0 if ph.givens[i] == "." else int(ph.givens[i]))
    return np.stack(xs), np.array(ys, np.int64)


# --------------------------------------------------------------------------- model


def build_model():
    import torch.nn as nn

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(1, 16), *block(16, 32), *block(32, 64),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 10),
    )


def augment(x, rng_t):
    """Small shifts and ink-strength changes on the fly, so epochs differ."""
    import torch

    shift = torch.randint(-2, 3, (2,), generator=rng_t)
    x = torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
    gain = 0.7 + 0.6 * torch.rand(x.shape[0], 1, 1, 1, generator=rng_t)
    return (x * gain).clamp(0, 1)


def fit(model, x_all, y_all, *, epochs: int, batch: int, steps: int, g, augment, batch_loss):
    """The training loop the three model scripts share: AdamW with a one-cycle schedule, shuffled batches
    drawn with ``g``, each augmented; ``batch_loss(out, yb, idx)`` is the script's own loss. Prints a
    line per epoch and returns the model in eval mode."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    n = len(y_all)
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(n, generator=g)
        total, correct, t0 = 0.0, 0, time.time()
        for k in range(0, n, batch):
            idx = perm[k : k + batch]
            xb, yb = augment(x_all[idx], g), y_all[idx]
            opt.zero_grad()
            out = model(xb)
            loss = batch_loss(out, yb, idx)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            correct += int((out.argmax(1) == yb).sum())
        print(f"epoch {ep + 1}/{epochs}: loss {total / n:.4f}, train acc {correct / n:.4f}, "
              f"{time.time() - t0:.0f} s", flush=True)
    model.eval()
    return model


def train(xs: np.ndarray, ys: np.ndarray, epochs: int, seed: int):
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)
    model = build_model()
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    return fit(model, torch.from_numpy(xs).unsqueeze(1), torch.from_numpy(ys), epochs=epochs, batch=256,
               steps=epochs * (len(xs) // 256 + 1), g=torch.Generator().manual_seed(seed), augment=augment,
               batch_loss=lambda out, yb, idx: lossf(out, yb))


def accuracy(model, xs: np.ndarray, ys: np.ndarray) -> float:
    import torch

    with torch.no_grad():
        pred = model(torch.from_numpy(xs).unsqueeze(1)).argmax(1).numpy()
    return float((pred == ys).mean())


def export_onnx(model, out: Path, side: int, input_name: str, meta: dict) -> None:
    """Write ``model`` as ONNX (a batch of (n, 1, side, side) images in, logits out) and its ``.json``
    metadata with the file's sha256 and size; shared by every training script here."""
    import torch

    buf = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, 1, side, side), buf, input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    data = buf.getvalue()
    out.write_bytes(data)
    meta["sha256"] = hashlib.sha256(data).hexdigest()
    meta["bytes"] = len(data)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")


def export(model, out: Path, meta: dict) -> None:
    export_onnx(model, out, INPUT, "cells", meta)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=Path, default=DEFAULT_DIR / "printed")
    ap.add_argument("--synthetic", type=int, default=40000, help="synthetic cells (default 40000)")
    ap.add_argument("--jitters", type=int, default=4, help="corner-jittered cuts per training photo")
    ap.add_argument("--degraded", type=float, default=0.5,
                    help="share of synthetic patches and jittered photo cuts through a random camera and room")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "digits.onnx")
    args = ap.parse_args()

    t0 = time.time()
    fonts = find_fonts()
    print(f"{len(fonts)} fonts", flush=True)
    shipped = json.loads((ROOT / "models" / "digits.json").read_text()).get("training_data", {}).get("fonts", 0)
    if len(fonts) < shipped:
        print(f"warning: {len(fonts)} fonts, the shipped model was trained on {shipped}; install the font "
              "packages scripts/train_cells.py lists", file=sys.stderr, flush=True)
    photos = load(args.photos)
    held = held_out_puzzles()  # by puzzle: the same puzzle is in up to 14 photos
    train_ph = [p for p in photos if p.name not in held]
    val_ph = [p for p in photos if p.name in held]
    print(f"photos: {len(train_ph)} train, {len(val_ph)} held out", flush=True)
    rng = random.Random(args.seed)
    xs_s, ys_s = synth_samples(args.synthetic, args.seed, fonts, degraded=args.degraded)
    xs_v, ys_v = synth_samples(args.synthetic // 10, args.seed + 1000, fonts)
    print(f"synthetic: {len(xs_s)} train, {len(xs_v)} validation ({time.time() - t0:.0f} s)", flush=True)
    xs_p, ys_p = photo_samples(train_ph, rng, args.jitters, args.degraded)
    xs_pv, ys_pv = photo_samples(val_ph, rng, 1)
    print(f"photo cells: {len(xs_p)} train, {len(xs_pv)} held out ({time.time() - t0:.0f} s)", flush=True)
    xs = np.concatenate([xs_s, xs_p])
    ys = np.concatenate([ys_s, ys_p])
    model = train(xs, ys, args.epochs, args.seed)
    acc_s = accuracy(model, xs_v, ys_v)
    acc_p = accuracy(model, xs_pv, ys_pv)
    print(f"validation accuracy: synthetic {acc_s:.4f}, held-out photo cells {acc_p:.4f}")
    meta = {
        "input": {"name": "cells", "shape": ["n", 1, INPUT, INPUT], "dtype": "float32",
                  "normalisation": "ink-normalised cell crop from ar_sudoku.vision.cells.digit_patch: "
                                   "0 = paper, 1 = ink, digit fitted to 20 px and centred"},
        "output": {"name": "logits", "shape": ["n", 10]},
        "classes": ["not-a-digit", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
        "training_data": {
            "synthetic_cells": len(xs_s), "fonts": len(fonts),
            "photo_cells": len(xs_p), "photos_train": len(train_ph),
            "photos_held_out": [p.name for p in val_ph],
        },
        "validation_accuracy": {"synthetic": round(acc_s, 4), "held_out_photo_cells": round(acc_p, 4),
                                "held_out_photo_cell_count": len(xs_pv)},
        "epochs": args.epochs, "seed": args.seed,
        "command": "python scripts/train_digits.py " + " ".join(sys.argv[1:]),
    }
    export(model, args.out, meta)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
