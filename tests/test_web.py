"""The web page and its API, served for real on a free loopback port: the API against the photo
command, hostile uploads, and two pages driven in Debian's Chromium by Playwright (a photo uploaded
and corrected; the live page on a fake camera that plays the sample video). The browser tests
take the screenshots the README shows: ``UPDATE_SCREENSHOTS=1 pytest tests/test_web.py`` writes
them to docs/web-photo.png and docs/web-live.png."""

from __future__ import annotations

import contextlib
import json
import os
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
FIX = "r1c8=3"  # a correction of a given that leaves the sample solvable, differently


@contextlib.contextmanager
def serving(config: WebConfig) -> Iterator[str]:
    """The app on 127.0.0.1 and a free port, in a thread of this process; yields its base URL."""
    sock = bind("127.0.0.1", 0)
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
    assert set(api) == set(cli)  # the same object, key for key
    for key in ("givens", "solution", "status", "corners"):
        assert api[key] == cli[key], key
    assert api["solution"] and api["path"] == "photo.jpg"

    status, fixed = post(server + "/api/read", [("set", FIX), ("marks", "1")], PHOTO.read_bytes())
    assert status == 200 and fixed["solution"] and fixed["solution"] != api["solution"]
    assert fixed["givens"][7] == "3" and fixed["marks"]["answers"]

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


def screenshot(page, name: str, tmp: Path) -> Path:
    """A small PNG (900 px wide, most compression): the README's picture in docs/ when the environment
    says UPDATE_SCREENSHOTS=1, else in the test's temporary folder, so a test run leaves the tree as it was."""
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
    k = 900 / img.shape[1]
    img = cv2.resize(img, (900, round(img.shape[0] * k)), interpolation=cv2.INTER_AREA)
    folder = DOCS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp
    folder.mkdir(exist_ok=True)
    assert cv2.imwrite(str(folder / name), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return folder / name


def test_photo_page_reads_a_photo_and_solves_again_after_a_correction(server, browser, tmp_path):
    b = launch(browser)
    try:
        page = b.new_page(viewport={"width": 1200, "height": 820})
        page.goto(server + "/photo")
        page.set_input_files("#file", str(PHOTO))
        page.wait_for_function("window.lastRead && window.lastRead.solution", timeout=20_000)
        first = page.evaluate("window.lastRead")
        shown = page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.textContent || '.')")
        givens = page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.classList.contains('given'))")
        assert "".join(shown) == first["solution"]  # givens, and the answers in the blanks
        assert "".join(d if g else "." for d, g in zip(shown, givens)) == first["givens"]
        screenshot(page, "web-photo.png", tmp_path)

        page.click('#grid .cell[data-cell="7"]')  # r1c8
        page.keyboard.press("3")
        page.wait_for_function(f"window.lastRead.solution !== {json.dumps(first['solution'])}", timeout=20_000)
        after = page.evaluate("window.lastRead")
        assert after["givens"][7] == "3" and after["solution"]
        cell = page.locator('#grid .cell[data-cell="7"]')
        assert cell.text_content() == "3" and "fixed" in (cell.get_attribute("class") or "")
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
        context = b.new_context(viewport={"width": 1000, "height": 720})
        context.grant_permissions(["camera"], origin=server)
        page = context.new_page()
        page.goto(server + "/live")
        page.wait_for_function(f"window.lastReply && window.lastReply.solution === {json.dumps(expected)}",
                               timeout=15_000)
        # the readout over a few seconds' worth of frames (counted, not timed: a loaded machine is only slower)
        page.wait_for_function("window.liveStats.frames > 60", timeout=60_000)
        stats = page.evaluate("window.liveStats")
        print(f"\nlive page: grid first seen {stats['first_corners_ms']:.0f} ms and solution shown "
              f"{stats['first_solution_ms']:.0f} ms after the socket opened, "
              f"{stats['fps']:.1f} fps, median latency {stats['latency_ms']:.0f} ms, {stats['frames']} frames")
        assert stats["frames"] > 60 and stats["fps"] > 0  # the rate is a figure to print, not a target to assert
        # the picture for the README: solved, and the paper moving slowly (the overlay is one reply old)
        steady = "window.liveStats.motion_px !== null && window.liveStats.motion_px < 3"
        page.wait_for_function(f"window.lastReply.solution && {steady}", timeout=10_000)
        screenshot(page, "web-live.png", tmp_path)
        assert health(server)["live_sessions"] == 1
    finally:
        b.close()
