"""Killer pages photographed: read fully, solved, and wrong answers, per style and per renderer; and ordinary
photos taken for killer pages (must be none).

Each page is a generated killer puzzle (some with a few givens) printed by renderer A (the app's own drawing)
or renderer B (``killer_renderer_b.py``, Pillow, other faces and patterns, never tuned on) in one of three
styles (dashed or dotted cage outlines, or shaded cages), then photographed (``killer_pages.photograph``:
perspective, light, blur, noise, JPEG). It is read exactly as ``ar-sudoku image`` reads a photo
(``ar.photo.analyse_page``). A page is *read fully* when every cage (its cells and sum) and every given is
right, *solved* when the solution drawn is the page's, *wrong* when a solution is drawn that is not.

The ordinary photos (``../shared/data/sudoku-photos/printed`` and ``peer-photos``) are read the same way; a
puzzle given cages, or said to be a killer page, is counted: there must be none.

    python scripts/eval_killer.py                      # held-out: 20 pages a renderer and style
    python scripts/eval_killer.py --count 5 --renderer A --style dotted --save /tmp/killer
    python scripts/eval_killer.py --dev                # the development seeds (tune on these, renderer A only)
    python scripts/eval_killer.py --dev --renderer A --style greys    # A's newsprint greys (``killer_pages.GREYS``)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

from ar_sudoku.ar.photo import analyse_page
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from killer_pages import KillerPage, page_a, photograph, puzzle
from killer_renderer_b import render

HELD_OUT_SEED = 90_061_000  # never tuned on
DEV_SEED = 50_000  # the seeds to look at while developing (renderer A)
STYLES = ("dashed", "dotted", "shaded")
A_STYLES = (*STYLES, "greys")  # renderer A's grey shading (``killer_pages.GREYS``): the three and this
GIVENS = (0, 0, 2, 4)  # givens printed on page k: k % 4
SIZES = ((1280, 720), (1024, 768), (800, 600))
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def killer_photo(renderer: str, style: str, k: int, base: int) -> KillerPage:
    """Page ``k`` of one renderer and style, photographed."""
    seed = base + k * 10 + A_STYLES.index(style) + (0 if renderer == "A" else 5)
    killer, solution = puzzle(seed, GIVENS[k % len(GIVENS)])
    rng = random.Random(seed)
    if renderer == "A":
        page = page_a(killer, solution, style, rng)
    else:
        img, corners = render(killer, style, rng)
        page = KillerPage(img, corners, killer, solution, style)
    return photograph(page, rng, SIZES[k % len(SIZES)])


def judge(page: KillerPage, result) -> str:
    """``full`` (every cage, sum and given right, and solved), ``solved``, ``wrong`` or ``unanswered``."""
    truth = {(c.total, c.cells) for c in page.killer.cages}
    got = {(c.total, c.cells) for c in result.cages or ()}
    if result.solution is not None and result.solution != page.solution:
        return "wrong"
    if result.solution is None:
        return "unanswered"
    return "full" if got == truth and result.givens == page.killer.to_string() else "solved"


def killer_pages(args: argparse.Namespace, digits: DigitReader, kinds: KindReader) -> int:
    base = DEV_SEED if args.dev else HELD_OUT_SEED
    wrong = 0
    rows = []
    for renderer in args.renderer:
        for style in args.style:
            tally: Counter[str] = Counter()
            ms = []
            for k in range(args.count):
                page = killer_photo(renderer, style, k, base)
                t0 = time.perf_counter()
                found, _ = analyse_page(page.image, digits, kinds=kinds, timeout=args.timeout)
                ms.append((time.perf_counter() - t0) * 1e3)
                result = found[0].result if found else None
                verdict = "unanswered" if result is None else judge(page, result)
                tally[verdict] += 1
                if args.save and verdict != "full":
                    out = Path(args.save)
                    out.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(out / f"{renderer}_{style}_{k}_{verdict}.jpg"), page.image)
                if args.verbose and verdict != "full":
                    print(f"  {renderer} {style} {k}: {verdict}: {result.message if result else ''}", flush=True)
            read = tally["full"]
            solved = tally["full"] + tally["solved"]
            wrong += tally["wrong"]
            rows.append(f"| {renderer} | {style} | {read}/{args.count} | {solved}/{args.count} | {tally['wrong']} | "
                        f"{sorted(ms)[len(ms) // 2]:.0f} |")
    print("| renderer | style | read fully | solved | wrong answers | median ms |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return wrong


def ordinary(digits: DigitReader, kinds: KindReader, timeout: float) -> int:
    """Ordinary photos read as killer pages (cages given, or said to be one)."""
    photos = sorted((DATA / "sudoku-photos" / "printed").glob("*.jpg"))
    photos += sorted(p for p in (DATA / "peer-photos").rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    taken = []
    for path in photos:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        found, _ = analyse_page(image, digits, kinds=kinds, timeout=timeout)
        if any(a.result.cages is not None or "killer" in (a.result.message or "") for a in found):
            taken.append(path.name)
    print(f"ordinary photos taken for killer pages: {len(taken)} of {len(photos)}"
          + (f" ({', '.join(taken[:10])})" if taken else ""))
    return len(taken)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20, help="pages a renderer and style (default 20)")
    ap.add_argument("--renderer", nargs="+", choices=("A", "B"), default=["A", "B"])
    ap.add_argument("--style", nargs="+", choices=A_STYLES, default=list(STYLES),
                    help="greys: renderer A only (newsprint's grey shading)")
    ap.add_argument("--timeout", type=float, default=1.0, help="solver seconds a photo, as `image` (default 1)")
    ap.add_argument("--dev", action="store_true", help="the development seeds instead of the held-out ones")
    ap.add_argument("--no-ordinary", action="store_true", help="skip the ordinary photos")
    ap.add_argument("--save", metavar="DIR", help="write the photos not read fully here")
    ap.add_argument("--verbose", "-v", action="store_true", help="say why each page not read fully was not")
    args = ap.parse_args()
    if args.dev and "B" in args.renderer:
        ap.error("--dev is for renderer A: renderer B is never tuned on")
    if "greys" in args.style and "B" in args.renderer:
        ap.error("--style greys is renderer A's: use --renderer A")
    digits, kinds = DigitReader(threads=2), KindReader(threads=2)
    wrong = killer_pages(args, digits, kinds) if args.count else 0
    taken = 0 if args.no_ordinary else ordinary(digits, kinds, args.timeout)
    return 1 if wrong or taken else 0


if __name__ == "__main__":
    sys.exit(main())
