"""Recordings and logs: real files read back with PyAV, cut by Ctrl-C, SIGTERM and a full disk."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from ar_sudoku.io.files import part_files
from ar_sudoku.io.sinks import VIDEO_EXT, JsonlLog, SinkError, SinkWriteError, VideoSink, exact_rate

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"
NTSC = 30000 / 1001  # what OpenCV reports for a 29.97 fps source


def frames(n: int, size: tuple[int, int]) -> list[np.ndarray]:
    """A red bar sweeping over grey: every frame differs, so a dropped or doubled frame shows."""
    w, h = size
    out = []
    for i in range(n):
        f = np.full((h, w, 3), 90, np.uint8)
        x = (i * 7) % w
        f[:, x:x + 12] = (0, 0, 255)
        out.append(f)
    return out


def read_back(path: Path) -> tuple[str, int, int, int, Fraction, list[np.ndarray]]:
    """Codec, frames decoded (every one, so the file plays to the end), size, frame rate, the frames."""
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        decoded = [f.to_ndarray(format="bgr24") for f in c.decode(s)]
        return s.codec_context.name, len(decoded), s.width, s.height, s.average_rate, decoded


@pytest.mark.parametrize("ext, codec", [(".mp4", "h264"), (".webm", "vp9"), (".mkv", "h264"), (".avi", "mjpeg")])
def test_recording_reads_back(tmp_path, ext, codec):
    path = tmp_path / f"clip{ext}"
    clip = frames(20, (161, 91))  # odd on both sides: kept by VP9 and MJPEG; H.264 pads to 162x92, never crops
    with VideoSink(path, (161, 91), NTSC) as sink:
        for f in clip:
            sink.write(f)
            f[:] = 0  # the caller may reuse its buffer at once: the sink took a copy
    assert sink.finalized and sink.frames == 20
    name, n, w, h, rate, decoded = read_back(path)
    assert (name, n, w, h) == (codec, 20, *((162, 92) if codec == "h264" else (161, 91)))
    assert rate == Fraction(30000, 1001)
    # colours survive (BGR order, range): the red bar of frame 3 is red, the background grey
    f3 = decoded[3].astype(int)
    assert abs(f3[45, 21 + 6] - [0, 0, 255]).max() < 40 and abs(f3[45, 120] - [90, 90, 90]).max() < 12
    assert not part_files(path)


def test_mp4_starts_with_its_index(tmp_path):
    """+faststart: the moov atom comes before the media, so a browser plays before the download ends."""
    path = tmp_path / "web.mp4"
    with VideoSink(path, (64, 48), 25) as sink:
        for f in frames(10, (64, 48)):
            sink.write(f)
    data = path.read_bytes()
    assert 0 < data.find(b"moov") < data.find(b"mdat")


def test_frames_of_another_size_are_letterboxed(tmp_path):
    path = tmp_path / "stills.mp4"
    with VideoSink(path, (160, 120), 2) as sink:
        sink.write(np.full((120, 160, 3), 200, np.uint8))
        sink.write(np.full((300, 100, 3), 200, np.uint8))  # a portrait photo: fit, black bars at the sides
    _, n, w, h, _, decoded = read_back(path)
    assert (n, w, h) == (2, 160, 120)
    assert decoded[1][60, 5].max() < 30 and decoded[1][60, 80].min() > 170


def test_exact_rates():
    assert exact_rate(NTSC) == Fraction(30000, 1001)
    assert exact_rate(24000 / 1001) == Fraction(24000, 1001)
    assert exact_rate(25.0) == 25 and exact_rate(12.5) == Fraction(25, 2)
    assert exact_rate(0.0) == 30


def test_ctrl_c_finalizes_video_and_log(tmp_path):
    video, log = tmp_path / "cut.mp4", tmp_path / "cut.jsonl"
    with pytest.raises(KeyboardInterrupt), VideoSink(video, (96, 64), 30) as sink, JsonlLog(log) as lines:
        for i, f in enumerate(frames(40, (96, 64))):
            if i == 15:
                raise KeyboardInterrupt
            sink.write(f)
            lines.write({"frame": i})
            if i == 3:  # while running: the lines are in the temporary file (tail -f), not under the real name
                assert not log.exists() and len(part_files(log)[0].read_text().splitlines()) == 4
    assert read_back(video)[:2] == ("h264", 15)
    assert len(log.read_text().splitlines()) == 15
    assert not part_files(video) and not part_files(log)


class CtrlCAfterFlush:
    """A log's file on which Ctrl-C lands just after a line reached the disk, before the log counts it."""

    def __init__(self, f):
        self.f = f

    def write(self, text: str) -> int:
        return self.f.write(text)

    def flush(self) -> None:
        self.f.flush()
        raise KeyboardInterrupt

    def close(self) -> None:
        self.f.close()


