"""Real signals to real process groups: Ctrl-C from a terminal (SIGINT to the whole group), SIGTERM, and
what is left behind: no traceback, one line, 130 or 143, no process of the group, no temporary file."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ar_sudoku.io.files import part_files

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
    """Until the log ``path`` (or its temporary file, while it is written) holds ``n`` lines (the run's own
    progress), while the run lasts."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        for f in [path, *part_files(path)]:
            with contextlib.suppress(OSError):
                if f.read_bytes().count(b"\n") >= n:
                    return
        time.sleep(0.005)
    raise AssertionError(f"{path} never reached {n} lines (exit {p.poll()})")


def finish(p: subprocess.Popen) -> tuple[str, str]:
    """The rest of stdout and stderr once the run ends (read through the pipes' own buffers: a line already
    read with ``readline`` may have buffered more); no traceback, and no process of the group left."""
    import threading

    got: dict[str, str] = {}
    readers = [threading.Thread(target=lambda k=k, f=f: got.__setitem__(k, f.read()), daemon=True)
               for k, f in (("out", p.stdout), ("err", p.stderr)) if f is not None]
    for t in readers:
        t.start()
    for t in readers:
        t.join(timeout=60)
    if any(t.is_alive() for t in readers):
        os.killpg(p.pid, signal.SIGKILL)
        raise AssertionError("the run did not end")
    p.wait(timeout=10)
    out, err = got.get("out", ""), got.get("err", "")
    left = wait_group_gone(p.pid)
    if left:
        os.killpg(p.pid, signal.SIGKILL)  # leave the machine as it was, then fail
    assert not left, f"processes of the group still running: {left}"
    assert "Traceback" not in err and "Traceback" not in out, err
    return out, err


def messages(err: str) -> list[str]:
    """stderr's lines without Python's import-time profile (asked for by one test)."""
    return [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("import time:")]


# The interpreter's own report of a SIGINT that lands while it imports ``site``, before any line of the program
# runs (CPython turns it into a fatal init error, exit 1, with the frozen modules' frames): nothing the program
# can catch. Seen once, in a fresh-clone CI run on a loaded machine; told apart here, not taken for our traceback.
INTERPRETER_NOT_UP = "Fatal Python error: init_import_site"


def test_ctrl_c_the_moment_the_command_starts_ends_it_quietly(tmp_path):
    """SIGINT to the group at once: the process dies of it before Python is up (-2, what a shell shows as 130,
    or the interpreter's own fatal init error), or says so in one line with 130; never the program's traceback."""
    p = start("video", str(DEMO), "--headless", "--jsonl", str(tmp_path / "log.jsonl"))
    os.killpg(p.pid, signal.SIGINT)
    try:
        _, err = finish(p)
    except AssertionError as e:  # finish refuses any traceback: the interpreter's own, before it is up, is not ours
        if not (str(e).startswith(INTERPRETER_NOT_UP) and "KeyboardInterrupt" in str(e) and p.returncode == 1):
            raise
        # no frame of the program's (its package's files): it never ran. pip's editable-install hook, which site
        # runs first, is named after the package (__editable___ar_sudoku_..._finder.py) and may be the frame hit
        assert f"{os.sep}ar_sudoku{os.sep}" not in str(e), e
        return
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
    wait_for_lines(log, lines, p)
    os.killpg(p.pid, signal.SIGINT)
    _, err = finish(p)
    assert p.returncode == 130, err
    said = messages(err)
    # one line: how it stopped, what it did (the usual closing summary) and that its outputs are whole
    assert len(said) == 1 and said[0].startswith("ar-sudoku: interrupted after ") and " frames in " in said[0]
    assert said[0].endswith("; outputs finalized")
    assert len(log.read_text().splitlines()) >= lines and not part_files(log)


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> Path:
    """80 photos (links to the sample): enough work that a run is stopped in its middle."""
    folder = tmp_path_factory.mktemp("photos")
    for k in range(80):
        os.link(PHOTO, folder / f"p{k:02d}.jpg")
    return folder


