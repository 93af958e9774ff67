"""A few hundred generated bad inputs over the CLI: never a traceback, a crash, a changed input or a stray file.

The cases come from a seeded generator (reproducible: a failure names its case
number and argv): file names with spaces, leading dashes, non-ASCII and very
long names; contents that are empty, truncated JPEG/PNG, text named .png/.mp4,
byte-order-marked puzzle files, binary garbage; flags alone and together, and
numbers out of range. Most run in this process through ``main``; names that are
not valid UTF-8 (the class that once crashed the process with a segfault) run
in real processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EASY, ROOT

from ar_sudoku.cli import main

PHOTO_BYTES = (ROOT / "samples" / "photo.jpg").read_bytes()


def _png_bytes() -> bytes:
    import cv2
    import numpy as np

    img = np.full((60, 80, 3), 240, np.uint8)
    img[20:40, 20:60] = 30
    return cv2.imencode(".png", img)[1].tobytes()


PNG_BYTES = _png_bytes()

CONTENTS: dict[str, bytes] = {
    "empty": b"",
    "photo": PHOTO_BYTES,
    "truncated jpeg": PHOTO_BYTES[: len(PHOTO_BYTES) // 3],
    "jpeg header only": PHOTO_BYTES[:20],
    "png": PNG_BYTES,
    "truncated png": PNG_BYTES[: len(PNG_BYTES) // 2],
    "text": b"hello, this is not an image\n",
    "garbage": bytes(random.Random(7).randrange(256) for _ in range(3000)),
    "fake mp4": b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + bytes(range(256)) * 8,
    "puzzle": (EASY + "\n").encode(),
    "puzzle with bom": b"\xef\xbb\xbf" + (EASY + "\n").encode(),
    "puzzles with bad lines": (EASY + "\n12\n" + EASY[:-1] + "x\n" + EASY + "\n").encode(),
    "latin-1 text": "caf\xe9 \xff\n".encode("latin-1"),
    "yaml": b"%YAML:1.0\n---\ncamera_matrix: 3\n",
}
NAMES = ["p", "a b", "-dash", "\u00e9t\u00e9", "x" * 120, "..", "p.part"]
IMAGE_EXTS = [".png", ".jpg", ".mp4", ".txt", ".yaml", "", ".PNG"]
BAD_NUMBERS = ["0", "-1", "nan", "inf", "-inf", "1e309", "abc", "", "99999999999999999999", "0.0001"]


def _name(rng: random.Random) -> str:
    return rng.choice(NAMES) + rng.choice(IMAGE_EXTS)


def _maybe(rng: random.Random, p: float = 0.4) -> bool:
    return rng.random() < p


def make_case(seed: int) -> tuple[dict[str, bytes], list[str]]:
    """Files to create (name -> content) and the argv, names relative to the case's folder."""
    rng = random.Random(seed)
    files: dict[str, bytes] = {}

    def a_file() -> str:
        name = _name(rng)
        if name.startswith(".."):
            name = "d" + name
        files[name] = CONTENTS[rng.choice(list(CONTENTS))]
        return "./" + name if name.startswith("-") else name

    def out(exts: list[str]) -> str:
        return rng.choice(["out", "-o", "o b", "\u00e9", "x" * 300, "missing/out", ".", "in"]) + rng.choice(exts)

    command = rng.choice(["image", "image", "video", "solve", "solve", "hint", "generate", "calibrate"])
    argv = [command]
    if command == "image":
        argv += [a_file() for _ in range(rng.choice([1, 1, 2, 3]))]
        if _maybe(rng):
            argv += ["-o", out([".png", ".jpg", ".gif", ""])]
        if _maybe(rng, 0.3):
            argv += ["--out-dir", rng.choice(["od", ".", "missing/od", argv[1]])]
        if _maybe(rng):
            argv.append("--json")
        if _maybe(rng, 0.3):
            argv += ["--set", rng.choice(["r1c1=5", "r0c1=5", "r10c1=1", "x", "r1c1=0", "r9c9=."])]
        if _maybe(rng, 0.3):
            argv += ["--timeout", rng.choice(BAD_NUMBERS)]
        if _maybe(rng, 0.3):
            argv += rng.choice([["--show", "hint"], ["--check"], ["--show", "bogus"], ["--show", "check", "--check"]])
        if _maybe(rng, 0.2):
            argv += ["--jobs", rng.choice(["0", "-2", "1", "x"])]
        if _maybe(rng, 0.15):
            argv += ["--calibration", rng.choice(["nope", a_file()])]
    elif command == "video":
        argv += [a_file(), "--headless"]
        if _maybe(rng, 0.5):
            argv += ["-o", out([".mp4", ".mkv", ".webm", ".avi", ".gif", ""])]
        if _maybe(rng, 0.5):
            argv += ["--jsonl", out([".jsonl", ""])]
        if _maybe(rng, 0.2):
            argv += ["--show", rng.choice(["check", "hint", "x"])]
        if _maybe(rng, 0.15):
            argv += ["--calibration", rng.choice(["nope", a_file()])]
    elif command in ("solve", "hint"):
        argv.append(a_file() if _maybe(rng, 0.7) else rng.choice([EASY, EASY[:80], "x" * 81, " ", "-dash"]))
        if command == "solve":
            argv += rng.sample(["--pretty", "--count", "--explain", "--json"], rng.choice([0, 1, 2]))
            if _maybe(rng, 0.3):
                argv += ["--png", out([".png", ".svg", ""])]
        else:
            if _maybe(rng, 0.5):
                argv += ["--entries", rng.choice(["." * 81, "1" * 81, "x" * 81, "." * 80, ""])]
            if _maybe(rng, 0.3):
                argv += ["--json"]
        if _maybe(rng, 0.3):
            argv += ["--timeout", rng.choice(BAD_NUMBERS)]
    elif command == "generate":
        if _maybe(rng, 0.5):
            argv += ["--count", rng.choice(["0", "-1", "1", "2", "x"])]
        if _maybe(rng, 0.5):
            argv += ["--seed", rng.choice(["-1", "0", "99999999999999999999", "x"])]
        if _maybe(rng, 0.3):
            argv += ["--difficulty", rng.choice(["easy", "hard", "extreme"])]
        if _maybe(rng, 0.6):
            argv += ["--sheet", out([".png", ".svg", ".pdf", ""])]
    else:  # calibrate
        if _maybe(rng, 0.3):
            argv += ["--print-board", out([".png", ".xyz", ""])]
        else:
            argv += ["--source", a_file(), "--headless", "--out-dir", rng.choice(["cal", ".", "missing"])]
        if _maybe(rng, 0.4):
            argv += ["--pattern", rng.choice(["9x6", "0x0", "1x1", "axb", "100x100", "9x"])]
        if _maybe(rng, 0.3):
            argv += ["--square", rng.choice(BAD_NUMBERS)]
        if _maybe(rng, 0.3):
            argv += ["--name", rng.choice(["ok", "../evil", "a/b", "", ".."])]
        if _maybe(rng, 0.2):
            argv += ["--views", rng.choice(["0", "-1", "x"])]
    return files, argv


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.rglob("*") if p.is_file()}


