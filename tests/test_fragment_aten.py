"""The core ATen opset is classified completely, and the export path classifies the fragment models."""

from __future__ import annotations

import pytest
import torch
from models_fragment import MODELS
from torch import nn

from pybridge.capture import capture
from pybridge.fragment.aten import CORE_RULES, EXTRA_RULES, core_aten_names
from pybridge.fragment.classify import classify_captured

KINDS = {"linear", "pl", "step", "jump", "index", "where", "product", "div", "pow", "square", "prod",
         "transcendental", "create", "static"}


def test_every_core_aten_op_has_a_rule() -> None:
    core = core_aten_names()  # from PyTorch itself: ops with an overload tagged torch.Tag.core
    assert len(core) >= 150 and {"addmm", "convolution", "_softmax", "full", "argmax"} <= core
    missing = sorted(core - set(CORE_RULES))
    assert missing == [], f"core ATen ops without a rule: {missing}"
    assert set(CORE_RULES) - core == set(), "a CORE_RULES entry that is not core ATen"
    assert not set(CORE_RULES) & set(EXTRA_RULES)
    assert {kind for kind, _ in [*CORE_RULES.values(), *EXTRA_RULES.values()]} <= KINDS
    for name in ("full", "arange", "empty", "scalar_tensor", "full_like", "rand"):
        assert CORE_RULES[name][0] == "create"  # tensor creation and constants: degree 0


@pytest.mark.parametrize("name", sorted(MODELS))
def test_exported_fragment_models_match_their_labels(name: str) -> None:
    factory, expected_cls, expected_degree = MODELS[name]
    model, x = factory()
    cap = capture(model, (x,), name)
    assert cap.method == "torch.export"
    c = classify_captured(cap, (x,), name)
    assert c.source == "export" and c.verdict.cls == expected_cls
    if expected_cls == "bilinear":
        assert c.verdict.degree == expected_degree
    assert all(n.cls != "unknown" for n in c.nodes)
    assert (c.verdict.offending == ()) == (expected_cls == "PL")


def test_degree_rules_on_core_aten() -> None:
    class Poly(nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return x.var(-1), x.prod(-1), x.pow(3), torch.where(x > 0, x, 2 * x), x / 4

    x = torch.randn(2, 3)
    c = classify_captured(capture(Poly(), (x,), "poly"), (x,), "poly")
    by_op = {}
    for n in c.nodes:
        by_op.setdefault(n.op, []).append((n.cls, n.degree))
    assert by_op["aten.prod"] == [("bilinear", 3)]  # 3 factors of degree 1
    assert by_op["aten.pow"][0] == ("bilinear", 3)
    assert ("discontinuous-PL", 0) in by_op["aten.gt"] and by_op["aten.where"] == [("discontinuous-PL", 1)]
    assert c.verdict.cls == "bilinear" and c.verdict.degree == 3


def test_custom_op_is_named_as_such() -> None:
    @torch.library.custom_op("pybridge_test::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return 2 * x

    @twice.register_fake
    def _(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

    class UsesCustom(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(torch.ops.pybridge_test.twice(x))

    x = torch.randn(3)
    c = classify_captured(capture(UsesCustom(), (x,), "custom"), (x,), "custom")
    (row,) = [n for n in c.nodes if n.cls == "unknown"]
    assert row.op == "custom:pybridge_test::twice" and "custom op" in row.reason