def read_all(p: subprocess.Popen, first: str) -> tuple[list[str], str]:
    """The JSON lines (the one already read included) and stderr, once the run ends."""
    out, err = finish(p)
    return [ln for ln in (first + out).splitlines() if ln.strip()], err


@pytest.mark.parametrize("how", ["SIGTERM to the main process", "SIGTERM to the group", "SIGINT twice to the group"])
def test_stopping_image_with_workers_stops_them_and_leaves_only_reported_images(tmp_path, photos, how):
    """``image --jobs 2 --out-dir``, stopped once its first photo is reported: one line, 143 (or 130), the
    workers (and the resource tracker) gone, no temporary file, and every image written reported."""
    out_dir = tmp_path / "out"
    p = start("image", str(photos), "--out-dir", str(out_dir), "--json", "--jobs", "2")
    assert p.stdout is not None
    first = p.stdout.readline()
    assert first.startswith("{"), p.stderr.read() if p.stderr else ""
    assert len(group(p.pid)) >= 3  # the main process, its two workers (and the resource tracker)
    if how == "SIGTERM to the main process":
        os.kill(p.pid, signal.SIGTERM)
    elif how == "SIGTERM to the group":
        os.killpg(p.pid, signal.SIGTERM)
    else:
        os.killpg(p.pid, signal.SIGINT)
        os.killpg(p.pid, signal.SIGINT)
    lines, err = read_all(p, first)
    code, said = (130, "ar-sudoku: interrupted") if "SIGINT" in how else (143, "ar-sudoku: terminated")
    assert p.returncode == code, err
    assert messages(err) == [said]
    import json

    reported = {Path(json.loads(ln)["path"]).stem + "_solved.png" for ln in lines}
    written = {f.name for f in out_dir.iterdir()}  # hidden temporary files included
    assert written == reported and len(reported) < 80


def test_ctrl_c_to_a_single_process_image_leaves_no_temporary_file(tmp_path, photos):
    out_dir = tmp_path / "out"
    p = start("image", str(photos), "--out-dir", str(out_dir), "--json", "--jobs", "1")
    assert p.stdout is not None
    first = p.stdout.readline()
    os.killpg(p.pid, signal.SIGINT)
    lines, err = read_all(p, first)
    assert p.returncode == 130 and messages(err) == ["ar-sudoku: interrupted"], err
    assert len(list(out_dir.iterdir())) == len(lines) < 80
    assert not [f for f in out_dir.iterdir() if f.name.startswith(".")]


