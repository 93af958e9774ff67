"""Benchmark the live loop on a video: per-stage timings, fps, lock and switch latency.

    python scripts/bench_live.py                       # samples/demo.mp4 (1280x720)
    python scripts/bench_live.py clip.mp4 --truth clip.truth.jsonl
    python scripts/bench_live.py --recording-only      # whole process: headless vs --output, side by side
    python scripts/bench_live.py --page --rounds 0     # the session for a page (``ar.page``), as live and video run it

Stages per frame: decode, find/track (grid detection and optical flow), read
(cells + model, only on frames that read), draw (overlay + status), encode
(what the loop waits for the H.264 writer thread: ~0 unless its queue is full),
and undistort (precomputed remap maps, as ``--calibration``
costs). Solve runs on the worker thread: its wall time per submission is
reported apart. The run is repeated with a second thread grinding on an
unsolvable puzzle to show the loop's frame time does not depend on the solver.
Lock and switch latencies need the truth file that make_sample_video.py writes.
Last, the whole command, ``ar-sudoku video VIDEO --headless`` with and without
``--output``, is run alternately a few times, so a busy machine slows both
alike, and the recording's cost is given as a ratio of the two fps.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from ar_sudoku.ar.overlay import draw_status
from ar_sudoku.ar.page import Page
from ar_sudoku.ar.session import ARSession
from ar_sudoku.ar.solve_worker import SolveWorker
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import open_source
from ar_sudoku.sudoku.solver import parse_line, solve
from ar_sudoku.vision.camera import Calibration
from ar_sudoku.vision.digits import DigitReader

ROOT = Path(__file__).resolve().parents[1]
# a sparse 16x16 with one wrong given: minutes of search, so the worker grinds for the whole timeout
GRIND = (
    "....F..3....A.G...9......C2.B........C2...........G......8.....4C..........8..A..5....7.CAF..."
    "....A.....GE..........2.....DB....2.3..FA.5............3.C..A7.......C4.....8F.B....4........"
    "..........G......D..25.CF....2.B..A......5...9.C.....A....2.........."
)


class TimedWorker(SolveWorker):
    """A solve worker that records each submission's wall time, submit to done."""

    def __init__(self) -> None:
        super().__init__()
        self.handles: list = []

    def _submit(self, handle):
        self.handles.append(handle)
        return super()._submit(handle)

    @property
    def durations(self) -> list[float]:
        return [(h.finished - h.submitted) * 1e3 for h in self.handles if h.done() and not h.superseded]


def stats(xs: list[float]) -> str:
    if not xs:
        return "   -"
    return (f"mean {statistics.mean(xs):6.2f}  median {statistics.median(xs):6.2f}  "
            f"p95 {np.percentile(xs, 95):6.2f}  max {max(xs):6.2f}")


def decode_only(path: str) -> tuple[int, float]:
    t = time.perf_counter()
    n = 0
    with open_source(path) as src:
        for _ in src:
            n += 1
    return n, n / (time.perf_counter() - t)


def run(path: str, reader: DigitReader, undistort: bool, page: bool = False) -> dict:
    worker = TimedWorker()
    make = Page if page else ARSession
    stages: dict[str, list[float]] = {k: [] for k in ("decode", "undistort", "find", "read", "draw", "encode",
                                                      "frame")}
    results = []
    tracked_frame_ms: list[float] = []
    with open_source(path) as src, make(reader, worker) as session, \
            tempfile.TemporaryDirectory() as tmp, \
            VideoSink(Path(tmp) / "out.mp4", (src.info.width, src.info.height), src.info.fps) as sink:
        und = None
        if undistort:
            w, h = src.info.width, src.info.height
            k = np.array([[0.9 * w, 0, w / 2], [0, 0.9 * w, h / 2], [0, 0, 1]])
            und = Calibration(k, np.array([[-0.2, 0.05, 0, 0, 0]]), (w, h), 0.3, 20).undistorter((w, h))
        frames = iter(src)
        start = time.perf_counter()
        cpu0 = time.thread_time()
        while True:
            t0 = time.perf_counter()
            try:
                frame = next(frames)
            except StopIteration:
                break
            t1 = time.perf_counter()
            if und is not None:
                frame = und(frame)
            t2 = time.perf_counter()
            res = session.step(frame)
            t3 = time.perf_counter()
            session.draw(frame, res)
            draw_status(frame, [f"{res.status}"])
            t4 = time.perf_counter()
            sink.write(frame, owned=True)  # as the app does: a fresh frame, not drawn on again
            t5 = time.perf_counter()
            stages["decode"].append((t1 - t0) * 1e3)
            stages["undistort"].append((t2 - t1) * 1e3)
            stages["find"].append(res.timings.get("find", 0.0))
            if res.timings.get("read", 0.0) > 0.5:
                stages["read"].append(res.timings["read"])
            stages["draw"].append((t4 - t3) * 1e3)
            stages["encode"].append((t5 - t4) * 1e3)
            stages["frame"].append((t5 - t0) * 1e3)
            if res.solution:
                tracked_frame_ms.append((t4 - t1) * 1e3)  # the loop's own work on a tracked, solved frame
            results.append(res)
        total = time.perf_counter() - start
        loop_cpu = time.thread_time() - cpu0
    worker.close()
    return {"stages": stages, "results": results, "total": total, "solve": worker.durations,
            "tracked_ms": tracked_frame_ms, "loop_cpu": loop_cpu, "writer_cpu": sink.writer_cpu}


