"""How the live reader holds up in a real room (issue 21): run the real CLI on a video made by
``make_room_video.py`` and compare its JSONL log with the truth written beside the video.

    python scripts/make_room_video.py --out /tmp/room.mp4
    python scripts/eval_room_video.py /tmp/room.mp4              # runs `ar-sudoku video ... --headless --jsonl`
    python scripts/eval_room_video.py /tmp/room.mp4 --log /tmp/room.jsonl   # an existing log, no run
    python scripts/eval_room_video.py /tmp/room.mp4 --lockstep 1  # in-process, each solve waited for 1 frame
                                                                  # on: figures independent of the machine's load

Reported: frames with the grid wholly in view; of those, frames with the right answer drawn (the
log's solution is the page's); wrong frames (a solution that is not the page's, drawn anywhere);
false mistakes (entries the log calls wrong: every entry on these pages is right), by frame and by
cell; and the answer drawn per effect (dim, lamp, glare, washed-out glare, motion), so a loss shows
where it comes from. The issue's target: the answer on >= 95% of the frames in view, 0 wrong frames,
0 false mistakes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from clips import judge


@dataclass
class Figures:
    """What the log says against the truth."""

    frames: int = 0
    in_view: int = 0
    drawn: int = 0  # in view, right solution drawn
    drawn_after_lock: int = 0
    in_view_after_lock: int = 0
    wrong: int = 0  # any frame with a solution that is not the page's
    false_mistake_frames: int = 0
    false_mistake_cells: set = field(default_factory=set)
    by_effect: dict = field(default_factory=dict)  # effect -> [drawn, in view]

    def lines(self) -> list[str]:
        pct = 100 * self.drawn / max(self.in_view, 1)
        after = 100 * self.drawn_after_lock / max(self.in_view_after_lock, 1)
        out = [f"{self.frames} frames, {self.in_view} with the grid in view: answer drawn on {self.drawn} "
               f"({pct:.1f}%); after each puzzle's first answer {self.drawn_after_lock}/{self.in_view_after_lock} "
               f"({after:.1f}%)",
               f"wrong frames {self.wrong}; false mistakes on {self.false_mistake_frames} frames "
               f"({len(self.false_mistake_cells)} cells: {', '.join(sorted(self.false_mistake_cells)) or '-'})"]
        for name, (d, n) in sorted(self.by_effect.items()):
            out.append(f"  {name:>8}: drawn {d}/{n} ({100 * d / max(n, 1):.1f}%)")
        return out


def compare(truth: list[dict], log: list[dict]) -> Figures:
    """The figures of a log (one object a frame, as ``video --jsonl`` writes) against the truth."""
    fig = Figures(frames=len(truth))
    by_frame = {rec["frame"]: rec for rec in log}
    locked: set[str] = set()
    for t in truth:
        rec = by_frame.get(t["frame"], {})
        solution = rec.get("solution")
        right = solution is not None and solution == t["full"]
        if solution is not None and not right:
            fig.wrong += 1
        mistakes = rec.get("mistakes") or []
        if mistakes:
            fig.false_mistake_frames += 1
            fig.false_mistake_cells.update(f"{t['puzzle']}:{c}" for c in mistakes)
        if not t["visible"]:
            continue
        fig.in_view += 1
        fig.drawn += right
        if right:
            locked.add(t["puzzle"])
        if t["puzzle"] in locked:
            fig.in_view_after_lock += 1
            fig.drawn_after_lock += right
        effects = [e for e in ("dim", "lamp", "motion") if e in t]
        if "glare" in t:
            effects.append("washed" if t["glare"] > 1.0 else "glare")
        for e in effects or ["steady"]:
            d, n = fig.by_effect.get(e, (0, 0))
            fig.by_effect[e] = (d + right, n + 1)
    return fig


def main(argv: list[str] | None = None) -> int:
    return judge(argv, __doc__, "eval_room_video", "make_room_video.py", compare)


if __name__ == "__main__":
    sys.exit(main())
