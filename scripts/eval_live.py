"""The live scoreboard: every scenario a person meets, judged frame by frame, side by side with another commit.

    python scripts/eval_live.py                       # this checkout: generator A (held-out photos) and B
    python scripts/eval_live.py --compare main        # ... and main's checkout beside it, on the same videos
    python scripts/eval_live.py --split train --gens A   # the side to tune on
    python scripts/eval_live.py --scenarios turn90,pulled --compare HEAD~3
    python scripts/eval_live.py --stride 3 --compare main   # a server answering 10 of 30 frames (a phone's page)

The scenes (``scenes.py``: generator A, real newspaper photos; ``scenes_b.py``: generator B, drawn here, never
tuned on) are written once as real videos under ``runs/scenes/`` with their truth, then each checkout steps its
own session over them in lockstep (``live_replay.py``: each solve's answer taken one frame after it starts), the two
checkouts at once so they share the machine's load. Per scenario:

* **right**: of the frames where a grid is wholly in view, those whose drawn answer is the grid's solution, in
  its cells (each drawn cell within half a cell of the grid's; a turned page drawn turned counts);
* **part**: the same on frames where a third or more of the grid is in view, but not all of it;
* **wrong**: an answer drawn over a grid that is not the one it solves, misplaced, or misread;
* **ghost**: an answer drawn where no grid is (on the empty desk), from the 4th frame of a new scene on
  (a cut, a swap, a page gone); **early** counts wrong and ghost frames in the three frames before that;
* **lock**: the median frames from a grid's coming wholly into view to its first right frame;
* **s∅**: frames whose log says ``solved`` with no solution drawn (the status must say what is shown);
* **ms**: the median CPU time of one step of the session (every thread of its process: what a step costs,
  whatever else the machine runs), this checkout against the other on the same frames.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from live_replay import log_name

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
SCENES_DIR = ROOT / "runs" / "scenes"
GRACE = 3  # frames of a new scene in which a leftover answer is "early", not yet a ghost
SEEN_PART = 0.3  # share of a grid in view that a person reads as "the grid, partly out of view"


@dataclass
class Figures:
    """One scenario's figures for one checkout."""

    frames: int = 0
    whole: int = 0
    right: int = 0
    part: int = 0
    part_right: int = 0
    wrong: int = 0
    ghost: int = 0
    early: int = 0
    solved_null: int = 0
    locks: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    px: list[float] = field(default_factory=list)  # right frames: the drawn cells' distance from the grid's (px)

    def row(self) -> dict[str, str]:
        pct = f"{100 * self.right / self.whole:.1f}" if self.whole else "-"
        part = f"{100 * self.part_right / self.part:.1f}" if self.part else "-"
        lock = f"{statistics.median(self.locks):.0f}" if self.locks else "-"
        ms = f"{statistics.median(self.ms):.1f}" if self.ms else "-"
        return {"right": pct, "part": part, "wrong": str(self.wrong), "ghost": str(self.ghost),
                "early": str(self.early), "lock": lock, "s∅": str(self.solved_null), "ms": ms}


def centres(corners: list | None, lattice: list | None) -> np.ndarray | None:
    """The 81 cell centres (row by row) of a grid drawn through its lattice, else through its corners."""
    if lattice is not None and np.size(lattice) == 200:  # 10x10 crossings, nested by row or not
        pts = np.asarray(lattice, np.float64).reshape(10, 10, 2)
        return ((pts[:-1, :-1] + pts[1:, :-1] + pts[:-1, 1:] + pts[1:, 1:]) / 4).reshape(81, 2)
    if corners is None:
        return None
    unit = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    hmat = cv2.getPerspectiveTransform(unit, np.float32(corners))
    uv = np.stack(np.meshgrid(np.arange(9) + 0.5, np.arange(9) + 0.5), axis=-1).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(uv.astype(np.float64), hmat).reshape(81, 2)


def overlap(a: list, b: list) -> float:
    """The share of quad ``a`` that quad ``b`` covers."""
    pa, pb = np.float32(a).reshape(-1, 2), np.float32(b).reshape(-1, 2)
    area = abs(cv2.contourArea(pa))
    if area < 1:
        return 0.0
    if cv2.contourArea(pb) < 0:
        pb = pb[::-1].copy()
    if cv2.contourArea(pa) < 0:
        pa = pa[::-1].copy()
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(inter / area)


