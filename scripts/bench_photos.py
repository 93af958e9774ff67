"""How far reading photos is from its floor: ``image --json`` over a folder, against only decoding it.

    python scripts/bench_photos.py                        # the 80 handwritten 12 MP photos, 3 rounds
    python scripts/bench_photos.py --photos DIR --rounds 5

Each round runs, one after the other, two whole processes a user could run:

* the **command**: ``ar-sudoku image DIR --json`` (default processes), its output thrown away;
* the **floor**: one Python process that decodes every photo at half size (``IMREAD_REDUCED_COLOR_2``, what a
  reader of 12 MP photos needs at least) and does nothing else.

Reported: each one's median wall time over the rounds, the command's time as a multiple of the floor's (a ratio
holds on a loaded machine better than seconds do; the two alternate), and the command's peak memory (the largest
resident size of it and of any of its worker processes, from ``getrusage``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "handwritten-photos" / "images"
FLOOR = """
import sys, cv2
from pathlib import Path
for p in sorted(Path(sys.argv[1]).glob("*.jpg")):
    assert cv2.imread(str(p), cv2.IMREAD_REDUCED_COLOR_2) is not None, p
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB of the process and its children so far) of one whole process."""
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=Path, default=DEFAULT, help="a folder of .jpg photos")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    photos = sorted(args.photos.glob("*.jpg"))
    if not photos:
        print(f"bench_photos: no .jpg photos in {args.photos}", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "ar_sudoku", "image", str(args.photos), "--json"]
    floor = [sys.executable, "-c", FLOOR, str(args.photos)]
    times: dict[str, list[float]] = {"command": [], "floor": []}
    peak = 0.0
    for _ in range(args.rounds):
        t, _ = timed(floor)  # the floor first: its peak is not the command's
        times["floor"].append(t)
        t, rss = timed(command)
        times["command"].append(t)
        peak = max(peak, rss)
    cmd_s, floor_s = statistics.median(times["command"]), statistics.median(times["floor"])
    print(f"{len(photos)} photos in {args.photos}, {args.rounds} rounds, medians:")
    print(f"  ar-sudoku image DIR --json      {cmd_s:.2f} s  ({1e3 * cmd_s / len(photos):.0f} ms a photo)")
    print(f"  decoding them at half size      {floor_s:.2f} s")
    print(f"  the command against the floor   {cmd_s / floor_s:.2f}x; peak memory {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
