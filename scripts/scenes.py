"""The live scoreboard's scenes: what a camera sees, frame by frame, with the truth of every frame.

A *scene* is a list of :class:`Shot` s, one a frame: which sheets lie where (a homography from the sheet's
pixels to the frame's), and what the room does to the picture (a streak of motion blur, dim light, a glare
spot). :func:`write_scene` renders it into a real video file and writes the truth beside it
(``NAME.truth.jsonl``: every grid in the frame, its corners in the puzzle's own order, its solution, how much
of it is in view, and whether the scene changed on that frame).

Two generators make the sheets and motions, and the scoreboard (``eval_live.py``) reports both:

* **A** (this module): real newspaper photos (``sudoku-photos``, printed and written-on in red) moved
  under the camera by similarity and perspective warps of the photo, OpenCV's line-kernel streaks, a
  light model of gain and sensor noise. ``--split train`` takes the training side's puzzles, the one to
  tune on; ``held-out`` the held-out side's.
* **B** (``scenes_b.py``): pages drawn here with TrueType fonts by Pillow, placed by a pinhole camera in
  3D, blurred by averaging the exposure's sub-frames, curled round a cylinder: nothing shared with A but
  :class:`Shot`, the video writer and the truth's format. Never tuned on.

The scenarios are the same names in both: moving, turned 90/180/270, pulled out fast, cut to another
page, swapped in place under motion blur, slid out while another slides in, partly out of view, dim and
glare, written-on, curled, several puzzles.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.io.sinks import VideoSink

SCENARIOS = ("moving", "turn90", "turn180", "turn270", "pulled", "cut", "swap", "slide", "partial", "room",
             "written", "curled", "several")


@dataclass(frozen=True)
class Grid:
    """A puzzle printed on a sheet: its corners in the sheet's pixels (puzzle order: TL, TR, BR, BL as the
    puzzle reads), its solution, and a curled sheet's 10x10 crossings (sheet pixels)."""

    name: str
    corners: np.ndarray
    solution: str
    lattice: np.ndarray | None = None


@dataclass(frozen=True)
class Sheet:
    """What lies under the camera: a picture and the grids printed on it."""

    image: np.ndarray
    grids: tuple[Grid, ...]


@dataclass
class Shot:
    """One frame of a scene: the sheets (each with its homography sheet -> frame, drawn in order) and the room."""

    placed: list[tuple[Sheet, np.ndarray]]
    streak: tuple[float, float] | None = None  # motion blur: length (px), angle (radians)
    light: float = 1.0  # the light on the page: 1 as lit, below 0.7 the sensor's noise shows
    glare: tuple[float, float, float, float] | None = None  # a glossy highlight: x, y, radius (px), strength
    change: bool = False  # a new scene starts on this frame (a cut, a swap, a page gone)
    subframes: list[list[tuple[Sheet, np.ndarray]]] = field(default_factory=list)  # the exposure's poses (B)


def visible_share(quad: np.ndarray, w: int, h: int) -> float:
    """How much of the grid's area lies inside the frame (0..1)."""
    poly = np.asarray(quad, np.float32).reshape(-1, 2)
    area = abs(cv2.contourArea(poly))
    if area < 1:
        return 0.0
    rect = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    inter, _ = cv2.intersectConvexConvex(poly, rect)
    return float(min(1.0, inter / area))


def transform(points: np.ndarray, hmat: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(hmat, np.float64)).reshape(np.shape(points))


def truth_of(shot: Shot, w: int, h: int) -> list[dict]:
    """Every grid of the frame: where it is, its solution, how much of it is in view."""
    out = []
    for sheet, hmat in shot.placed:
        for g in sheet.grids:
            quad = transform(g.corners, hmat)
            share = visible_share(quad, w, h)
            if share <= 0:
                continue
            rec = {"name": g.name, "solution": g.solution, "corners": np.round(quad, 1).tolist(),
                   "visible": round(share, 3)}
            if g.lattice is not None:
                rec["lattice"] = np.round(transform(g.lattice, hmat), 1).tolist()
            out.append(rec)
    return out


