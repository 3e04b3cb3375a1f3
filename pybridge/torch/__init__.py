"""From layer terms to PyTorch: in-process modules (``compile_term``) and standalone files (``emit``).

Two realisations: the optimised straight-line one (default; :mod:`pybridge.torch.optimize`,
:mod:`pybridge.torch.straight`) and the literal tree of one module per constructor (``literal=True``).
"""

from pybridge.torch.compiler import Call, compile_term, realize

__all__ = ["Call", "compile_term", "realize"]
