"""The ASGI app: two static pages, a JSON API, and one live session per WebSocket.

Routes::

    GET  /               the start page (links to both pages)
    GET  /photo          photo page: upload or take a photo, correct cells, see it solved
    GET  /live           live page: the camera, frames over a WebSocket, the overlay on a canvas
    GET  /favicon.ico    the icon (an SVG, also linked from the pages)
    GET  /api/health     {"ok": true, ...}
    POST /api/read       multipart: photo, set (repeatable: r3c5=7, or 1:r3c5=7 for puzzle 1 of a page), show,
                         puzzle -> the `image --json` object
                         of the first puzzle, and ``puzzles``: every puzzle's (a page of several)
    POST /api/annotate   the same fields -> the photo with the solution drawn on it (JPEG)
    POST /api/solve      JSON {"givens": 81 chars, "show": ...}: a puzzle typed in by hand, solved; with
                         "cages": [{"sum": 17, "cells": [0, 9, 10]}, ...] a killer puzzle (a killer page's
                         reading as corrected on the photo page: a sum, or a cage's boundary)
    GET  /api/examples   the bundled example photos
    GET  /examples/NAME  one of them (NAME from that list; never a path)
    WS   /ws/live        binary JPEG frames in, one JSON reply per frame out

The server keeps nothing between requests: a correction is sent again with
the photo. A live session lives exactly as long as its socket. Nothing is
written to disk: uploads are parsed in memory (the multipart parser's spool
is sized above the upload limit), and the only paths served are the static
folder and the examples found at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import cv2
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import ar_sudoku
from ar_sudoku.ar.live import LiveSession
from ar_sudoku.ar.marks import MODES, Marks, Mode, plan_marks
from ar_sudoku.ar.page import Page
from ar_sudoku.ar.photo import PhotoAnalysis, analyse_page, annotate
from ar_sudoku.ar.session import FrameResult
from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io.records import frame_json, photo_json
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.solver import PuzzleFormatError, count_solutions, parse_line, solve
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.sudoku.written import Corrections
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.web.upload import UploadError, decode_upload, frame_array, parse_sets

STATIC = Path(__file__).resolve().parent / "static"
SUDOKU_PHOTOS = ("a training photo of the Sudoku dataset by B. Wicht and J. Hennebert "
                 "(github.com/wichtounet/sudoku_dataset), CC-BY-4.0")


@dataclass(frozen=True)
class Example:
    """A bundled photo the page offers, with where it comes from and under what licence."""

    file: str  # in the static folder
    title: str
    credit: str


# The only photos offered, looked up by these names (never a path). Each is under 400 KB (downscaled to
# 1100 px); static/EXAMPLES.md says how each was made.
EXAMPLES = {
    "printed": Example("example-printed.jpg", "printed", f"{SUDOKU_PHOTOS}: image1006, downscaled"),
    "written": Example("example-written.jpg", "written on", "a training photo of the sudoku-scanner dataset by "
                       "A. Kubiesa, MIT licence (/static/LICENSE-handwritten-photos.txt): 02_17_iphone_14_0, "
                       "downscaled"),
    "curled": Example("example-curled.jpg", "curled", f"{SUDOKU_PHOTOS}: image1007, bent by 6% with "
                      "ar_sudoku.vision.synth.bend and downscaled"),
}
MB = 1024 * 1024
SOLVE_BODY = 64 * 1024  # POST /api/solve's body
log = logging.getLogger("ar_sudoku.web")


@dataclass(frozen=True)
class WebConfig:
    """The server's limits; every one bounds what a hostile client can make it hold or do."""

    max_upload: int = 20 * MB  # one photo upload (the whole request body)
    drain_limit: int = 64 * MB  # past the limit the body is read and dropped up to here, so the client sees the 413
    max_frame: int = 2 * MB  # one live frame
    max_pixels: int = 50_000_000  # a photo's declared size (a decompression bomb is refused before decoding)
    max_frame_pixels: int = 4_000_000
    max_sessions: int = 4  # concurrent live sockets
    max_uploads: int = 8  # request bodies held in memory at once; others wait their turn
    max_reads: int = 2  # photos analysed at once (2 cores)
    timeout: float = 1.0  # solver deadline per photo, as `ar-sudoku image`
    model: str | None = None


