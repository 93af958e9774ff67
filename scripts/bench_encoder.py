"""x264 settings for recordings: CPU per frame, size and quality, on the sample's own frames.

    python scripts/bench_encoder.py            # 150 frames of samples/demo.mp4, each setting 3 times

The writer thread's cost is what a recording takes from the frame loop on a 2-core
machine, so each setting is timed as the thread does it (BGR to I420 with OpenCV,
then libx264 on one thread), in CPU time, and the settings are alternated round by
round so a busy machine slows them alike. Quality is the mean PSNR of the decoded
frames against the originals.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from pathlib import Path

import av
import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {
    "crf 23 + deblock (before)": {"preset": "ultrafast", "crf": "23", "x264-params": "deblock=1"},
    "qp 23": {"preset": "ultrafast", "qp": "23"},
    "qp 22 (shipped)": {"preset": "ultrafast", "qp": "22"},
    "qp 22 + deblock": {"preset": "ultrafast", "qp": "22", "x264-params": "deblock=1"},
}


def encode(frames: list[np.ndarray], options: dict[str, str]) -> tuple[float, bytes]:
    """CPU ms a frame (conversion + encoding + muxing) and the .mp4 bytes."""
    h, w = frames[0].shape[:2]
    buf = io.BytesIO()
    with av.open(buf, "w", format="mp4") as out:
        stream = out.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.codec_context.thread_count = 1
        stream.codec_context.options = options
        t = time.thread_time()
        for i, img in enumerate(frames):
            frame = av.VideoFrame.from_numpy_buffer(cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
            frame.pts = i
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
        ms = (time.thread_time() - t) / len(frames) * 1e3
    return ms, buf.getvalue()


def psnr(frames: list[np.ndarray], data: bytes) -> float:
    with av.open(io.BytesIO(data)) as c:
        decoded = [f.to_ndarray(format="bgr24") for f in c.decode(video=0)]
    return statistics.mean(cv2.PSNR(a, b) for a, b in zip(frames, decoded))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", nargs="?", default=str(ROOT / "samples" / "demo.mp4"))
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    cv2.setNumThreads(1)  # the writer thread's conversion runs on one core
    frames: list[np.ndarray] = []
    with av.open(args.video) as c:
        for f in c.decode(video=0):
            frames.append(f.to_ndarray(format="bgr24"))
            if len(frames) >= args.frames:
                break
    times: dict[str, list[float]] = {k: [] for k in SETTINGS}
    data: dict[str, bytes] = {}
    for _ in range(args.rounds):
        for name, options in SETTINGS.items():
            ms, data[name] = encode(frames, options)
            times[name].append(ms)
    h, w = frames[0].shape[:2]
    print(f"{len(frames)} frames of {args.video} ({w}x{h}), median of {args.rounds} alternated rounds, one core")
    for name in SETTINGS:
        print(f"  {name:<28} {statistics.median(times[name]):5.2f} ms a frame  "
              f"{len(data[name]) / len(frames) / 1e3:5.1f} kB a frame  {psnr(frames, data[name]):5.2f} dB PSNR")


if __name__ == "__main__":
    main()
