"""What the scripts that make test videos and judge the real command on them share.

A made video (``make_room_video.py``, ``make_page_video.py``, ``make_sample_video.py``) has its truth beside
it (``NAME.truth.jsonl``); its judge (``eval_room_video.py``, ``eval_page_video.py``) runs the command a
person would, ``ar-sudoku video NAME --headless --jsonl LOG``, and compares the two logs line by line; or,
with ``--lockstep LAG``, steps the same session in-process with its solves waited for (:func:`replay_video`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def frame_size(text: str) -> tuple[int, int]:
    """``--size WxH`` (argparse ``type``): a bad one is a usage error, exit 2."""
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WxH, e.g. 1280x720") from None
    if w < 16 or h < 16:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 16x16")
    return w, h


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_video(video: Path, log: Path, who: str) -> None:
    """The real command, as a person would run it (``ar-sudoku``, by this Python); its exit 1 (no puzzle
    solved) is a result to judge, any other failure ends the script."""
    cmd = [sys.executable, "-m", "ar_sudoku", "video", str(video), "--headless", "--jsonl", str(log)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{who}: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")


def replay_video(video: Path, lag: int) -> list[dict]:
    """The log the command would write for ``video``, the session stepped frame by frame in this process with
    each solve's answer taken ``lag`` frames after its submission, waited for if need be
    (``SessionConfig.solve_lag``).

    The live command never waits for its solver, so the frame a board locks on, and the figures, depend on the
    machine's load; in lockstep they depend on the frames alone, and two versions of the code can be compared
    on one run each. Same source, session and records as ``ar-sudoku video --headless --jsonl``.
    """
    from ar_sudoku.ar.page import Page
    from ar_sudoku.ar.session import SessionConfig
    from ar_sudoku.io.records import frame_json
    from ar_sudoku.io.sources import open_source
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    config = SessionConfig(solve_lag=lag)
    with open_source(str(video)) as source, Page(DigitReader(), kinds=KindReader(), config=config) as page:
        return [frame_json(page.step(frame)) for frame in source]


def judge(argv: list[str] | None, doc: str | None, who: str, maker: str, compare) -> int:
    """An ``eval_*_video`` script's command line: the video (its truth beside it) or ``--log`` of an earlier
    run, or ``--lockstep LAG`` (:func:`replay_video`), compared by ``compare(truth, log)`` (whose ``lines()``
    are printed); exit 2 when a file is missing."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", type=Path, help=f"a video from {maker} (its .truth.jsonl beside it)")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--log", type=Path, help="the JSONL of an earlier run instead of running the CLI")
    how.add_argument("--lockstep", type=int, metavar="LAG",
                     help="step the session in this process, each solve waited for LAG frames after it starts: "
                          "figures that do not depend on the machine's load (1: as in the tests)")
    args = ap.parse_args(argv)
    if args.lockstep is not None and args.lockstep < 0:
        ap.error("--lockstep: a lag of 0 frames or more")
    truth = read_truth(args.video, who)
    if truth is None:
        return 2
    if args.log is not None and not args.log.is_file():
        print(f"{who}: {args.log} not found", file=sys.stderr)
        return 2
    if args.lockstep is not None:
        log = replay_video(args.video, args.lockstep)
    else:
        log = command_log(args.video, args.log, who)
    print("\n".join(compare(truth, log).lines()))
    return 0


def read_truth(video: Path, who: str) -> list[dict] | None:
    """The video's truth (``NAME.truth.jsonl`` beside it); None (said on stderr) when either is missing."""
    truth_path = video.with_suffix(".truth.jsonl")
    if not video.exists() or not truth_path.exists():
        print(f"{who}: {video} or {truth_path} not found", file=sys.stderr)
        return None
    return read_jsonl(truth_path)


def command_log(video: Path, log: Path | None, who: str) -> list[dict]:
    """The command's log of ``video``: ``log``, an earlier run's, else the command run now."""
    if log is not None:
        return read_jsonl(log)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.jsonl"
        run_video(video, path, who)
        return read_jsonl(path)