def latencies(results, truth_path: Path) -> list[str]:
    truth = [json.loads(x) for x in truth_path.read_text().splitlines()]
    out = []
    seen: list[str] = []
    for t in truth:
        if t["givens"] and t["givens"] not in seen:
            seen.append(t["givens"])
    for k, givens in enumerate(seen):
        solution = solve(parse_line(givens)).solution
        in_view = next(t["frame"] for t in truth if t["givens"] == givens and t["visible"])
        drawn = next((r.frame for r in results if r.solution == solution and r.frame >= in_view), None)
        label = "first puzzle: lock" if k == 0 else f"puzzle {k + 1}: switch"
        if drawn is None:
            out.append(f"{label}: never drawn (fully in view from frame {in_view})")
        else:
            out.append(f"{label} {drawn - in_view} frames after it is fully in view (frame {in_view} -> {drawn})")
    solutions = {g: solve(parse_line(g)).solution for g in seen}
    wrong = sum(1 for r, t in zip(results, truth) if r.solution and r.solution != solutions.get(t["givens"]))
    out.append(f"frames with a wrong or misplaced solution drawn: {wrong}")
    errs = [float(np.abs(np.array(r.corners) - np.array(t["corners"])).max()) for r, t in zip(results, truth)
            if r.corners is not None and t["corners"] is not None]
    if errs:
        out.append(f"corner error vs truth (largest x/y error of the 4 corners): median {statistics.median(errs):.2f} "
                   "px,"
                   f" max {max(errs):.2f} px over {len(errs)} frames")
    ghosts = sum(1 for r, t in zip(results, truth) if r.corners is not None and t["corners"] is None)
    out.append(f"frames with corners but no puzzle in view: {ghosts}")
    return out