def marks_json(marks: Marks | None) -> dict[str, Any] | None:
    """The marks as plain JSON lists, for the page to draw."""
    return None if marks is None else asdict(marks)


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


class _InMemoryParser(MultiPartParser):
    """Starlette spools file parts over 1 MB to a temporary file; keep the whole upload in memory instead."""

    spool_max_size = 64 * MB
    max_file_size = 64 * MB  # the same setting's name before Starlette 0.41


class WebApp:
    """The app's shared state: one digit reader, the limits, and the live-session count."""

    def __init__(self, config: WebConfig):
        self.cfg = config
        self.reader = DigitReader(config.model)
        self.kinds = KindReader()
        self.sessions = 0
        self.examples = {n: e for n, e in EXAMPLES.items() if (STATIC / e.file).is_file()}
        self._uploads: asyncio.Semaphore | None = None
        self._reads: anyio.CapacityLimiter | None = None

    def uploads(self) -> asyncio.Semaphore:
        if self._uploads is None:  # made inside the running loop
            self._uploads = asyncio.Semaphore(self.cfg.max_uploads)
        return self._uploads

    def reads(self) -> anyio.CapacityLimiter:
        if self._reads is None:
            self._reads = anyio.CapacityLimiter(self.cfg.max_reads)
        return self._reads

    # ------------------------------------------------------------------ uploads

    async def _body(self, request: Request) -> bytes:
        """The request body, at most ``max_upload`` bytes; past that, drained and refused with a 413."""
        limit = self.cfg.max_upload
        declared = request.headers.get("content-length", "")
        too_big = declared.isdigit() and int(declared) > limit
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                too_big = True
            if too_big:
                if size > self.cfg.drain_limit:
                    break  # not worth reading further; the connection is closed after the reply
                continue
            chunks.append(chunk)
        if too_big:
            shown = int(declared) if declared.isdigit() else size
            raise UploadError(413, f"the upload is {shown / MB:.2f} MB; the limit is {limit / MB:g} MB")
        return b"".join(chunks)

    async def _form(self, request: Request) -> tuple[bytes, str, FormData]:
        """The photo's bytes, its file name, and the other fields of a multipart form."""
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise UploadError(415, "send multipart/form-data with the photo in the field 'photo' "
                                   "(curl -F photo=@puzzle.jpg)")
        body = await self._body(request)

        async def replay() -> AsyncGenerator[bytes, None]:
            yield body

        try:
            form = await _InMemoryParser(request.headers, replay(), max_files=1, max_fields=200,
                                         max_part_size=self.cfg.max_upload).parse()
        except MultiPartException as exc:
            raise UploadError(400, f"a malformed multipart form: {exc.message}") from exc
        photo = form.get("photo")
        if not isinstance(photo, UploadFile):
            raise UploadError(400, "no photo: send the image in the multipart field 'photo'")
        data = await photo.read()
        name = Path(photo.filename or "photo").name[:200]  # echoed in the JSON only, never opened
        await photo.close()
        return data, name, form

    def _options(self, form: FormData) -> tuple[Corrections, Mode, int | None]:
        overrides = parse_sets([str(v) for v in form.getlist("set")])
        show = str(form.get("show") or "answer")
        if show not in MODES:
            raise UploadError(400, f"show={show[:20]!r}: one of {', '.join(MODES)}")
        raw = str(form.get("puzzle") or "")
        if raw and not (raw.isdigit() and len(raw) < 4):
            raise UploadError(400, f"puzzle={raw[:20]!r}: a puzzle number, 0 or more")
        return overrides, show, int(raw) if raw else None

    def _analyse(self, data: bytes, overrides: Corrections, show: Mode, full: bool,
                 puzzle: int | None = None) -> tuple[list[PhotoAnalysis], Any]:
        """Decode and read one photo, every puzzle on it (a worker thread); ``ms`` counts from the bytes in
        memory, as the CLI's (the whole page's)."""
        t0 = time.perf_counter()
        photo = decode_upload(data, full=full, max_pixels=self.cfg.max_pixels)
        found, count = analyse_page(photo.image, self.reader, kinds=self.kinds, timeout=self.cfg.timeout,
                                    overrides=overrides, show=show, scale=photo.scale, puzzle=puzzle)
        if not found:
            found = [PhotoAnalysis(BoardResult(Status.NO_GRID, message=f"no puzzle {puzzle}: the photo holds {count}"),
                                   show)]
        ms = (time.perf_counter() - t0) * 1e3
        return [replace(a, result=replace(a.result, ms=ms)) for a in found], photo.image

    async def read(self, request: Request) -> Response:
        """POST /api/read: the `ar-sudoku image --json` object (plus ``marks`` when the form asks ``marks=1``)."""
        t0 = time.perf_counter()
        try:
            async with self.uploads():
                data, name, form = await self._form(request)
                overrides, show, puzzle = self._options(form)
                found, _ = await anyio.to_thread.run_sync(self._analyse, data, overrides, show, False, puzzle,
                                                          limiter=self.reads())
        except UploadError as exc:
            return error(exc.status, exc.message)
        except ClientDisconnect:  # gone before the upload ended: nobody to answer
            return Response(status_code=400)
        with_marks = str(form.get("marks") or "") in ("1", "true", "yes")
        puzzles = []
        for k, done in enumerate(found):
            one = photo_json(done, name)
            one["puzzle"] = (k if puzzle is None else puzzle) if done.result.corners is not None else None
            if with_marks:
                one["marks"] = marks_json(done.marks)
            puzzles.append(one)
        # the first puzzle's fields stay at the top, for clients that read one puzzle a photo
        obj = {**puzzles[0], "puzzles": puzzles}
        total = (time.perf_counter() - t0) * 1e3
        return JSONResponse(obj, headers={"Server-Timing": f"read;dur={total:.1f}"})

    async def annotate(self, request: Request) -> Response:
        """POST /api/annotate: the photo with the solution (or check marks, or hint) drawn on the paper."""
        try:
            async with self.uploads():
                data, name, form = await self._form(request)
                overrides, show, puzzle = self._options(form)
                found, image = await anyio.to_thread.run_sync(self._analyse, data, overrides, show, True, puzzle,
                                                              limiter=self.reads())
                ok, buf = await anyio.to_thread.run_sync(
                    lambda: cv2.imencode(".jpg", annotate(image, *found), [cv2.IMWRITE_JPEG_QUALITY, 90]),
                    limiter=self.reads())
        except UploadError as exc:
            return error(exc.status, exc.message)
        except ClientDisconnect:
            return Response(status_code=400)
        if not ok:
            return error(500, "could not encode the annotated photo")
        res = found[0].result
        return Response(buf.tobytes(), media_type="image/jpeg",
                        headers={"X-Status": res.status, "X-Solution": res.solution or ""})

    def _solve_typed(self, givens: str, show: Mode) -> dict[str, Any]:
        """A puzzle typed into the page's empty grid (no grid was found in the photo): solved as the CLI would."""
        board = parse_line(givens)
        res = solve(board, self.cfg.timeout)
        obj: dict[str, Any] = {"givens": givens, "solution": res.solution, "status": res.status, "message": "",
                               "corners": None, "lattice": None, "marks": None}
        if res.status == Status.SOLVED and res.solution:
            if count_solutions(board, 2, self.cfg.timeout).count > 1:
                obj["message"] = "several solutions: one is shown; type more of the puzzle's digits"
            obj["marks"] = marks_json(plan_marks(show, givens, res.solution))
        elif res.status != Status.SOLVED:
            obj["message"] = res.message
        return obj

    def _solve_killer(self, body: dict[str, Any], show: Mode) -> dict[str, Any]:
        """A killer puzzle (a killer page's cages as corrected on the photo page): checked, solved, its marks."""
        from ar_sudoku.ar.killer_marks import plan_killer
        from ar_sudoku.io.records import cages_json
        from ar_sudoku.sudoku.killer import parse_killer_line
        from ar_sudoku.sudoku.killer_solver import count_killer

        killer = parse_killer_line(json.dumps({"givens": body["givens"], "cages": body["cages"]}))
        givens = killer.to_string()
        found = count_killer(killer, 2, self.cfg.timeout)
        obj: dict[str, Any] = {"givens": givens, "cages": cages_json(killer.cages), "solution": None,
                               "status": Status.SOLVED, "message": "", "corners": None, "lattice": None, "marks": None}
        if found.count == 1 and found.first is not None:
            obj["solution"] = found.first
            obj["marks"] = marks_json(plan_killer(givens, found.first, killer.cages, show)[0])
        else:
            obj["status"] = Status.UNSOLVABLE if found.complete else Status.TIMEOUT
            obj["message"] = ("these cages have several solutions" if found.count > 1 else "these cages have no "
                              "solution" if found.complete else "no solution found in time")
        return obj

    async def solve(self, request: Request) -> Response:
        """POST /api/solve: {"givens": "53..7....", "show": "answer"} -> givens, solution, status, message, marks."""
        raw = b""
        async for chunk in request.stream():  # a typed puzzle is ~100 bytes: a larger body is refused unread
            raw += chunk
            if len(raw) > SOLVE_BODY:
                return error(413, f"a puzzle to solve is at most {SOLVE_BODY // 1024} KB of JSON")
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            return error(400, "send a JSON object: {\"givens\": \"53..7....\"} (81 cells, . or 0 for a blank)")
        givens = body.get("givens") if isinstance(body, dict) else None
        show = body.get("show", "answer") if isinstance(body, dict) else "answer"
        if not isinstance(givens, str) or len(givens) != 81 or show not in MODES:
            return error(400, "send {\"givens\": 81 characters (1-9, . or 0 for a blank), "
                              f"\"show\": one of {', '.join(MODES)}}}")
        try:
            if body.get("cages") is not None:
                obj = await anyio.to_thread.run_sync(self._solve_killer, body, show, limiter=self.reads())
                return JSONResponse(obj)
            obj = await anyio.to_thread.run_sync(self._solve_typed, givens.replace("0", "."), show,
                                                 limiter=self.reads())
        except PuzzleFormatError as exc:
            return error(400, str(exc))
        return JSONResponse(obj)

    # ------------------------------------------------------------------ small routes

    async def health(self, request: Request) -> Response:
        return JSONResponse({"ok": True, "version": ar_sudoku.__version__, "live_sessions": self.sessions,
                             "max_live_sessions": self.cfg.max_sessions})

    async def list_examples(self, request: Request) -> Response:
        return JSONResponse({"examples": [{"name": n, "title": e.title, "credit": e.credit, "url": f"/examples/{n}"}
                                          for n, e in self.examples.items()]})

    async def example(self, request: Request) -> Response:
        found = self.examples.get(request.path_params["name"])  # a key of a fixed table, never a path
        if found is None:
            return error(404, "no such example")
        return FileResponse(STATIC / found.file, media_type="image/jpeg",
                            headers={"Cache-Control": "max-age=86400"})

    # ------------------------------------------------------------------ live

    def _step(self, session: LiveSession, data: bytes) -> dict[str, Any]:
        """Decode one frame and advance the session (a worker thread: the event loop stays free)."""
        t0 = time.perf_counter()
        try:
            frame = frame_array(data, self.cfg.max_frame_pixels)
        except UploadError as exc:
            return {"type": "frame", "error": exc.message}
        result: FrameResult = session.step(frame)
        obj = frame_json(result)
        for entry, puzzle in zip(obj["puzzles"], result.puzzles):  # every puzzle in view is drawn by the page
            entry["marks"] = marks_json(puzzle.marks)
        obj.update(type="frame", marks=marks_json(result.marks), mode=session.mode,
                   frame_size=[frame.shape[1], frame.shape[0]], server_ms=round((time.perf_counter() - t0) * 1e3, 2))
        return obj

    @staticmethod
    def _command(session: LiveSession, text: str) -> dict[str, Any] | None:
        """A page's command: {"mode": "hint"}, {"next_hint": true} or {"set": "r3c5=7"}; None when done."""
        try:
            cmd = json.loads(text)
        except ValueError:
            return {"type": "error", "error": "commands are JSON objects"}
        if not isinstance(cmd, dict):
            return {"type": "error", "error": "commands are JSON objects"}
        try:
            if "mode" in cmd:
                if cmd["mode"] not in MODES:
                    return {"type": "error", "error": f"mode: one of {', '.join(MODES)}"}
                session.set_mode(cmd["mode"])
            if cmd.get("next_hint"):
                session.next_hint()
            if "set" in cmd:
                for puzzle, cells in parse_sets([str(cmd["set"])]).items():
                    if puzzle is not None:  # "2:r3c5=7": the puzzle whose track id is 2
                        session.set_focus(puzzle)
                    for cell, digit in cells.items():
                        session.set_override(cell, digit)
        except UploadError as exc:
            return {"type": "error", "error": exc.message}
        return None

    async def live(self, ws: WebSocket) -> None:
        """One session for a page (``ar.page.Page``: every puzzle in view) per socket; a frame is answered before
        the next is read, so none queue up here."""
        await ws.accept()
        if self.sessions >= self.cfg.max_sessions:
            await ws.close(code=1013, reason=f"busy: {self.cfg.max_sessions} live pages are open; "
                                             "close one and reload")
            return
        self.sessions += 1
        session: LiveSession | None = None
        try:
            mode = ws.query_params.get("mode", "answer")
            session = await anyio.to_thread.run_sync(
                lambda: Page(self.reader, mode=mode if mode in MODES else "answer", kinds=self.kinds))
            await ws.send_json({"type": "ready", "max_frame": self.cfg.max_frame})
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                data, text = msg.get("bytes"), msg.get("text")
                if data is not None:
                    if len(data) > self.cfg.max_frame:
                        await ws.close(code=1009, reason=f"frame too large: at most {self.cfg.max_frame // MB} MB")
                        break
                    await ws.send_json(await anyio.to_thread.run_sync(self._step, session, data))
                elif text is not None:
                    reply = self._command(session, text)
                    if reply is not None:
                        await ws.send_json(reply)
        except WebSocketDisconnect:
            pass
        except Exception:  # a bug, not the client's doing: logged here, a clear close reason there
            log.exception("live session failed")
            with contextlib.suppress(Exception):
                await ws.close(code=1011, reason="internal error on the server (its log has the details)")
        finally:
            self.sessions -= 1
            if session is not None:
                await anyio.to_thread.run_sync(session.close)


