from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np
from conftest import EASY, EASY_SOLUTION, PATHOLOGICAL, ROOT, SLOW

from ar_sudoku.cli import main


def test_solve_one_puzzle(capsys):
    assert main(["solve", EASY]) == 0
    assert capsys.readouterr().out.strip() == EASY_SOLUTION


def test_solve_pretty_and_count(capsys):
    assert main(["solve", EASY, "--pretty"]) == 0
    out = capsys.readouterr().out
    assert "| 5 3 4 | 6 7 8 | 9 1 2 |" in out
    assert main(["solve", "." * 81, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "2+"


def test_solve_file_and_stdin(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(f"{EASY}\n{EASY.replace('.', '0')}\n")
    r = subprocess.run([sys.executable, "-m", "ar_sudoku", "solve", str(f)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == [EASY_SOLUTION] * 2
    r = subprocess.run([sys.executable, "-m", "ar_sudoku", "solve", "-"], input=EASY, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == EASY_SOLUTION


def test_exit_codes_and_messages(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text(f"{EASY}\n{'12345678.' + '........9' + '.' * 63}\n")
    assert main(["solve", str(f)]) == 1
    err = capsys.readouterr().err
    assert "puzzle 2 (line 2): no solution" in err
    assert main(["solve", SLOW, "--timeout", "0.1"]) == 1
    assert "timed out" in capsys.readouterr().err
    assert main(["solve", PATHOLOGICAL]) == 1  # proved, not timed out
    assert "no solution" in capsys.readouterr().err
    assert main(["solve", "55" + EASY[2:]]) == 1
    assert "r1c1 and r1c2 are both 5 in row 1" in capsys.readouterr().err
    assert main(["solve", "nonexistent.txt"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["solve", EASY[:-1] + "z"]) == 2
    assert "column 81" in capsys.readouterr().err
    assert main(["solve", str(tmp_path)]) == 2


def test_png_has_blue_solved_digits(tmp_path):
    out = tmp_path / "solved.png"
    assert main(["solve", EASY, "--png", str(out)]) == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape[0] == img.shape[1]
    blue = (img[:, :, 0] > 150) & (img[:, :, 2] < 80)
    # r1c3 is blank in EASY: its cell (margin 20, cell 60) must hold blue ink, r1c1 (a given) none
    assert blue[20:80, 140:200].sum() > 20
    assert blue[20:80, 20:80].sum() == 0
    assert main(["solve", EASY, "--png", str(tmp_path / "nodir" / "x.png")]) == 2


def test_generate_prints_and_makes_sheets(tmp_path, capsys):
    assert main(["generate", "--difficulty", "hard", "--count", "2", "--seed", "5",
                 "--sheet", str(tmp_path / "s.png")]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 2 and all(len(x) == 81 for x in lines)
    img = cv2.imread(str(tmp_path / "s.png"), cv2.IMREAD_GRAYSCALE)
    assert img is not None and np.mean(img < 128) > 0.01
    assert main(["generate", "--seed", "5", "--sheet", str(tmp_path / "s.svg")]) == 0
    assert (tmp_path / "s.svg").read_text().startswith("<svg")
    assert main(["generate", "--count", "0"]) == 2


def test_bundled_sample_solves():
    assert main(["solve", str(ROOT / "samples" / "puzzles.txt")]) == 0


def test_help_has_examples(capsys):
    for cmd in ("solve", "generate"):
        try:
            main([cmd, "--help"])
        except SystemExit as exc:
            assert exc.code == 0
        assert "examples:" in capsys.readouterr().out


def test_16x16_on_the_command_line_and_as_png(tmp_path, capsys):
    # 256 characters is too long for a file name: it must still be taken as a puzzle
    assert main(["solve", "1" + "." * 255, "--png", str(tmp_path / "big.png")]) == 0
    assert len(capsys.readouterr().out.strip()) == 256
    assert cv2.imread(str(tmp_path / "big.png")) is not None


def test_an_internal_error_is_one_line_not_a_traceback(monkeypatch, capsys):
    import ar_sudoku.cli.solve as solve_cmd

    def broken(args):
        raise RuntimeError("something we did not expect")

    monkeypatch.setattr(solve_cmd, "run", broken)
    monkeypatch.delenv("AR_SUDOKU_DEBUG", raising=False)
    assert main(["solve", EASY]) == 1
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: something we did not expect)" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_output_cut_short_by_head_stops_quietly():
    """`ar-sudoku solve many | head -1`: exit 0, no "internal error", no traceback."""
    import subprocess
    import sys

    puzzles = "\n".join([EASY] * 4000)  # more than a pipe holds, so the write does break
    cmd = f"{sys.executable} -m ar_sudoku solve - | head -1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], input=puzzles, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() and "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
