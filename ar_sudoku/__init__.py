"""ar-sudoku: a real-time augmented-reality Sudoku solver."""

__version__ = "0.1.0"
