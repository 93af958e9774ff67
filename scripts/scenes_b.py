"""Generator B of the live scoreboard: pages drawn here and filmed by a pinhole camera. Never tuned on.

It shares nothing with generator A (``scenes.py``) but the :class:`~scenes.Shot` it hands over, the video
writer and the truth's format: the pages are drawn by Pillow in TrueType fonts (the machine's print and
handwriting faces, picked by the seed: serif, sans, slab, condensed, monospace; grey, blue or black print;
shaded boxes on some), with rules of other weights and text round the grid; the page lies in 3D and a
pinhole camera films it, moving along paths of its own; motion blur is the exposure's sub-frames averaged
(a streak that follows the real motion, perspective and all); a curled page is a cylinder in 3D, drawn strip
by strip; the light is a vignette, a slope, a colour cast and, dim, a sensor's grain; a glare is a hard
specular ellipse. The puzzles come from ``shared/data/puzzles`` (easy50: clues as a newspaper prints them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scenes import Grid, Sheet, Shot, composite

PUZZLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "puzzles" / "easy50.txt"
PRINT_FACES = ("LiberationSerif-Regular", "LiberationSans-Bold", "DejaVuSans", "DejaVuSerif-Bold", "FreeSans",
               "FreeMono", "NimbusRoman-Regular", "NimbusSans-Bold", "Roboto-Medium", "Lato-Bold",
               "texgyreheros-regular", "Carlito-Regular", "Caladea-Regular", "GentiumPlus-Regular",
               "OpenSans-SemiBold", "Inconsolata-Regular", "FiraCode-Medium", "Cantarell-Regular",
               "LinLibertine_R", "NotoSans-Condensed", "NotoSerif-Regular", "URWBookman-Light")
HAND_FACES = ("Kristi", "dkg", "SteveHand", "Delphine", "Ecolier-court", "BecauseWeLearn-Regular", "Rufscript010",
              "TomsonTalks", "femkeklaver", "Humor-Sans")


def _fonts() -> dict[str, str]:
    """Every TrueType/OpenType file on the machine by its file name's stem."""
    out: dict[str, str] = {}
    for folder in (Path("/usr/share/fonts"), Path.home() / ".fonts"):
        if folder.is_dir():
            for p in folder.rglob("*"):
                if p.suffix.lower() in (".ttf", ".otf"):
                    out.setdefault(p.stem, str(p))
    return out


FONTS = _fonts()


