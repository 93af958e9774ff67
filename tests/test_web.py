"""The web page and its API, served for real on a free loopback port: the API against the photo
command, hostile uploads, and two pages driven in Debian's Chromium by Playwright (a photo uploaded
and corrected; the live page on a fake camera that plays the sample video). The browser tests
take the screenshots the README shows: ``UPDATE_SCREENSHOTS=1 pytest tests/test_web.py`` writes
them to docs/web-photo.png and docs/web-live.png."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")

from ar_sudoku.web.app import WebConfig, create_app  # noqa: E402
from ar_sudoku.web.server import bind, make_server  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PHOTO = ROOT / "samples" / "photo.jpg"
DEMO = ROOT / "samples" / "demo.mp4"
DOCS = ROOT / "docs"
CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 412, "height": 839}  # a Pixel 7's screen in CSS pixels
FIX = "r3c8=5"  # a correction of a given that leaves the sample solvable one way, differently


@contextlib.contextmanager
def serving(config: WebConfig, port: int = 0) -> Iterator[str]:
    """The app on 127.0.0.1 and ``port`` (0: a free one), in a thread of this process; yields its base URL."""
    sock = bind("127.0.0.1", port)
    srv = make_server(create_app(config), sock)
    ready = threading.Event()  # set once the server's start-up has run (well or not): waited on, not polled
    startup = srv.startup

    async def startup_then_signal(*args, **kwargs):
        try:
            await startup(*args, **kwargs)
        finally:
            ready.set()

    srv.startup = startup_then_signal
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    ready.wait(60)
    assert srv.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(WebConfig()) as base:
        yield base


def post(url: str, fields: list[tuple[str, str]], photo: bytes | None,
         filename: str = "photo.jpg") -> tuple[int, dict]:
    """A multipart POST with urllib (no client library needed); (status, JSON body)."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields]
    if photo is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="{filename}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + photo + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(url, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def health(base: str) -> dict:
    with urllib.request.urlopen(base + "/api/health", timeout=10) as res:
        return json.loads(res.read())


