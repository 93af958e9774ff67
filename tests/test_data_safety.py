"""No input destroyed, no result lost, every failure one line with the README's exit code (issue 22, part A).

Real files, real FIFOs, real subprocesses where the fault is the process's (a
segfault, a closed stdout), and a real read-only mount (``unshare``) for the
read-only folders.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import av
import cv2
import numpy as np
import pytest
from conftest import EASY, EASY_SOLUTION, ROOT

from ar_sudoku.cli import main
from ar_sudoku.io.files import part_files
from ar_sudoku.io.sinks import VideoSink

PHOTO = ROOT / "samples" / "photo.jpg"
BAD = os.fsencode  # str -> bytes; the names below are built as bytes so they can hold \xff


def digest(path: Path | bytes) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cli(*args: str | bytes | Path, cwd: Path, **kw) -> subprocess.CompletedProcess:
    """``python -m ar_sudoku ARGS`` in a real process (bytes arguments pass names that are not UTF-8)."""
    return subprocess.run([sys.executable, "-m", "ar_sudoku", *map(os.fsencode, args)], cwd=cwd,
                          capture_output=True, timeout=120, **kw)


def one_line(err: bytes | str) -> str:
    """The stderr of a failed run: exactly one ``ar-sudoku:`` line, no traceback, no internal error."""
    text = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
    lines = [ln for ln in text.splitlines() if ln.startswith("ar-sudoku:")]
    assert "Traceback" not in text and "internal error" not in text, text
    assert len(lines) == 1, text
    return lines[0]


def small_video(path: Path, frames: int = 6) -> None:
    img = np.full((48, 64, 3), 200, np.uint8)
    with VideoSink(path, (64, 48), 10) as sink:
        for k in range(frames):
            img[:, k * 8:(k + 1) * 8] = 40
            sink.write(img)


def frame_count(path: Path) -> int:
    with av.open(str(path)) as c:
        return sum(1 for _ in c.decode(video=0))


# -- 1. --out-dir: no input overwritten, no two results under one name -----------------------------------


def test_an_out_dir_that_holds_a_photos_output_name_refuses_before_touching_anything(tmp_path, capsys):
    """`image DIR --out-dir DIR` with a.jpg and a_solved.png: a_solved.png is a photo read, so it is not
    overwritten (the old code overwrote it, read it again and wrote a_solved_solved.png)."""
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(PHOTO, d / "a.jpg")
    shutil.copy(PHOTO, d / "a_solved.png")
    before = {p.name: digest(p) for p in d.iterdir()}
    assert main(["image", str(d), "--out-dir", str(d)]) == 2
    err = one_line(capsys.readouterr().err)
    assert "a_solved.png" in err and "one of the photos read" in err
    assert {p.name: digest(p) for p in d.iterdir()} == before  # nothing written, nothing changed


@pytest.mark.parametrize("names", [("d1/p.jpg", "d2/p.jpg"), ("a.jpg", "a.png")], ids=["two folders", "two types"])
def test_two_photos_that_would_share_an_output_name_are_refused_before_any_work(tmp_path, capsys, names):
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(PHOTO, tmp_path / name)
    out = tmp_path / "out"
    assert main(["image", *(str(tmp_path / n) for n in names), "--out-dir", str(out), "--json"]) == 2
    cap = capsys.readouterr()
    assert "would both be written to" in one_line(cap.err) and cap.out == ""  # no photo was read
    assert not out.exists() or not any(out.iterdir())


def test_an_out_dir_inside_the_folder_read_writes_each_photo_once(tmp_path, capsys):
    """The folder is listed once, before anything is written: results written into it are not read again."""
    shutil.copy(PHOTO, tmp_path / "a.jpg")
    assert main(["image", str(tmp_path), "--out-dir", str(tmp_path), "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg", "a_solved.png"]


def test_an_output_that_is_an_input_is_refused_and_the_input_untouched(tmp_path, capsys):
    """The README's promise for -o, --output and --jsonl: the same file (also through a link) is refused."""
    photo = tmp_path / "a.png"
    shutil.copy(PHOTO, photo)
    (tmp_path / "link.png").symlink_to(photo)
    video = tmp_path / "v.mp4"
    small_video(video)
    before = snapshot(tmp_path)
    for argv in (["image", str(photo), "-o", str(photo)], ["image", str(photo), "-o", str(tmp_path / "link.png")],
                 ["video", str(video), "--headless", "-o", str(video)],
                 ["video", str(video), "--headless", "--jsonl", str(video)],
                 ["video", str(video), "--headless", "-o", str(tmp_path / "w.mp4"), "--jsonl",
                  str(tmp_path / "w.mp4")]):
        assert main(argv) == 2, argv
        assert "the input" in (err := one_line(capsys.readouterr().err)) or "same file" in err, argv
    assert snapshot(tmp_path) == before


