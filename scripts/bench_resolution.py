"""Does the live loop keep real time at any resolution? The sample video at 720p and upscaled to 4K.

    python scripts/bench_resolution.py               # samples/demo.mp4 and a 3840x2160 copy of it
    python scripts/bench_resolution.py --rounds 3    # alternate the runs to even out a noisy machine

Each round runs the real command, ``ar-sudoku video CLIP --headless --jsonl LOG``,
once per size, one after the other, and reads back the log: the pipeline time
per frame (``t_ms``, decode and drawing excluded) and the whole-process fps that
the command prints. The working-size grey that detection and tracking see is made
on the decoder thread, ahead of the loop, so ``t_ms`` does not include it; the
whole-process fps does. The ratio of medians is the figure to compare; absolute
numbers move with the load on the machine.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]


def upscale(src: Path, dst: Path, size: tuple[int, int]) -> None:
    """The same clip at another size, H.264 (what a 4K phone or webcam recording is)."""
    import av

    cap = cv2.VideoCapture(str(src))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    with av.open(str(dst), "w") as out:
        stream = out.add_stream("libx264", rate=round(fps))
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.options = {"crf": "18", "preset": "ultrafast"}
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            big = cv2.resize(frame, size, interpolation=cv2.INTER_CUBIC)
            for packet in stream.encode(av.VideoFrame.from_ndarray(big, format="bgr24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    cap.release()


def run(clip: Path, log: Path) -> tuple[float, float, int]:
    """Median t_ms, whole-process fps, frames with a solution drawn."""
    cmd = [sys.executable, "-m", "ar_sudoku", "video", str(clip), "--headless", "--jsonl", str(log)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    fps = float(re.search(r"\(([\d.]+) fps\)", proc.stderr).group(1))
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    return statistics.median(r["t_ms"] for r in rows), fps, sum(r["solution"] is not None for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", nargs="?", default=str(ROOT / "samples" / "demo.mp4"))
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "clip_4k.mp4"
        upscale(Path(args.video), big, (3840, 2160))
        clips = {"720p": Path(args.video), "4K": big}
        results: dict[str, list[tuple[float, float, int]]] = {k: [] for k in clips}
        for _ in range(args.rounds):
            for name, clip in clips.items():
                results[name].append(run(clip, Path(tmp) / f"{name}.jsonl"))
    print(f"{'size':<6}{'median t_ms per round':<28}{'whole-process fps':<26}solved frames")
    for name, rows in results.items():
        print(f"{name:<6}{', '.join(f'{r[0]:.2f}' for r in rows):<28}{', '.join(f'{r[1]:.1f}' for r in rows):<26}"
              f"{', '.join(str(r[2]) for r in rows)}")
    ratios = [b[0] / a[0] for a, b in zip(results["720p"], results["4K"])]
    print(f"4K / 720p pipeline time per frame, per round: {', '.join(f'{r:.2f}x' for r in ratios)} "
          "(target <= 1.5x)")


if __name__ == "__main__":
    main()