def test_api_read_matches_the_photo_command_and_refuses_bad_uploads(server, capsys):
    from ar_sudoku.cli import main

    assert main(["image", str(PHOTO), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    status, api = post(server + "/api/read", [], PHOTO.read_bytes())
    assert status == 200
    # the same object, key for key, at the top (the first puzzle, for clients reading one a photo) and in
    # ``puzzles``, which holds every puzzle of the photo: this one's single puzzle
    assert set(api) == set(cli) | {"puzzles"}
    assert len(api["puzzles"]) == 1 and set(api["puzzles"][0]) == set(cli)
    for key in ("givens", "solution", "status", "corners", "puzzle"):
        assert api[key] == cli[key] == api["puzzles"][0][key], key
    assert api["puzzle"] == 0
    assert api["solution"] and api["path"] == "photo.jpg"

    status, fixed = post(server + "/api/read", [("set", FIX), ("marks", "1")], PHOTO.read_bytes())
    assert status == 200 and fixed["solution"] and fixed["solution"] != api["solution"]
    assert fixed["givens"][2 * 9 + 7] == "5" and fixed["marks"]["answers"]

    bad = {
        "empty": (b"", 400),
        "21 MB": (b"\xff\xd8\xff" + bytes(21 * 1024 * 1024), 413),
        "text": (b"a shopping list, not a photo\n" * 20, 415),
        "truncated JPEG": (PHOTO.read_bytes()[: PHOTO.stat().st_size // 2], 415),
    }
    for name, (data, want) in bad.items():
        status, obj = post(server + "/api/read", [], data)
        assert status == want, (name, status, obj)
        assert obj["error"] and "Traceback" not in obj["error"], name
    assert post(server + "/api/read", [("set", "r0c1=5")], PHOTO.read_bytes())[0] == 400
    assert post(server + "/api/read", [("puzzle", "-1")], PHOTO.read_bytes())[0] == 400
    status, none = post(server + "/api/read", [("puzzle", "1")], PHOTO.read_bytes())
    assert status == 200 and none["status"] == "no_grid" and "no puzzle 1" in none["message"]
    assert health(server)["ok"]


def _ready_within(url: str, seconds: float) -> bool:
    """A new live socket is greeted with "ready" within ``seconds`` (the server frees a closed one's slot as it
    notices the close)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    deadline = time.monotonic() + seconds
    while True:
        with connect(url) as sock:
            try:
                return json.loads(sock.recv(10))["type"] == "ready"
            except ConnectionClosed:
                if time.monotonic() > deadline:
                    return False
        time.sleep(0.1)


def test_live_socket_bounds_sessions_and_frames():
    """A socket past the session limit is refused with a reason; a bad frame gets an error reply; an
    oversized one closes the socket (1009); the server serves on."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with serving(WebConfig(max_sessions=1)) as base:
        url = base.replace("http", "ws") + "/ws/live"
        with connect(url) as first:
            assert json.loads(first.recv(10))["type"] == "ready"
            with connect(url) as second, pytest.raises(ConnectionClosed) as closed:
                second.recv(10)
            assert closed.value.rcvd.code == 1013 and "busy" in closed.value.rcvd.reason
            first.send(b"not a jpeg at all")
            assert "error" in json.loads(first.recv(10))
            with pytest.raises(ConnectionClosed) as closed:
                # the server may close while the 3 MB are still being sent: then send() itself raises
                first.send(b"\xff\xd8\xff" + bytes(3 * 1024 * 1024))
                first.recv(10)
            # 1009 when the close frame arrives before the reset that cuts the rest of the upload short
            assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
        assert _ready_within(url, 5.0)  # the oversized socket's session was released: the one slot is free again
        assert health(base)["ok"]


# ---------------------------------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright; skipped, saying why, where it cannot be launched."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium chromium-driver")
    with sync_api.sync_playwright() as p:
        yield p


def launch(p, *extra: str):
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", *extra]
    try:
        return p.chromium.launch(executable_path=CHROMIUM, args=args, headless=True)
    except Exception as exc:  # Playwright raises its own Error for a browser that will not start
        pytest.skip(f"chromium cannot be launched here: {str(exc).splitlines()[0]}")


def screenshot(page, name: str, tmp: Path, width: int = 900, full_page: bool = False) -> Path:
    """A small PNG (``width`` px wide, most compression): the README's picture in docs/ when the environment
    says UPDATE_SCREENSHOTS=1, else in the test's temporary folder, so a test run leaves the tree as it was."""
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(page.screenshot(full_page=full_page), np.uint8), cv2.IMREAD_COLOR)
    k = width / img.shape[1]
    if k != 1:
        img = cv2.resize(img, (width, round(img.shape[0] * k)), interpolation=cv2.INTER_AREA)
    folder = DOCS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp
    folder.mkdir(exist_ok=True)
    assert cv2.imwrite(str(folder / name), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return folder / name


DESKTOP = {"width": 1200, "height": 820}


def photo_page(b, server: str, photo: Path, viewport: dict = DESKTOP):
    """The photo page in a new tab, ``photo`` chosen as if from the file picker."""
    page = b.new_page(viewport=viewport)
    page.goto(server + "/photo")
    page.set_input_files("#file", str(photo))
    return page


def test_photo_page_reads_a_photo_and_solves_again_after_a_correction(server, browser, tmp_path):
    b = launch(browser)
    try:
        page = photo_page(b, server, PHOTO)
        page.wait_for_function("window.lastRead && window.lastRead.solution", timeout=20_000)
        first = page.evaluate("window.lastRead")
        shown = page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.textContent || '.')")
        givens = page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.classList.contains('given'))")
        assert "".join(shown) == first["solution"]  # givens, and the answers in the blanks
        assert "".join(d if g else "." for d, g in zip(shown, givens)) == first["givens"]

        page.click('#grid .cell[data-cell="25"]')  # r3c8: a correction that leaves the photo solving one way
        page.keyboard.press("5")
        page.wait_for_function(f"window.lastRead.solution !== {json.dumps(first['solution'])}", timeout=20_000)
        after = page.evaluate("window.lastRead")
        assert after["givens"][25] == "5" and after["solution"]
        cell = page.locator('#grid .cell[data-cell="25"]')
        assert cell.text_content() == "5" and "fixed" in (cell.get_attribute("class") or "")
        # every cell shows the new solution, but for what the reader took as written by hand (shown as written)
        entries = after.get("entries") or "." * 81
        want = "".join(e if e != "." else d for d, e in zip(after["solution"], entries))
        assert page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.textContent).join('')") == want
    finally:
        b.close()


def make_y4m(path: Path, start: int = 40, frames: int = 120, size: tuple[int, int] = (640, 360)) -> None:
    """Part of the sample video as the raw YUV4MPEG2 file Chromium's fake camera plays (in a loop)."""
    import cv2

    cap = cv2.VideoCapture(str(DEMO))
    cap.set(cv2.CAP_PROP_POS_FRAMES, start)
    with path.open("wb") as f:
        f.write(f"YUV4MPEG2 W{size[0]} H{size[1]} F30:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            ok, frame = cap.read()
            if not ok:
                break
            small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
            f.write(b"FRAME\n" + cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420).tobytes())
    cap.release()


def test_live_page_shows_the_solution_from_a_fake_camera(server, browser, tmp_path):
    from ar_sudoku.sudoku.solver import parse_line, solve

    truth = [json.loads(line) for line in (ROOT / "samples" / "demo.truth.jsonl").read_text().splitlines()]
    givens = next(t["givens"] for t in truth if t["visible"])
    expected = solve(parse_line(givens), 5.0).solution
    y4m = tmp_path / "camera.y4m"
    make_y4m(y4m)
    b = launch(browser, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
               f"--use-file-for-fake-video-capture={y4m}", "--autoplay-policy=no-user-gesture-required")
    try:
        context = b.new_context(viewport=PHONE)
        context.grant_permissions(["camera"], origin=server)
        page = context.new_page()
        page.goto(server + "/live")
        page.wait_for_load_state("networkidle")
        # the camera starts only when asked, and the button says so
        assert page.evaluate("document.getElementById('video').srcObject") is None
        assert page.text_content("#start") == "Start camera"
        page.click("#start")
        page.wait_for_function(f"window.lastReply && window.lastReply.solution === {json.dumps(expected)}",
                               timeout=15_000)
        # the readout over a few seconds' worth of frames (counted, not timed: a loaded machine is only slower)
        page.wait_for_function("window.liveStats.frames > 60", timeout=60_000)
        stats = page.evaluate("window.liveStats")
        print(f"\nlive page: grid first seen {stats['first_corners_ms']:.0f} ms and solution shown "
              f"{stats['first_solution_ms']:.0f} ms after the socket opened, "
              f"{stats['fps']:.1f} fps, median latency {stats['latency_ms']:.0f} ms, {stats['frames']} frames")
        assert stats["frames"] > 60 and stats["fps"] > 0  # the rate is a figure to print, not a target to assert
        # the picture for the README: solved, taken while the paper moves (the picture is the reply's own frame)
        page.wait_for_function("window.lastReply.solution && window.liveDrawn && window.liveStats.motion_px > 3",
                               timeout=10_000)
        screenshot(page, "web-live.png", tmp_path, width=412)
        assert health(server)["live_sessions"] == 1
    finally:
        b.close()


# ---------------------------------------------------------------------------------------- curled and moving pages



def curled_photo(bow: float = 0.06, size: tuple[int, int] = (1280, 960)):
    """A rendered puzzle bent by ``bow`` (as tests/test_curled.py makes them); (JPEG bytes, the 81 cells' true
    centres in the picture's pixels, the grid's side in pixels)."""
    import cv2
    import numpy as np
    from conftest import EASY

    from ar_sudoku.vision.synth import FLAT_UNIT, background, bend, page, place, quad

    img, corners = page(EASY, seed=1)
    q = quad((size[0] / 2, size[1] / 2), 0.62 * size[1], 4, 0.05)
    flat = place(img, corners, q, background(size, 1), blur=0.8)
    units = np.float64([[c + 0.5, r + 0.5] for r in range(9) for c in range(9)])
    centres = cv2.perspectiveTransform(units.reshape(-1, 1, 2), cv2.getPerspectiveTransform(FLAT_UNIT, q))
    picture, truth = bend(flat, q, bow, lean=0.08, points=centres.reshape(-1, 2))
    ok, buf = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return buf.tobytes(), truth.reshape(81, 2), 0.62 * size[1]


def test_photo_page_draws_a_curled_pages_digits_on_their_cells(server, browser, tmp_path):
    """The browser draws through the lattice the server sends, cell by cell: on a page bent by 6% every
    answer sits within 15% of a cell of its cell's true centre (from the four corners alone: up to 2/3)."""
    import numpy as np

    data, centres, side = curled_photo(0.06)
    path = tmp_path / "curled.jpg"
    path.write_bytes(data)
    b = launch(browser)
    try:
        page = photo_page(b, server, path, PHONE)
        page.wait_for_function("window.lastRead && window.lastRead.solution && window.photoDrawn", timeout=20_000)
        drawn = page.evaluate("window.photoDrawn")
        read = page.evaluate("window.lastRead")
    finally:
        b.close()
    k = drawn["scale"]
    placed = {cell: (x / k, y / k) for cell, _, x, y in drawn["placed"]}
    assert len(placed) == read["givens"].count(".")  # an answer in every blank
    err = np.array([np.hypot(*(np.subtract(xy, centres[cell]))) for cell, xy in placed.items()]) / (side / 9)
    # what four corners alone would give, for the record
    import cv2

    from ar_sudoku.vision.synth import FLAT_UNIT
    hmat = cv2.getPerspectiveTransform(FLAT_UNIT, np.float32(read["corners"]))
    units = np.float64([[c % 9 + 0.5, c // 9 + 0.5] for c in placed]).reshape(-1, 1, 2)
    flat = cv2.perspectiveTransform(units, hmat).reshape(-1, 2)
    flat_err = np.hypot(*(flat - centres[list(placed)]).T) / (side / 9)
    print(f"\ncurled photo (6% bow): digits vs true cell centres, worst {err.max():.1%} of a cell, "
          f"median {np.median(err):.1%} (from four corners: worst {flat_err.max():.1%})")
    assert err.max() <= 0.15


def moving_y4m(path: Path, frames: int = 90, size: tuple[int, int] = (640, 360), bow: float = 0.06) -> list:
    """A curled page moving across the picture (up to ~8 px a frame), as Chromium's fake camera plays it in a
    loop (the motion is periodic, so the loop has no jump). Each frame carries its number in a strip of
    black and white squares at the top left. Returns per frame the true corners (TL, TR, BR, BL) and the
    81 cells' centres, in frame pixels."""
    import cv2
    import numpy as np
    from conftest import EASY

    from ar_sudoku.vision.synth import FLAT_UNIT, background, bend, page, place, quad

    img, corners = page(EASY, seed=2)
    back = background(size, 2)
    units = np.float64([[0, 0], [9, 0], [9, 9], [0, 9]] + [[c + 0.5, r + 0.5] for r in range(9) for c in range(9)])
    truths = []
    with path.open("wb") as f:
        f.write(f"YUV4MPEG2 W{size[0]} H{size[1]} F30:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(frames):
            t = 2 * np.pi * i / frames
            q = quad((320 + 110 * np.sin(t), 200 + 12 * np.sin(2 * t)), 230, 6 * np.sin(t), 0.04)
            flat = place(img, corners, q, back, blur=0.6)
            pts = cv2.perspectiveTransform(units.reshape(-1, 1, 2), cv2.getPerspectiveTransform(FLAT_UNIT, q))
            frame, truth = bend(flat, q, bow, lean=0.05, points=pts.reshape(-1, 2))
            for bit in range(FRAME_BITS):  # the frame's number, least significant bit first
                x = 2 + 18 * bit
                frame[2:18, x: x + 16] = 255 if (i >> bit) & 1 else 0
            f.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
            truths.append(truth.reshape(-1, 2))
    return truths


FRAME_BITS = 7
# Run in the page: after every drawn reply, the frame number read from the picture as shown, and the
# overlay as drawn (CSS pixels). Collected for ``ms`` milliseconds.
SAMPLE_JS = """async ([ms, bits]) => {
  const view = document.getElementById('view'), out = [];
  const onDrawn = () => {
    const d = window.liveDrawn;
    if (!d) return;
    const k = view.width / 640, ctx = view.getContext('2d');
    let n = 0;
    for (let b = 0; b < bits; b++) {
      const p = ctx.getImageData(Math.round((10 + 18 * b) * k), Math.round(10 * k), 1, 1).data;
      if (p[0] + p[1] + p[2] > 3 * 128) n |= 1 << b;
    }
    out.push({ frame: n, corners: d.corners, placed: d.placed, width: view.clientWidth, fps: window.liveStats.fps,
               latency: window.liveStats.latency_ms, server_ms: window.lastReply.server_ms });
  };
  view.addEventListener('drawn', onDrawn);
  await new Promise((r) => setTimeout(r, ms));
  view.removeEventListener('drawn', onDrawn);
  return out;
}"""


def fake_camera(browser, y4m: Path, server: str, viewport: dict = PHONE):
    b = launch(browser, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
               f"--use-file-for-fake-video-capture={y4m}", "--autoplay-policy=no-user-gesture-required")
    context = b.new_context(viewport=viewport)
    context.grant_permissions(["camera"], origin=server)
    return b, context.new_page()


def test_live_overlay_stays_on_a_moving_curled_page(server, browser, tmp_path):
    """The fake camera plays a curled page moving ~8 px a frame; the page shows the frame each reply belongs
    to, so the overlay's drawn corners match the true corners of the frame shown (median <= 3 px, p95 <= 8 px
    at 412 px wide), and its digits sit on their cells."""
    import numpy as np

    y4m = tmp_path / "moving.y4m"
    truths = moving_y4m(y4m)
    b, page = fake_camera(browser, y4m, server)
    problems = watch(page)
    try:
        page.goto(server + "/live")
        page.click("#start")
        page.wait_for_function("window.lastReply && window.lastReply.solution", timeout=20_000)
        samples = page.evaluate(SAMPLE_JS, [4000, FRAME_BITS])
    finally:
        b.close()
    assert problems == []  # no console error, no 404, while the camera runs
    errors, digit_errors, motion = [], [], []
    for s in samples:
        if not s["corners"] or s["frame"] >= len(truths):
            continue
        truth = truths[s["frame"]]
        k = s["width"] / 640
        errors.extend(np.hypot(*(np.float64(s["corners"]) - truth[:4] * k).T).tolist())
        cell = 230 / 9 * k
        digit_errors.extend(np.hypot(x - truth[4 + c][0] * k, y - truth[4 + c][1] * k) / cell
                            for c, _, x, y in s["placed"])
        prev = truths[s["frame"] - 1]
        motion.append(float(np.abs(truth[:4] - prev[:4]).max()))
    errors, digit_errors = np.array(errors), np.array(digit_errors)
    fps = np.median([s["fps"] for s in samples])
    latency = np.median([s["latency"] for s in samples])
    server_ms = np.median([s["server_ms"] for s in samples])
    print(f"\nmoving curled page: {len(samples)} replies drawn, the paper moving {np.median(motion):.1f} px a frame "
          f"(median, frame pixels); overlay corners vs the frame shown at 412 px: median {np.median(errors):.2f} px, "
          f"p95 {np.percentile(errors, 95):.2f} px, worst {errors.max():.2f} px; digits vs cell centres: worst "
          f"{digit_errors.max():.1%} of a cell; {fps:.1f} fps, latency {latency:.0f} ms (server {server_ms:.0f} ms)")
    assert len(errors) >= 4 * 20  # at least 20 replies with a grid
    assert np.median(errors) <= 3.0 and np.percentile(errors, 95) <= 8.0
    assert digit_errors.max() <= 0.15


def scene_y4m(path: Path, scene, frames: int, size: tuple[int, int] = (640, 360), bits: int = FRAME_BITS) -> list:
    """A scene as Chromium's fake camera plays it (in a loop): ``scene(i)`` gives frame i's picture and its grid's
    true corners (None: no grid), and the frame's number is stamped in ``bits`` squares at the top left."""
    import cv2

    truths = []
    with path.open("wb") as f:
        f.write(f"YUV4MPEG2 W{size[0]} H{size[1]} F30:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(frames):
            frame, truth = scene(i)
            for bit in range(bits):
                x = 2 + 18 * bit
                frame[2:18, x: x + 16] = 255 if (i >> bit) & 1 else 0
            f.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
            truths.append(truth)
    return truths


# Every reply drawn, for ``ms`` milliseconds: the frame number shown, the overlay's corners (null: none drawn)
# and the status line's words.
REPLIES_JS = """async ([ms, bits]) => {
  const view = document.getElementById('view'), out = [];
  const onDrawn = () => {
    const k = view.width / 640, ctx = view.getContext('2d');
    let n = 0;
    for (let b = 0; b < bits; b++) {
      const p = ctx.getImageData(Math.round((10 + 18 * b) * k), Math.round(10 * k), 1, 1).data;
      if (p[0] + p[1] + p[2] > 3 * 128) n |= 1 << b;
    }
    const d = window.liveDrawn;
    out.push({ frame: n, corners: d ? d.corners : null, width: view.clientWidth,
               status: document.getElementById('readout').textContent });
  };
  view.addEventListener('drawn', onDrawn);
  await new Promise((r) => setTimeout(r, ms));
  view.removeEventListener('drawn', onDrawn);
  return out;
}"""


def _desk_scene(size: tuple[int, int] = (640, 360)):
    """A page on a desk (``synth``), and a function placing it: (picture, true corners) for a centre."""
    from conftest import EASY

    from ar_sudoku.vision.synth import background, page, place, quad

    img, corners = page(EASY, seed=3)
    back = background(size, 3)

    def at(centre: tuple[float, float], side: float = 240.0, streak: int = 0):
        import cv2
        import numpy as np

        q = quad(centre, side, 3.0, 0.03)
        frame = place(img, corners, q, back, blur=0.6)
        if streak:
            kernel = np.zeros((streak | 1, streak | 1), np.float32)
            kernel[kernel.shape[0] // 2, :] = 1.0 / kernel.shape[1]
            frame = cv2.filter2D(frame, -1, kernel)
        return frame, q

    return at, back


def test_live_page_takes_the_answer_away_in_the_reply_the_paper_leaves(server, browser, tmp_path):
    """The fake camera plays a page held still, pulled out of view in four streaked frames, then the empty desk:
    at most one reply shows an answer over the desk, and no reply without an answer says "solved"."""
    at, back = _desk_scene()

    def scene(i: int):
        if i < 60:
            return at((320 + 3 * (i % 5), 190))
        if i < 64:
            return at((320 - 130 * (i - 59), 190), streak=12 * (i - 59))
        return back.copy(), None

    y4m = tmp_path / "leaves.y4m"
    truths = scene_y4m(y4m, scene, 100)
    b, page = fake_camera(browser, y4m, server)
    try:
        page.goto(server + "/live")
        page.click("#start")
        page.wait_for_function("window.lastReply && window.lastReply.solution", timeout=30_000)
        replies = page.evaluate(REPLIES_JS, [9000, FRAME_BITS])
    finally:
        b.close()
    on_desk = [r for r in replies if r["frame"] < len(truths) and truths[r["frame"]] is None]
    ghosts = [r for r in on_desk if r["corners"]]
    print(f"\npaper pulled away: {len(replies)} replies, {len(on_desk)} of the empty desk, {len(ghosts)} drawn on it")
    assert on_desk, "no reply showed the empty desk: the scene did not play through"
    assert len(ghosts) <= 1
    assert not any("solved" in r["status"] for r in replies if not r["corners"])


def test_live_page_draws_a_grid_partly_out_of_view_where_it_is(server, browser, tmp_path):
    """The page is locked whole, then the camera moves down it until only its bottom rows show: the overlay stays,
    its corners (out of the picture as they are) within p95 8 px of the truth on a 412 px wide screen.

    The camera moves 3.3 px a frame down the page and 4.6 px back: the frames a busy machine's server skips (12 of
    30 a second answered) make that a third of a cell or less a reply. A cell a reply (a faster move, more skipped)
    is the grid's period: the flow then may take one crossing for the next (``vision.tracker``), which this test
    does not measure."""
    import numpy as np

    at, _ = _desk_scene()

    def scene(i: int):
        u = min(1.0, max(0.0, (i - 30) / 70))  # still for 30 frames, then 70 frames of rise, then 50 held
        if i >= 150:
            u = max(0.0, 1.0 - (i - 150) / 50)  # and 50 back (the loop then starts whole)
        return at((320, 190 - 230 * u), side=260)

    y4m = tmp_path / "partial.y4m"
    truths = scene_y4m(y4m, scene, 200, bits=8)
    b, page = fake_camera(browser, y4m, server)
    try:
        page.goto(server + "/live")
        page.click("#start")
        page.wait_for_function("window.lastReply && window.lastReply.solution", timeout=30_000)
        replies = page.evaluate(REPLIES_JS, [14000, 8])
    finally:
        b.close()
    # from the first loop that starts with the page solved whole (the lock may fall on the first rise)
    start = next(i for i, r in enumerate(replies) if r["frame"] < 25 and "solved" in r["status"])
    part = [r for r in replies[start:] if 110 <= r["frame"] < 150]  # only the bottom three or four rows in view
    drawn = [r for r in part if r["corners"]]
    errors = [float(e) for r in drawn for e in np.hypot(*(np.float64(r["corners"])
                                                           - truths[r["frame"]] * r["width"] / 640).T)]
    print(f"\npartly out of view: {len(part)} replies, {len(drawn)} drawn; corner error on screen: "
          f"median {np.median(errors):.1f} px, p95 {np.percentile(errors, 95):.1f} px")
    assert part and len(drawn) >= 0.9 * len(part)
    assert np.percentile(errors, 95) <= 8.0


@contextlib.contextmanager
def server_process(port: int) -> Iterator[subprocess.Popen]:
    """``ar-sudoku serve`` as its own process on ``port``, ready to answer; killed (SIGKILL) on exit if alive."""
    proc = subprocess.Popen([sys.executable, "-m", "ar_sudoku", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health(f"http://127.0.0.1:{port}")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
                time.sleep(0.1)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        proc.stderr.close()


def test_live_page_clears_the_overlay_when_the_server_goes_and_reconnects_when_it_is_back(browser, tmp_path):
    """The server's process is killed mid-stream: the page clears its overlay at once (the live video shows,
    nothing drawn on it), says so, and reconnects by itself when a server answers on that port again."""
    y4m = tmp_path / "camera.y4m"
    make_y4m(y4m, frames=60)
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()
    base = f"http://127.0.0.1:{port}"
    b, page = fake_camera(browser, y4m, base)
    try:
        with server_process(port) as proc:
            page.goto(base + "/live")
            page.click("#start")
            page.wait_for_function("window.liveDrawn && window.liveStats.frames > 10", timeout=30_000)
            killed = time.time() * 1000
            proc.kill()
            page.wait_for_function("window.liveStats.dropped_wall !== null", timeout=10_000)
            state = page.evaluate("""() => ({ hidden: document.getElementById('view').hidden,
                drawn: window.liveDrawn, readout: document.getElementById('readout').textContent,
                dropped: window.liveStats.dropped_wall, interval: window.liveStats.interval_ms })""")
        assert state["hidden"] and state["drawn"] is None  # nothing stale on the picture
        assert "Reconnecting" in state["readout"]
        cleared = state["dropped"] - killed
        print(f"\nserver killed: overlay cleared {cleared:.0f} ms later (reply interval {state['interval']:.0f} ms)")
        assert cleared <= max(state["interval"], 50)
        with server_process(port):
            page.wait_for_function("window.liveStats.connects >= 2 && window.liveDrawn", timeout=20_000)
            assert not page.evaluate("document.getElementById('view').hidden")
            assert "Reconnecting" not in page.text_content("#readout")
    finally:
        b.close()


def watch(page) -> list[str]:
    """Console errors, failed requests and HTTP errors of ``page``, as they happen."""
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    return problems


def cells_text(page) -> list[str]:
    return page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.textContent)")


def test_photo_page_on_a_phone_corrections_do_what_they_show(server, browser, tmp_path):
    """On a 412x839 screen: the examples (printed, written on, curled) are offered; after one is read the
    grid's first row and the pad are in view; rows keep their height in every mode; clearing a given clears
    it; a correction put back leaves no chip; a clash is marked in the grid and said in words; a photo with
    no grid gives an empty grid that solves the puzzle typed into it; no console errors, no 404."""
    import cv2
    from conftest import EASY, EASY_SOLUTION

    from ar_sudoku.vision.synth import background

    with urllib.request.urlopen(server + "/api/examples", timeout=10) as res:
        examples = json.loads(res.read())["examples"]
    assert {e["name"] for e in examples} >= {"printed", "written", "curled"}
    assert all(e["credit"] for e in examples)
    with urllib.request.urlopen(server + "/favicon.ico", timeout=10) as res:
        assert res.status == 200 and b"<svg" in res.read()
    b = launch(browser)
    try:
        page = b.new_page(viewport=PHONE)
        problems = watch(page)
        page.goto(server + "/photo")
        page.click("text=Example: printed")
        page.wait_for_function("window.lastRead && window.lastRead.solution", timeout=20_000)
        read = page.evaluate("window.lastRead")
        top = page.locator('#grid .cell[data-cell="0"]').bounding_box()
        pad = page.locator("#pad").bounding_box()
        assert top["y"] >= 0 and pad["y"] + pad["height"] <= PHONE["height"]  # first row and pad in view
        assert page.locator("#status").bounding_box()["y"] >= 0  # and what was read
        screenshot(page, "web-photo.png", tmp_path, width=412, full_page=True)

        for mode in ("check", "hint", "answer"):  # nine rows of one height, empty or not
            page.click(f'#modes button[data-mode="{mode}"]')
            page.wait_for_function(f"!window.photoState.busy && window.photoState.mode === '{mode}'")
            heights = page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.getBoundingClientRect().height)")
            assert max(heights) - min(heights) < 1.0, (mode, min(heights), max(heights))

        given = read["givens"].index(next(d for d in read["givens"] if d != "."))
        page.click(f'#grid .cell[data-cell="{given}"]')
        page.keyboard.press("Backspace")
        page.wait_for_function(f"window.lastRead.givens[{given}] === '.'", timeout=20_000)
        page.wait_for_function("!window.photoState.busy")
        cell = page.locator(f'#grid .cell[data-cell="{given}"]')
        cls = cell.get_attribute("class") or ""
        assert "given" not in cls and "entry" not in cls  # cleared, not restyled as handwriting
        assert cell.text_content() in ("", page.evaluate("window.lastRead.solution || ''")[given:given + 1])
        chips = page.eval_on_selector_all("#fixes button", "bs => bs.map(b => b.textContent)")
        assert len(chips) == 1 and "cleared" in chips[0]
        page.click("#fixes button")  # undo: the given is back, nothing selected
        page.wait_for_function(f"window.lastRead.givens[{given}] !== '.' && !window.photoState.busy", timeout=20_000)
        assert page.evaluate("window.photoState.selected") is None
        assert "given" in (cell.get_attribute("class") or "") and not page.query_selector_all("#fixes button")

        blank = read["givens"].index(".")
        page.click(f'#grid .cell[data-cell="{blank}"]')
        page.keyboard.press("5")
        page.wait_for_function(f"window.lastRead.givens[{blank}] === '5' && !window.photoState.busy", timeout=20_000)
        page.keyboard.press("Backspace")  # back to blank as read: no correction left, no empty chip
        page.wait_for_function(f"window.lastRead.givens[{blank}] === '.' && !window.photoState.busy", timeout=20_000)
        assert not page.query_selector_all("#fixes button")

        row = blank // 9  # a digit that is already a given in the blank's row: a clash, marked and said
        twin = next(i for i in range(row * 9, row * 9 + 9) if read["givens"][i] != ".")
        page.keyboard.press(read["givens"][twin])
        page.wait_for_function("window.lastRead.status === 'invalid' && !window.photoState.busy", timeout=20_000)
        clashing = page.eval_on_selector_all("#grid .cell.clash", "cs => cs.map(c => +c.dataset.cell)")
        assert blank in clashing and twin in clashing
        status = page.text_content("#status")
        assert "same digit" in status and "invalid" not in status

        empty = tmp_path / "table.jpg"  # no grid in this photo: the page offers an empty grid to type into
        cv2.imwrite(str(empty), background((800, 600), 3))
        page.set_input_files("#file", str(empty))
        page.wait_for_function("window.lastRead && window.lastRead.status === 'no_grid' && !window.photoState.busy",
                               timeout=20_000)
        status = page.text_content("#status")
        assert "no_grid" not in status and "type the puzzle" in status
        assert cells_text(page) == [""] * 81
        for i, d in enumerate(EASY):
            if d != ".":
                page.click(f'#grid .cell[data-cell="{i}"]')
                page.keyboard.press(d)
        page.wait_for_function(f"window.lastRead.solution === '{EASY_SOLUTION}' && !window.photoState.busy",
                               timeout=30_000)
        assert "".join(cells_text(page)) == EASY_SOLUTION
        page.goto(server + "/live")
        page.wait_for_load_state("load")
        assert page.text_content("#start") == "Start camera"
        assert problems == []
    finally:
        b.close()


def test_a_live_page_refused_as_busy_waits_and_connects_when_a_place_frees_up(browser, tmp_path):
    """With one live place taken, a second page is refused (1013), says the server is busy, and connects by
    itself once the first page closes."""
    y4m = tmp_path / "camera.y4m"
    make_y4m(y4m, frames=60)
    with serving(WebConfig(max_sessions=1)) as base:
        b, first = fake_camera(browser, y4m, base)
        try:
            first.goto(base + "/live")
            first.click("#start")
            first.wait_for_function("window.liveDrawn", timeout=20_000)
            second = first.context.new_page()
            second.goto(base + "/live")
            second.click("#start")
            second.wait_for_function("document.getElementById('readout').textContent.includes('busy')",
                                     timeout=20_000)
            assert second.evaluate("window.liveStats.frames") == 0
            first.close()
            second.wait_for_function("window.liveStats.connects >= 1 && window.liveDrawn", timeout=20_000)
        finally:
            b.close()


def post_json(url: str, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_api_solve_solves_a_typed_puzzle_and_refuses_bad_ones(server):
    """POST /api/solve: a puzzle typed by hand is solved with its marks; clashing givens say so in words;
    a malformed request is a 400 with one line."""
    from conftest import EASY, EASY_SOLUTION

    status, obj = post_json(server + "/api/solve", json.dumps({"givens": EASY, "show": "answer"}).encode())
    assert status == 200 and obj["status"] == "solved" and obj["solution"] == EASY_SOLUTION
    assert len(obj["marks"]["answers"]) == EASY.count(".") and obj["message"] == ""
    clash = "55" + EASY[2:]  # r1c1 and r1c2 both 5
    status, obj = post_json(server + "/api/solve", json.dumps({"givens": clash}).encode())
    assert status == 200 and obj["status"] == "invalid" and obj["solution"] is None and obj["message"]
    status, obj = post_json(server + "/api/solve", json.dumps({"givens": "5" + "." * 80}).encode())
    assert status == 200 and "several solutions" in obj["message"]
    # no digit fits r1c9: the word image --json and the live log use too
    stuck = "12345678." + "........9" + "." * 63
    status, obj = post_json(server + "/api/solve", json.dumps({"givens": stuck}).encode())
    assert status == 200 and obj["status"] == "unsolvable" and obj["solution"] is None and obj["message"]
    for bad in (b"not json", b"[1, 2]", json.dumps({"givens": EASY[:80]}).encode(),
                json.dumps({"givens": "x" * 81}).encode(), json.dumps({"givens": EASY, "show": "all"}).encode()):
        status, obj = post_json(server + "/api/solve", bad)
        assert status == 400 and obj["error"] and "Traceback" not in obj["error"], bad
    status, obj = post_json(server + "/api/solve", b" " * (65 * 1024))
    assert status == 413 and obj["error"]


@pytest.mark.parametrize("viewport", [PHONE, {"width": 839, "height": 412}], ids=["portrait", "landscape"])
def test_live_picture_fits_the_screen_with_its_controls(browser, server, tmp_path, viewport):
    """Portrait or landscape, the whole picture is on screen, as large as fits, and the status and the
    buttons are on screen with it (below it, or beside it on a low landscape screen)."""
    y4m = tmp_path / "camera.y4m"
    make_y4m(y4m, frames=30)
    b, page = fake_camera(browser, y4m, server, viewport)
    try:
        page.goto(server + "/live")
        page.click("#start")
        page.wait_for_function("window.liveDrawn", timeout=20_000)
        pic = page.locator("#view").bounding_box()
        for sel in ("#start", "#readout", '#modes button[data-mode="hint"]'):
            box = page.locator(sel).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], sel
            assert box["y"] >= pic["y"] + pic["height"] - 1 or box["x"] >= pic["x"] + pic["width"] - 1, sel
        assert pic["y"] >= 0 and pic["y"] + pic["height"] <= viewport["height"] + 0.5
        assert pic["x"] >= -0.5 and pic["x"] + pic["width"] <= viewport["width"] + 0.5
        # as large as fits: the full width, or the full height left beside/above the controls
        assert pic["width"] >= viewport["width"] - 1 or pic["width"] >= viewport["width"] - 240
    finally:
        b.close()


class SilentProxy:
    """A TCP relay to ``port`` that can go silent: while ``silent`` is set, bytes either way are swallowed
    and no connection is closed (a phone's network that stalls without a reset)."""

    def __init__(self, port: int):
        import socket

        self.upstream = port
        self.silent = threading.Event()
        self.listener = bind("127.0.0.1", 0)
        self.port = self.listener.getsockname()[1]
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            self.socks += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src, dst) -> None:
        while True:
            try:
                data = src.recv(65536)
                if not data:
                    break
                if not self.silent.is_set():
                    dst.sendall(data)
            except OSError:
                break
        with contextlib.suppress(OSError):
            dst.shutdown(2)

    def close(self) -> None:
        self.listener.close()
        for s in self.socks:
            with contextlib.suppress(OSError):
                s.close()


def test_live_page_treats_a_silent_network_as_a_drop_and_comes_back(browser, server, tmp_path):
    """The network goes silent (no reply, no close): the page clears the overlay, says so, and retries;
    once bytes flow again it is live again by itself."""
    y4m = tmp_path / "camera.y4m"
    make_y4m(y4m, frames=30)
    proxy = SilentProxy(int(server.rsplit(":", 1)[1]))
    base = f"http://127.0.0.1:{proxy.port}"
    b, page = fake_camera(browser, y4m, base)
    try:
        page.goto(base + "/live")
        page.click("#start")
        page.wait_for_function("window.liveDrawn && window.liveStats.frames > 5", timeout=20_000)
        proxy.silent.set()
        page.wait_for_function("window.liveStats.drops >= 1", timeout=20_000)
        assert page.evaluate("document.getElementById('view').hidden && window.liveDrawn === null")
        assert "Reconnecting" in page.text_content("#readout")
        proxy.silent.clear()
        page.wait_for_function("window.liveStats.connects >= 2 && window.liveDrawn", timeout=30_000)
    finally:
        b.close()
        proxy.close()


def test_photo_page_draws_a_six_by_six_pages_answers_on_their_cells(server, browser, tmp_path):
    """A photographed 6x6 page (turned 3x2 boxes) read through the web page: /api/read says its size and
    boxes, and the browser draws an answer in every blank cell, in the middle of that cell."""
    import random

    import cv2
    import numpy as np

    import sized_pages
    from ar_sudoku.sudoku.solver import parse_line, solve

    sheet = sized_pages.sized_page((3, 2), "1-9", random.Random(2))
    path = tmp_path / "six.jpg"
    assert cv2.imwrite(str(path), sheet.image)
    status, api = post(server + "/api/read", [], path.read_bytes())
    assert status == 200 and (api["size"], api["box"], api["givens"]) == (6, "3x2", sheet.givens)
    assert api["solution"] == solve(parse_line(sheet.givens, box=(3, 2)), 5.0).solution
    b = launch(browser)
    try:
        page = photo_page(b, server, path)
        page.wait_for_function("window.lastRead && window.lastRead.solution && window.photoDrawn", timeout=20_000)
        drawn = page.evaluate("window.photoDrawn")
        status_text = page.text_content("#status") or ""
    finally:
        b.close()
    assert "6x6" in status_text
    hmat = cv2.getPerspectiveTransform(np.float32([[0, 0], [6, 0], [6, 6], [0, 6]]), sheet.corners)
    cell = float(np.linalg.norm(sheet.corners[1] - sheet.corners[0])) / 6
    k = drawn["scale"]
    placed = {i: (x / k, y / k, t) for i, t, x, y in drawn["placed"]}
    assert sorted(placed) == [i for i, ch in enumerate(sheet.givens) if ch == "."]
    for i, (x, y, t) in placed.items():
        want = cv2.perspectiveTransform(np.float32([[[i % 6 + 0.5, i // 6 + 0.5]]]), hmat)[0, 0]
        assert np.hypot(x - want[0], y - want[1]) < 0.25 * cell, i
        assert t == api["solution"][i]


def test_live_page_draws_a_held_six_by_six_pages_answers_in_their_cells(server, browser, tmp_path):
    """The fake camera plays a photographed 6x6 page held in a hand: the live page is sent the grid's size and
    answer, and draws the answer in every blank cell, inside the grid."""
    import random

    import cv2
    import numpy as np

    import sized_pages
    from ar_sudoku.sudoku.solver import parse_line, solve

    size = (640, 480)
    sheet = sized_pages.sized_page((2, 3), "1-9", random.Random(4), size=size)
    truth = solve(parse_line(sheet.givens, box=(2, 3)), 5.0).solution
    y4m = tmp_path / "six.y4m"
    with y4m.open("wb") as f:
        f.write(f"YUV4MPEG2 W{size[0]} H{size[1]} F30:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(60):
            t = 2 * np.pi * i / 60  # periodic: the camera's loop has no jump
            shift = np.float32([[1, 0, 4 * np.sin(t)], [0, 1, 3 * np.cos(t)]])
            frame = cv2.warpAffine(sheet.image, shift, size, borderMode=cv2.BORDER_REPLICATE)
            f.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
    b, page = fake_camera(browser, y4m, server)
    try:
        page.goto(server + "/live")
        page.wait_for_load_state("networkidle")
        page.click("#start")
        page.wait_for_function(
            f"window.lastReply && window.liveDrawn && (window.lastReply.puzzles || []).some("
            f"(p) => p.size === 6 && p.solution === {json.dumps(truth)}) && window.liveDrawn.placed.length > 0",
            timeout=30_000)
        drawn = page.evaluate("window.liveDrawn")
        reply = page.evaluate("window.lastReply")
        width = page.evaluate("document.getElementById('view').clientWidth")
    finally:
        b.close()
    six = next(p for p in reply["puzzles"] if p["size"] == 6)
    assert (six["box"], six["symbols"], six["givens"]) == ("2x3", "1-9", sheet.givens)
    assert reply["frame_size"] == list(size)
    placed = {i: (x, y, t) for i, t, x, y in drawn["placed"]}
    assert sorted(placed) == [i for i, ch in enumerate(sheet.givens) if ch == "."]
    k = width / size[0]  # CSS pixels a frame pixel
    quad = (np.float32(six["corners"]) * k).reshape(-1, 1, 2)
    for i, (x, y, t) in placed.items():
        assert t == truth[i]
        assert cv2.pointPolygonTest(quad, (float(x), float(y)), False) > 0, i


def test_photo_page_of_two_puzzles_corrects_the_second_and_leaves_the_first_as_read(server, browser, tmp_path):
    """A page of two rendered puzzles: the API takes ``1:rRcC=D`` as puzzle 1's correction; on the page, a tap
    on the second puzzle in the photo makes the grid edit it, and a digit typed there changes it alone."""
    import random

    import cv2

    import eval_page

    sheet = eval_page.rendered_page(2, random.Random(3))
    path = tmp_path / "two.jpg"
    assert cv2.imwrite(str(path), sheet.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    status, read = post(server + "/api/read", [], path.read_bytes())
    assert status == 200 and [p["givens"] for p in read["puzzles"]] == list(sheet.givens)
    cell = sheet.givens[1].index(next(ch for ch in sheet.givens[1] if ch != "."))  # a given of puzzle 1, cleared
    name = f"r{cell // 9 + 1}c{cell % 9 + 1}"
    status, fixed = post(server + "/api/read", [("set", f"1:{name}=0")], path.read_bytes())
    assert status == 200
    assert fixed["puzzles"][0]["givens"] == sheet.givens[0]
    assert fixed["puzzles"][1]["givens"] == sheet.givens[1][:cell] + "." + sheet.givens[1][cell + 1:]
    status, bad = post(server + "/api/read", [("set", "one:r1c1=0")], path.read_bytes())
    assert status == 400 and "N:rRcC=D" in bad["error"]

    b = launch(browser)
    try:
        page = photo_page(b, server, path)
        page.wait_for_function("window.lastRead && window.lastRead.puzzles.length === 2", timeout=20_000)
        grid = "cs => cs.map(c => c.classList.contains('given') ? c.textContent : '.').join('')"
        assert page.eval_on_selector_all("#grid .cell", grid) == sheet.givens[0]
        assert page.eval_on_selector_all("#puzzles button", "bs => bs.length") == 2
        # a tap on the second puzzle in the photo: the grid now shows (and edits) it
        box = page.locator("#pic").bounding_box()
        k = box["width"] / sheet.image.shape[1]
        cx, cy = (float(v) for v in sheet.corners[1].mean(axis=0))
        page.mouse.click(box["x"] + cx * k, box["y"] + cy * k)
        assert page.eval_on_selector_all("#grid .cell", grid) == sheet.givens[1]
        assert "puzzle 2 of 2" in (page.text_content("#status") or "")
        page.click(f'#grid .cell[data-cell="{cell}"]')
        page.keyboard.press("0")
        page.wait_for_function(f"window.lastRead.puzzles[1].givens[{cell}] === '.'", timeout=20_000)
        after = page.evaluate("window.lastRead")
        assert after["puzzles"][0]["givens"] == sheet.givens[0] and after["puzzles"][0]["solution"]
        assert "fixed" in (page.get_attribute(f'#grid .cell[data-cell="{cell}"]', "class") or "")
        # back to the first puzzle: its grid as read, no correction of its own
        page.click("#puzzles button >> nth=0")
        assert page.eval_on_selector_all("#grid .cell", grid) == sheet.givens[0]
        assert page.eval_on_selector_all("#fixes button", "bs => bs.length") == 0
    finally:
        b.close()