def verdict(drawn: dict, grids: list[dict], size: tuple[int, int] | None = None) -> tuple[str, dict | None, float]:
    """What one drawn answer is: right, wrong (over a grid it does not solve, or off its cells) or ghost; judged
    on the drawn cells in a frame of ``size`` (w, h), if given: what is drawn out of the picture is not seen."""
    best = max(grids, key=lambda g: overlap(drawn["corners"], g["corners"]), default=None)
    if best is None or overlap(drawn["corners"], best["corners"]) < 0.5:
        return "ghost", None, 0.0
    mine = centres(drawn["corners"], drawn.get("lattice"))
    theirs = centres(best["corners"], best.get("lattice"))
    assert mine is not None and theirs is not None
    shown = np.arange(81)
    if size is not None:
        shown = np.flatnonzero((mine[:, 0] >= 0) & (mine[:, 0] < size[0]) & (mine[:, 1] >= 0) & (mine[:, 1] < size[1]))
        if not len(shown):
            return "unseen", best, 0.0
    cell = float(np.sqrt(abs(cv2.contourArea(np.float32(best["corners"]))))) / 9
    dist = np.linalg.norm(mine[shown, None, :] - theirs[None, :, :], axis=2)
    nearest = dist.argmin(axis=1)
    off = dist[np.arange(len(shown)), nearest]
    if float(np.median(off)) > 0.5 * cell or len(set(nearest.tolist())) < len(shown):
        return "wrong", best, float(np.median(off))
    same = all(drawn["solution"][i] == best["solution"][j] for i, j in zip(shown, nearest))
    return ("right" if same else "wrong"), best, float(np.median(off))


def puzzles_of(rec: dict) -> list[dict]:
    """The puzzles a log line shows (a page's ``puzzles``, else the top-level one)."""
    return rec.get("puzzles") or ([rec] if rec.get("corners") is not None else [])


def strided(truth: list[dict], stride: int) -> list[dict]:
    """The truth of the frames a session stepped every ``stride`` frames saw (``live_replay --stride``), each
    marked changed when the scene changed on it or on a frame skipped since the last one seen."""
    out, changed = [], False
    for t in truth:
        if "frame" not in t:
            out.append(t)
            continue
        changed = changed or bool(t["change"])
        if t["frame"] % stride == 0:
            out.append({**t, "change": changed})
            changed = False
    return out


def judge(truth: list[dict], log: list[dict], trace: list[str] | None = None) -> Figures:
    """One scenario's log against its truth (``trace``: a line a frame is added to it)."""
    frames = [t for t in truth if "frame" in t]
    meta = next((t["meta"] for t in truth if "meta" in t), {})
    size = tuple(meta["size"]) if "size" in meta else None
    fig = Figures(frames=len(frames))
    last_change = -(10**9)
    appeared: dict[str, int] = {}  # grid -> frame it came wholly into view (until its first right frame)
    was_whole: set[str] = set()
    for t, rec in zip(frames, log):
        i = t["frame"]
        if t["change"]:
            last_change = i
        fig.ms.append(float(rec.get("step_cpu_ms", rec.get("step_ms", rec.get("t_ms", 0.0)))))
        shown = puzzles_of(rec)
        if any(p.get("status") == "solved" and not p.get("solution") for p in [rec, *shown]):
            fig.solved_null += 1
        right_now: set[str] = set()
        said = []
        for p in shown:
            if not p.get("solution") or p.get("corners") is None or p.get("size", 9) != 9:
                said.append(f"{p.get('status')}{'' if p.get('corners') is None else '@'}")
                continue
            what, grid, off = verdict(p, t["grids"], size)  # type: ignore[arg-type]
            said.append(f"{p.get('status')}:{what}")
            if what == "unseen":
                continue
            if what == "right" and grid is not None:
                right_now.add(grid["name"])
                fig.px.append(off)
            elif i - last_change < GRACE:
                fig.early += 1
            elif what == "ghost":
                fig.ghost += 1
            else:
                fig.wrong += 1
        whole_now = set()
        for g in t["grids"]:
            if g["visible"] >= 0.995:
                whole_now.add(g["name"])
                fig.whole += 1
                fig.right += g["name"] in right_now
                if g["name"] not in was_whole and g["name"] not in appeared:
                    appeared[g["name"]] = i
            elif g["visible"] >= SEEN_PART:
                fig.part += 1
                fig.part_right += g["name"] in right_now
        for name in list(appeared):
            if name in right_now:
                fig.locks.append(i - appeared.pop(name))
        was_whole = whole_now
        if trace is not None:
            seen = " ".join(f"{g['name']}:{g['visible']:.2f}" for g in t["grids"]) or "-"
            trace.append(f"{i:4d}{' change' if t['change'] else ''} truth {seen} | log {' '.join(said) or '-'}")
    end = frames[-1]["frame"] + 1 if frames else 0
    fig.locks += [end - start for start in appeared.values()]  # never locked: the rest of the clip
    return fig