def rss_mb() -> float:
    """Resident memory now (not the peak), from /proc."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def soak(path: str, frames: int) -> int:
    """Run the loop over many frames (the video looped) and print memory as it goes."""
    reader = DigitReader()
    n = 0
    marks = []
    t0 = time.perf_counter()
    with ARSession(reader) as session, tempfile.TemporaryDirectory() as tmp:
        with open_source(path) as s0:
            size, fps = (s0.info.width, s0.info.height), s0.info.fps
        with VideoSink(Path(tmp) / "soak.mp4", size, fps) as sink:
            while n < frames:
                with open_source(path) as src:
                    for frame in src:
                        res = session.step(frame)
                        session.draw(frame, res)
                        sink.write(frame)
                        n += 1
                        if n % 1000 == 0 or n == 100:
                            marks.append((n, rss_mb()))
                            print(f"frame {n:6d}: RSS {marks[-1][1]:.1f} MB", flush=True)
                        if n >= frames:
                            break
    dt = time.perf_counter() - t0
    first, last = marks[0][1], marks[-1][1]
    print(f"{n} frames in {dt:.0f} s ({n / dt:.1f} fps); RSS {first:.1f} MB at frame {marks[0][0]} -> "
          f"{last:.1f} MB at frame {marks[-1][0]} ({last - first:+.1f} MB)")
    return 0


def whole_process(path: str, rounds: int) -> None:
    """Headless vs recording, whole process (start-up, decode, loop, finalized file), alternated round by round.

    Each run's CPU time (user + system, all its threads) is reported too: on a machine with few
    cores the recording's speed is bounded by the CPU both runs need, which this shows directly.
    """
    import resource

    fps: dict[str, list[float]] = {"headless": [], "recording": []}
    loop: dict[str, list[float]] = {"headless": [], "recording": []}
    cpu: dict[str, list[float]] = {"headless": [], "recording": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for kind, extra in (("headless", []), ("recording", ["--output", str(Path(tmp) / "rec.mp4")])):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                p = subprocess.run([sys.executable, "-m", "ar_sudoku", "video", path, "--headless", *extra],
                                   capture_output=True, text=True)
                wall = time.perf_counter() - t
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                m = re.search(r"(\d+) frames in [\d.]+ s \(([\d.]+) fps\)", p.stderr)
                if m is None:
                    print(f"{kind}: no report line (exit {p.returncode}): {p.stderr.strip()[-200:]}")
                    return
                fps[kind].append(int(m.group(1)) / wall)
                loop[kind].append(float(m.group(2)))
                cpu[kind].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / wall)
    h, r = statistics.median(fps["headless"]), statistics.median(fps["recording"])
    print(f"whole process, median of {rounds} alternated runs: headless {h:.1f} fps, with --output .mp4 {r:.1f} fps "
          f"-> recording at {100 * r / h:.0f}% of headless (the loop alone: {statistics.median(loop['headless']):.1f}"
          f" vs {statistics.median(loop['recording']):.1f} fps)")
    print("  per round, headless / recording fps: " + ", ".join(
        f"{a:.0f}/{b:.0f}" for a, b in zip(fps["headless"], fps["recording"])))
    print(f"  cores busy on average (CPU time / wall time, of {os.cpu_count()}): headless "
          f"{statistics.median(cpu['headless']):.2f}, recording {statistics.median(cpu['recording']):.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", nargs="?", default=str(ROOT / "samples" / "demo.mp4"))
    ap.add_argument("--truth", type=Path, help="per-frame truth JSONL (default: VIDEO.truth.jsonl if present)")
    ap.add_argument("--soak", type=int, default=0, metavar="N",
                    help="instead: run N frames (the video looped) and report memory over time")
    ap.add_argument("--rounds", type=int, default=3, metavar="N",
                    help="alternated headless/recording runs of the whole command (default 3; 0 skips)")
    ap.add_argument("--page", action="store_true",
                    help="run the session for a page (every puzzle in view: ar.page.Page), as live and video do")
    ap.add_argument("--recording-only", action="store_true", help="only the headless vs recording comparison")
    args = ap.parse_args()
    if args.soak:
        return soak(args.video, args.soak)
    if args.recording_only:
        whole_process(args.video, max(1, args.rounds))
        return 0
    truth = args.truth or Path(args.video).with_suffix(".truth.jsonl")
    reader = DigitReader()
    n, dec_fps = decode_only(args.video)
    base = run(args.video, reader, undistort=False, page=args.page)
    if args.page:
        print("the session for a page (ar.page.Page), as `ar-sudoku live` and `video` run it")
    with open_source(args.video) as s:
        w, h = s.info.width, s.info.height
    print(f"video {args.video}: {n} frames at {w}x{h}")
    print(f"decode only: {dec_fps:.1f} fps")
    fps = len(base["results"]) / base["total"]
    print(f"full loop (decode+track/read+draw+encode): {fps:.1f} fps")
    tracked = base["tracked_ms"]
    if tracked:
        print(f"tracked, solved frames, the loop's own work (no decode/encode): median "
              f"{statistics.median(tracked):.2f} ms = {1000 / statistics.median(tracked):.0f} fps; "
              f"p95 {np.percentile(tracked, 95):.2f} ms")
    print("per-stage ms per frame:")
    for name in ("decode", "find", "read", "draw", "encode", "frame"):
        extra = " (frames that read only)" if name == "read" else ""
        print(f"  {name:<9} {stats(base['stages'][name])}{extra}")
    print(f"  {'solve':<9} {stats(base['solve'])} (worker thread, {len(base['solve'])} submissions)")
    nf = len(base["results"])
    print(f"  CPU a frame: the loop's thread {base['loop_cpu'] / nf * 1e3:.2f} ms, the H.264 writer thread "
          f"{base['writer_cpu'] / nf * 1e3:.2f} ms (on the other core, overlapped)")
    und = run(args.video, reader, undistort=True, page=args.page)
    print(f"  undistort {stats(und['stages']['undistort'])} (remap with precomputed maps, --calibration)")
    if truth.exists():
        for line in latencies(base["results"], truth):
            print(line)
    # the solver grinding on a garbage reading (in its worker, as in the app) must not slow the loop
    stop = threading.Event()

    def grind() -> None:
        with SolveWorker() as w:
            while not stop.is_set():
                w.submit(GRIND, timeout=5.0).wait(6.0)

    g = threading.Thread(target=grind, daemon=True)
    g.start()
    time.sleep(1.0)  # the worker's process is up and searching
    busy = run(args.video, reader, undistort=False, page=args.page)
    stop.set()
    g.join()
    a, b = base["stages"]["frame"], busy["stages"]["frame"]
    print(f"frame time with the solver idle: median {statistics.median(a):.2f} ms; while it grinds on an "
          f"unsolvable reading: median {statistics.median(b):.2f} ms ({len(busy['results']) / busy['total']:.1f} fps)")
    if args.rounds:
        whole_process(args.video, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
