"""Odd inputs from a hostile user, through the real command: slivers and dots of pictures, photos that
declare gigapixels, a video with a hole in it. One line on stderr and the README's exit code, never an
internal error."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"
PHOTO = ROOT / "samples" / "photo.jpg"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ar_sudoku", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def png_of_zeros(width: int, height: int) -> bytes:
    """A valid black greyscale PNG of any size, made row by row (a 30000x30000 one is under a megabyte)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9, strategy=zlib.Z_RLE)  # as small as level 9's, twice as quick
    row = bytes(width + 1)  # filter byte 0, then the row's pixels
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def png_declaring(width: int, height: int) -> bytes:
    """A small PNG whose header claims ``width`` x ``height`` (its CRC right, its data far too short)."""
    data = bytearray(png_of_zeros(64, 64))
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


SHAPES = {"20000x2": (2, 20000), "2x20000": (20000, 2), "1x1": (1, 1), "30x20000": (20000, 30)}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_sliver_or_a_dot_of_a_picture_has_no_grid(tmp_path, shape):
    """``image`` says "no Sudoku grid found" and exits 1; ``video`` over it (also recording) exits 1 with its
    summary; neither reports an internal error."""
    path = tmp_path / "odd.png"
    cv2.imwrite(str(path), np.full((*SHAPES[shape], 3), 200, np.uint8))
    p = cli("image", str(path), "--json")
    assert p.returncode == 1, p.stderr
    obj = json.loads(p.stdout)
    assert obj["status"] == "no_grid" and obj["message"] == "no Sudoku grid found"
    assert p.stderr == ""
    p = cli("video", str(path), "--headless", "--jsonl", str(tmp_path / "log.jsonl"))
    assert p.returncode == 1, p.stderr
    assert "no puzzle solved" in p.stderr and "internal error" not in p.stderr and "Traceback" not in p.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the peak memory is read from /proc")
def test_a_photo_declaring_gigapixels_is_refused_before_it_is_decoded(tmp_path):
    """A 30000x30000 PNG (under a megabyte) and one whose header claims 60000x60000: one line naming the
    size and the way to lift the limit, exit 2, without decoding (the process stays small); image and video."""
    big, huge = tmp_path / "big.png", tmp_path / "huge.png"
    big.write_bytes(png_of_zeros(30000, 30000))
    huge.write_bytes(png_declaring(60000, 60000))
    assert big.stat().st_size < 1_000_000
    # the peak resident memory of this process image (VmHWM: ru_maxrss would include the forking test's)
    measure = ("import runpy, sys\nsys.argv = ['ar-sudoku', *sys.argv[1:]]\ntry:\n"
               "    runpy.run_module('ar_sudoku', run_name='__main__')\nfinally:\n"
               "    hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0].split()[1]\n"
               "    print('maxrss', hwm, file=sys.stderr)\n")
    for path, size in ((big, "30000×30000"), (huge, "60000×60000")):
        for command in (["image", str(path)], ["video", str(path), "--headless"]):
            p = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True, timeout=120)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 2, p.stderr
            assert len(lines) == 2 and lines[-1].startswith("maxrss")
            assert lines[0].startswith("ar-sudoku: ") and size in lines[0] and "--max-pixels" in lines[0]
            assert int(lines[-1].split()[1]) < 600_000  # kB: a decoded 30000x30000 image alone is 900 MB
    # the limit lifted: the photo is decoded and read (a black picture: no grid, exit 1); 64 MP is over the
    # default limit too, and far quicker to decode than 900 MP
    over = tmp_path / "over.png"
    over.write_bytes(png_of_zeros(8000, 8000))
    p = cli("image", str(over), "--json")
    assert p.returncode == 2 and "--max-pixels" in p.stderr, p.stderr
    p = cli("image", str(over), "--json", "--max-pixels", "1e8")
    assert p.returncode == 1 and json.loads(p.stdout)["status"] == "no_grid", p.stderr


def test_the_web_api_answers_a_sliver_with_no_grid_not_an_error():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    pytest.importorskip("websockets")
    from test_web import post, serving
    from websockets.sync.client import connect

    from ar_sudoku.web.app import WebConfig

    ok, sliver = cv2.imencode(".png", np.full((2, 20000, 3), 200, np.uint8))
    ok2, dot = cv2.imencode(".jpg", np.full((20000, 2, 3), 200, np.uint8))
    assert ok and ok2
    with serving(WebConfig()) as base:
        status, obj = post(base + "/api/read", [], sliver.tobytes(), "sliver.png")
        assert status == 200 and obj["status"] == "no_grid", obj
        with connect(base.replace("http", "ws") + "/ws/live") as sock:
            assert json.loads(sock.recv(10))["type"] == "ready"
            sock.send(dot.tobytes())
            reply = json.loads(sock.recv(30))
            assert reply.get("status") in ("searching", "no_grid"), reply


def _puzzle_clip(path: Path, frames: int = 60) -> None:
    """A real video of a printed puzzle, with a band of noise so that every frame is large (MPEG-4 Part 2 by
    OpenCV for ``.mp4``, as the sample; H.264 in Matroska by our own recorder for ``.mkv``)."""
    from conftest import EASY, rendered_frame

    from ar_sudoku.io.sinks import VideoSink
    from ar_sudoku.vision.synth import quad

    rng = np.random.default_rng(0)
    page = rendered_frame(EASY, quad((320, 200), 360, 0, 0.0), size=(640, 480))

    def frame() -> np.ndarray:
        f = page.copy()
        f[400:] = rng.integers(0, 255, (80, 640, 3), dtype=np.uint8)
        return f

    if path.suffix == ".mp4":
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 480))
        for _ in range(frames):
            writer.write(frame())
        writer.release()
    else:
        with VideoSink(path, (640, 480), 30) as sink:
            for _ in range(frames):
                sink.write(frame(), owned=True)


def _holed(path: Path, tmp_path: Path) -> Path:
    """A copy with a twentieth of the file zeroed in its middle."""
    data = bytearray(path.read_bytes())
    n, mid = len(data) // 20, len(data) // 2
    data[mid: mid + n] = bytes(n)
    out = tmp_path / f"holed{path.suffix}"
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("ext", [".mp4", ".mkv"])
@pytest.mark.parametrize("output", ["--output", "--jsonl"])
def test_a_video_with_a_damaged_stretch_says_how_many_frames_were_lost_and_exits_1(tmp_path, ext, output):
    """The whole file: exit 0. With a zeroed block in its middle: the frames that could not be decoded are
    counted (or the stream's early end said), one line, exit 1, as the README says for a stream that broke;
    the frames that were read are still recorded or logged."""
    clip = tmp_path / f"clip{ext}"
    _puzzle_clip(clip)
    target = str(tmp_path / ("out.mp4" if output == "--output" else "out.jsonl"))
    whole = cli("video", str(clip), "--headless", output, target)
    assert whole.returncode == 0, whole.stderr
    assert whole.stderr.startswith("60 frames in ") and len(whole.stderr.splitlines()) == 1
    p = cli("video", str(_holed(clip, tmp_path)), "--headless", output, target)
    assert p.returncode == 1, p.stderr
    summary, said = p.stderr.strip().splitlines()
    read = int(summary.split()[0])
    assert 0 < read < 60 and Path(target).exists()
    lost = f"{60 - read} frames could not be decoded"
    ended = f"the stream ended at frame {read} of 60"
    assert said.startswith("ar-sudoku: ") and "holed" in said and (lost in said or ended in said), said
