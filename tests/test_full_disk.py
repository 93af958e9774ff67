"""A disk that fills while a recording is written, on a real 2 MB tmpfs (mounted when this runs as root;
else a per-file size limit stands in): a recording that can play is kept and said so, one that cannot is
removed, and its log with it; one line, exit 1."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import av
import pytest

from ar_sudoku.io.files import part_files

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"

FSIZE_LIMIT = """
import resource, runpy, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG, like a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv.pop(1)), resource.RLIM_INFINITY))
sys.argv[0] = "ar-sudoku"
runpy.run_module("ar_sudoku", run_name="__main__")
"""


@pytest.fixture
def small_disk(tmp_path) -> Iterator[tuple[Path, list[str]]]:
    """A folder on a 2 MB filesystem and the command prefix that runs ar-sudoku there (the prefix limits
    every file it writes to 2 MB when no filesystem could be mounted: the folder is then an ordinary one)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                             capture_output=True).returncode == 0
    try:
        if mounted:
            yield folder, [sys.executable, "-m", "ar_sudoku"]
        else:
            yield folder, [sys.executable, "-c", FSIZE_LIMIT, str(2 << 20)]
    finally:
        if mounted:
            with contextlib.suppress(OSError):
                subprocess.run(["umount", str(folder)], check=True)


def frames_in(path: Path) -> int:
    with av.open(str(path)) as c:
        return sum(1 for _ in c.decode(video=0))


def test_a_full_disk_removes_an_mp4_that_cannot_play_and_its_log(small_disk, tmp_path):
    """MP4 needs its index, which a full disk never lets FFmpeg write: the partial file is removed, and the
    log (on another disk) with it, so no log describes frames no file holds."""
    disk, command = small_disk
    out, log = disk / "rec.mp4", tmp_path / "rec.jsonl"
    p = subprocess.run([*command, "video", str(DEMO), "--headless", "--output", str(out), "--jsonl", str(log)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith(f"ar-sudoku: {out}: the recording could not be written (")
    assert line.endswith(f"); the partial file was removed, and so was the log {log}")
    assert not out.exists() and not part_files(out)
    assert not log.exists() and not part_files(log)


@pytest.mark.parametrize("ext", [".mkv", ".webm"])
def test_a_full_disk_keeps_a_matroska_recording_that_plays_and_its_log(small_disk, tmp_path, ext):
    """Matroska and WebM play without an index: the frames written before the disk filled are kept under
    the real name and the line says how many; they decode, every one; the log is kept too."""
    disk, command = small_disk
    out, log = disk / f"rec{ext}", tmp_path / "rec.jsonl"
    p = subprocess.run([*command, "video", str(DEMO), "--headless", "--output", str(out), "--jsonl", str(log)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith(f"ar-sudoku: {out}: the recording stopped (")
    assert line.endswith(" frames were kept, and play")
    kept = int(line.split("its first ")[1].split()[0])
    assert 0 < kept < 270 and frames_in(out) == kept and not part_files(out)
    assert log.exists() and len(log.read_text().splitlines()) >= kept  # the log covers every frame kept


def test_an_annotated_photo_that_does_not_fit_leaves_no_temporary_file(small_disk, tmp_path):
    """``image -o`` onto a disk with 100 kB left: one line naming the file, exit 1, nothing left behind (the
    image is written under a temporary name, removed when the write fails); on a roomy disk the file is
    created as any file is (the umask's permissions, not a temporary file's 0600)."""
    import os
    import stat

    disk, command = small_disk
    if command[1] == "-c":
        pytest.skip("needs a real small filesystem (mount, as root)")
    (disk / "filler").write_bytes(bytes((2 << 20) - (100 << 10)))
    out = disk / "solved.png"
    p = subprocess.run([*command, "image", str(ROOT / "samples" / "photo.jpg"), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert line.startswith(f"ar-sudoku: {out}: ") and "(No space left on device)" in line
    assert sorted(f.name for f in disk.iterdir()) == ["filler"]
    roomy = tmp_path / "solved.png"
    old = os.umask(0o022)
    try:
        p = subprocess.run([*command, "image", str(ROOT / "samples" / "photo.jpg"), "-o", str(roomy)],
                           capture_output=True, text=True, timeout=120)
    finally:
        os.umask(old)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(roomy.stat().st_mode) == 0o644
    assert [f.name for f in tmp_path.iterdir() if f.name.startswith(".")] == []
