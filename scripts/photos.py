"""The shared photo set: paths, truth (givens, corners) and the fixed train/validation split.

Used by the training and evaluation scripts, so both agree on which photos
are held out. The split is by name (photos whose number is a multiple of 5), fixed
so that reruns report on the same held-out photos.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = ROOT.parent / "shared" / "data" / "sudoku-photos"
HW_DIR = ROOT.parent / "shared" / "data" / "handwritten-photos"
HW_GIVENS = ROOT / "scripts" / "data" / "handwritten_givens.csv"
# every fifth puzzle in date order (as photos.py holds out every fifth photo): pen and pencil,
# blur, 34 entries and 32 candidate cells among them
HELD_OUT = ("02_22", "02_28", "03_05", "03_11")


@dataclass(frozen=True)
class Photo:
    path: Path
    givens: str  # 81 chars, '.' blank
    corners: np.ndarray | None  # truth TL, TR, BR, BL or None

    @property
    def name(self) -> str:
        return self.path.stem


def read_dat(path: Path) -> str:
    lines = path.read_text().splitlines()[2:11]
    digits = "".join(tok for line in lines for tok in line.split())
    if len(digits) != 81:
        raise ValueError(f"{path}: expected 81 digits, found {len(digits)}")
    return digits.replace("0", ".")


def load(folder: Path) -> list[Photo]:
    """Every photo in ``folder`` that has a .dat beside it, sorted by name."""
    outlines: dict[str, np.ndarray] = {}
    csv_path = folder.parent / "outlines.csv"
    if csv_path.exists():
        with csv_path.open() as f:
            for row in csv.DictReader(f):
                pts = [[float(row[f"p{k}_x"]), float(row[f"p{k}_y"])] for k in range(1, 5)]
                outlines[Path(row["filepath"]).name] = np.array(pts, np.float32)
    photos = []
    for jpg in sorted(folder.glob("*.jpg")):
        dat = jpg.with_suffix(".dat")
        if dat.exists():
            photos.append(Photo(jpg, read_dat(dat), outlines.get(jpg.name)))
    return photos


def is_validation(photo: Photo) -> bool:
    """The held-out fifth: never trained on, reported separately."""
    digits = "".join(ch for ch in photo.name if ch.isdigit())
    return int(digits or 0) % 5 == 0


def number(photo: Photo) -> int:
    """The photo's number (``image1045`` -> 1045)."""
    return int("".join(ch for ch in photo.name if ch.isdigit()) or 0)


def held_out_puzzles(folder: Path = DEFAULT_DIR / "printed") -> set[str]:
    """Names of the photos held out by puzzle: every photo of a puzzle goes to the same side.

    ``is_validation`` splits by photo number, but the set holds 63 puzzles in 160 photos
    (one puzzle in 14 photos) and 22 of its 30 held-out photos show a puzzle that is also
    in the training split, so it cannot tell reading from remembering. Photos are grouped
    by their givens (the printed .dat); a puzzle is held out when its lowest-numbered photo
    is a multiple of 5, so a puzzle photographed once stays where ``is_validation`` put it.
    The names serve the ``mixed`` photos too (a mixed photo is its printed twin, written on).
    """
    groups: dict[str, list[Photo]] = {}
    for ph in load(folder):
        groups.setdefault(ph.givens, []).append(ph)
    return {ph.name for group in groups.values() if min(map(number, group)) % 5 == 0 for ph in group}


def tuning_puzzles(folder: Path = DEFAULT_DIR / "printed") -> set[str]:
    """Names of a tuning split carved out of the training puzzles, by puzzle as :func:`held_out_puzzles`:
    a training puzzle whose lowest-numbered photo is 2 more than a multiple of 5. A model trained
    without them (``train_entries.py --tuning``) is compared with another recipe's on them; the shipped
    model is then trained on every training puzzle."""
    groups: dict[str, list[Photo]] = {}
    for ph in load(folder):
        groups.setdefault(ph.givens, []).append(ph)
    return {ph.name for group in groups.values() if min(map(number, group)) % 5 == 2 for ph in group}


# --------------------------------------------------------------------------- photos with per-cell labels


@dataclass(frozen=True)
class Sample:
    """One photo with per-cell class labels (0..19) and grid corners TL, TR, BR, BL."""

    name: str
    path: Path
    corners: np.ndarray
    labels: np.ndarray  # (81,) int64
    group: str  # "hand", "printed", "mixed"


def hw_photos() -> list[Sample]:
    """The handwritten-photos set, labels split into given/entry by handwritten_givens.csv."""
    split = {r["puzzle"]: r for r in csv.DictReader(HW_GIVENS.open())}
    out = []
    with (HW_DIR / "metadata.csv").open() as f:
        for row in csv.DictReader(f):
            name = Path(row["Name"]).stem
            corners = np.float32([[float(row[f"x_{n}_absolute"]), float(row[f"y_{n}_absolute"])]
                                  for n in ("topleft", "topright", "bottomright", "bottomleft")])
            lab = [int(v) for v in (HW_DIR / "labels" / f"{name}.txt").read_text().split()]
            g = split[row["Puzzle"]]
            labels = np.array([0 if v == 0 else 19 if v == 10 else (v if g["givens"][i] != "." else v + 9)
                               for i, v in enumerate(lab)], np.int64)
            out.append(Sample(name, HW_DIR / "images" / row["Name"], corners, labels, "hand"))
    return out


