from ar_sudoku.cli import run

run()
