"""The entry ledger: what the person has written on the puzzle in view, as the live session knows it.

Three kinds of knowledge, each tied to the givens it was gathered on (a new
puzzle starts an empty ledger): ``seen``, the entries of the last reading;
``written``, the entries two readings running agreed on (a hand passing or a
blurred frame is not taken); and ``hinted``, the hints the person took with
``n``, counted as written.
"""

from __future__ import annotations

from ar_sudoku.sudoku.written import Written


class EntryLedger:
    """Seen, written (confirmed) and hinted entries of one puzzle; the cells the last reading could not see."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}  # cell -> digit, the last reading's entries
        self.written: dict[int, str] = {}  # confirmed by two readings running
        self.written_for: str | None = None  # the givens they were read on
        self.hinted: dict[int, str] = {}  # hints taken with `n`
        self.hinted_for: str | None = None  # the givens they were taken on
        self.doubts: tuple[tuple[int, str], ...] = ()  # entries the last reading was unsure of: "looks like"
        self.unreadable: tuple[int, ...] = ()  # cells the last reading could not see (glare)
        self._on_paper: tuple[tuple, Written] | None = None  # the last ``on_paper`` and what it was made of

    def _for(self, givens: str) -> None:
        if self.written_for != givens:
            self.written, self.seen, self.written_for = {}, {}, givens

    def paper(self, givens: str | None) -> dict[int, str]:
        """The confirmed entries, if they were read on ``givens``."""
        return self.written if self.written_for == givens else {}

    def known(self) -> set[int]:
        """Cells with an entry seen or confirmed: new ink there is not a sign of another puzzle."""
        return set(self.written) | set(self.seen)

    def entries(self, givens: str | None) -> str | None:
        """The person's own digits on ``givens`` (hints taken count as written); None when there are none."""
        paper = self.paper(givens)
        hints = self.hinted if self.hinted_for == givens else {}
        if not paper and not hints:
            return None
        return "".join(paper.get(i) or hints.get(i, ".") for i in range(81))

    def take_hint(self, givens: str | None, cell: int, digit: str) -> None:
        if self.hinted_for != givens:
            self.hinted, self.hinted_for = {}, givens
        self.hinted[cell] = digit

    def take(self, givens: str, entries: str, doubts: tuple[tuple[int, str], ...]) -> bool:
        """One reading's entries (``.`` where none): an entry counts once two readings agree, a cell read
        blank twice loses its entry (rubbed out). True while something is unconfirmed (read again soon)."""
        self._for(givens)
        self.doubts = doubts
        # a cell hidden by glare on this reading keeps what earlier readings saw there
        now = "".join(self.seen.get(i, ".") if i in self.unreadable else d for i, d in enumerate(entries))
        fresh = {i: d for i, d in enumerate(now) if d != "."}
        for i, d in fresh.items():
            if self.seen.get(i) == d:
                self.written[i] = d
        for i in [i for i in self.written if i not in fresh and i not in self.seen]:
            del self.written[i]  # blank in two readings running: rubbed out
        self.seen = fresh
        return any(self.written.get(i) != d for i, d in fresh.items()) or any(i not in fresh for i in self.written)

    def take_still(self, givens: str, written: Written | None, unreadable: tuple[int, ...]) -> None:
        """A still is read once, with care: its entries count as confirmed."""
        entries = written.entries if written is not None else "." * 81
        self.written = {i: d for i, d in enumerate(entries) if d != "."}
        self.seen, self.written_for = dict(self.written), givens
        self.doubts = written.doubts if written is not None and written.checked else ()
        self.unreadable = unreadable

    def on_paper(self, givens: str) -> Written:
        """What the frame's result reports: each cell a given, an entry or blank, and the confirmed entries
        (the same object frame after frame while none of it changes: every tracked puzzle reports it every frame)."""
        paper = self.paper(givens)
        key = (givens, tuple(paper.items()), self.doubts)
        if self._on_paper is not None and self._on_paper[0] == key:
            return self._on_paper[1]
        cells = "".join("g" if g != "." else "e" if i in paper else "." for i, g in enumerate(givens))
        written = Written(cells, "".join(paper.get(i, ".") for i in range(81)), doubts=self.doubts)
        self._on_paper = (key, written)
        return written
