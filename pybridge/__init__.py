"""topos-bridge: the Python side of a Lean 4 formalisation of categorical deep learning.

The Lean library (``Formal/``) is the single source of truth for the layers; this package reads it
(``pybridge.lean``), type-checks the layer terms (``pybridge.spec``), realises them as PyTorch modules
and standalone source files (``pybridge.torch``), and checks them numerically (``pybridge.laws``).
"""

__version__ = "0.1.0"
