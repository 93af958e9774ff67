"""Generator P's scenes: generator A's motions with pages printed in the machine's many print faces, to tune on.

Generator A moves real newspaper photos, whose print the models know well; B (held out) draws pages in faces no
model was tuned on, and there a page whose print the cell-kind model doubts never locked live (issue 57). P puts
``print_pages.draw_page``'s pages (every installed print family but B's, grey or coloured print, shaded boxes,
other rule weights) under A's camera, so that the live reading of unfamiliar print is tuned here, never on B.
The pages follow from their names (``P0``, ``P1``, ...), the written-on twin from the same seed.
"""

from __future__ import annotations

import numpy as np

from print_pages import draw_page, print_faces
from scenes import Grid, SceneA, Sheet, Shot
from scenes_b import PUZZLES, solve_checked

PAGES = 200  # the names a scenario picks from


class ScenePrint(SceneA):
    """Generator A's scenarios on generator P's printed pages."""

    def __init__(self, size: tuple[int, int] = (960, 540), fps: float = 30.0, seed: int = 7):
        super().__init__("print", size, fps, seed, names=[f"P{k}" for k in range(PAGES)])
        self.puzzles = [ln.strip() for ln in PUZZLES.read_text().splitlines() if len(ln.strip()) == 81]
        self.faces = print_faces()
        self.forced: int | None = None

    def scene(self, name: str) -> list[Shot]:
        """A scenario, or ``SCENARIO@PAGE`` (``moving@P12``): the scenario with that page under the camera (the
        next pages after it where it needs more), so that many pages of one scenario can be judged."""
        scenario, _, page = name.partition("@")
        self.forced = int(page[1:]) if page else None
        return super().scene(scenario)

    def pick(self, n: int, salt: str) -> list[str]:
        if self.forced is None:
            return super().pick(n, salt)
        return [f"P{(self.forced + k) % PAGES}" for k in range(n)]

    def sheet(self, name: str, written: bool = False) -> Sheet:
        """Page ``name``: its look and puzzle from its number; written on, half its blanks in a pen."""
        rng = np.random.default_rng([self.seed, int(name[1:])])
        puzzle = self.puzzles[int(rng.integers(len(self.puzzles)))]
        solution = solve_checked(puzzle)
        page = draw_page(puzzle, solution, rng, 0.5 if written else 0.0, self.faces)
        return Sheet(page.image, (Grid(name + ("+pen" if written else ""), page.corners.astype(np.float32),
                                       solution),))
