"""Model capture (``pybridge.capture``) and the three gaps of issue 11, each on a model written for it."""

from __future__ import annotations

import pytest
import torch
from models_gaps import elman_zero_state, graph_network, hard_attention
from models_site import untraceable
from torch import nn

from pybridge.capture import KeywordInputs, capture
from pybridge.errors import TargetError
from pybridge.fragment.classify import classify_captured, classify_module
from pybridge.fragment.probe import probe
from pybridge.fragment.report import agree
from pybridge.targets import load_target


def test_export_graph_signature_and_core_aten() -> None:
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()).eval()
    cap = capture(model, (torch.randn(2, 3),), "bn")
    assert cap.method == "torch.export" and cap.export_error is None
    assert cap.parameters == ("0.weight", "0.bias", "1.weight", "1.bias")
    assert cap.buffers == ("1.running_mean", "1.running_var", "1.num_batches_tracked")
    assert cap.user_inputs == ("input_1",)
    targets = {str(n.target) for n in cap.gm.graph.nodes if n.op == "call_function"}
    assert targets == {"aten.permute.default", "aten.addmm.default", "<built-in function getitem>",
                       "aten._native_batch_norm_legit_no_training.default",
                       "aten.relu.default"}
    attrs = {str(n.target) for n in cap.gm.graph.nodes if n.op == "get_attr"}
    assert attrs == set(cap.parameters) | set(cap.buffers)


def test_unexportable_model_is_one_line_naming_export_error_and_what_to_try() -> None:
    model, x = untraceable()
    with pytest.raises(TargetError) as err:
        capture(model, (x,), "branchy", method="export")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("branchy: torch.export cannot capture the model (GuardOnDataDependentSymNode")
    assert "strict=False" in msg and "torch.export.Dim" in msg and "wrapper" in msg


class _NumpyPeek(nn.Module):
    """Reads its input's data through NumPy: fine for fx (a recorded call), impossible for export."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.numpy()
        return torch.relu(x) * 2


def test_fx_is_the_named_fallback() -> None:
    x = torch.randn(3)
    with pytest.raises(TargetError, match="torch.export cannot capture"):
        capture(_NumpyPeek(), (x,), "peek", method="export")
    cap = capture(_NumpyPeek(), (x,), "peek")
    assert cap.method == "torch.fx" and cap.opset == "torch functions"
    assert cap.export_error is not None and "\n" not in cap.export_error
    c = classify_captured(cap, (x,), "peek")
    # fx reads torch-level calls; .numpy() has no rule there, and is reported rather than guessed
    assert c.source == "fx" and c.verdict.cls == "unknown"
    assert [n.op for n in c.nodes if n.cls == "unknown"] == ["call_method:numpy"]


def test_dict_inputs_become_keyword_inputs_with_fixed_non_tensors(tmp_path) -> None:
    src = tmp_path / "kw.py"
    src.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.emb = torch.nn.Embedding(5, 3); self.lin = torch.nn.Linear(3, 2)\n"
        "    def forward(self, input_ids=None, inputs_embeds=None, scale=1.0):\n"
        "        return self.lin(inputs_embeds + self.emb(input_ids)) * scale\n"
        "def f():\n"
        "    torch.manual_seed(0)\n"
        "    return M(), {'input_ids': torch.tensor([[0, 4, 2]]), 'inputs_embeds': torch.randn(1, 3, 3),"
        " 'scale': 2.0}\n"
    )
    tgt = load_target(f"{src}:f")
    assert isinstance(tgt.module, KeywordInputs) and tgt.module.names == ("input_ids", "inputs_embeds")
    assert tgt.module.fixed == {"scale": 2.0}
    inner = tgt.module.model
    want = inner(input_ids=tgt.inputs[0], inputs_embeds=tgt.inputs[1], scale=2.0)
    assert torch.equal(tgt.module(*tgt.inputs), want)
    cap = capture(tgt.module, tgt.inputs, tgt.name)
    c = classify_captured(cap, tgt.inputs, tgt.name)
    # the ids are held fixed: the embedding lookup is by a constant index, so the model is PL
    assert c.verdict.cls == "PL" and c.verdict.degree == 1
    p = probe(tgt.module, tgt.inputs, name=tgt.name)
    assert p.cls == "PL" and agree(c, p)


# --- the three gaps ------------------------------------------------------------------------------------


def test_graph_network_input_has_no_batch_axis() -> None:
    model, x = graph_network()
    with pytest.raises(RuntimeError):  # what the old probe did: stack points along the first axis
        model(torch.cat([x, x]))
    p = probe(model, (x,), name="gnn")
    assert p.batched  # vmap agreed with the point-by-point loop, so the grid ran batched
    c = classify_captured(capture(model, (x,), "gnn"), (x,), "gnn")
    assert c.verdict.cls == p.cls == "PL" and c.verdict.degree == p.degree == 1 and agree(c, p)
    # the batched values are the model's own, point by point (independent reference: direct calls)
    from pybridge.fragment.probe import _Evaluator

    gen = torch.Generator().manual_seed(5)
    v = torch.randint(-8, 9, x.shape, generator=gen).double() / 8
    m64, x64 = model.double(), x.double()
    ev = _Evaluator(m64, [x64], "gnn")
    ts = torch.tensor([-1.0, 0.0, 0.5, 2.0], dtype=torch.float64)
    got = ev.values([v], ts)
    want = torch.stack([m64(x64 + float(t) * v).reshape(-1) for t in ts])
    assert ev.batched and torch.allclose(got, want, rtol=1e-12, atol=1e-12)


def test_not_batch_polymorphic_model_is_probed_point_by_point() -> None:
    class ItemScale(nn.Module):  # .item() cannot run under vmap
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x) * float(x.new_ones(()).item())

    p = probe(ItemScale(), (torch.randn(3),), lines=1, fine_exponent=6, name="item")
    assert not p.batched and p.cls == "PL"


def test_relu_rnn_from_a_zero_state_is_pl() -> None:
    model, x = elman_zero_state()
    c = classify_captured(capture(model, (x,), "rnn"), (x,), "rnn")
    p = probe(model, (x,), name="rnn")
    assert c.verdict.cls == "PL" and c.verdict.offending == () and p.cls == "PL" and agree(c, p)
    assert not any(n.cls == "unknown" for n in c.nodes)


def test_tensor_creation_is_degree_zero_in_fx_graphs_too() -> None:
    class ZeroStart(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = x.new_zeros(x.shape) + torch.zeros_like(x)
            return torch.relu(self.lin(x) + h)

    c = classify_module(ZeroStart(), 1, "zero")
    assert c.verdict.cls == "PL" and all(n.cls != "unknown" for n in c.nodes)


def test_hard_attention_is_curved_pl_and_agrees_with_the_probe() -> None:
    model, x = hard_attention()
    c = classify_captured(capture(model, (x,), "hard"), (x,), "hard")
    v = c.verdict
    assert v.cls == "curved-PL" and v.degree == 1
    assert v.explanation is not None and "quadrics" in v.explanation and "not semilinear" in v.explanation
    ops = {n.node: n.op for n in c.nodes}
    assert sorted(ops[o] for o in v.offending) == ["aten.argmax", "aten.bmm", "aten.gather"]
    p = probe(model, (x,), name="hard")
    assert p.cls == "discontinuous-PL" and p.jump_ratio > 0.9 and agree(c, p)
    # fx reads the same model the same way
    assert classify_module(model, (x,), "hard").verdict.cls == "curved-PL"
