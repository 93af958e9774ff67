"""How far apart planted mistakes and misread right entries lie, in the two readers' odds: the evidence behind the
bars of ``WritingConfig`` that let a disagreement be called a mistake (``together``, ``against_printed``,
``poor_sure``).

    python scripts/mistake_odds.py                                  # train split, as taken, 3 swaps a photo
    python scripts/mistake_odds.py --conditions taken,motion,blur,dim_dark,screen --jsonl /tmp/odds.jsonl

On the written-on newspaper photos (``sudoku-photos/mixed``, every entry right) two handwritten cells are swapped
(``eval_mistakes.swap_cells``) and the photo degraded as ``eval_robust`` degrades it. Each entry the reading takes
for another digit than the solution's (past the gate that gives the solution's digit a fair chance) is logged with
both readers' odds of the solution's digit against the one read, their geometric mean ("together"), whether the
digit read is printed near, whether the picture is poor (``EntryOpinion.poor_picture``), and whether it is
truly a mistake (a planted one) or a misreading of a right entry.

Printed per condition, for sharp and for poor pictures, of the entries the kind model takes for handwriting: the
planted mistakes both readers are sure of (``checking._sure_mistake``: a sharp picture calls them mistakes), the
misreadings so sure (of all), the misreadings' surest "together" (the lowest: every bar must stay under it), and how
many planted mistakes (sure) and misreadings (any) fall under ``WRITING.poor_sure`` with both readers naming the
same digit (a poor picture calls the sure ones mistakes). The log
listens to ``checking._doubted`` (wrapped, then called as it is): the reading itself is unchanged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision import checking
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import ENTRY, KindReader
from ar_sudoku.vision.reading import process_image
from ar_sudoku.vision.writing import WRITING
from eval_mistakes import planted_pairs, swap_cells
from eval_robust import CONDITIONS, degrade
from photos import sudoku_photos

LOG: list[dict] = []


def _listening(doubted):
    """``checking._doubted`` (``doubted``), logging every odd entry's odds before it runs as it is."""

    def listened(givens, kinds, read, solution, second):
        odd = [int(i) for i in np.flatnonzero(read) if int(read[i]) != int(solution[i])]
        written = kinds.probs[:, 1:19].sum(axis=1)
        if odd and second is not None:
            poor = bool(second.poor_picture())
            for i, other in zip(odd, second.digits(odd)):
                said, right = int(read[i]) - 1, int(solution[i]) - 1
                if written[i] < WRITING.sure_written or checking._chance(kinds, i, right, other) >= WRITING.doubt:
                    continue  # taken as the solution's digit before any claim
                kind_odds, entry_odds = checking._odds_of_right(kinds, i, said, right, other)
                near = checking._printed_near(givens, i, said + 1)
                LOG.append({"cell": i, "read": said + 1, "poor": poor, "entry": bool(kinds.kinds[i] == ENTRY),
                            "near": near, "sure": checking._sure_mistake(kinds, i, said, right, other, near),
                            "agreed": int(other.argmax()) == said, "kind_odds": kind_odds,
                            "entry_odds": entry_odds, "together": float(np.sqrt(kind_odds * entry_odds))})
        return doubted(givens, kinds, read, solution, second)

    return listened


def run(split: str, conditions: list[str], swaps: int, jsonl: Path | None) -> int:
    """Log every odd entry of every swapped photo under every condition, then print the summary."""
    checking._doubted = _listening(checking._doubted)
    train, held = sudoku_photos()
    digits, kinds = DigitReader(), KindReader()
    rows: list[dict] = []
    for condition in conditions:
        rng = np.random.default_rng(0)  # the same swaps under every condition
        for s in [x for x in (train if split == "train" else held) if x.group == "mixed"]:
            full = [int(v) if v <= 9 else int(v) - 9 for v in s.labels]
            img = cv2.imread(str(s.path))
            x0, y0 = s.corners.min(axis=0)
            x1, y1 = s.corners.max(axis=0)
            for a, b in planted_pairs(s.labels, rng, swaps):
                swapped = swap_cells(img, s.corners, a, b)
                truth = list(full)
                truth[a], truth[b] = full[b], full[a]
                data = degrade(cv2.imencode(".png", swapped)[1].tobytes(), swapped, s.name, condition,
                               np.float32([x0, y0, x1, y1]))
                LOG.clear()
                res = process_image(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), digits, kinds=kinds)
                if res.solution is None:
                    continue
                for r in LOG:
                    i = r["cell"]
                    r.update(photo=s.name, condition=condition, mistake=truth[i] != int(res.solution[i]))
                    rows.append(r)
    if jsonl is not None:
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    bar = WRITING.poor_sure
    print(f"{split} split, {swaps} swaps a photo; odd entries logged: {len(rows)}; poor_sure {bar}")
    print("| condition | picture | planted, sure | misread, sure of all | misread's surest together "
          "| planted under poor_sure | misread under poor_sure |")
    print("|---|---|---|---|---|---|---|")
    for condition in conditions:
        for poor in (False, True):
            got = [r for r in rows if r["condition"] == condition and r["poor"] == poor and r["entry"]]
            planted = [r for r in got if r["mistake"] and r["sure"]]
            misread = [r for r in got if not r["mistake"]]
            surest = min((r["together"] for r in misread), default=float("nan"))
            print(f"| {condition} | {'poor' if poor else 'sharp'} | {len(planted)} | {sum(r['sure'] for r in misread)} "
                  f"of {len(misread)} | {surest:.4f} | {sum(r['together'] < bar and r['agreed'] for r in planted)} "
                  f"| {sum(r['together'] < bar and r['agreed'] for r in misread)} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("train", "held"), default="train")
    ap.add_argument("--conditions", default="taken", help="comma-separated: " + ", ".join(CONDITIONS))
    ap.add_argument("--swaps", type=int, default=3)
    ap.add_argument("--jsonl", type=Path, help="also write every logged entry here")
    args = ap.parse_args()
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    if unknown := [c for c in conditions if c not in CONDITIONS]:
        ap.error(f"unknown conditions: {', '.join(unknown)}")
    return run(args.split, conditions, args.swaps, args.jsonl)


if __name__ == "__main__":
    raise SystemExit(main())
