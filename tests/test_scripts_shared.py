"""The scripts share code as plain modules, not through sys.path edits or each other's private names, and
a model of another input size gets its views by parameter, not by patching kinds.py (issue 23, item 6)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import EASY, ROOT, rendered_frame

from ar_sudoku.vision.kinds import CELL, MARGIN, VIEW, KindReader, cell_views, grid_views, ink_scores

SCRIPTS = ROOT / "scripts"
QUAD = np.float32([[340, 110], [940, 120], [930, 700], [330, 690]])
# the scripts that import their neighbours, and the one that runs them all
IMPORTING = ("eval_bent", "eval_entries", "eval_mistakes", "eval_photos", "eval_robust", "eval_written",
             "train_cells", "train_digits", "train_entries", "bench_all")


def sibling_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every ``from NEIGHBOUR import name`` in one script."""
    neighbours = {p.stem for p in SCRIPTS.glob("*.py")}
    return [(node.module, alias.name) for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module in neighbours for alias in node.names]


def test_no_script_or_test_edits_the_module_path():
    found = []
    for path in [*SCRIPTS.glob("*.py"), *(ROOT / "tests").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "path"
                    and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == "sys"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_no_script_imports_a_private_name_of_another():
    private = [(p.name, mod, name) for p in SCRIPTS.glob("*.py") for mod, name in sibling_imports(p)
               if name.startswith("_")]
    assert not private, private
    assert any(sibling_imports(SCRIPTS / "eval_photos.py")), "the check sees the scripts' shared imports"


@pytest.mark.parametrize("name", IMPORTING)
def test_a_script_that_imports_its_neighbours_runs_as_a_file(name):
    """``python scripts/NAME.py`` from another folder: the script's own folder is all it needs."""
    p = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), "--help"], cwd="/", capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-800:]
    assert p.stdout.startswith("usage:")


def test_cell_views_cut_the_geometry_they_are_given():
    frame = rendered_frame(EASY, QUAD)
    default = cell_views(frame, QUAD)
    assert default.shape == (81, VIEW, VIEW)
    assert np.array_equal(cell_views(frame, QUAD, cell=CELL, margin=MARGIN), default)
    larger = cell_views(frame, QUAD, cell=80, margin=12)
    assert larger.shape == (81, 52, 52)
    assert grid_views(frame, QUAD, cell=80, margin=12).square.shape == (9 * 80 + 24,) * 2
    # the same cells hold a digit at either size: ink_scores is told the margin to skip around each view
    digits = np.array([ch != "." for ch in EASY])
    assert np.array_equal(ink_scores(default) > 0.6, digits)
    assert np.array_equal(ink_scores(larger, 12) > 0.6, digits)


def test_a_kind_reader_scores_ink_with_the_margin_its_model_was_trained_at():
    reader = KindReader()
    assert reader.margin == int(reader.meta["input"]["margin"]) == MARGIN
