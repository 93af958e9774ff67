"""A killer page held in a moving hand: run the real command on a video from ``make_killer_video.py`` and compare
its JSONL log with the truth beside the video.

    python scripts/make_killer_video.py --out /tmp/killer.mp4
    python scripts/eval_killer_video.py /tmp/killer.mp4                 # runs `ar-sudoku video ... --headless --jsonl`
    python scripts/eval_killer_video.py /tmp/killer.mp4 --lockstep 1    # the session stepped in this process

Reported: frames with the whole grid in view; of those, frames whose drawn answer is the page's (the issue's
target: 90% or more) and the first frame it is drawn on; frames with a wrong answer drawn (a solution that is
not the page's; target 0); frames whose cages are the page's; the median frame time.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field

from clips import judge


@dataclass
class Figures:
    frames: int = 0
    in_view: int = 0
    right: int = 0
    wrong: int = 0
    cages_right: int = 0
    first: int | None = None
    t_ms: list[float] = field(default_factory=list)

    def lines(self) -> list[str]:
        share = self.right / max(1, self.in_view)
        return [f"frames: {self.frames}, grid wholly in view: {self.in_view}",
                f"answer right: {self.right}/{self.in_view} ({share:.1%}); first drawn on frame {self.first}",
                f"wrong answers drawn: {self.wrong}",
                f"cages right: {self.cages_right}/{self.in_view}",
                f"median frame time: {statistics.median(self.t_ms) if self.t_ms else 0:.1f} ms"]


def compare(truth: list[dict], log: list[dict]) -> Figures:
    f = Figures(frames=len(truth))
    for want, got in zip(truth, log):
        f.t_ms.append(float(got.get("t_ms", 0.0)))
        puzzles = got.get("puzzles") or [got]
        drawn = [p for p in puzzles if p.get("solution")]
        f.wrong += sum(1 for p in drawn if p["solution"] != want["solution"])
        if not want["visible"]:
            continue
        f.in_view += 1
        if any(p["solution"] == want["solution"] for p in drawn):
            f.right += 1
            f.first = want["frame"] if f.first is None else f.first
        if any(p.get("cages") == want["cages"] for p in puzzles):
            f.cages_right += 1
    return f


def main(argv: list[str] | None = None) -> int:
    return judge(argv, __doc__, "eval_killer_video", "make_killer_video.py", compare)


if __name__ == "__main__":
    sys.exit(main())
