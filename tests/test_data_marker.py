"""The ``data`` marker: a run without ../shared/data says so once (skips), or fails under CI=true."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EASY

pytest_plugins = ["pytester"]

USES_DATA = '''
import pytest
from conftest import SHARED, need


@pytest.mark.data
def test_marked():
    assert (SHARED / "puzzles").is_dir()


def test_reaches_a_file_through_need():
    assert need(SHARED / "puzzles" / "top95.txt").read_text()


def test_without_data():
    assert True
'''


@pytest.fixture
def project(pytester, monkeypatch, tmp_path):
    """A project with this suite's conftest and pytest settings, its data pointed at a folder that is not there."""
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyprojecttoml((Path(__file__).parents[1] / "pyproject.toml").read_text())
    pytester.makepyfile(test_uses_data=USES_DATA)
    missing = tmp_path / "no-shared-data"
    monkeypatch.setenv("AR_SUDOKU_DATA", str(missing))
    return pytester, missing


def test_missing_data_skips_with_one_summary_line(project, monkeypatch):
    pytester, missing = project
    monkeypatch.delenv("CI", raising=False)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=2)
    said = [line for line in result.outlines if "shared data not found" in line]
    assert said == [f"2 tests skipped: shared data not found ({missing})"]


def test_missing_data_fails_loudly_in_ci(project, monkeypatch):
    pytester, missing = project
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE")
    result.assert_outcomes(passed=1, failed=1, errors=1)  # the marked test fails in its setup, before it runs
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"ERROR*test_marked*shared data not found: {missing} (CI=true*"])
    result.stdout.fnmatch_lines([f"FAILED*test_reaches_a_file_through_need*shared data not found: {missing}/puzzles*"])
    assert "tests skipped" not in result.stdout.str()


def test_present_data_runs_the_marked_tests(project, monkeypatch, tmp_path):
    pytester, missing = project
    (missing / "puzzles").mkdir(parents=True)
    (missing / "puzzles" / "top95.txt").write_text(EASY + "\n")
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
