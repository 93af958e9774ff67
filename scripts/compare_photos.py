"""Whether two commits read the real photos alike: ``ar-sudoku image --json`` over every real photo, side by side.

    python scripts/compare_photos.py --compare main           # this checkout against main's, all 429 puzzles
    python scripts/compare_photos.py --compare HEAD~2 --keep /tmp/photos   # ... and keep both outputs

A refactor or a speed-up of the reader must not change what it reads (issue 60: "the photo evaluations identical row
by row before and after"); a change that means to read better must show where it reads differently. This runs the
command a user runs, once in each checkout (the other one a git worktree, with its own ``models/``, as
``eval_live.py --compare`` makes it), over the 160 printed and 159 written-on newspaper photos, the 80 pen-and-pencil
phone photos and the 30 photos from other projects. Each puzzle's JSON object is compared with its timing (``ms``)
left out. Printed: how many puzzles each side read, how many differ, and for each that differs, the fields that do.
Exit status 0 when none differ, 1 when some do.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from eval_live import ROOT, SCRIPTS, checkout

DATA = ROOT.parent / "shared" / "data"
SOURCES = ("sudoku-photos/printed", "sudoku-photos/mixed", "handwritten-photos/images", "peer-photos")
SUFFIXES = {".jpg", ".jpeg", ".png"}
TIMING = {"ms"}
# run in the checkout's own package and models (``live_replay.use_tree``), from this checkout's scripts
RUNNER = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from live_replay import use_tree
use_tree(Path(sys.argv[2]))
from ar_sudoku.cli import main
sys.exit(main(["image", *sys.argv[3:], "--json"]))
"""


def photos(data: Path) -> list[Path]:
    """Every real photo of the four sets, in a fixed order."""
    return sorted(p for s in SOURCES for p in (data / s).rglob("*") if p.suffix.lower() in SUFFIXES)


def read_all(tree: Path, files: list[Path], out: Path) -> list[dict]:
    """``ar-sudoku image FILES --json`` as ``tree``'s code reads them (its output also written to ``out``)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    with out.open("w") as f:  # run in the tree: ``python -c`` puts its working folder first on the module path
        done = subprocess.run([sys.executable, "-c", RUNNER, str(SCRIPTS), str(tree), *map(str, files)],
                              stdout=f, stderr=subprocess.PIPE, text=True, env=env, cwd=tree)
    objects = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    # 1 is some photo without an answer (the README's table), but also Python's exit on an error: nothing read
    if done.returncode not in (0, 1) or not objects:
        last = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        raise SystemExit(f"compare_photos: {tree} exited {done.returncode} having read nothing: {last}")
    return objects


def keyed(objects: list[dict]) -> dict[tuple[str, int], dict]:
    """Each puzzle's object without its timing, by (photo, puzzle index)."""
    return {(o["path"], int(o.get("puzzle", 0))): {k: v for k, v in o.items() if k not in TIMING} for o in objects}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", metavar="REV", required=True, help="the commit to read beside this checkout")
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--keep", type=Path, help="keep both sides' JSON lines in this folder")
    args = ap.parse_args(argv)
    files = photos(args.data)
    if not files:
        print(f"compare_photos: no photos under {args.data}", file=sys.stderr)
        return 2
    keep = args.keep or Path(tempfile.mkdtemp(prefix="compare-photos-"))
    keep.mkdir(parents=True, exist_ok=True)
    this = keyed(read_all(ROOT, files, keep / "this.jsonl"))
    other = keyed(read_all(checkout(args.compare), files, keep / "other.jsonl"))
    differ = sorted(k for k in this.keys() | other.keys() if this.get(k) != other.get(k))
    print(f"{len(files)} photos: {len(this)} puzzles read here, {len(other)} by {args.compare}; {len(differ)} differ")
    for path, index in differ:
        a, b = this.get((path, index)), other.get((path, index))
        fields = "only one side" if a is None or b is None else ", ".join(k for k in sorted(a.keys() | b.keys())
                                                                         if a.get(k) != b.get(k))
        print(f"  {Path(path).relative_to(args.data)} puzzle {index}: {fields}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