def snapshot(folder: Path) -> dict[str, str]:
    return {p.name: digest(p) for p in folder.iterdir() if p.is_file()}


# -- 2. temporary names never collide with an input or another output ---------------------------------------


def test_an_input_named_like_the_old_temporary_name_survives_a_recording(tmp_path):
    """`video .x.part.mp4 -o x.mp4` destroyed its input: the temporary file now has a name no file has."""
    src = tmp_path / ".x.part.mp4"
    small_video(src)
    before = digest(src)
    r = cli("video", src, "--headless", "-o", "x.mp4", cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # no puzzle in it: no answer, but the recording is complete
    assert digest(src) == before and frame_count(tmp_path / "x.mp4") == 6
    assert not part_files(tmp_path / "x.mp4")


def test_an_image_input_named_like_the_old_temporary_name_survives(tmp_path, capsys):
    src = tmp_path / ".out.png.part.png"
    shutil.copy(PHOTO, src)
    before = digest(src)
    assert main(["image", str(src), "-o", str(tmp_path / "out.png")]) == 0
    assert digest(src) == before and cv2.imread(str(tmp_path / "out.png")) is not None


def test_a_log_named_like_the_videos_old_temporary_name_keeps_both_outputs(tmp_path):
    """`-o x.mp4 --jsonl .x.part.mp4` left the JSONL text in x.mp4 and lost the video."""
    src = tmp_path / "in.mp4"
    small_video(src)
    r = cli("video", src, "--headless", "-o", "x.mp4", "--jsonl", ".x.part.mp4", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert frame_count(tmp_path / "x.mp4") == 6
    assert len((tmp_path / ".x.part.mp4").read_text().splitlines()) == 6


# -- 3. outputs that are not regular files are written to, never replaced ------------------------------------


def _drain(fifo: Path, got: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


def test_a_log_and_an_image_stream_into_a_fifo_which_stays_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _drain(fifo, got)
    assert main(["video", str(PHOTO), "--headless", "--jsonl", str(fifo)]) == 0
    reader.join(30)
    assert got and b'"solution":"' in got[0] and len(got[0].splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    png = tmp_path / "img.png"
    os.mkfifo(png)
    got.clear()
    reader = _drain(png, got)
    assert main(["image", str(PHOTO), "-o", str(png)]) == 0
    reader.join(30)
    assert cv2.imdecode(np.frombuffer(got[0], np.uint8), cv2.IMREAD_COLOR).shape == cv2.imread(str(PHOTO)).shape
    assert stat.S_ISFIFO(os.lstat(png).st_mode)
    assert not list(tmp_path.glob(".*"))  # no temporary file beside either


def test_outputs_onto_a_link_to_a_character_device_leave_both_as_they_were(tmp_path, capsys):
    """As root, `--jsonl /dev/null` replaced /dev/null with a regular file; here a link to it stands in."""
    links = {n: tmp_path / n for n in ("log.jsonl", "v.mkv", "a.png", "s.png", "g.svg", "b.png")}
    for link in links.values():
        link.symlink_to(os.devnull)
    assert main(["video", str(PHOTO), "--headless", "--jsonl", str(links["log.jsonl"]),
                 "-o", str(links["v.mkv"])]) == 0
    assert main(["image", str(PHOTO), "-o", str(links["a.png"])]) == 0
    assert main(["solve", EASY, "--png", str(links["s.png"])]) == 0
    assert main(["generate", "--seed", "1", "--sheet", str(links["g.svg"])]) == 0
    assert main(["calibrate", "--print-board", str(links["b.png"])]) == 0
    for link in links.values():
        assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(links)


def test_a_link_to_a_regular_file_keeps_the_link_and_updates_its_target(tmp_path, capsys):
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "link.png"
    link.symlink_to(real)
    assert main(["solve", EASY, "--png", str(link)]) == 0
    assert link.is_symlink() and cv2.imread(str(real)) is not None


# -- 4. names that are not valid UTF-8: no segfault ----------------------------------------------------------


def test_file_names_that_are_not_utf8_work_in_every_command(tmp_path):
    """OpenCV's path calls crashed the process (exit 139) on such names; now every one of these runs."""
    photo = b"q\xff.jpg"
    shutil.copy(PHOTO, tmp_path / os.fsdecode(photo))
    video = b"v\xff.mp4"
    small_video(tmp_path / os.fsdecode(video))
    runs = {
        "image -o": (["image", photo, "-o", b"o\xff.png"], 0, b"o\xff.png"),
        "image --out-dir": (["image", photo, "--out-dir", b"d\xff"], 0, b"d\xff/q\xff_solved.png"),
        "video over a still": (["video", photo, "--headless", "-o", b"r\xff.mp4", "--jsonl", b"l\xff.jsonl"], 0,
                               b"r\xff.mp4"),
        "video file (OpenCV decodes)": (["video", video, "--headless", "--jsonl", b"w\xff.jsonl"], 1, b"w\xff.jsonl"),
        "video file (PyAV decodes)": (["video", video, "--headless", "-o", b"y\xff.mkv"], 1, b"y\xff.mkv"),
        "generate --sheet": (["generate", "--seed", "3", "--sheet", b"g\xff.png"], 0, b"g\xff.png"),
        "solve --png": (["solve", EASY, "--png", b"s\xff.png"], 0, b"s\xff.png"),
        "calibrate --print-board": (["calibrate", "--print-board", b"b\xff.png"], 0, b"b\xff.png"),
        "image --model": (["image", photo, "--model", b"m\xff.onnx", "--out-dir", b"e\xff"], 0,
                          b"e\xff/q\xff_solved.png"),
    }
    shutil.copy(ROOT / "models" / "digits.onnx", tmp_path / os.fsdecode(b"m\xff.onnx"))
    for what, (args, code, made) in runs.items():
        r = cli(*args, cwd=tmp_path)
        assert r.returncode == code, (what, r.returncode, r.stderr)
        assert b"Traceback" not in r.stderr, what
        assert (tmp_path / os.fsdecode(made)).stat().st_size > 0, what
    assert b"wrote o\xff.png" in cli("image", photo, "-o", b"o\xff.png", cwd=tmp_path).stdout  # printed as given
    img = cv2.imdecode(np.fromfile(tmp_path / os.fsdecode(b"s\xff.png"), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[0] == img.shape[1]
    # calibrating from a video or a folder whose names are not UTF-8: too few views, said in one line; the
    # views were looked for (work done), so it is "no answer", 1 (issue #59: it was 2, "refused before any work")
    board = tmp_path / os.fsdecode(b"views\xff")
    board.mkdir()
    shutil.copy(tmp_path / os.fsdecode(b"b\xff.png"), board / os.fsdecode(b"c\xff.png"))
    for source in (video, b"views\xff"):
        r = cli("calibrate", "--source", source, "--out-dir", ".", "--headless", cwd=tmp_path)
        assert r.returncode == 1 and "views" in one_line(r.stderr), r.stderr


# -- 11. read-only folders, a closed or full stdout ----------------------------------------------------------


def _can_mount_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0"', str(tmp_path)],
                           capture_output=True)
    return probe.returncode == 0


def read_only(folder: Path, *args: str | Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI with ``folder`` mounted read-only (a private mount namespace: nothing else sees it)."""
    return subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder),
                           sys.executable, "-m", "ar_sudoku", *map(str, args)], cwd=folder.parent,
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_read_only_folder_is_one_line_and_exit_2_for_every_output(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    if not _can_mount_read_only(ro):
        pytest.skip("needs unshare and the right to mount (root, or user namespaces)")
    runs = [
        ("image", PHOTO, "-o", ro / "a.png"),
        ("image", PHOTO, "--out-dir", ro),
        ("image", PHOTO, "--out-dir", ro / "sub"),
        ("generate", "--sheet", ro / "g.png"),
        ("generate", "--sheet", ro / "g.svg"),
        ("solve", EASY, "--png", ro / "s.png"),
        ("video", PHOTO, "--headless", "-o", ro / "v.mp4"),
        ("video", PHOTO, "--headless", "--jsonl", ro / "v.jsonl"),
        ("calibrate", "--source", PHOTO, "--out-dir", ro),
        ("calibrate", "--print-board", ro / "b.png"),
    ]
    for args in runs:
        r = read_only(ro, *args)
        assert r.returncode == 2, (args, r.stderr)
        assert "not writable" in one_line(r.stderr) or "Read-only" in r.stderr, (args, r.stderr)
        assert r.stdout == "", args  # refused before any work
    # calibration into a read-only home (the default folder)
    r = read_only(ro, "calibrate", "--source", PHOTO, env={**os.environ, "HOME": str(ro), "XDG_CONFIG_HOME": ""})
    assert r.returncode == 2 and "Read-only file system" in one_line(r.stderr)
    assert not any(ro.iterdir())


def test_a_board_image_with_an_unknown_extension_is_one_line(tmp_path, capsys):
    """`calibrate --print-board b.xyz` was an internal error from OpenCV."""
    assert main(["calibrate", "--print-board", str(tmp_path / "b.xyz")]) == 2
    assert "give a .png or .jpg" in one_line(capsys.readouterr().err)
    assert not any(tmp_path.iterdir())


def test_a_closed_stdout_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "ar_sudoku", "solve", EASY,
                        "--png", "s.png"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "stdout is closed" in one_line(r.stderr)
    assert not any(tmp_path.iterdir())  # refused before any work


def test_a_full_stdout_is_a_failed_write_exit_1(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "ar_sudoku", "solve", EASY], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == 1 and "No space left on device" in one_line(r.stderr)


# -- 12. puzzle files: a byte-order mark, and bad lines among good ones ---------------------------------------


def test_a_puzzle_file_with_a_byte_order_mark_is_read(tmp_path, capsys):
    f = tmp_path / "bom.txt"
    f.write_text(EASY + "\n", encoding="utf-8-sig")
    assert main(["solve", str(f)]) == 0
    assert capsys.readouterr().out.strip() == EASY_SOLUTION
    assert main(["hint", str(f)]) == 0


def test_bad_lines_in_a_puzzle_file_are_named_and_the_good_ones_solved(tmp_path, capsys):
    f = tmp_path / "many.txt"
    lines = [EASY] * 3000
    lines[1234] = EASY[:80]  # 80 symbols
    lines[2000] = EASY[:-1] + "x"
    f.write_text("\n".join(lines) + "\n")
    assert main(["solve", str(f)]) == 1
    cap = capsys.readouterr()
    assert cap.out.split() == [EASY_SOLUTION] * 2998
    err = [ln for ln in cap.err.splitlines() if ln]
    assert len(err) == 2 and "line 1235" in err[0] and "line 2001, column 81" in err[1]
    assert all(ln.startswith("ar-sudoku: ") and ln.endswith("skipped") for ln in err)


def test_many_bad_lines_end_in_one_summary_line(tmp_path, capsys):
    f = tmp_path / "bad.txt"
    f.write_text("\n".join([EASY] + ["12"] * 50) + "\n")
    assert main(["solve", str(f)]) == 1
    cap = capsys.readouterr()
    assert cap.out.strip() == EASY_SOLUTION
    err = cap.err.splitlines()
    assert len(err) == 11 and "40 more bad lines skipped (50 in all)" in err[-1]
    f.write_text("12\n34\n")  # nothing good at all: bad input
    assert main(["solve", str(f)]) == 2
    assert "line 1" in one_line(capsys.readouterr().err)


# -- 15. flags that conflict, a name that escapes its folder, what is said -----------------------------------


def test_solve_png_says_where_it_wrote(tmp_path, capsys):
    out = tmp_path / "s.png"
    assert main(["solve", EASY, "--png", str(out)]) == 0
    cap = capsys.readouterr()
    assert cap.out.strip() == EASY_SOLUTION and cap.err.strip() == f"wrote {out}"


@pytest.mark.parametrize("flags", [["-o", "x.png", "--out-dir", "d"], ["--show", "hint", "--check"]],
                         ids=["-o with --out-dir", "--show hint with --check"])
def test_conflicting_image_flags_are_refused(tmp_path, capsys, flags):
    with pytest.raises(SystemExit) as exc:
        main(["image", str(PHOTO), *flags])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["../../evil", "sub/evil", "..", ""])
def test_a_calibration_name_cannot_leave_its_folder(tmp_path, capsys, name):
    out = tmp_path / "a" / "b"
    out.mkdir(parents=True)
    assert main(["calibrate", "--source", str(PHOTO), "--out-dir", str(out), "--name", name]) == 2
    assert "plain name" in one_line(capsys.readouterr().err)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_serve_stopped_by_ctrl_c_exits_130(tmp_path):
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    p = subprocess.Popen([sys.executable, "-m", "ar_sudoku", "serve", "--port", "0"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in p.stdout:
            m = re.search(r"serving on http://localhost:(\d+)/", line)
            port = port or (m and int(m[1]))
            if "Ctrl-C stops the server" in line:
                break
        assert port, "the server did not start"
        # the server is running (its signal handlers set) once it answers
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5) as reply:
                    assert reply.status == 200
                break
            except urllib.error.URLError:
                continue
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and "Traceback" not in err