def test_ctrl_c_just_after_the_first_line_keeps_it(tmp_path):
    """The race CI once lost: the line is on disk (``tail -f`` saw it), so the stopped run's log keeps it."""
    log = tmp_path / "cut.jsonl"
    with pytest.raises(KeyboardInterrupt), JsonlLog(log) as lines:
        lines.f = CtrlCAfterFlush(lines.f)
        lines.write({"frame": 0})
    assert log.read_text().splitlines() == ['{"frame":0}'] and not part_files(log)


def test_ctrl_c_just_after_the_first_frame_is_queued_keeps_it(tmp_path):
    """The same race for a recording: the frame was handed to the writer, which encodes it, so it is kept."""
    video = tmp_path / "cut.mp4"
    with pytest.raises(KeyboardInterrupt), VideoSink(video, (96, 64), 30) as sink:
        put = sink._queue.put

        def put_then_ctrl_c(item, *args, **kwargs):
            put(item, *args, **kwargs)
            sink._queue.put = put  # type: ignore[method-assign]
            raise KeyboardInterrupt

        sink._queue.put = put_then_ctrl_c  # type: ignore[method-assign]
        sink.write(frames(1, (96, 64))[0])
    assert read_back(video)[:2] == ("h264", 1) and not part_files(video)


class FullDisk:
    """Stands in for the PyAV container once the disk is full: every write fails with ENOSPC."""

    def __init__(self, container):
        self.container = container

    def mux(self, packet) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self) -> None:
        self.container.close()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_writer_error_surfaces_and_leaves_no_file(tmp_path, monkeypatch):
    opened = VideoSink._open

    def open_on_a_full_disk(self: VideoSink) -> None:  # the writer thread opens the file: the disk fills then
        opened(self)
        self._container = FullDisk(self._container)

    monkeypatch.setattr(VideoSink, "_open", open_on_a_full_disk)
    path = tmp_path / "full.mp4"
    path.write_bytes(b"an older recording the user kept")
    sink = VideoSink(path, (64, 48), 30)
    with pytest.raises(SinkWriteError, match=r"full\.mp4.*No space left"):
        for f in frames(200, (64, 48)):
            sink.write(f)  # the error from the writer thread arrives on a later write
    with pytest.raises(SinkWriteError):
        sink.close()
    assert not sink.finalized and not part_files(path)
    assert path.read_bytes() == b"an older recording the user kept"  # a failed run destroys nothing


def test_bad_names_are_refused_up_front(tmp_path):
    with pytest.raises(SinkError, match="unsupported extension"):
        VideoSink(tmp_path / "x.gif", (64, 48), 30)
    with pytest.raises(SinkError, match="does not exist"):
        VideoSink(tmp_path / "no" / "x.mp4", (64, 48), 30)
    assert ".webm" in VIDEO_EXT and ".mp4" in VIDEO_EXT


def cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ar_sudoku", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=kw.pop("cwd"), **kw)


@pytest.mark.parametrize("sig, code, message", [
    (signal.SIGTERM, 143, "ar-sudoku: terminated; outputs finalized"),
    (signal.SIGINT, 130, "ar-sudoku: interrupted; outputs finalized"),
], ids=["SIGTERM", "SIGINT"])
def test_a_signal_finalizes_the_recording(tmp_path, sig, code, message):
    """A real SIGTERM (or Ctrl-C) to a real run: the file is renamed into place and plays; one line, 128+N."""
    out, log = tmp_path / "rec.mp4", tmp_path / "rec.jsonl"
    p = cli("video", str(DEMO), "--headless", "--output", str(out), "--jsonl", str(log), cwd=tmp_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and p.poll() is None:
        parts = part_files(log)
        if parts and parts[0].read_text().count("\n") >= 5:
            break
        time.sleep(0.01)
    assert p.poll() is None, "the run ended before it could be interrupted"
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == code, err
    said = err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(message.split(";")[0] + " after ") and said[0].endswith(
        "; outputs finalized"), err  # one line: how it stopped, what it did, that its outputs are whole
    assert "Traceback" not in err
    name, n, w, h, _, _ = read_back(out)
    lines = len(log.read_text().splitlines())
    assert name == "h264" and (w, h) == (1280, 720) and n >= 5 and abs(n - lines) <= 1
    assert not part_files(out) and not part_files(log)


FSIZE_LIMIT = """
import resource, runpy, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG, like a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv.pop(1)), resource.RLIM_INFINITY))
sys.argv[0] = "ar-sudoku"
runpy.run_module("ar_sudoku", run_name="__main__")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_full_disk_is_an_error_that_names_the_file(tmp_path):
    out = tmp_path / "big.mp4"
    p = subprocess.run([sys.executable, "-c", FSIZE_LIMIT, "150000", "video", str(DEMO), "--headless",
                        "--output", str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert p.returncode == 1, p.stderr
    assert "big.mp4" in p.stderr and "wrote" not in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not out.exists() and not part_files(out)


JSONL_LIMIT = """
import resource, signal, sys
from ar_sudoku.io.sinks import JsonlLog, SinkWriteError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, resource.RLIM_INFINITY))
try:
    with JsonlLog(sys.argv[1]) as log:
        for i in range(10000):
            log.write({"frame": i, "pad": "x" * 80})
