"""Step the live session over videos in lockstep and write each one's log: the scoreboard's runner.

    python scripts/live_replay.py --out DIR [--lag 1] [--stride 1] VIDEO...

Writes ``DIR/NAME.jsonl`` for each ``VIDEO`` (one object a frame, as ``ar-sudoku video --jsonl`` writes it).
``--stride N`` steps the session on every Nth frame only, as a busy server answers a phone's page (the page sends
the newest frame once the last is answered), and logs those frames alone.
It imports whichever ``ar_sudoku`` comes first on the module path, so ``eval_live.py --compare REV`` runs it with
``PYTHONPATH`` set to another commit's checkout, named again in ``AR_SUDOKU_TREE`` so that its ``models/`` are
the ones loaded, not the installed checkout's. Only names every version since the page session has are used.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path


def use_tree(tree: Path) -> None:
    """Load ``ar_sudoku``'s models from ``tree`` (whose package ``PYTHONPATH`` put first on the module path),
    not from the installed checkout's ``models/``."""
    import ar_sudoku

    if not Path(ar_sudoku.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"live_replay: ar_sudoku came from {ar_sudoku.__file__}, not {tree} (PYTHONPATH={tree})")
    spec = importlib.util.spec_from_file_location("ar_sudoku.models", tree / "models" / "__init__.py",
                                                  submodule_search_locations=[str(tree / "models")])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ar_sudoku.models"] = module
    ar_sudoku.models = module  # type: ignore[attr-defined]
    spec.loader.exec_module(module)


def frame_json_of():
    """The per-frame JSON of this version (its module moved over time)."""
    for name in ("ar_sudoku.records", "ar_sudoku.io.records"):
        try:
            return __import__(name, fromlist=["frame_json"]).frame_json
        except ImportError:
            continue
    raise SystemExit("live_replay: no frame_json in this ar_sudoku")


def replay(video: Path, lag: int, out: Path, stride: int = 1) -> None:
    from ar_sudoku.ar.page import Page
    from ar_sudoku.ar.session import SessionConfig
    from ar_sudoku.io.sources import open_source
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    frame_json = frame_json_of()
    tmp = out.with_suffix(".part")
    with open_source(str(video)) as source, \
            Page(DigitReader(), kinds=KindReader(), config=SessionConfig(solve_lag=lag)) as page, tmp.open("w") as f:
        for i, frame in enumerate(source):
            if i % stride:
                continue  # a frame the server never saw
            t, cpu = time.perf_counter(), time.process_time()
            res = page.step(frame)
            obj = frame_json(res)
            obj["step_ms"] = round((time.perf_counter() - t) * 1e3, 2)
            # the step's CPU time (every thread of this process): what it costs, whatever else the machine runs
            obj["step_cpu_ms"] = round((time.process_time() - cpu) * 1e3, 2)
            f.write(json.dumps(obj) + "\n")
    tmp.replace(out)


def log_name(video: Path) -> str:
    """The log's name: the scene's folder (its generator) and its name."""
    return f"{video.parent.name}-{video.stem}.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("videos", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--lag", type=int, default=1)
    ap.add_argument("--stride", type=int, default=1, help="step every Nth frame only (the rest never seen)")
    args = ap.parse_args(argv)
    tree = os.environ.get("AR_SUDOKU_TREE")
    if tree:
        use_tree(Path(tree))
    args.out.mkdir(parents=True, exist_ok=True)
    for video in args.videos:
        replay(video, args.lag, args.out / log_name(video), max(1, args.stride))
    return 0


if __name__ == "__main__":
    sys.exit(main())