# --------------------------------------------------------------------------- making the scenes


def scene_dir(gen: str, split: str) -> Path:
    """Where a generator's scenes live: named by the generator's source, so a changed generator makes anew."""
    own = {"A": [], "B": ["scenes_b.py"], "P": ["scenes_p.py", "print_pages.py", "scenes_b.py"]}[gen]
    sources = [SCRIPTS / "scenes.py"] + [SCRIPTS / name for name in own]
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in sources)).hexdigest()[:10]
    return SCENES_DIR / (f"A-{split}-{digest}" if gen == "A" else f"{gen}-{digest}")


def make_scenes(gen: str, split: str, names: list[str]) -> list[Path]:
    """The scenes' videos, made where missing."""
    import scenes

    folder = scene_dir(gen, split)
    out = []
    maker = None
    for name in names:
        path = folder / f"{name}.mp4"
        if not path.exists() or not path.with_suffix(".truth.jsonl").exists():
            if maker is None:
                if gen == "A":
                    maker = scenes.SceneA(split)
                elif gen == "P":
                    import scenes_p

                    maker = scenes_p.ScenePrint()
                else:
                    import scenes_b

                    maker = scenes_b.SceneB()
            shots = maker.scene(name)
            scenes.write_scene(path, shots, maker.size, maker.fps, maker.render,
                               {"gen": gen, "scenario": name, "size": list(maker.size)})
            print(f"  made {path.relative_to(ROOT)} ({len(shots)} frames)", file=sys.stderr)
        out.append(path)
    return out


# --------------------------------------------------------------------------- running the checkouts