def composite(placed: list[tuple[Sheet, np.ndarray]], back: np.ndarray) -> np.ndarray:
    """The sheets warped onto the backdrop, in order (a later sheet lies on an earlier one)."""
    out = back.copy()
    h, w = back.shape[:2]
    for sheet, hmat in placed:
        sh, sw = sheet.image.shape[:2]
        warped = cv2.warpPerspective(sheet.image, hmat, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        mask = cv2.warpPerspective(np.full((sh, sw), 255, np.uint8), hmat, (w, h), flags=cv2.INTER_LINEAR)
        a = (mask.astype(np.float32) / 255.0)[..., None]
        out = (warped * a + out * (1 - a)).astype(np.uint8)
    return out


def write_scene(path: Path, shots: list[Shot], size: tuple[int, int], fps: float,
                render: Callable[[Shot], np.ndarray], meta: dict) -> None:
    """The scene as a real video (``path``) and its truth beside it (``path.with_suffix('.truth.jsonl')``)."""
    w, h = size
    path.parent.mkdir(parents=True, exist_ok=True)
    truth_path = path.with_suffix(".truth.jsonl")
    with VideoSink(path, (w, h), fps) as sink, truth_path.open("w") as truth:
        truth.write(json.dumps({"meta": meta}) + "\n")
        for i, shot in enumerate(shots):
            sink.write(render(shot))
            truth.write(json.dumps({"frame": i, "change": shot.change, "grids": truth_of(shot, w, h)}) + "\n")


# --------------------------------------------------------------------------- generator A: real photos


def _dat(path: Path) -> str:
    lines = path.read_text().splitlines()[2:11]
    return "".join(t for ln in lines for t in ln.split()).replace("0", ".")


def photo_grids(split: str) -> list[str]:
    """The 640x480 photos of ``split`` (train or held-out) with a written-on twin not stored turned, one a
    puzzle, sorted by name."""
    from photos import DEFAULT_DIR, held_out_puzzles, load, mixed_turn

    held = held_out_puzzles()
    by_puzzle: dict[str, str] = {}
    for ph in load(DEFAULT_DIR / "printed"):
        mixed = DEFAULT_DIR / "mixed" / ph.path.name
        if (ph.name in held) != (split == "held-out") or ph.corners is None or not mixed.exists():
            continue
        img = cv2.imread(str(ph.path), cv2.IMREAD_REDUCED_GRAYSCALE_2)
        if img is None or img.shape[:2] != (240, 320) or mixed_turn(ph.path, mixed) != 0:
            continue
        lo, hi = ph.corners.min(axis=0), ph.corners.max(axis=0)
        if (lo < 8).any() or hi[0] > 632 or hi[1] > 472:  # a grid cut by the photo's edge is no whole page
            continue
        by_puzzle.setdefault(ph.givens, ph.name)
    return sorted(by_puzzle.values())


def photo_sheet(name: str, written: bool = False) -> Sheet:
    """A sudoku-photos photo as a sheet: the whole picture, its grid in puzzle order (the outline's corners
    rolled to the turn whose reading fits the printed truth)."""
    from ar_sudoku.vision.orient import read_grid
    from ar_sudoku.vision.quads import to_gray
    from photos import DEFAULT_DIR, load

    ph = next(p for p in load(DEFAULT_DIR / "printed") if p.name == name)
    assert ph.corners is not None
    img = cv2.imread(str(ph.path), cv2.IMREAD_COLOR)
    giv = np.array([0 if ch == "." else int(ch) for ch in ph.givens])
    reader = _reader()
    gray = to_gray(img)
    turn = max(range(4), key=lambda k: int((read_grid(gray, np.roll(ph.corners, -k, 0), reader).digits
                                            == giv).sum()))
    corners = np.roll(ph.corners, -turn, 0).astype(np.float32)
    full = _dat(DEFAULT_DIR / "mixed" / f"{name}.dat")
    if written:
        img = cv2.imread(str(DEFAULT_DIR / "mixed" / f"{name}.jpg"), cv2.IMREAD_COLOR)
    return Sheet(img, (Grid(name + ("+pen" if written else ""), corners, full),))


_READER: list = []


def _reader():
    from ar_sudoku.vision.digits import DigitReader

    if not _READER:
        _READER.append(DigitReader())
    return _READER[0]


def side_by_side(sheets: list[Sheet]) -> Sheet:
    """Sheets pasted in a row at one height: a page of several puzzles."""
    h = max(s.image.shape[0] for s in sheets)
    parts, grids, x = [], [], 0.0
    for s in sheets:
        k = h / s.image.shape[0]
        img = cv2.resize(s.image, (round(s.image.shape[1] * k), h), interpolation=cv2.INTER_AREA)
        parts.append(img)
        for g in s.grids:
            grids.append(Grid(g.name, g.corners * k + np.float32([x, 0]), g.solution))
        x += img.shape[1]
    return Sheet(np.hstack(parts), tuple(grids))


def curled_sheet(sheet: Sheet, bow: float) -> Sheet:
    """The sheet bowed like a page over a fold (``synth.bend``), its grid's true crossings kept."""
    from ar_sudoku.vision.synth import bend

    g = sheet.grids[0]
    img, lattice = bend(sheet.image, g.corners, bow, lean=0.05)
    corners = np.float32([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]])
    return Sheet(img, (Grid(g.name + "+curl", corners, g.solution, lattice.astype(np.float32)),))


