"""The I/O shell: frame sources, video/JSONL sinks, the window."""
