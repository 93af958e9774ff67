"""The live AR side: per-frame session, background solver, overlay drawing."""