def pose(grid: np.ndarray, centre: tuple[float, float], size: float, angle: float = 0.0,
         tilt: float = 0.0) -> np.ndarray:
    """The homography that puts ``grid`` (sheet pixels) at ``centre``, ``size`` px across, turned ``angle``
    degrees, its far side ``tilt`` shorter."""
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    s = size / 2
    pts = np.array([[-s * (1 - tilt), -s], [s * (1 - tilt), -s], [s * (1 + tilt), s], [-s * (1 + tilt), s]])
    dst = pts @ rot.T + np.array(centre)
    return cv2.getPerspectiveTransform(np.float32(grid), np.float32(dst))


def ease(u: float) -> float:
    """0..1 smoothly (a hand starts and stops a move)."""
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def wander(t: float, amp: float = 1.0, seed: float = 0.0) -> tuple[float, float, float, float]:
    """A hand's slow wander: dx, dy (share of the frame), a turn (degrees) and a zoom factor."""
    return (amp * 0.05 * math.sin(1.1 * t + seed), amp * 0.04 * math.sin(1.7 * t + 2 * seed),
            amp * 3.0 * math.sin(0.9 * t + seed), 1 + amp * 0.04 * math.sin(0.7 * t + seed))


class SceneA:
    """Generator A's scenarios on photos of one split: each a list of shots at ``size`` and ``fps``."""

    def __init__(self, split: str, size: tuple[int, int] = (960, 540), fps: float = 30.0, seed: int = 1,
                 names: list[str] | None = None):
        self.size, self.fps, self.split, self.seed = size, fps, split, seed
        self.names = photo_grids(split) if names is None else names
        self.rng = np.random.default_rng(seed)
        w, h = size
        self.back = _desk(w, h, seed)
        self.noise = np.random.default_rng(seed + 100)

    def sheet(self, name: str, written: bool = False) -> Sheet:
        """The sheet a scenario puts under the camera (generator P draws its own: ``scenes_p.ScenePrint``)."""
        return photo_sheet(name, written)

    def pick(self, n: int, salt: str) -> list[str]:
        rng = np.random.default_rng([self.seed, sum(map(ord, salt))])
        return [self.names[i] for i in rng.choice(len(self.names), size=n, replace=False)]

    def frames(self, seconds: float) -> int:
        return int(round(seconds * self.fps))

    def at(self, grid: np.ndarray, t: float, dx: float = 0.0, dy: float = 0.0, angle: float = 0.0,
           size: float = 0.62, amp: float = 1.0, tilt: float = 0.0) -> np.ndarray:
        """The pose of a grid held by a hand near (dx, dy) from the frame's centre (shares of the width)."""
        w, h = self.size
        wx, wy, wa, wz = wander(t, amp, self.seed)
        return pose(grid, (w / 2 + (dx + wx) * w, h / 2 + (dy + wy) * h), size * h * wz, angle + wa,
                    tilt + 0.04 * amp * math.sin(0.8 * t))

    def scene(self, name: str) -> list[Shot]:
        return getattr(self, "_" + name.replace("turn", "turn_"))() if name.startswith("turn") else \
            getattr(self, "_" + name)()

    def _still(self, sheet: Sheet, seconds: float, t0: float = 0.0, **kw) -> list[Shot]:
        g = sheet.grids[0].corners
        return [Shot([(sheet, self.at(g, t0 + i / self.fps, **kw))]) for i in range(self.frames(seconds))]

    def _moving(self) -> list[Shot]:
        sheet = self.sheet(self.pick(1, "moving")[0])
        g = sheet.grids[0].corners
        return [Shot([(sheet, self.at(g, i / self.fps, amp=3.0))]) for i in range(self.frames(5))]

    def _turn(self, degrees: int) -> list[Shot]:
        """Steady, turned by hand (0.6 s), held turned, then put back at once (a cut to the upright page)."""
        sheet = self.sheet(self.pick(1, f"turn{degrees}")[0])
        g = sheet.grids[0].corners
        shots = []
        plan = [(1.2, 0, 0), (0.6, 0, degrees), (2.0, degrees, degrees), (1.5, 0, 0)]
        t = 0.0
        for seconds, a0, a1 in plan:
            n = self.frames(seconds)
            for i in range(n):
                angle = a0 + (a1 - a0) * ease((i + 1) / n)
                shots.append(Shot([(sheet, self.at(g, t, angle=angle, size=0.55))], change=i == 0 and a0 == a1 == 0
                                  and t > 0))
                t += 1 / self.fps
        return shots

    def _turn_90(self) -> list[Shot]:
        return self._turn(90)

    def _turn_180(self) -> list[Shot]:
        return self._turn(180)

    def _turn_270(self) -> list[Shot]:
        return self._turn(-90)

    def _pulled(self) -> list[Shot]:
        """Held still, then pulled out of view to the left in eight frames, streaked more as it speeds up; the
        desk stays."""
        sheet = self.sheet(self.pick(1, "pulled")[0])
        g = sheet.grids[0].corners
        shots = self._still(sheet, 2.0)
        w = self.size[0]
        t = 2.0
        for i in range(1, 9):
            dx = -1.3 * (i / 8) ** 2
            shots.append(Shot([(sheet, self.at(g, t, dx=dx))], streak=(60.0 * i / 8 * w / 640, 0.05)))
            t += 1 / self.fps
        shots[-1].change = True
        shots += [Shot([(sheet, self.at(g, t, dx=-3.0))]) for _ in range(self.frames(1.5))]
        return shots

    def _cut(self) -> list[Shot]:
        """One page, then it is cut away (gone in one frame) while another slides in from the right."""
        a, b = (self.sheet(n) for n in self.pick(2, "cut"))
        shots = self._still(a, 2.0)
        n = self.frames(0.8)
        t = 2.0
        for i in range(n):
            shots.append(Shot([(b, self.at(b.grids[0].corners, t, dx=1.0 * (1 - ease((i + 1) / n)) + 0.04))],
                              change=i == 0))
            t += 1 / self.fps
        return shots + self._still(b, 2.0, t0=t, dx=0.04)

    def _swap(self) -> list[Shot]:
        """One page, then a shake (streaked frames) during which another page takes its place."""
        a, b = (self.sheet(n) for n in self.pick(2, "swap"))
        shots = self._still(a, 2.0)
        t = 2.0
        for i in range(8):
            sheet = a if i < 4 else b
            shots.append(Shot([(sheet, self.at(sheet.grids[0].corners, t, dx=0.01 * math.sin(3 * i)))],
                              streak=(14.0 + 4 * (i % 3), 0.5 + i), change=i == 4))
            t += 1 / self.fps
        return shots + self._still(b, 2.5, t0=t)

    def _slide(self) -> list[Shot]:
        """One page slides out to the left while another slides in from the right behind it."""
        a, b = (self.sheet(n) for n in self.pick(2, "slide"))
        shots = self._still(a, 1.5)
        n = self.frames(0.9)
        t = 1.5
        for i in range(n):
            u = ease((i + 1) / n)
            shots.append(Shot([(a, self.at(a.grids[0].corners, t, dx=-1.1 * u)),
                               (b, self.at(b.grids[0].corners, t, dx=1.1 * (1 - u)))]))
            t += 1 / self.fps
        return shots + self._still(b, 2.0, t0=t)

    def _partial(self) -> list[Shot]:
        """Locked whole, then the camera moves down the page until only its bottom three rows show, and back."""
        sheet = self.sheet(self.pick(1, "partial")[0])
        g = sheet.grids[0].corners
        shots = self._still(sheet, 1.5, size=0.7)
        plan = [(1.0, 0.0, 1.0), (1.5, 1.0, 1.0), (1.0, 1.0, 0.0), (0.5, 0.0, 0.0)]
        t = 1.5
        for seconds, u0, u1 in plan:
            n = self.frames(seconds)
            for i in range(n):
                u = u0 + (u1 - u0) * ease((i + 1) / n)
                # the grid's centre rises until two thirds of it are above the frame's top
                shots.append(Shot([(sheet, self.at(g, t, dy=-0.68 * u, size=0.7, amp=0.4))]))
                t += 1 / self.fps
        return shots

    def _room(self) -> list[Shot]:
        """The light dims to a quarter (the gain's noise shows) while a glare spot drifts over the grid."""
        sheet = self.sheet(self.pick(1, "room")[0])
        g = sheet.grids[0].corners
        n = self.frames(5)
        shots = []
        w, h = self.size
        for i in range(n):
            u = i / n
            light = 1.0 - 0.75 * math.sin(math.pi * min(1.0, u * 1.6)) ** 2 if u < 0.62 else 1.0
            glare = None
            if 0.45 <= u <= 0.95:
                v = (u - 0.45) / 0.5
                glare = (w * (0.35 + 0.3 * v), h * (0.35 + 0.25 * v), 0.09 * w, 0.8)
            shots.append(Shot([(sheet, self.at(g, i / self.fps))], light=light, glare=glare,
                              streak=(7.0, 1.0) if i % 50 < 6 else None))
        return shots

    def _written(self) -> list[Shot]:
        sheet = self.sheet(self.pick(1, "written")[0], written=True)
        g = sheet.grids[0].corners
        return [Shot([(sheet, self.at(g, i / self.fps, amp=2.0))]) for i in range(self.frames(4.5))]

    def _curled(self) -> list[Shot]:
        sheet = curled_sheet(self.sheet(self.pick(1, "curled")[0]), 0.05)
        g = sheet.grids[0].corners
        return [Shot([(sheet, self.at(g, i / self.fps, amp=1.5))]) for i in range(self.frames(4.5))]

    def _several(self) -> list[Shot]:
        """Two puzzles side by side on one page, moved about."""
        sheet = side_by_side([self.sheet(n) for n in self.pick(2, "several")])
        g = sheet.grids
        both = np.vstack([g[0].corners[[0, 3]], g[1].corners[[1, 2]]])  # the pair's outer corners
        outer = np.float32([both[0], both[2], both[3], both[1]])
        w, h = self.size
        shots = []
        for i in range(self.frames(4.5)):
            t = i / self.fps
            wx, wy, wa, wz = wander(t, 1.5, self.seed)
            span = 0.9 * w * wz
            ratio = float(np.linalg.norm(outer[1] - outer[0]) / np.linalg.norm(outer[3] - outer[0]))
            hm = _pose_rect(outer, (w / 2 + wx * w, h / 2 + wy * h), span, span / ratio, wa)
            shots.append(Shot([(sheet, hm)]))
        return shots

    def render(self, shot: Shot) -> np.ndarray:
        """The frame the camera delivers: the sheets on the desk, then the room's light, glare and streak."""
        frame = composite(shot.placed, self.back)
        return room_a(frame, shot, self.noise)


