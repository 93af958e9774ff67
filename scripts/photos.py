"""The shared photo set: paths, truth (givens, corners) and the fixed train/validation split.

Used by the training and evaluation scripts, so both agree on which photos
are held out. The split is by name (photos whose number is a multiple of 5), fixed
so that reruns report on the same held-out photos.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sudoku-photos"


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
