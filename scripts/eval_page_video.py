"""A page of three puzzles panned over (issue 24): run the real CLI on a video made by ``make_page_video.py``
and compare its JSONL log (each frame's ``puzzles``) with the truth written beside the video.

    python scripts/make_page_video.py --out /tmp/page.mp4
    python scripts/eval_page_video.py /tmp/page.mp4                 # runs `ar-sudoku video ... --headless --jsonl`
    python scripts/eval_page_video.py /tmp/page.mp4 --log /tmp/page.jsonl   # an existing log, no run

Each puzzle of the log is placed on the truth puzzle its centre lies on, on that frame. Reported, per
puzzle: each stretch of frames it is wholly in view, and how many frames from the stretch's start its
right answer is first drawn (the issue's target: <= 5); frames with its answer drawn while in view.
Over the whole clip: frames with an answer on the wrong puzzle (a solution drawn on a puzzle whose own
it is not, but another's of the page), frames with a wrong answer (a solution that is no puzzle's of
the page, or drawn off all of them); both targets 0. And the frame time: median ``t_ms`` on frames by
how many puzzles have an answer drawn.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field

import cv2
import numpy as np

from clips import judge

SHORT = 8  # a stretch in view shorter than this is a glimpse: its lock is reported apart


@dataclass
class Stretch:
    puzzle: int
    start: int
    end: int  # last frame in view
    locked: int | None  # first frame of the stretch with the right answer drawn on it

    @property
    def latency(self) -> int | None:
        return None if self.locked is None else self.locked - self.start


@dataclass
class Figures:
    frames: int = 0
    stretches: list[Stretch] = field(default_factory=list)
    in_view: dict[int, int] = field(default_factory=dict)  # puzzle -> frames wholly in view
    drawn: dict[int, int] = field(default_factory=dict)  # puzzle -> of those, its answer drawn
    wrong_puzzle: int = 0  # frames with another puzzle's answer drawn on a puzzle
    wrong_answer: int = 0  # frames with an answer that is no puzzle's of the page (or off all of them)
    # puzzle -> frames its right answer is drawn over it, but a corner more than half a cell off its grid's (counted
    # in ``drawn`` too: which puzzle an answer is over says nothing of how well it sits on its cells)
    misplaced: dict[int, int] = field(default_factory=dict)
    t_ms: dict[int, list[float]] = field(default_factory=dict)  # puzzles drawn on the frame -> its t_ms

    def worst_lock(self) -> int | None:
        """The longest lock over the stretches long enough to count (None: one never locked)."""
        worst = 0
        for s in self.stretches:
            if s.end - s.start + 1 < SHORT:
                continue
            if s.latency is None:
                return None
            worst = max(worst, s.latency)
        return worst

    def lines(self) -> list[str]:
        out = [f"{self.frames} frames; answer on the wrong puzzle on {self.wrong_puzzle} frames, "
               f"a wrong answer on {self.wrong_answer}; worst lock after coming wholly into view: "
               f"{self.worst_lock()} frames"]
        for j in sorted(self.in_view):
            mine = [s for s in self.stretches if s.puzzle == j]
            locks = ", ".join(f"{s.start}-{s.end}: " + ("never" if s.latency is None else f"{s.latency}")
                              + (" (glimpse)" if s.end - s.start + 1 < SHORT else "") for s in mine)
            off = self.misplaced.get(j, 0)
            out.append(f"  puzzle {j}: in view {self.in_view[j]} frames, its answer drawn on {self.drawn[j]} "
                       f"({100 * self.drawn[j] / max(self.in_view[j], 1):.1f}%)"
                       + (f", {off} of them over half a cell off" if off else "")
                       + f"; frames to lock per stretch in view [{locks}]")
        for n in sorted(self.t_ms):
            xs = self.t_ms[n]
            out.append(f"  t_ms with {n} answers drawn: median {statistics.median(xs):.2f}, "
                       f"mean {statistics.fmean(xs):.2f} ({len(xs)} frames)")
        return out


def _inside(corners: list, point: np.ndarray) -> bool:
    poly = np.float32(corners).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0


def _off(corners: list, truth: list) -> float:
    """How far a drawn board's corners are from its grid's, in the grid's cells (in any order of corners: a page
    read turned is drawn turned)."""
    got, want = np.float32(corners), np.float32(truth)
    cell = float(np.linalg.norm(want - np.roll(want, -1, axis=0), axis=1).mean()) / 9
    return min(float(np.abs(np.roll(got, k, axis=0) - want).max()) for k in range(4)) / max(cell, 1e-6)


def compare(truth: list[dict], log: list[dict]) -> Figures:
    fig = Figures(frames=len(log))
    n = len(truth[0]["puzzles"])
    fig.in_view = dict.fromkeys(range(n), 0)
    fig.drawn = dict.fromkeys(range(n), 0)
    open_: dict[int, Stretch] = {}
    for t, row in zip(truth, log):
        f = t["frame"]
        truths = t["puzzles"]
        solutions = [p["solution"] for p in truths]
        right_on: set[int] = set()
        drawn = 0
        for p in row.get("puzzles", []):
            if p["corners"] is None or not p["solution"]:
                continue
            drawn += 1
            centre = np.float32(p["corners"]).mean(axis=0)
            at = next((j for j, q in enumerate(truths) if _inside(q["corners"], centre)), None)
            if at is not None and p["solution"] == solutions[at]:
                right_on.add(at)
                if truths[at]["visible"] and _off(p["corners"], truths[at]["corners"]) > 0.5:
                    fig.misplaced[at] = fig.misplaced.get(at, 0) + 1
            elif p["solution"] in solutions:
                fig.wrong_puzzle += 1
            else:
                fig.wrong_answer += 1
        fig.t_ms.setdefault(drawn, []).append(row["t_ms"])
        for j, q in enumerate(truths):
            if not q["visible"]:
                if j in open_:
                    fig.stretches.append(open_.pop(j))
                continue
            fig.in_view[j] += 1
            fig.drawn[j] += j in right_on
            s = open_.setdefault(j, Stretch(j, f, f, None))
            s.end = f
            if s.locked is None and j in right_on:
                s.locked = f
    fig.stretches += open_.values()
    fig.stretches.sort(key=lambda s: (s.puzzle, s.start))
    return fig


def main(argv: list[str] | None = None) -> int:
    return judge(argv, __doc__, "eval_page_video", "make_page_video.py", compare)


if __name__ == "__main__":
    sys.exit(main())
