"""Frames kept in I420 from the decoder to the encoder: the frame type, drawing into its planes,
the PyAV source that yields it, and the recording that encodes it as it is."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from ar_sudoku.ar.marks import Marks
from ar_sudoku.ar.overlay import OverlayRenderer, draw_status
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import I420VideoSource, VideoFileSource, open_source
from ar_sudoku.vision.quads import working_gray
from ar_sudoku.vision.yuv import I420, as_bgr, yuv_of

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"


def picture(w: int = 320, h: int = 240) -> np.ndarray:
    """Smooth colour gradients with a dark square: every channel varies, nothing saturates much."""
    x = np.linspace(0, 1, w)[None, :]
    y = np.linspace(0, 1, h)[:, None]
    img = np.stack([40 + 170 * x * np.ones_like(y), 40 + 170 * y * np.ones_like(x), 200 - 150 * x * y], axis=-1)
    img = img.astype(np.uint8)
    img[60:120, 100:180] = (30, 30, 30)
    return img


def test_an_i420_frame_gives_the_grey_and_colour_of_its_picture():
    bgr = picture()
    f = I420.from_bgr(bgr)
    assert f.shape == (240, 320, 3) and f.size == (320, 240) and f.data.shape == (360, 320)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(int)
    assert np.abs(f.gray().astype(int) - gray).max() <= 2  # Y scaled to full range is the grey
    assert np.abs(f.bgr().astype(int) - bgr).mean() < 3
    assert as_bgr(f) is f.bgr() and as_bgr(bgr) is bgr
    # detection's working grey: the Y plane, subsampled by a whole factor the same way as a BGR frame
    assert np.array_equal(working_gray(f, 160), f.gray()[::2, ::2])
    assert np.abs(working_gray(f, 160).astype(int) - working_gray(bgr, 160)).max() <= 2
    assert working_gray(f, 200).shape == working_gray(bgr, 200).shape == (150, 200)
    with pytest.raises(ValueError):
        I420(np.zeros((361, 320), np.uint8))  # not 3/2 of an even height


def test_drawing_into_the_planes_changes_the_frame_not_its_earlier_bgr():
    f = I420.from_bgr(picture())
    before = f.bgr().copy()
    y, u, v = f.planes()
    assert y.shape == (240, 320) and u.shape == v.shape == (120, 160)
    cv2.rectangle(y, (10, 10), (50, 50), 235, -1)
    cv2.rectangle(u, (5, 5), (25, 25), 128, -1)
    cv2.rectangle(v, (5, 5), (25, 25), 128, -1)
    assert np.array_equal(f.bgr(), before)  # made once, before the drawing
    fresh = cv2.cvtColor(f.data, cv2.COLOR_YUV2BGR_I420)
    assert fresh[12:48, 12:48].min() > 245  # white where drawn, in the buffer itself


def test_the_overlay_looks_the_same_drawn_into_i420_as_in_bgr():
    bgr = np.full((360, 480, 3), 235, np.uint8)
    corners = np.float32([[60, 40], [420, 50], [410, 330], [70, 320]])
    marks = Marks(answers=tuple((i, str(1 + i % 9)) for i in range(0, 81, 2)), shade=(0, 1, 9, 10), ring=(40,),
                  mistakes=(41,), small=((40, "5"), (41, "+3")))
    r = OverlayRenderer()
    a = r.draw_marks(bgr.copy(), corners, marks)
    draw_status(a, ["123 fps   solved", "a second line"])
    f = I420.from_bgr(bgr)
    r.fresh().draw_marks(f, corners, marks)
    draw_status(f, ["123 fps   solved", "a second line"])
    b = cv2.cvtColor(f.data, cv2.COLOR_YUV2BGR_I420).astype(int)
    ref = cv2.cvtColor(cv2.cvtColor(a, cv2.COLOR_BGR2YUV_I420), cv2.COLOR_YUV2BGR_I420).astype(int)
    diff = np.abs(b - ref)
    assert diff.mean() < 1.0 and np.percentile(diff, 99) < 40  # only edges differ (chroma at half size)
    drawn = np.abs(a.astype(int) - bgr).max(axis=2) > 60
    assert drawn.sum() > 2000 and (np.abs(b - bgr).max(axis=2) > 60)[drawn].mean() > 0.9
    y = yuv_of(r.color)
    assert len(y) == 3 and all(16 <= c <= 240 for c in y)


def _decode_bgr(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="bgr24") for f in c.decode(video=0)]


def test_the_pyav_source_yields_every_frame_as_decoded(tmp_path):
    """The demo, decoded by PyAV into I420, frame for frame as OpenCV decodes it into BGR."""
    with I420VideoSource(DEMO) as src, VideoFileSource(DEMO) as ref:
        assert (src.info.width, src.info.height, src.info.fps, src.info.frames) == \
            (ref.info.width, ref.info.height, ref.info.fps, ref.info.frames)
        pairs = list(zip(src, ref, strict=True))
    assert len(pairs) == 270 and not src.truncated
    assert all(isinstance(a, I420) for a, _ in pairs)
    for k in (0, 100, 269):
        a, b = pairs[k]
        assert np.abs(a.bgr().astype(int) - b).mean() < 2.5  # BT.601 both; they round apart by a level or two
        assert np.abs(a.gray().astype(int) - cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)).mean() < 2.5


def test_the_pyav_source_gives_bgr_where_i420_would_not_fit(tmp_path):
    """Motion JPEG decodes to full-range yuvj420p, which the I420 conversions do not take: it comes as BGR
    (at the odd size it was recorded at). H.264 (limited range yuv420p, padded to an even size by the sink)
    comes as I420."""
    clip = [picture(161, 91) for _ in range(5)]
    for name, kind, shape in (("odd.mp4", I420, (92, 162, 3)), ("odd.avi", np.ndarray, (91, 161, 3))):
        path = tmp_path / name
        with VideoSink(path, (161, 91), 10) as sink:
            for f in clip:
                sink.write(f)
        with I420VideoSource(path) as src:
            got = list(src)
        assert len(got) == 5 and all(isinstance(g, kind) and g.shape == shape for g in got)
        assert np.abs(as_bgr(got[2]).astype(int)[:91, :161] - clip[2]).mean() < 4


def test_the_pyav_source_refuses_what_is_not_a_video(tmp_path):
    from ar_sudoku.io.sources import SourceError

    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    with pytest.raises(SourceError, match="not a video"):
        I420VideoSource(junk)
    with pytest.raises(SourceError, match="no such file"):
        I420VideoSource(tmp_path / "missing.mp4")
    assert isinstance(open_source(str(DEMO), i420=True), I420VideoSource)
    assert isinstance(open_source(str(DEMO)), VideoFileSource)


def tag_turn(src: Path, dst: Path, turn: int) -> None:
    """Copy an .mp4, its track tagged to be shown turned by ``turn`` degrees, as a phone tags it: the
    rotation sits in the track header's matrix (ISO 14496-12 ``tkhd``), so a few bytes say it."""
    data = bytearray(src.read_bytes())
    k = data.index(b"tkhd")
    # after the box type: version, flags, times, track id, duration, layer, group, volume (version 1: 64-bit times)
    at = k + 4 + (4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 if data[k + 4] == 1 else 4 + 4 + 4 + 4 + 4 + 4 + 8 + 8)
    one = 1 << 16
    a, b = {90: (0, one), 180: (-one, 0), 270: (0, -one)}[turn]
    data[at:at + 36] = struct.pack(">9i", a, b, 0, -b, a, 0, 0, 0, 1 << 30)
    dst.write_bytes(bytes(data))


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_phone_video_tagged_to_be_turned_comes_upright(tmp_path, turn):
    """A phone records sideways and tags the file with a turn; both sources turn it as OpenCV does."""
    plain = tmp_path / "plain.mp4"
    img = picture(160, 96)
    with VideoSink(plain, (160, 96), 10) as sink:
        for _ in range(3):
            sink.write(img)
    tagged = tmp_path / "tagged.mp4"
    tag_turn(plain, tagged, turn)
    with VideoFileSource(tagged) as ref, I420VideoSource(tagged) as src:
        a, b = next(iter(src)), next(iter(ref))
    assert isinstance(a, np.ndarray) and a.shape == b.shape
    assert a.shape[:2] == ((96, 160) if turn == 180 else (160, 96))  # the tag was read: turned upright
    assert np.abs(a.astype(int) - b).mean() < 3


