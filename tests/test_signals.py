"""Real signals to real process groups: Ctrl-C from a terminal (SIGINT to the whole group), SIGTERM, and
what is left behind: no traceback, one line, 130 or 143, no process of the group, no temporary file."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"
PHOTO = ROOT / "samples" / "photo.jpg"
EXE = shutil.which("ar-sudoku", path=str(Path(sys.executable).parent)) or "ar-sudoku"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups read from /proc")


def group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def wait_group_gone(pgid: int, timeout: float = 15.0) -> list[int]:
    """Wait (on each process's pidfd, not a sleep) until no process of the group runs; those still running."""
    deadline = time.monotonic() + timeout
    for pid in group(pgid):
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        finally:
            os.close(fd)
    return group(pgid)


def start(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.Popen:
    """The installed console script, in a process group of its own (as a terminal's job is)."""
    return subprocess.Popen([EXE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env, cwd=cwd)


def wait_for_lines(path: Path, n: int, p: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until ``path`` holds ``n`` lines (the run's own progress), while the run lasts."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.005)
    raise AssertionError(f"{path} never reached {n} lines (exit {p.poll()})")


def finish(p: subprocess.Popen) -> tuple[str, str]:
    out, err = p.communicate(timeout=60)
    assert "Traceback" not in err and "Traceback" not in out, err
    left = wait_group_gone(p.pid)
    assert not left, f"processes of the group still running: {left}"
    return out, err


def messages(err: str) -> list[str]:
    """stderr's lines without Python's import-time profile (asked for by one test)."""
    return [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("import time:")]


def test_ctrl_c_the_moment_the_command_starts_ends_it_quietly(tmp_path):
    """SIGINT to the group at once: the process dies of it before Python is up (-2, what a shell shows as 130)
    or says so in one line with 130; never a traceback."""
    p = start("video", str(DEMO), "--headless", "--jsonl", str(tmp_path / "log.jsonl"))
    os.killpg(p.pid, signal.SIGINT)
    _, err = finish(p)
    assert p.returncode in (130, -signal.SIGINT), err
    assert messages(err) in ([], ["ar-sudoku: interrupted"])


def test_ctrl_c_while_numpy_is_imported_is_an_interruption_not_a_traceback(tmp_path):
    """Python's import-time profile (on stderr) says when NumPy's modules load: Ctrl-C right then."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    p = start("video", str(DEMO), "--headless", "--jsonl", str(tmp_path / "log.jsonl"), env=env)
    assert p.stderr is not None
    seen = []
    for line in p.stderr:
        seen.append(line)
        if "numpy" in line:
            break
    assert seen and "numpy" in seen[-1], "never reached numpy's import"
    os.killpg(p.pid, signal.SIGINT)
    _, err = finish(p)
    assert p.returncode == 130, err
    assert messages("".join(seen) + err) == ["ar-sudoku: interrupted"]


@pytest.mark.parametrize("lines", [1, 40])
def test_ctrl_c_to_the_group_mid_video_stops_the_solver_quietly(tmp_path, lines):
    """Ctrl-C reaches the solver process too (the group): it leaves the stopping to its parent, which
    finalizes the log and says so in one line; nothing of the group is left running."""
    log = tmp_path / "log.jsonl"
    p = start("video", str(DEMO), "--headless", "--jsonl", str(log), cwd=tmp_path)
    wait_for_lines(tmp_path / ".log.part.jsonl", lines, p)
    os.killpg(p.pid, signal.SIGINT)
    _, err = finish(p)
    assert p.returncode == 130, err
    said = messages(err)
    assert said[-1] == "ar-sudoku: interrupted; outputs finalized"
    assert len(said) == 2 and " frames in " in said[0]  # the usual closing summary, then the one line
    assert len(log.read_text().splitlines()) >= lines and not (tmp_path / ".log.part.jsonl").exists()
