"""The documentation keeps figures in one generated record (issue 23, item 4).

Comments and docstrings say why, not how fast: a timing or a share quoted there rots as the code and
the machine change, and nobody reruns it. The figures live in docs/benchmarks.md, written with the
machine, the versions and the date by ``scripts/bench_all.py``; the README stays short, for users.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ar_sudoku"
# a number followed by a unit of time per frame, a frame rate or a share; or "3x faster"
FIGURE = re.compile(r"\d+(?:\.\d+)?\s?(?:ms|fps|%)(?![A-Za-z])"
                    r"|\d+(?:\.\d+)?\s?[x×]\s+(?:faster|slower|cheaper|quicker)")
README_LINES = 180


def comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    """Every comment (``tokenize``) and docstring (``ast``) of one module, with its line."""
    text = path.read_text(encoding="utf-8")
    out = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((node.body[0].lineno, doc))
    return out


def figures_in(path: Path) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r} in {text.strip()[:80]!r}"
            for line, text in comments_and_docstrings(path) for m in FIGURE.finditer(text)]


def test_the_figure_check_finds_timings_in_comments_and_docstrings_but_not_in_code(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('"""Reads a frame in 0.45 ms."""\n\nx = 1  # 93% of the frames\n'
                   'y = "50 ms"  # a string is code, not prose\n\n\ndef f():\n    """Three\n    times 3x faster."""\n',
                   encoding="utf-8")
    found = sorted(m.group(0) for _, text in comments_and_docstrings(src) for m in FIGURE.finditer(text))
    assert found == ["0.45 ms", "3x faster", "93%"]


def test_no_comment_or_docstring_under_the_package_quotes_a_timing_a_frame_rate_or_a_share():
    found = [f for path in sorted(PACKAGE.rglob("*.py")) for f in figures_in(path)]
    assert not found, "figures belong in docs/benchmarks.md (scripts/bench_all.py), not in comments:\n" + \
        "\n".join(found)


def test_the_readme_is_short_enough_to_read():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_LINES, f"README.md has {len(lines)} lines; move details to docs/"


def test_every_local_link_in_the_readme_and_docs_leads_to_a_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "scripts" / "README.md"]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)


def test_the_readme_headline_figures_name_their_date_machine_and_record():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text[text.index("## Figures"):]
    head = head[: head.find("\n## ", 4)]
    assert "docs/benchmarks.md" in head and "scripts/bench_all.py" in head
    assert re.search(r"\d{4}-\d\d-\d\d", head), "the date the figures were measured on"
    assert "CPU" in head or "cores" in head
    record = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "do not edit by hand" in record.lower() and "python scripts/bench_all.py" in record
    for field in ("Date (UTC)", "CPU", "Python", "numpy", "opencv", "onnxruntime", "av", "commit"):
        assert field in record, field
