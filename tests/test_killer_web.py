"""A killer page on the web page: the API carries its cages, solves corrected cages, and the photo page shows the
cages read and lets a person correct a sum or a boundary."""

from __future__ import annotations

import json

import cv2
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
from test_web import CHROMIUM, launch, photo_page, post, post_json, serving  # noqa: E402

from ar_sudoku.web.app import WebConfig  # noqa: E402
from killer_pages import photo_a  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with serving(WebConfig()) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    from pathlib import Path

    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium chromium-driver")
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def shot():
    return photo_a(61, "dashed", 1)


@pytest.fixture(scope="module")
def photo(shot, tmp_path_factory):
    path = tmp_path_factory.mktemp("killer") / "killer.jpg"
    cv2.imwrite(str(path), shot.image)
    return path


def test_the_api_reads_the_cages_and_solves_corrected_ones(server, shot, photo):
    status, obj = post(server + "/api/read", [("marks", "1")], photo.read_bytes(), "killer.jpg")
    assert status == 200 and obj["solution"] == shot.solution
    assert obj["cages"] == [{"sum": c.total, "cells": list(c.cells)} for c in shot.killer.cages]
    assert obj["marks"]["corner_clear"] and len(obj["marks"]["answers"]) == 80
    body = {"givens": obj["givens"], "cages": obj["cages"], "show": "answer"}
    status, solved = post_json(server + "/api/solve", json.dumps(body).encode())
    assert status == 200 and solved["solution"] == shot.solution and solved["marks"]["corner_clear"]
    wrong = [dict(c) for c in obj["cages"]]
    wrong[0]["sum"] += 1
    wrong[-1]["sum"] -= 1
    status, other = post_json(server + "/api/solve", json.dumps({**body, "cages": wrong}).encode())
    assert status == 200 and other["solution"] != shot.solution
    status, bad = post_json(server + "/api/solve", json.dumps({**body, "cages": wrong[:-1] + [wrong[0]]}).encode())
    assert status == 400 and "is in cages" in bad["error"]


def parts(cells, a, b):
    """Whether parting cells ``a`` and ``b`` (side by side) cuts the cage of ``cells`` in two."""
    seen, todo = {a}, [a]
    while todo:
        i = todo.pop()
        for j in (i - 9, i + 9, i - 1 if i % 9 else -1, i + 1 if (i + 1) % 9 else -1):
            if j in cells and j not in seen and {i, j} != {a, b}:
                seen.add(j)
                todo.append(j)
    return b not in seen


def test_the_photo_page_shows_the_cages_and_takes_corrections(server, browser, shot, photo):
    b = launch(browser)
    try:
        page = photo_page(b, server, photo)
        page.wait_for_function("window.lastRead && window.lastRead.solution", timeout=30_000)
        assert page.locator("#grid .cell .sum").count() == len(shot.killer.cages)
        cage = max(shot.killer.cages, key=lambda c: len(c.cells))
        other = next(c for c in shot.killer.cages if c.total > 3 and c != cage)

        def set_sum(c, value):
            page.locator(f'#grid .cell[data-cell="{c.first}"]').click()  # its middle: selects the cell
            sum_box = page.locator(".cagesum input")
            assert sum_box.input_value() == str(c.total)
            sum_box.fill(str(value))
            sum_box.dispatch_event("change")

        set_sum(cage, cage.total + 1)  # one sum corrected: the sums no longer add up, and the page says so
        page.wait_for_function("document.getElementById('status').textContent.includes('add up to 406')",
                               timeout=20_000)
        set_sum(other, other.total - 1)  # a second one: 405 again, another puzzle, solved (or not) as typed
        page.wait_for_function(f"window.lastRead.corrected && window.lastRead.solution !== "
                               f"{json.dumps(shot.solution)}", timeout=20_000)
        assert [c["sum"] for c in page.evaluate("window.lastRead.cages")] == [
            c.total + (c == cage) - (c == other) for c in shot.killer.cages]
        page.click(".cagesum button")  # back to the cages as read: solved again
        page.wait_for_function(f"!window.lastRead.corrected && window.lastRead.solution === "
                               f"{json.dumps(shot.solution)}", timeout=20_000)
        # a tap near the edge between two cells of one cage parts them: one part has no sum yet
        a, b2 = next((x, y) for c in shot.killer.cages for x in c.cells for y in c.cells
                     if y == x + 1 and y % 9 and parts(c.cells, x, y))
        box = page.locator(f'#grid .cell[data-cell="{a}"]').bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.95, box["y"] + box["height"] * 0.5)
        page.wait_for_function("document.getElementById('status').textContent.includes('has no sum')",
                               timeout=10_000)
    finally:
        b.close()
