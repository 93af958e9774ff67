"""Shipped model files (ONNX + metadata); loaded with importlib.resources."""