def _pose_rect(rect: np.ndarray, centre: tuple[float, float], width: float, height: float,
               angle: float) -> np.ndarray:
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = np.array([[-width / 2, -height / 2], [width / 2, -height / 2], [width / 2, height / 2],
                    [-width / 2, height / 2]])
    return cv2.getPerspectiveTransform(np.float32(rect), np.float32(pts @ rot.T + np.array(centre)))


def _desk(w: int, h: int, seed: int) -> np.ndarray:
    """A desk: a grey-brown with some low-frequency mottling, and the rest of the newspaper lying on it, its
    columns of text (ink everywhere a page might have been)."""
    rng = np.random.default_rng(seed)
    base = np.full((h, w, 3), (72, 88, 104), np.float32)
    mottle = cv2.resize(rng.normal(0, 10, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    desk = np.clip(base + mottle[..., None] + rng.normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)
    x0, y0 = int(w * 0.35), int(h * 0.2)  # a newspaper page under the middle and right, a little askew
    paper = np.full((h, w, 3), (200, 208, 212), np.uint8)
    for col in range(4):
        cx = 30 + col * (w // 4)
        for y in range(30, h - 20, 16):
            x = cx
            while x < cx + w // 4 - 50:
                n = int(rng.integers(12, 50))
                cv2.rectangle(paper, (x, y), (x + n, y + 4), (70, 70, 70), -1)
                x += n + 6
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, 1.0)
    rot[:, 2] += (x0, y0)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), rot, (w, h))
    paper = cv2.warpAffine(paper, rot, (w, h))
    return np.where(mask[..., None] > 127, paper, desk)


def room_a(frame: np.ndarray, shot: Shot, rng: np.random.Generator) -> np.ndarray:
    """Generator A's room: a glare spot, the light's level (with a dim sensor's noise), a line-kernel streak."""
    f = frame.astype(np.float32)
    h, w = f.shape[:2]
    if shot.glare is not None:
        x, y, r, strength = shot.glare
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        alpha = np.clip(strength * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * r * r)), 0, 1)[..., None]
        f = f * (1 - alpha) + 255 * alpha
    if shot.light != 1.0:
        lin = (f / 255) ** 2.2 * shot.light
        if shot.light < 0.7:
            electrons = 900.0 * shot.light
            lin = rng.poisson(np.clip(lin, 0, 1) * electrons).astype(np.float32) / electrons
            lin *= min(2.5, 0.8 / shot.light)
        f = np.clip(lin, 0, 1) ** (1 / 2.2) * 255
    out = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    if shot.streak is not None:
        length, angle = shot.streak
        n = max(3, int(math.ceil(length)) | 1)
        k = np.zeros((n, n), np.float32)
        c = (n - 1) / 2
        dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
        cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
        out = cv2.filter2D(out, -1, k / k.sum())
    return out
