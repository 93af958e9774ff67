"""The layers stay a tree: no import cycles, the core never imports the shell, the puzzle logic no OpenCV.

The package's own imports are parsed with ``ast`` (nothing is imported), so a
violation anywhere, even inside a function, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "ar_sudoku"
CORE = ("ar_sudoku.sudoku", "ar_sudoku.vision", "ar_sudoku.ar")
SHELL = ("ar_sudoku.cli", "ar_sudoku.io", "ar_sudoku.web")


def _module_name(path: Path, pkg: Path) -> str:
    parts = list(path.relative_to(pkg.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(pkg: Path = PKG) -> dict[str, set[str]]:
    """Module -> the modules it imports anywhere in its body (own submodules named in full)."""
    graph: dict[str, set[str]] = {}
    modules = {_module_name(p, pkg) for p in pkg.rglob("*.py")}
    for path in pkg.rglob("*.py"):
        name = _module_name(path, pkg)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                # `from ar_sudoku.cli import video` imports the submodule too
                found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules)
        graph[name] = found
    return graph


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_there_are_modules_to_check():
    graph = _imports()
    assert "ar_sudoku.sudoku.solver" in graph and "ar_sudoku.cli" in graph and len(graph) > 20


def _find_cycle(graph: dict[str, set[str]]) -> list[str]:
    own = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    # a package's __init__ importing its own submodules is how a package is built, not a cycle
    for m, deps in own.items():
        own[m] = {d for d in deps if not d.startswith(m + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(own[m]):
            if state.get(d) == 1:
                raise _Cycle(stack[stack.index(d):] + [d])
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    try:
        for m in sorted(own):
            if m not in state:
                visit(m)
    except _Cycle as c:
        return c.path
    return []


class _Cycle(Exception):
    def __init__(self, path: list[str]):
        self.path = path


def _shell_imports(graph: dict[str, set[str]]) -> list[str]:
    return [f"{m} imports {d}" for m, deps in graph.items() if _within(m, CORE) for d in deps if _within(d, SHELL)]


def test_no_import_cycles():
    cycle = _find_cycle(_imports())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_the_core_never_imports_the_shell():
    bad = _shell_imports(_imports())
    assert not bad, "\n".join(bad)


def test_the_sudoku_package_imports_no_opencv():
    bad = [f"{m} imports {d}" for m, deps in _imports().items() if _within(m, ("ar_sudoku.sudoku",))
           for d in deps if d.split(".")[0] in ("cv2", "imutils", "onnxruntime")
           or _within(d, ("ar_sudoku.vision", "ar_sudoku.ar"))]
    assert not bad, "\n".join(bad)


def test_the_checks_bite_on_a_bad_tree(tmp_path):
    """A made-up package with a cycle and a core module that imports the shell is caught by both checks."""
    pkg = tmp_path / "ar_sudoku"
    for sub in ("vision", "cli"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "vision" / "grid.py").write_text("def f():\n    from ar_sudoku.cli.common import CliError\n")
    (pkg / "cli" / "common.py").write_text("import ar_sudoku.cli.other\n")
    (pkg / "cli" / "other.py").write_text("from ar_sudoku.cli import common\n")
    graph = _imports(pkg)
    assert _shell_imports(graph) == ["ar_sudoku.vision.grid imports ar_sudoku.cli.common"]
    assert set(_find_cycle(graph)) == {"ar_sudoku.cli.common", "ar_sudoku.cli.other"}


def test_the_web_app_and_the_command_line_share_their_json_through_io():
    """The JSON contracts live in ``io.records``, which both shells use; the web app takes nothing of the
    command line (argument parsing, exit codes, the frame loop), and ``io`` nothing of either shell."""
    graph = _imports()
    bad = [f"{m} imports {d}" for m, deps in graph.items() for d in deps
           if (_within(m, ("ar_sudoku.web",)) and _within(d, ("ar_sudoku.cli",)))
           or (_within(m, ("ar_sudoku.io",)) and _within(d, ("ar_sudoku.cli", "ar_sudoku.web")))]
    assert not bad, "\n".join(bad)
    assert "ar_sudoku.io.records" in graph["ar_sudoku.web.app"] and "ar_sudoku.io.records" in graph[
        "ar_sudoku.cli.frames"]


def test_the_core_hands_back_dataclasses_and_leaves_their_json_to_the_shell():
    from ar_sudoku.ar.photo import PhotoAnalysis
    from ar_sudoku.ar.session import FrameResult
    from ar_sudoku.sudoku.rules import BoardResult
    from ar_sudoku.sudoku.steps import Explanation, Step
    from ar_sudoku.sudoku.written import Written

    core = (BoardResult, PhotoAnalysis, FrameResult, Step, Explanation, Written)
    assert not [c.__name__ for c in core if hasattr(c, "to_json")]