def test_a_recording_encodes_i420_frames_as_they_are_and_draws_into_them(tmp_path):
    with I420VideoSource(DEMO) as src:
        got = [f for _, f in zip(range(12), src)]
    refs = [f.bgr().copy() for f in got]  # the frames as decoded, before the writer draws into them
    path = tmp_path / "rec.mp4"
    white = (255, 255, 255)

    def paint(frame):
        draw_status(frame, ["painted"], white)
        OverlayRenderer(color=(0, 0, 255)).draw_marks(frame, np.float32([[400, 100], [880, 100], [880, 580],
                                                                          [400, 580]]), Marks(answers=((40, "8"),)))

    with VideoSink(path, (1280, 720), 30) as sink:
        for f in got:
            sink.write(f, owned=True, paint=paint)
    out = _decode_bgr(path)
    assert len(out) == 12
    ref = refs[5].astype(int)
    centre = out[5][330:370, 620:660].astype(int)
    assert (centre[..., 2] - centre[..., 1] > 100).sum() > 100  # the red 8 in the middle cell
    untouched = (slice(650, 720), slice(0, 300))
    assert np.abs(out[5][untouched].astype(int) - ref[untouched]).mean() < 4
    # to Motion JPEG (not I420): converted to BGR first, painted there, as it would be from a BGR source
    avi = tmp_path / "rec.avi"
    with I420VideoSource(DEMO) as src, VideoSink(avi, (1280, 720), 30) as sink:
        for _, f in zip(range(3), src):
            sink.write(f, paint=paint)
    back = _decode_bgr(avi)
    centre = back[1][330:370, 620:660].astype(int)
    assert len(back) == 3 and (centre[..., 2] - centre[..., 1] > 100).sum() > 100


