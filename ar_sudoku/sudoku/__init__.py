"""Pure puzzle logic, no OpenCV: board text, the solver, the rules check of a reading, the generator.

The solve worker's child process imports only this package, so it starts fast.
"""
