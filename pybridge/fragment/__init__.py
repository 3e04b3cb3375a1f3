"""The piecewise-linear fragment: which nodes take a model out of it, by syntax and by measurement.

:mod:`pybridge.fragment.classify` reads ``Formal.Arch`` terms and ``torch.fx`` graphs node by node;
:mod:`pybridge.fragment.probe` measures finite differences along random dyadic lines;
:mod:`pybridge.fragment.report` puts both together (``pybridge fragment``) and renders the README's
claims block.
"""

from pybridge.fragment.classify import Classification, FragmentClass, classify_module, classify_term
from pybridge.fragment.probe import ProbeResult, probe

__all__ = ["Classification", "FragmentClass", "ProbeResult", "classify_module", "classify_term", "probe"]