except SinkWriteError as exc:
    print(exc)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_full_disk_jsonl(tmp_path):
    log = tmp_path / "log.jsonl"
    p = subprocess.run([sys.executable, "-c", JSONL_LIMIT, str(log)], capture_output=True, text=True, timeout=60)
    assert "log.jsonl: the log could not be written (File too large)" in p.stdout, p.stderr
    assert not log.exists() and not part_files(log)


def test_owned_frames_are_encoded_as_given(tmp_path):
    """``write(frame, owned=True)``: no copy taken; the caller hands over fresh frames, all arrive in order."""
    path = tmp_path / "owned.mp4"
    clip = frames(15, (160, 90))
    with VideoSink(path, (160, 90), 30.0) as sink:
        for f in clip:
            sink.write(f.copy(), owned=True)
    _, n, _, _, _, decoded = read_back(path)
    assert n == 15
    for i in (0, 7, 14):  # the red bar where frame i put it
        x = (i * 7) % 160 + 6
        assert decoded[i][45, x, 2] > 180 and decoded[i][45, x, 0] < 80


def test_frames_are_painted_on_the_writer_thread(tmp_path):
    """``write(frame, paint=f)``: ``f`` draws on the frame on the writer's thread, before it is encoded."""
    import threading

    path = tmp_path / "painted.mp4"
    threads = set()

    def paint(img: np.ndarray) -> None:
        threads.add(threading.current_thread().name)
        img[30:60, 100:140] = (255, 255, 255)

    with VideoSink(path, (160, 90), 30.0) as sink:
        for f in frames(6, (160, 90)):
            sink.write(f, owned=True, paint=paint)
    _, n, _, _, _, decoded = read_back(path)
    assert n == 6 and threads == {"ar-sudoku-video-writer"}
    assert all(d[35:55, 105:135].min() > 200 for d in decoded)



def test_a_video_file_is_read_ahead_frame_for_frame(tmp_path):
    """The decode-ahead source yields every frame, in order and unchanged, and can be closed midway."""
    import cv2

    from ar_sudoku.io.sources import open_source

    path = tmp_path / "src.mp4"
    clip = frames(40, (160, 90))
    with VideoSink(path, (160, 90), 25.0) as sink:
        for f in clip:
            sink.write(f)
    cap = cv2.VideoCapture(str(path))
    plain = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        plain.append(f)
    cap.release()
    src = open_source(str(path))
    ahead = list(src)
    src.close()
    assert len(ahead) == len(plain) == 40 and not src.truncated
    assert all(np.array_equal(a, b) for a, b in zip(ahead, plain))
    src = open_source(str(path))  # stopped after 3 frames: close() returns, the decoder thread ends
    for i, _ in enumerate(src):
        if i == 2:
            break
    thread = src._thread
    src.close()  # returns: it does not wait for a decoder blocked on a full queue
    assert thread is None or not thread.is_alive()


@pytest.mark.parametrize("ext", [".mp4", ".webm", ".mkv"])
def test_a_recording_stopped_before_its_first_frame_leaves_no_file(tmp_path, ext):
    """Ctrl-C before the first frame: no error, no file under the real name, no .part left."""
    path = tmp_path / f"empty{ext}"
    sink = VideoSink(path, (160, 90), 30.0)
    sink.close()
    assert not sink.finalized and sink.frames == 0
    assert not path.exists() and not part_files(path)