def _page(name: str) -> Any:
    async def serve(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html", headers={"Cache-Control": "no-cache"})

    return serve


async def _favicon(request: Request) -> Response:
    """Browsers ask for /favicon.ico whatever the page says: the same icon, so no page logs a 404."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


async def _server_error(request: Request, exc: Exception) -> Response:
    """An unexpected failure: logged here, one line to the client, never a traceback."""
    log.exception("error while serving %s", request.url.path)
    if isinstance(exc, ArSudokuError):
        return error(400, str(exc))
    return error(500, "internal error while reading the photo; the server log has the details")


def create_app(config: WebConfig | None = None) -> Starlette:
    """The app for ``config`` (the digit model is loaded here, once, and shared by every request)."""
    web = WebApp(config or WebConfig())
    routes = [
        Route("/", _page("index.html")),
        Route("/photo", _page("photo.html")),
        Route("/live", _page("live.html")),
        Route("/favicon.ico", _favicon),
        Route("/api/health", web.health),
        Route("/api/read", web.read, methods=["POST"]),
        Route("/api/annotate", web.annotate, methods=["POST"]),
        Route("/api/solve", web.solve, methods=["POST"]),
        Route("/api/examples", web.list_examples),
        Route("/examples/{name}", web.example),
        WebSocketRoute("/ws/live", web.live),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _server_error})
    app.state.web = web
    return app
