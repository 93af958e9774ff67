"""Read digits with the shipped ONNX model: one batched call per grid.

The model (``models/digits.onnx``, trained by ``scripts/train_digits.py``)
takes the ink-normalised patches that :mod:`ar_sudoku.vision.cells` makes and
returns logits for "not a digit" and 1-9. Cells the cutter found empty are not
sent; they read as empty with full confidence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.sudoku.rules import Reading
from ar_sudoku.vision.cells import CellCuts

MODEL_NAME = "digits.onnx"
# images one model call takes at most. onnxruntime's buffers grow with the batch, about 0.27 MB a 40 px view:
# one call of 729 (a printed grid's doubted cells, shifted nine ways) took 190 MB. Each image's
# probabilities are the same, bit for bit, in a batch of any size.
BATCH = 64


@dataclass(frozen=True)
class DigitsConfig:
    """This stage's tuning: each field with the reason for its value."""

    faint_share: float = 0.2  # how much a faint cell's digit is believed before the rules ask for it


DIGITS = DigitsConfig()


class ModelError(ArSudokuError, RuntimeError):
    """The model file is missing or unusable."""


def default_model_path() -> Path:
    return Path(str(resources.files("ar_sudoku.models").joinpath(MODEL_NAME)))


def load_onnx(path: Path, what: str, script: str, threads: int = 1) -> tuple[Any, str, dict]:
    """An onnxruntime session for one of our small models, its input's name, and its ``.json`` metadata.

    One thread by default: the frame loop's batches are small. A photo read alone on two free
    cores takes two (the batched calls then take half the time).
    """
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"{what} not found at {path}; run {script} or reinstall")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # no memory arena: the arena keeps the largest batch of every size it was given, and a folder of photos (batches
    # of every size) grew a process by tens of MB; plain allocations compute the same
    opts.enable_cpu_mem_arena = False
    if threads > 1:
        # no spinning between calls: a spinning worker takes the core that the next step's OpenCV call
        # needs (written-on photos, --jobs 1, two threads: clearly slower with spinning than without)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:  # from its bytes: onnxruntime takes no file name that is not valid UTF-8
        session = ort.InferenceSession(path.read_bytes(), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for a bad file
        reason = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).strip().splitlines()[0]
        raise ModelError(f"cannot load the {what} {path}: {reason}") from exc
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    except (OSError, ValueError) as exc:
        raise ModelError(f"{meta_path}: not the model's metadata ({exc})") from exc
    return session, session.get_inputs()[0].name, meta


def run_batched(session: Any, input_name: str, x: np.ndarray) -> np.ndarray:
    """The model's first output for the batch ``x``, asked :data:`BATCH` images at a time."""
    return np.concatenate([session.run(None, {input_name: x[i : i + BATCH]})[0] for i in range(0, len(x), BATCH)])


def softmax_run(session: Any, input_name: str, images: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities (n, ``n_classes``) float32 of a batch of (n, h, w) images."""
    if len(images) == 0:
        return np.zeros((0, n_classes), np.float32)
    logits = run_batched(session, input_name, np.ascontiguousarray(images, dtype=np.float32)[:, None])
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


class DigitReader:
    """An onnxruntime session, loaded once and reused for every grid."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1):
        self.session, self.input_name, self.meta = load_onnx(
            Path(model_path) if model_path else default_model_path(), "digit model", "scripts/train_digits.py", threads)

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """Softmax over the 10 classes for a batch of (n, 28, 28) patches."""
        return softmax_run(self.session, self.input_name, patches, 10)

    def read_many(self, many: list[CellCuts]) -> list[Reading]:
        """Several grids' cells (e.g. one grid turned four ways) in one batched model call."""
        idx = [np.flatnonzero(c.has_ink | c.faint) for c in many]
        patches = [c.patches[i] for c, i in zip(many, idx)]
        probs = self.probabilities(np.concatenate(patches)) if sum(len(i) for i in idx) else np.zeros((0, 10))
        out, start = [], 0
        for c, i in zip(many, idx):
            out.append(self._reading(c, i, probs[start : start + len(i)]))
            start += len(i)
        return out

    def read(self, cuts: CellCuts) -> Reading:
        """Digits of the inked cells; faint cells stay empty but keep a small share for the digit
        the model sees, so the rules can add it back if the puzzle needs it."""
        idx = np.flatnonzero(cuts.has_ink | cuts.faint)
        return self._reading(cuts, idx, self.probabilities(cuts.patches[idx]))

    @staticmethod
    def _reading(cuts: CellCuts, idx: np.ndarray, p: np.ndarray) -> Reading:
        probs = np.zeros((81, 10), np.float32)
        probs[:, 0] = 1.0
        if len(idx):
            faint = cuts.faint[idx]
            p[faint] = DIGITS.faint_share * p[faint]
            p[faint, 0] += 1.0 - DIGITS.faint_share
            probs[idx] = p
        digits = probs.argmax(axis=1)
        return Reading(digits, probs.max(axis=1), probs)