def checkout(rev: str) -> Path:
    """A checkout of ``rev`` beside this one (a git worktree, made once a commit)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True, text=True, check=True
                         ).stdout.strip()
    where = Path(tempfile.gettempdir()) / "ar-sudoku-compare" / sha[:12]
    if not (where / "ar_sudoku").is_dir():
        where.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(where), sha],
                       capture_output=True, check=True)
    return where


def start(tree: Path, videos: list[Path], out: Path, lag: int, stride: int = 1) -> subprocess.Popen:
    path = os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "AR_SUDOKU_TREE": str(tree), "PYTHONPATH": path, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(SCRIPTS / "live_replay.py"), "--out", str(out), "--lag", str(lag),
           "--stride", str(stride), *map(str, videos)]
    return subprocess.Popen(cmd, env=env)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


COLUMNS = ("right", "part", "wrong", "ghost", "early", "lock", "s∅", "ms")


def table(rows: list[tuple[str, list[Figures]]], sides: list[str]) -> list[str]:
    """The scoreboard: a row a scenario, each column's figure for every side (``a → b`` when two)."""
    head = ["scenario", *COLUMNS]
    body = []
    for name, figs in rows:
        cells = [name]
        for col in COLUMNS:
            vals = [f.row()[col] for f in figs]
            cells.append(" → ".join(vals) if len(set(vals)) > 1 else vals[0])
        body.append(cells)
    widths = [max(len(r[k]) for r in [head, *body]) for k in range(len(head))]
    lines = [f"sides: {' → '.join(sides)} (a figure shown once is the same on every side)",
             "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in body]
    return lines


def total(figs: list[Figures]) -> Figures:
    out = Figures()
    for f in figs:
        for k in ("frames", "whole", "right", "part", "part_right", "wrong", "ghost", "early", "solved_null"):
            setattr(out, k, getattr(out, k) + getattr(f, k))
        out.locks += f.locks
        out.ms += f.ms
        out.px += f.px
    return out


def main(argv: list[str] | None = None) -> int:
    import scenes

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", metavar="REV", help="another commit to run beside this checkout (e.g. main)")
    ap.add_argument("--gens", default="A,B", help="generators: A (real photos), B (drawn here, never tuned on), "
                    "P (pages in the machine's many print faces, to tune on)")
    ap.add_argument("--split", choices=("held-out", "train"), default="held-out",
                    help="generator A's photos: held-out (the report) or train (to tune on)")
    ap.add_argument("--scenarios", default=",".join(scenes.SCENARIOS), help="a comma-separated subset")
    ap.add_argument("--pages", type=int, default=0,
                    help="generator P only: each scenario on this many pages (P0, P1, ...) instead of one")
    ap.add_argument("--lag", type=int, default=1,
                    help="frames after its submission a solve's answer is taken (waited for)")
    ap.add_argument("--stride", type=int, default=1,
                    help="step every Nth frame only, as a busy server answers a phone's page (3: 10 of 30 fps)")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    ap.add_argument("--keep", type=Path, help="keep the logs in this folder (a folder a side)")
    ap.add_argument("--frames", action="store_true", help="print every frame's verdicts too")
    args = ap.parse_args(argv)
    names = [s for s in args.scenarios.split(",") if s]
    bad = [s for s in names if s not in scenes.SCENARIOS]  # (``--pages`` names them SCENARIO@PAGE below)
    gens = [g for g in args.gens.split(",") if g]
    if bad or not names or any(g not in ("A", "B", "P") for g in gens):
        ap.error(f"scenarios are {', '.join(scenes.SCENARIOS)}; generators A, B, P")
    if args.pages and gens != ["P"]:
        ap.error("--pages is for generator P alone (--gens P)")
    if args.pages:
        names = [f"{s}@P{k}" for s in names for k in range(args.pages)]
    videos = {g: make_scenes(g, args.split, names) for g in gens}
    trees = [("this", ROOT)]
    if args.compare:
        trees.insert(0, (args.compare, checkout(args.compare)))
    with tempfile.TemporaryDirectory() as tmp:
        logs = args.keep or Path(tmp)
        outs = {side: logs / side.replace("/", "_") for side, _ in trees}
        every = [v for g in gens for v in videos[g]]
        # each checkout in its own process, both at once: they share the machine's load
        procs = [start(tree, every, outs[side], args.lag, max(1, args.stride)) for side, tree in trees]
        if any(p.wait() != 0 for p in procs):
            print("eval_live: a replay failed", file=sys.stderr)
            return 1
        rows: list[tuple[str, list[Figures]]] = []
        by_side: dict[str, list[Figures]] = {side: [] for side, _ in trees}
        for g in gens:
            for path in videos[g]:
                truth = strided(read_jsonl(path.with_suffix(".truth.jsonl")), max(1, args.stride))
                traces: list[list[str]] = [[] for _ in trees]
                figs = [judge(truth, read_jsonl(outs[side] / log_name(path)), tr)
                        for (side, _), tr in zip(trees, traces)]
                if args.frames:
                    for (side, _), tr in zip(trees, traces):
                        print(f"--- {g} {path.stem} ({side})", *tr, sep="\n")
                for (side, _), f in zip(trees, figs):
                    by_side[side].append(f)
                rows.append((f"{g} {path.stem}", figs))
        rows.append(("all", [total(by_side[side]) for side, _ in trees]))
    print("\n".join(table(rows, [side for side, _ in trees])))
    if args.json:
        args.json.write_text(json.dumps({name: {side: f.row() for (side, _), f in zip(trees, figs)}
                                         for name, figs in rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
