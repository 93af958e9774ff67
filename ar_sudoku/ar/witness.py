"""The evidence, on every frame, that the page the answer belongs to is where the answer is drawn.

A tracked board can outlive its page: the flow holds on for a frame or two as a page is pulled away, a board
is held through a shaking hand's streak (``locator.COAST``), another page is slipped in at the same place,
a page is turned while the camera blinked. The witness keeps the solved page's look (``vision.look``: its
cells' insides, from the last sharp view that matched) and judges the look at the board's corners now:

* **same**: the page is there, in this order of corners;
* **turned**: the page is there, turned by quarter turns: the corners are rolled to the puzzle's order;
* **other**: neither (the desk, another puzzle): the answer goes at once;
* **unsure**: too little in view, or a look between the two (a glare): the ink check decides, and a re-read
  follows; a held board (nothing tracked or detected) needs ``same``.

A streaked frame (a shaking hand) is judged on a coarser look: it tells a page from the desk, not one page
from another, and no turn; the ink check and the re-read that follows the streak tell the rest.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from ar_sudoku.vision.look import Look, LookConfig, likeness, look, turned


@dataclass(frozen=True)
class WitnessConfig:
    same: float = 0.55  # likeness at or above which the view is the solved page: sharp ~1, dim or glared 0.6+
    other: float = 0.3  # below: not the solved page (the desk ~0, another puzzle or the page turned 0.0-0.3)
    # a quarter turn must look this much more like the page than the order the corners have (a thin font turned
    # round looks much like itself: 0.75 against 1); half as much more leaves the order in doubt (``UNSURE``)
    turn_margin: float = 0.15
    coarse: LookConfig = LookConfig(blur=3.0)  # a streaked frame's look: a 35 px streak on a 380 px grid 0.9
    # cells in view a streaked frame's coarse look needs (a third of the grid): on a column or two a blurred
    # desk passes for the page (a page slid out, held at its last place with one column still in the picture)
    presence_least: int = 27
    # likeness at which a detection far from the track is the page itself, moved faster than the flow followed
    # (sharp, found whole ~0.95); a part of the grid taken at the picture's edge as the whole squeezes a column
    solid: float = 0.85
    # a held board's page looking this much likelier half a cell off than where it is held has moved on: a page
    # pulled away (held-out video of a pulled page: 0.57 held against 0.79 half a cell down, the page 0.9 of a
    # cell on); a hand's streak leaves the held place the likeliest (train swap video's streak: 0.91 against 0.81)
    moved: float = 0.1


class Verdict(enum.Enum):
    SAME = "same"
    TURNED = "turned"
    OTHER = "other"
    UNSURE = "unsure"


@dataclass
class PageWitness:
    """The solved page's look, and the judgement of each frame's look against it."""

    cfg: WitnessConfig = WitnessConfig()
    squared: np.ndarray | None = None  # the last sharp view that matched, squared up (``cells.square``)
    turns: tuple[Look, ...] = field(default=(), repr=False)  # its look turned back by 0-3 quarter turns: ``now``
    # against ``turns[k]`` is ``now`` rolled by k against the page, with no turning of each frame's look
    _coarse: Look | None = field(default=None, repr=False)
    score: float | None = None  # the last judged view's likeness in the corners' own order
    turned_score: float | None = None  # ... and turned by the quarter turn it looks likest in (1-3)

    @property
    def known(self) -> bool:
        return self.squared is not None

    def judge(self, squared: np.ndarray, seen: np.ndarray, streaked: bool = False) -> tuple[Verdict, int]:
        """The verdict on the grid squared up at the board's corners now (``seen``: its cells in view), and for
        ``TURNED`` the roll that rights it."""
        self.score = self.turned_score = None
        if self.squared is None:
            return Verdict.UNSURE, 0
        if streaked:
            return self._presence(squared, seen), 0
        now = look(squared, seen)
        scores = [likeness(now, ref) for ref in self.turns]
        here = self.score = scores[0]
        known = [(v, k) for k, v in enumerate(scores) if v is not None]
        if here is None or not known:
            return Verdict.UNSURE, 0  # too little of the page in view to tell
        best, k = max(known)
        self.turned_score = max((v for v, j in known if j), default=None)
        margin = self.cfg.turn_margin
        if k and best >= self.cfg.same and best - here >= margin:
            return Verdict.TURNED, k
        if here >= self.cfg.same and best - here < margin / 2:
            return Verdict.SAME, 0
        return (Verdict.OTHER if here < self.cfg.other else Verdict.UNSURE), 0

    def moved_off(self, here: np.ndarray, around: list[np.ndarray], seen: np.ndarray, streaked: bool) -> bool:
        """Whether the page looks likelier in one of ``around`` (the grid squared up half a cell off each way) than
        at the board's place ``here`` by ``moved``: a held board whose page went on (pulled away faster than the
        flow followed), not a shaking hand's streak, which leaves the page where it was, likeliest there."""
        at = self.likeness(here, seen, streaked)
        if at is None:
            return False
        others = (self.likeness(a, seen, streaked) for a in around)
        return any(s is not None and s >= at + self.cfg.moved for s in others)

    def maybe_turned(self) -> bool:
        """The last judged view is the page, more like it turned than in the corners' order (an almost
        symmetric page put back turned can look 0.86 like itself unturned): the order is in doubt, not the place."""
        t, here = self.turned_score, self.score
        return t is not None and t >= self.cfg.same and (here is None or t > here)

    def likeness(self, squared: np.ndarray, seen: np.ndarray, streaked: bool = False) -> float | None:
        """How much the grid squared up here looks like the page, in the corners' order (-1..1; on a streaked
        frame by the coarse look, as :meth:`judge` weighs it); None when too little of the page is in view."""
        if self.squared is None:
            return None
        if streaked:
            if self._coarse is None:
                self._coarse = look(self.squared, cfg=self.cfg.coarse)
            return likeness(look(squared, seen, self.cfg.coarse), self._coarse, least=self.cfg.presence_least)
        return likeness(look(squared, seen), self.turns[0])

    def _presence(self, squared: np.ndarray, seen: np.ndarray) -> Verdict:
        score = self.likeness(squared, seen, streaked=True)
        if score is None:
            return Verdict.UNSURE
        return Verdict.SAME if score >= self.cfg.same else Verdict.OTHER if score < self.cfg.other else Verdict.UNSURE

    def remember(self, squared: np.ndarray) -> None:
        """A sharp view of the solved page, whole and confirmed by its ink: what later frames are judged against."""
        self.squared = squared
        ref = look(squared)
        self.turns = tuple(turned(ref, (4 - k) % 4) for k in range(4))
        self._coarse = None
