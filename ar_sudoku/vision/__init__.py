"""Pure image functions: find the grid, cut cells, read digits, track corners."""