def check_outcome(folder: Path, before: dict[str, str], code: int, err: str, what: str) -> None:
    assert code in (0, 1, 2), f"{what}: exit {code}\n{err}"
    assert "Traceback" not in err and "internal error" not in err, f"{what}:\n{err}"
    after = snapshot(folder)
    for name, digest in before.items():
        assert after.get(name) == digest, f"{what}: the input {name} was changed or removed"
    stray = [n for n in after if ".part" in Path(n).name and n not in before]
    assert not stray, f"{what}: left {stray}"


CASES = 360


@pytest.mark.parametrize("seed", range(CASES))
def test_generated_bad_input_is_refused_cleanly_in_process(tmp_path, monkeypatch, seed):
    files, argv = make_case(seed)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    check_outcome(tmp_path, before, code, err.getvalue(), f"case {seed}: {argv}")


BYTES_NAMES = [b"n\xff", b"\xc3\x28", b"-\xfe x", b"ok"]


def make_process_case(seed: int) -> tuple[dict[bytes, bytes], list[bytes]]:
    """A case whose file names may not be valid UTF-8, for a real process."""
    rng = random.Random(10_000 + seed)

    def name(exts: list[str]) -> bytes:
        return rng.choice(BYTES_NAMES) + rng.choice(exts).encode()

    src = name([".jpg", ".png", ".mp4", ".txt"])
    files = {src: CONTENTS[rng.choice(["photo", "png", "garbage", "truncated jpeg", "puzzle with bom", "empty"])]}
    arg = b"./" + src
    command = rng.choice(["image", "video", "solve", "generate", "calibrate"])
    if command == "image":
        argv = [b"image", arg, *rng.choice([[b"-o", name([".png"])], [b"--out-dir", name([""])], [b"--json"]])]
    elif command == "video":
        argv = [b"video", arg, b"--headless", b"--jsonl", name([".jsonl"])]
        if _maybe(rng, 0.5):
            argv += [b"-o", name([".mp4", ".mkv"])]
    elif command == "solve":
        argv = [b"solve", arg, b"--png", name([".png"])]
    elif command == "generate":
        argv = [b"generate", b"--sheet", name([".png", ".svg"])]
    else:
        argv = [b"calibrate", b"--print-board", name([".png"])] if _maybe(rng) else \
            [b"calibrate", b"--source", arg, b"--out-dir", b".", b"--name", b"c"]
    return files, argv


@pytest.mark.parametrize("seed", range(12))
def test_names_that_are_not_utf8_never_crash_a_real_process(tmp_path, seed):
    files, argv = make_process_case(seed)
    for name, data in files.items():
        with open(os.path.join(os.fsencode(tmp_path), name), "wb") as f:
            f.write(data)
    before = snapshot(tmp_path)
    r = subprocess.run([sys.executable, "-m", "ar_sudoku", *argv], cwd=tmp_path, capture_output=True, timeout=120)
    assert r.returncode >= 0, f"case {seed}: {argv} killed by signal {-r.returncode}"
    check_outcome(tmp_path, before, r.returncode, r.stderr.decode("utf-8", "replace"), f"case {seed}: {argv}")