def face(names: tuple[str, ...], rng: np.random.Generator, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    have = [FONTS[n] for n in names if n in FONTS] or sorted(FONTS.values())[:1]
    if not have:
        return ImageFont.load_default(size)
    return ImageFont.truetype(have[int(rng.integers(len(have)))], size)


def solve_checked(puzzle: str) -> str:
    """The puzzle's solution, checked here by the rules (the truth must not trust the solver it judges)."""
    from ar_sudoku.sudoku.solver import solve_text

    text = solve_text(puzzle).solution
    assert isinstance(text, str) and len(text) == 81
    rows = [text[9 * r:9 * r + 9] for r in range(9)]
    units = rows + ["".join(r[c] for r in rows) for c in range(9)] + [
        "".join(rows[3 * br + i][3 * bc + j] for i in range(3) for j in range(3)) for br in range(3) for bc in range(3)]
    assert all(sorted(u) == list("123456789") for u in units)
    assert all(p in ".0" or p == s for p, s in zip(puzzle, text))
    return text


@dataclass(frozen=True)
class Look:
    """How one page is printed."""

    cell: int
    thin: int
    thick: int
    ink: tuple[int, int, int]
    paper: tuple[int, int, int]
    shade: bool
    digit: float  # digit height / cell


def draw_page(puzzle: str, solution: str, rng: np.random.Generator, written: float = 0.0,
              name: str = "") -> Sheet:
    """A newspaper page drawn by Pillow: a title, text round the grid, the puzzle; ``written`` of the blanks
    filled in a person's hand (right digits, blue or black pen)."""
    look = Look(cell=int(rng.integers(52, 70)), thin=int(rng.integers(1, 3)), thick=int(rng.integers(3, 6)),
                ink=[(20, 20, 20), (60, 60, 60), (30, 30, 90), (10, 10, 10)][int(rng.integers(4))],
                paper=tuple(int(v) for v in rng.integers(228, 250, 3)), shade=bool(rng.random() < 0.3),
                digit=float(rng.uniform(0.5, 0.7)))
    side = 9 * look.cell
    mx, my = int(rng.integers(50, 110)), int(rng.integers(90, 140))
    w, h = side + 2 * mx, side + my + int(rng.integers(60, 110))
    img = Image.new("RGB", (w, h), look.paper)
    d = ImageDraw.Draw(img)
    title = face(PRINT_FACES, rng, int(my * 0.35))
    d.text((mx, my * 0.12), "SUDOKU", fill=look.ink, font=title)
    small = face(PRINT_FACES, rng, 13)
    words = ["fill", "the", "grid", "so", "that", "every", "row", "column", "and", "box", "holds", "the",
             "digits", "one", "to", "nine"]
    y = my * 0.62
    x = float(mx)
    while x < w - mx - 40:
        word = words[int(rng.integers(len(words)))]
        d.text((x, y), word, fill=(90, 90, 90), font=small)
        x += small.getlength(word + " ")
    x0, y0 = mx, my
    if look.shade:
        for br in range(3):
            for bc in range(3):
                if (br + bc) % 2:
                    c = tuple(max(0, v - 22) for v in look.paper)
                    d.rectangle([x0 + bc * 3 * look.cell, y0 + br * 3 * look.cell, x0 + (bc + 1) * 3 * look.cell,
                                 y0 + (br + 1) * 3 * look.cell], fill=c)
    digits = face(PRINT_FACES, rng, int(look.cell * look.digit))
    hand = face(HAND_FACES, rng, int(look.cell * 0.7))
    pen = [(150, 40, 20), (30, 30, 160), (20, 20, 20)][int(rng.integers(3))]  # RGB: blue, red-brown... pens
    for i, ch in enumerate(puzzle):
        r, c = divmod(i, 9)
        cx, cy = x0 + (c + 0.5) * look.cell, y0 + (r + 0.5) * look.cell
        if ch not in ".0":
            d.text((cx, cy), ch, fill=look.ink, font=digits, anchor="mm")
        elif written and rng.random() < written:
            jx, jy = rng.normal(0, look.cell * 0.06, 2)
            d.text((cx + jx, cy + jy), solution[i], fill=pen, font=hand, anchor="mm")
    for k in range(10):
        wgt = look.thick if k % 3 == 0 else look.thin
        p = x0 + k * look.cell
        d.line([(p, y0), (p, y0 + side)], fill=look.ink, width=wgt)
        p = y0 + k * look.cell
        d.line([(x0, p), (x0 + side, p)], fill=look.ink, width=wgt)
    arr = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)
    grain = rng.normal(0, 2.5, arr.shape[:2]).astype(np.float32)[..., None]
    arr = np.clip(arr + grain, 0, 255).astype(np.uint8)
    corners = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])
    return Sheet(arr, (Grid(name, corners, solution),))


class Camera:
    """A pinhole camera over the desk: a page's pose in 3D (mm) -> the homography page pixels -> frame."""

    def __init__(self, size: tuple[int, int], focal: float = 1.1):
        w, h = size
        f = focal * w
        self.k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])

    def project(self, pts3: np.ndarray) -> np.ndarray:
        p = pts3 @ self.k.T
        return p[..., :2] / p[..., 2:3]

    def homography(self, mm_per_px: float, centre: tuple[float, float], dist: float, yaw: float, pitch: float,
                   roll: float, origin: np.ndarray) -> np.ndarray:
        """Page pixels -> frame: the page (its ``origin`` pixel at ``centre`` mm on the desk) ``dist`` mm away,
        turned by yaw/pitch/roll (degrees)."""
        rot = _rotation(yaw, pitch, roll)
        s = np.diag([mm_per_px, mm_per_px, 1.0])
        s[0, 2], s[1, 2] = -origin[0] * mm_per_px, -origin[1] * mm_per_px
        ext = np.column_stack([rot[:, 0], rot[:, 1], np.array([centre[0], centre[1], dist])])
        hmat = self.k @ ext @ s
        return hmat / hmat[2, 2]


def _rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    y, p, r = (math.radians(v) for v in (yaw, pitch, roll))
    rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    return ry @ rx @ rz