def test_more_jobs_than_cores_are_capped_and_said_once(tmp_path, photos):
    """``--jobs 1000`` on one usable core (the run pinned to it): one note, and no worker process at all."""
    paths = sorted(str(f) for f in photos.iterdir())[:16]
    p = subprocess.Popen([EXE, "image", *paths, "--json", "--jobs", "1000"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
    assert p.stdout is not None
    first = p.stdout.readline()
    assert group(p.pid) == [p.pid]  # with 16 photos under way, one process reads them all
    lines, err = read_all(p, first)
    assert p.returncode == 0, err
    assert len(lines) == 16
    assert messages(err) == ["ar-sudoku: --jobs 1000: 1 usable cores here, so 1 processes"]


def test_a_worker_killed_mid_run_is_one_line_and_stops_the_rest(tmp_path, photos):
    """The kernel's OOM killer, played by SIGKILL to one worker: one line saying so, exit 1, and the other
    worker stopped too (no process of the group left)."""
    p = start("image", str(photos), "--json", "--jobs", "2")
    assert p.stdout is not None
    first = p.stdout.readline()
    workers = [pid for pid in group(p.pid) if pid != p.pid
               and "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()]
    assert len(workers) == 2, workers
    os.kill(workers[0], signal.SIGKILL)
    lines, err = read_all(p, first)
    assert p.returncode == 1, err
    (said,) = messages(err)
    assert said.startswith("ar-sudoku: a worker process (pid ") and "try --jobs 1" in said
    assert 0 < len(lines) < 80


def test_a_ctrl_c_that_a_c_call_wrapped_in_another_error_still_ends_as_interrupted(monkeypatch, capsys):
    """A signal raised inside a C extension's call comes back out as that call's SystemError; with the
    signal caught, the command ends as the signal asks (130, one line), not as an internal error."""
    import ar_sudoku.cli.solve as solve_cmd
    from ar_sudoku import signals
    from ar_sudoku.cli import main

    def interrupted_inside_c(_args):
        monkeypatch.setattr(signals, "_caught", signal.SIGINT)
        raise SystemError("<built-in method run> returned a result with an exception set")

    monkeypatch.setattr(solve_cmd, "run", interrupted_inside_c)
    assert main(["solve", "." * 81]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["ar-sudoku: interrupted"]


PROBE = '''
import signal
BLOCKED_AT_IMPORT = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def blocked_at_import(_item):
    return BLOCKED_AT_IMPORT
'''


def test_workers_start_with_ctrl_c_blocked_even_when_they_start_the_resource_tracker(tmp_path):
    """A worker's own modules are imported (in ``spawn_main``, before its code can ignore Ctrl-C) with SIGINT
    blocked, in a fresh interpreter where the first spawn also starts multiprocessing's resource tracker: the
    tracker's start unblocked SIGINT, so a Ctrl-C while a worker was still starting printed its traceback."""
    (tmp_path / "mask_probe.py").write_text(PROBE)
    code = ("from ar_sudoku.children import ordered_map\nimport mask_probe\n"
            "if __name__ == '__main__':\n"
            "    print(list(ordered_map(mask_probe.blocked_at_import, [0, 1, 2, 3], 2, batch=1)))\n")
    (tmp_path / "main.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    run = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[True, True, True, True]"


def test_an_interruption_inside_an_extensions_string_code_still_exits_130(tmp_path):
    """CPython marks a ``KeyboardInterrupt`` raised in code an extension runs from a string (``PyRun_String``, as
    pybind11 does while onnxruntime imports) as unhandled, and at the exit of ``python -m ar_sudoku`` killed the
    process with SIGINT after the command had said "interrupted": the shell saw -2 (one Ctrl-C in ten at
    start-up, under load), not 130."""
    (tmp_path / "probe.py").write_text(
        "import ctypes\n"
        "import ar_sudoku.cli as cli\n"
        "def main():\n"
        "    ctypes.pythonapi.PyRun_SimpleString(b'raise KeyboardInterrupt')  # the flag set (its error printed)\n"
        "    raise KeyboardInterrupt  # ... and the same interruption reaching the command\n"
        "cli.main = main\n"
        "cli.run()\n")
    done = subprocess.run([sys.executable, "-m", "probe"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "ar-sudoku: interrupted"


def test_a_ctrl_c_another_thread_takes_while_a_child_starts_waits_for_the_start(tmp_path):
    """Inside ``children.sigint_blocked`` the main thread blocks SIGINT, so another thread takes a Ctrl-C, and
    Python raised it in the main thread at once, in the middle of ``Process.start``: the child, left without
    its start-up data, printed an ``EOFError`` traceback. Now it is raised once the block ends."""
    (tmp_path / "held_probe.py").write_text(
        "import os, signal, threading\n"
        "from ar_sudoku import signals\n"
        "from ar_sudoku.children import sigint_blocked\n"
        "signals.stop_on_signals()\n"
        "go, sent = threading.Event(), threading.Event()\n"
        "def killer():\n"
        "    go.wait()\n"
        "    os.kill(os.getpid(), signal.SIGINT)  # taken by this thread: the main thread blocks SIGINT\n"
        "    sent.set()\n"
        "threading.Thread(target=killer).start()\n"
        "done = []\n"
        "try:\n"
        "    with sigint_blocked():\n"
        "        go.set()\n"
        "        sent.wait()\n"
        "        for _ in range(10**5):\n"
        "            pass  # bytecodes: where the main thread runs the handler\n"
        "        done.append('started')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', done)\n")
    done = subprocess.run([sys.executable, "held_probe.py"], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.stdout.strip() == "interrupted ['started']", done.stdout + done.stderr
