"""From layer terms to PyTorch: in-process modules (``compile_term``) and standalone files (``emit``)."""

from pybridge.torch.compiler import Call, compile_term, realize

__all__ = ["Call", "compile_term", "realize"]