class SceneB:
    """Generator B's scenarios: 800x600 at 25 frames a second."""

    size = (800, 600)
    fps = 25.0

    def __init__(self, seed: int = 7):
        self.seed = seed
        self.cam = Camera(self.size)
        self.puzzles = [ln.strip() for ln in PUZZLES.read_text().splitlines() if len(ln.strip()) == 81]
        self.noise = np.random.default_rng(seed + 1)
        self.back = _wood(self.size, seed)

    def sheet(self, salt: str, k: int = 0, written: float = 0.0) -> Sheet:
        rng = np.random.default_rng([self.seed, k, sum(map(ord, salt))])
        puzzle = self.puzzles[int(rng.integers(len(self.puzzles)))]
        return draw_page(puzzle, solve_checked(puzzle), rng, written, name=f"{salt}{k}")

    def n(self, seconds: float) -> int:
        return int(round(seconds * self.fps))

    def place(self, sheet: Sheet, t: float, x: float = 0.0, y: float = 0.0, roll: float = 0.0,
              dist: float = 480.0, sway: float = 1.0) -> np.ndarray:
        """The page's grid centred ``x``, ``y`` mm off the camera's axis, swaying with the hand."""
        g = sheet.grids[0].corners
        origin = g.mean(axis=0)
        mm = 200.0 / float(np.linalg.norm(g[1] - g[0]))  # a 200 mm grid
        yaw = sway * 6 * math.sin(0.8 * t + 0.3)
        pitch = sway * 8 * math.sin(0.55 * t)
        return self.cam.homography(mm, (x + sway * 12 * math.sin(0.9 * t), y + sway * 9 * math.cos(0.7 * t)),
                                   dist + sway * 25 * math.sin(0.45 * t), yaw, pitch,
                                   roll + sway * 2.5 * math.sin(0.6 * t), origin)

    def exposure(self, sheet: Sheet, t: float, k: int = 5, **kw) -> Shot:
        """A shot whose page moves during the exposure (``kw`` may hold functions of the sub-frame's time)."""
        subs = []
        for j in range(k):
            tj = t + (j / (k - 1) - 0.5) / self.fps
            subs.append([(sheet, self.place(sheet, tj, **{a: (v(tj) if callable(v) else v) for a, v in kw.items()}))])
        return Shot(subs[k // 2], subframes=subs)

    def scene(self, name: str) -> list[Shot]:
        return getattr(self, "_" + name)()

    def _steady(self, sheet: Sheet, seconds: float, t0: float = 0.0, **kw) -> list[Shot]:
        return [Shot([(sheet, self.place(sheet, t0 + i / self.fps, **kw))]) for i in range(self.n(seconds))]

    def _moving(self) -> list[Shot]:
        s = self.sheet("moving")
        return [self.exposure(s, i / self.fps, x=lambda t: 60 * math.sin(0.9 * t), y=lambda t: 35 * math.sin(1.3 * t),
                              roll=lambda t: 10 * math.sin(0.7 * t), sway=2.0) for i in range(self.n(5))]

    def _turn(self, degrees: float, salt: str) -> list[Shot]:
        """Turned by hand, held, turned back halfway by hand, then put straight at once."""
        s = self.sheet(salt)
        shots: list[Shot] = []
        t = 0.0
        for seconds, a0, a1 in [(1.0, 0, 0), (0.8, 0, degrees), (2.2, degrees, degrees),
                                (0.5, degrees, degrees / 2), (0.3, degrees / 2, degrees / 2), (1.2, 0, 0)]:
            n = self.n(seconds)
            for i in range(n):
                u = (i + 1) / n
                u = 0.5 - 0.5 * math.cos(math.pi * u)
                shot = self.exposure(s, t, k=3, roll=a0 + (a1 - a0) * u, dist=560.0)
                shot.change = i == 0 and a0 == a1 == 0 and t > 0
                shots.append(shot)
                t += 1 / self.fps
        return shots

    def _turn90(self) -> list[Shot]:
        return self._turn(90, "turn90")

    def _turn180(self) -> list[Shot]:
        return self._turn(180, "turn180")

    def _turn270(self) -> list[Shot]:
        return self._turn(-90, "turn270")

    def _pulled(self) -> list[Shot]:
        """Steady, then pulled away downwards and out of view within seven frames."""
        s = self.sheet("pulled")
        shots = self._steady(s, 2.0)
        t0 = 2.0
        for i in range(1, 8):
            t = t0 + i / self.fps
            shots.append(self.exposure(s, t, k=7, y=lambda tt: 420 * max(0.0, (tt - t0) * self.fps / 7) ** 1.6))
        shots[-1].change = True
        gone = self.place(s, 3.0, y=2000.0)
        return shots + [Shot([(s, gone)]) for _ in range(self.n(1.5))]

    def _cut(self) -> list[Shot]:
        """A page taken away between two frames while another slides in from the left."""
        a, b = self.sheet("cut", 0), self.sheet("cut", 1)
        shots = self._steady(a, 2.0)
        n = self.n(0.9)
        t = 2.0
        for i in range(n):
            u = 0.5 - 0.5 * math.cos(math.pi * (i + 1) / n)
            shot = self.exposure(b, t, k=4, x=-420 * (1 - u) - 20.0, y=15.0)
            shot.change = i == 0
            shots.append(shot)
            t += 1 / self.fps
        return shots + self._steady(b, 2.0, t0=t, x=-20.0, y=15.0)

    def _swap(self) -> list[Shot]:
        """The page shaken hard while another is slipped in its place."""
        a, b = self.sheet("swap", 0), self.sheet("swap", 1)
        shots = self._steady(a, 1.8)
        t = 1.8
        for i in range(7):
            s = a if i < 3 else b
            shot = self.exposure(s, t, k=6, x=lambda tt: 30 * math.sin(60 * tt), y=lambda tt: 20 * math.cos(47 * tt))
            shot.change = i == 3
            shots.append(shot)
            t += 1 / self.fps
        return shots + self._steady(b, 2.5, t0=t)

    def _slide(self) -> list[Shot]:
        """One page slides out right while the next slides in from the left, edge to edge."""
        a, b = self.sheet("slide", 0), self.sheet("slide", 1)
        shots = self._steady(a, 1.5)
        n = self.n(1.0)
        t = 1.5
        for i in range(n):
            u = 0.5 - 0.5 * math.cos(math.pi * (i + 1) / n)
            shots.append(Shot([(a, self.place(a, t, x=400 * u)), (b, self.place(b, t, x=400 * u - 400))]))
            t += 1 / self.fps
        return shots + self._steady(b, 2.0, t0=t)

    def _partial(self) -> list[Shot]:
        """The camera tilts up the page until only its top rows are in view, then back."""
        s = self.sheet("partial")
        shots = self._steady(s, 1.5, dist=430.0)
        t = 1.5
        for seconds, u0, u1 in [(1.2, 0, 1), (1.6, 1, 1), (1.2, 1, 0), (0.6, 0, 0)]:
            n = self.n(seconds)
            for i in range(n):
                u = u0 + (u1 - u0) * (0.5 - 0.5 * math.cos(math.pi * (i + 1) / n))
                shots.append(Shot([(s, self.place(s, t, y=200 * u, dist=430.0, sway=0.5))]))
                t += 1 / self.fps
        return shots

    def _room(self) -> list[Shot]:
        s = self.sheet("room")
        shots = []
        n = self.n(5.5)
        for i in range(n):
            u = i / n
            shot = Shot([(s, self.place(s, i / self.fps))])
            shot.light = 1.0 - 0.7 * math.sin(math.pi * min(1.0, u / 0.6)) if u < 0.6 else 1.1
            if 0.35 < u < 0.9:
                shot.glare = (self.size[0] * (0.3 + 0.5 * (u - 0.35) / 0.55), self.size[1] * 0.45, 60.0, 1.0)
            shots.append(shot)
        return shots

    def _written(self) -> list[Shot]:
        s = self.sheet("written", written=0.6)
        return [Shot([(s, self.place(s, i / self.fps, sway=1.8))]) for i in range(self.n(4.5))]

    def _curled(self) -> list[Shot]:
        s = self.sheet("curled")
        return [self.curl_shot(s, i / self.fps) for i in range(self.n(4.5))]

    def curl_shot(self, s: Sheet, t: float, radius_mm: float = 350.0) -> Shot:
        """The page round a cylinder (axis down the page), cut into strips each drawn by its own homography."""
        g = s.grids[0].corners
        h, w = s.image.shape[:2]
        mm = 200.0 / float(np.linalg.norm(g[1] - g[0]))
        origin = g.mean(axis=0)
        rot = _rotation(5 * math.sin(0.8 * t), 10 + 6 * math.sin(0.5 * t), 3 * math.sin(0.6 * t))
        centre = np.array([10 * math.sin(0.9 * t), 8 * math.cos(0.7 * t), 470.0])

        def world(px: np.ndarray) -> np.ndarray:
            u = (px[..., 0] - origin[0]) * mm
            v = (px[..., 1] - origin[1]) * mm
            x = radius_mm * np.sin(u / radius_mm)
            z = -radius_mm * (1 - np.cos(u / radius_mm))  # the edges rise towards the camera
            return np.stack([x, v, z], axis=-1) @ rot.T + centre

        strips = 36
        placed = []
        for k in range(strips):
            # each strip reaches 3 px into its neighbours: its soft edge then falls on paper, not on the desk
            x0, x1 = max(0, int(w * k / strips) - 3), min(w, int(w * (k + 1) / strips) + 3)
            src = np.float32([[x0, 0], [x1, 0], [x1, h], [x0, h]])
            dst = self.cam.project(world(src.astype(np.float64))).astype(np.float32)
            piece = Sheet(s.image[:, x0:x1], ())
            shift = np.float32([[x0, 0]] * 4)
            placed.append((piece, cv2.getPerspectiveTransform(src - shift, dst)))
        cross = np.stack(np.meshgrid(np.arange(10), np.arange(10)), axis=-1).astype(np.float64)
        corner0, step = g[0].astype(np.float64), (g[1] - g[0]) / 9
        pts = corner0 + cross[..., :1] * step + cross[..., 1:] * ((g[3] - g[0]) / 9)
        lattice = self.cam.project(world(pts)).astype(np.float32)
        grid_img = np.float32([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]])
        truth = Sheet(np.zeros((1, 1, 3), np.uint8), (Grid(s.grids[0].name, grid_img, s.grids[0].solution,
                                                           lattice),))
        return Shot([*placed, (truth, np.eye(3))])

    def _several(self) -> list[Shot]:
        """Two pages lying side by side, filmed moving."""
        a, b = self.sheet("several", 0), self.sheet("several", 1)
        shots = []
        for i in range(self.n(4.5)):
            t = i / self.fps
            shots.append(Shot([(a, self.place(a, t, x=-125.0, dist=720.0, sway=0.8)),
                               (b, self.place(b, t, x=125.0, dist=720.0, sway=0.8))]))
        return shots

    def render(self, shot: Shot) -> np.ndarray:
        """The frame: the exposure's sub-frames averaged, then the room's light on it."""
        poses = shot.subframes or [shot.placed]
        acc = np.zeros((self.size[1], self.size[0], 3), np.float32)
        for placed in poses:
            acc += composite([p for p in placed if p[0].image.shape[0] > 1], self.back)
        frame = acc / len(poses)
        return light_b(frame, shot, self.noise)


def _wood(size: tuple[int, int], seed: int) -> np.ndarray:
    """A wooden desk: stretched noise for the grain."""
    w, h = size
    rng = np.random.default_rng(seed)
    grain = cv2.resize(rng.normal(0, 1, (h // 2, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    rings = np.sin(np.linspace(0, 40, h))[:, None] * 0.4
    v = 0.55 + 0.08 * grain + 0.04 * rings
    return np.clip(np.dstack([v * 120, v * 165, v * 210]), 0, 255).astype(np.uint8)


def light_b(frame: np.ndarray, shot: Shot, rng: np.random.Generator) -> np.ndarray:
    """A vignette and a slope of light, the level (a warm cast and grain when dim), a hard glare."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2
    gain = (1 - 0.35 * r2) * (0.92 + 0.12 * xx / w) * shot.light
    f = frame * gain[..., None]
    if shot.light < 0.75:
        f = f * np.float32([0.85, 0.95, 1.1]) + rng.normal(0, 14 * (0.75 - shot.light) + 3, f.shape)
        f = f * min(1.8, 0.75 / shot.light)
    if shot.glare is not None:
        x, y, r, strength = shot.glare
        e = ((xx - x) / r) ** 2 + ((yy - y) / (0.6 * r)) ** 2
        spot = strength * np.clip(1.4 - e, 0, 1) ** 0.6
        f = f + 255 * spot[..., None]
    return np.clip(f, 0, 255).astype(np.uint8)