def test_a_headless_recording_reads_the_video_as_a_headless_run_does(tmp_path, capsys):
    """The recording's frames stay I420 (grey from Y); the answers, frame by frame, are the same, and the corners
    within a pixel (median of each frame's largest difference: 0.5 px; 0.3 before the tracker followed a page that
    moves faster than predicted by its own flow, where a re-detection had placed it alike on both greys; against
    the sample's truth both decodings' corners are as close as before, median 3.96 px)."""
    import json

    from ar_sudoku.cli import main

    runs = {}
    for kind, extra in (("plain", []), ("recorded", ["--output", str(tmp_path / "o.mp4")])):
        log = tmp_path / f"{kind}.jsonl"
        assert main(["video", str(DEMO), "--headless", "--jsonl", str(log), *extra]) == 0, capsys.readouterr().err
        runs[kind] = [json.loads(x) for x in log.read_text().splitlines()]
    a, b = runs["plain"], runs["recorded"]
    assert len(a) == len(b) == 270
    assert [(x["status"], x["solution"]) for x in a] == [(x["status"], x["solution"]) for x in b]
    both = [(x["corners"], y["corners"]) for x, y in zip(a, b) if x["corners"] and y["corners"]]
    assert len(both) > 150 and np.median([np.abs(np.subtract(p, q)).max() for p, q in both]) < 1.0
    assert len(_decode_bgr(tmp_path / "o.mp4")) == 270


def test_a_recording_leaves_a_core_to_its_writer_and_gives_it_back(tmp_path):
    """During a recording OpenCV's threads leave one core to the encoder and decoder; after it, all again."""
    from ar_sudoku.ar.session import ARSession
    from ar_sudoku.cli.common import usable_cores
    from ar_sudoku.cli.frames import Recorder, run_loop
    from ar_sudoku.vision.digits import DigitReader

    before = cv2.getNumThreads()
    seen = set()

    class Watched:
        """The demo's first frames, noting OpenCV's thread count as the loop takes each."""

        def __init__(self, src):
            self.src, self.info = src, src.info

        def prepared(self, prepare):
            for _, f in zip(range(8), self.src):
                seen.add(cv2.getNumThreads())
                yield prepare(f)

    with open_source(str(DEMO), i420=True) as src, ARSession(DigitReader()) as session, \
            VideoSink(tmp_path / "r.mp4", (1280, 720), 30) as sink:
        stats = run_loop(Watched(src), session, [Recorder(sink)])
    assert stats.frames == 8 and seen == {max(1, usable_cores() - 1)}
    assert cv2.getNumThreads() == before
    assert len(_decode_bgr(tmp_path / "r.mp4")) == 8


def _green(bgr: np.ndarray) -> np.ndarray:
    """Where a frame shows the answers' green-teal (BGR 40, 170, 0): green well above red and blue."""
    b, g, r = (bgr[..., k].astype(int) for k in range(3))
    return (g - r > 70) & (g - b > 50)


@pytest.mark.parametrize("source", ["photo.png", "clip.mp4", "clip.avi"])
def test_a_recording_of_an_odd_sized_source_keeps_the_overlays_colour_on_its_digits(tmp_path, source):
    """A 641x481 source (a photo; an H.264 clip, decoded into I420 and drawn in its planes; a Motion JPEG
    clip, decoded into BGR) recorded through the CLI: the green of the answers, decoded back from the file,
    lies where the answers darkened the page, not rows below it nor in a band at the top."""

    from conftest import EASY, rendered_frame

    from ar_sudoku.vision.synth import quad

    w, h = 641, 481  # padded to 642x482: a height that is not a multiple of 4
    page = rendered_frame(EASY, quad((w / 2, h / 2), 400, 0, 0.0), size=(w, h))
    src = tmp_path / source
    if source.endswith(".png"):
        cv2.imwrite(str(src), page)
    else:
        with VideoSink(src, (w, h), 10) as sink:
            for _ in range(8):
                sink.write(page)
    out = tmp_path / "out.mp4"
    p = subprocess.run([sys.executable, "-m", "ar_sudoku", "video", str(src), "--headless", "--no-status",
                        "--output", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with av.open(str(out)) as c:
        got = [f.to_ndarray(format="bgr24") for f in c.decode(video=0)][-1][:h, :w]
    # where the overlay drew: the white page darkened (the answers' ink), measured on the luma alone
    before, after = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(int) for x in (page, got))
    drawn = (before > 150) & (before - after > 50)
    green = _green(got)
    assert drawn.sum() > 2000 and green.sum() > 2000  # the answers are there
    near = cv2.dilate(drawn.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    assert (green & near).sum() > 0.9 * green.sum()  # the colour sits on the drawn digits
    assert (green & drawn).sum() > 0.6 * drawn.sum()  # and the drawn digits are coloured
    assert not green[:40].any()  # no band of it at the top (the grid starts at row 40)
