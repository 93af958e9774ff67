"""Real photos of printed puzzles from other projects (../shared/data/peer-photos), read as a new user would.

    python scripts/eval_peer.py                 # both splits
    python scripts/eval_peer.py --failures      # also each photo not read exactly, cell by cell

The photos come from five repositories (``labels.csv``: givens81, handwritten81, source_repo). They are split
by source: the photos of ``HELD_OUT_SOURCES`` (a printed sheet from a puzzle site, a Spanish puzzle book, the
only one written on) are never tuned on; the other three repositories' are. Reports, for each split:

  * givens exactly: the givens read are the printed ones, no more, no fewer, every digit right;
  * solved: the answer is the truth's one solution;
  * print taken for entries: printed digits the reading calls the person's entries (the issue's complaint: "your
    entries settle it" to a person who has written nothing), and the photos with any;
  * entries: handwritten cells read as entries (of those labelled ``h``), and entries read where no hand wrote.

The photos are read as ``ar-sudoku image`` reads them (``reading.process_images``, the first puzzle in reading
order: none of these pages holds two whole grids).
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2

from ar_sudoku.sudoku.solver import parse_line, solve
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_images
from photos import ROOT

PEER_DIR = ROOT.parent / "shared" / "data" / "peer-photos"
# never tuned on: the puzzle site's printed sheets and the puzzle book (with the one written-on photo)
HELD_OUT_SOURCES = ("aljazfrancic/sudoku-solver", "INIGO-7/SudokuWizard")


@dataclass(frozen=True)
class PeerPhoto:
    """One labelled photo: its path, printed givens, handwritten cells (``h``) and source repository."""

    path: Path
    givens: str
    handwritten: str
    source: str

    @property
    def held_out(self) -> bool:
        """Of a repository never tuned on."""
        return self.source in HELD_OUT_SOURCES


def load_peer(folder: Path = PEER_DIR) -> list[PeerPhoto]:
    """Every photo of ``labels.csv``, in its order."""
    out = []
    with (folder / "labels.csv").open() as f:
        for row in csv.DictReader(f):
            source = row["source_repo"].rstrip("/").split("github.com/")[-1]
            out.append(PeerPhoto(folder / row["path"], row["givens81"], row["handwritten81"], source))
    return out


def judge(photo: PeerPhoto, reader: DigitReader, kinds: KindReader) -> dict:
    """One photo's row: what was read against its labels."""
    image = cv2.imread(str(photo.path))
    results, _ = process_images(image, reader, kinds=kinds)
    res = results[0]
    read = res.givens or "." * 81
    entries = res.written.entries if res.written is not None else "." * 81
    solution = solve(parse_line(photo.givens)).solution
    hand = [i for i, h in enumerate(photo.handwritten) if h == "h"]
    return {
        "name": f"{photo.path.parent.name}/{photo.path.name}", "held": photo.held_out, "status": str(res.status),
        "exact": read == photo.givens, "solved": res.solution is not None and res.solution == solution,
        "print_as_entry": sum(photo.givens[i] != "." and entries[i] != "." for i in range(81)),
        "hand_read": sum(entries[i] != "." for i in hand), "hand": len(hand),
        "false_entries": sum(entries[i] != "." and photo.givens[i] == "." and i not in hand for i in range(81)),
        "diffs": [f"r{i // 9 + 1}c{i % 9 + 1} {b}->{a}" for i, (a, b) in enumerate(zip(read, photo.givens)) if a != b],
        "entries": [f"r{i // 9 + 1}c{i % 9 + 1}={entries[i]}" for i in range(81) if entries[i] != "."],
        "message": res.message,
    }


def summarize(name: str, rows: list[dict]) -> None:
    """The split's figures, one line each."""
    if not rows:
        return
    n = len(rows)
    print(f"{name}: {n} photos")
    print(f"  givens exactly        {sum(r['exact'] for r in rows)}/{n}")
    print(f"  solved                {sum(r['solved'] for r in rows)}/{n}")
    print(f"  print taken as entry  {sum(r['print_as_entry'] for r in rows)} digits on "
          f"{sum(r['print_as_entry'] > 0 for r in rows)} photos")
    hand = sum(r["hand"] for r in rows)
    print(f"  handwriting read      {sum(r['hand_read'] for r in rows)}/{hand} entries; "
          f"entries where no hand wrote {sum(r['false_entries'] for r in rows)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, nargs="?", default=PEER_DIR)
    ap.add_argument("--failures", action="store_true", help="list each photo not read exactly or solved")
    args = ap.parse_args()
    if not (args.folder / "labels.csv").exists():
        print(f"no labels.csv in {args.folder}", file=sys.stderr)
        return 2
    reader, kinds = DigitReader(), KindReader()
    rows = []
    for photo in load_peer(args.folder):
        row = judge(photo, reader, kinds)
        rows.append(row)
        if args.failures and not (row["exact"] and row["solved"] and not row["print_as_entry"]):
            print(f"  {row['name']}{' (held out)' if row['held'] else ''}: {row['status']} "
                  f"{row['message'][:70]} | {', '.join(row['diffs'][:8])} | entries {' '.join(row['entries'][:12])}")
    summarize("held out by source (" + ", ".join(HELD_OUT_SOURCES) + ")", [r for r in rows if r["held"]])
    summarize("tuning sources", [r for r in rows if not r["held"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