def _turn_points(pts: np.ndarray, shape: tuple[int, int], k: int) -> np.ndarray:
    """Where points (x, y) of a picture of ``shape`` (h, w) land in ``np.rot90(picture, k)``."""
    pts = np.asarray(pts, np.float32).copy()
    h, w = shape
    for _ in range(k % 4):
        pts = np.stack([pts[:, 1], (w - 1) - pts[:, 0]], axis=1)
        h, w = w, h
    return pts.astype(np.float32)


def mixed_turn(printed: Path, mixed: Path) -> int:
    """The k with ``mixed == np.rot90(printed, k)``: 7 mixed photos are stored turned (6 by 90, one by 180)."""
    a = cv2.imread(str(printed), cv2.IMREAD_GRAYSCALE)
    b = cv2.imread(str(mixed), cv2.IMREAD_GRAYSCALE)
    best, best_d = 0, float("inf")
    for k in range(4):
        r = np.rot90(a, k)
        if r.shape != b.shape:
            continue
        d = float(np.abs(cv2.resize(np.ascontiguousarray(r), (64, 64), interpolation=cv2.INTER_AREA).astype(np.float32)
                         - cv2.resize(b, (64, 64), interpolation=cv2.INTER_AREA)).mean())
        if d < best_d:
            best, best_d = k, d
    return best


def sudoku_photos(base: Path = DEFAULT_DIR) -> tuple[list[Sample], list[Sample]]:
    """Printed and mixed photos (corners from outlines.csv, turned upright), as (train, held-out).

    Held out by puzzle (``photos.held_out_puzzles``): the same puzzle is in up to 14 photos.

    The mixed twin of a printed photo shares its corners, turned with the picture where the mixed
    photo is stored turned (image1031/1036/1038/1039/1040/1043 by 90 degrees, image1083 by 180).
    """
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.orient import read_grid
    from ar_sudoku.vision.quads import to_gray

    reader = DigitReader()
    held_names = held_out_puzzles(base / "printed")
    train, held = [], []
    mixed = {p.name: p for p in load(base / "mixed")}
    for ph in load(base / "printed"):
        if ph.corners is None:
            continue
        gray = to_gray(cv2.imread(str(ph.path)))
        giv = np.array([0 if ch == "." else int(ch) for ch in ph.givens], np.int64)
        # some photos are sideways: the outline is in picture order; the roll whose reading fits the truth.
        # Digits, not only which cells hold one: most puzzles' patterns are symmetric under a half turn
        best = max(range(4), key=lambda k: int((read_grid(gray, np.roll(ph.corners, -k, 0), reader).digits
                                                == giv).sum()))
        corners = np.roll(ph.corners, -best, 0).astype(np.float32)
        dest = held if ph.name in held_names else train
        dest.append(Sample(ph.name, ph.path, corners, giv, "printed"))
        if ph.name in mixed:
            allv = np.array([int(ch) for ch in mixed[ph.name].givens.replace(".", "0")], np.int64)
            lab = np.where(giv > 0, giv, np.where(allv > 0, allv + 9, 0))
            k = mixed_turn(ph.path, mixed[ph.name].path)
            mc = _turn_points(corners, gray.shape[:2], k) if k else corners
            dest.append(Sample(ph.name, mixed[ph.name].path, mc, lab, "mixed"))
    return train, held


def jitter(corners: np.ndarray, rng: random.Random, sigma: float) -> np.ndarray:
    side = float(np.linalg.norm(corners[0] - corners[2])) / np.sqrt(2)
    return corners + np.float32([[rng.gauss(0, sigma * side / 9) for _ in range(2)] for _ in range(4)])


def truth_strings(labels: np.ndarray) -> tuple[str, str, str]:
    """(cells, givens, entries) of 20-class labels."""
    cells = "".join("." if v == 0 else "c" if v == 19 else "g" if v <= 9 else "e" for v in labels)
    givens = "".join(str(v) if 1 <= v <= 9 else "." for v in labels)
    entries = "".join(str(v - 9) if 10 <= v <= 18 else "." for v in labels)
    return cells, givens, entries


def state11(cells: str, givens: str, entries: str) -> list[int]:
    """The dataset's cell state: 0 blank, 1-9 the digit (either kind), 10 candidates."""
    out = []
    for k, g, e in zip(cells, givens, entries):
        out.append(10 if k == "c" else int(g) if k == "g" and g != "." else int(e) if k == "e" and e != "." else 0)
    return out
