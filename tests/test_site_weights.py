"""The weight presheaf W: functor laws, the forward pass natural in W, and Thm 1.1 (one SGD step restricts
to every W(x)); tied weights are the negative control."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch
from models_site import ALL, functional_weights, tied_autoencoder, tied_chain
from typer.testing import CliRunner

import pybridge.site.weights as weights_mod
from pybridge.cli import app
from pybridge.errors import SiteError
from pybridge.site.graph import extract
from pybridge.site.presheaf import model_outputs
from pybridge.site.weights import (
    FORWARD_RTOL,
    STEP_RTOL,
    ForwardCheck,
    WeightPresheaf,
    check_functor,
    forward_naturality,
    learning_naturality,
)

EXTRA = {
    "functional_weights": functional_weights,
    "tied_autoencoder": tied_autoencoder,
    "tied_chain": tied_chain,
}
FACTORIES = {**ALL, **EXTRA}
MODELS = str(Path(__file__).with_name("models_site.py"))


def _load(name: str) -> tuple[WeightPresheaf, torch.nn.Module, tuple[torch.Tensor, ...]]:
    m, x = FACTORIES[name]()
    x = x if isinstance(x, tuple) else (x,)
    return WeightPresheaf(extract(m, x, name, method="fx").normalized()), m, x


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_w_is_the_weights_below_x(name: str) -> None:
    W, m, _ = _load(name)
    # every parameter of the module is used by some layer, under its module name
    assert set(W.users) == {n for n, _ in m.named_parameters()}
    # oracle: θ_v ∈ W(x) iff the fork category C has a path rel(v) -> ... -> x (path count, not bitsets)
    site = W.site
    for x in W.poset.names:
        expected = {
            p
            for v, ps in W.uses.items()
            if site.count_paths(site.index[W.relation[v]], site.index[x]) > 0
            for p in ps
        }
        assert W.weights_at(x) == expected, x
    # the maximal objects (inputs, fork objects) together carry every weight; outputs carry none
    P = W.poset
    tops = [P.names[i] for i in range(P.n) if P.up[i] == 1 << i]
    assert frozenset().union(*(W.weights_at(t) for t in tops)) == frozenset(W.params)
    for o in W.graph.outputs:
        assert W.weights_at(o) == frozenset()


def test_parameter_attribution() -> None:
    W, _, _ = _load("functional_weights")
    assert W.uses == {"l1": ("l1.bias", "l1.weight"), "mul": ("gain",), "linear": ("b2", "w2")}
    assert W.relation == {"l1": "x", "mul": "tanh", "linear": "mul"}
    assert W.weights_at("tanh") == {"gain", "w2", "b2"} and not W.shared
    W, _, _ = _load("tied_autoencoder")  # enc.weight read by the decoder through the constant .t()
    assert W.shared == {"enc.weight": ("enc", "linear")}
    assert W.split_at("x") == () and W.split_at("enc") == ("enc.weight",)
    W, _, _ = _load("tied_chain")  # module aliasing: l3.weight is l1.weight, one canonical name
    assert W.shared == {"l1.weight": ("l1", "l3")} and "l3.weight" not in W.params
    W, _, _ = _load("residual")
    assert W.weights_at("x") == {"lin1.weight", "lin1.bias", "lin2.weight", "lin2.bias"}
    assert W.weights_at("lin1") == {"lin2.weight", "lin2.bias"} and W.weights_at("A[add]") == frozenset()


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_functor_laws(name: str) -> None:
    W, _, _ = _load(name)
    fc = check_functor(W)
    assert fc.ok and fc.worst == 0.0 and fc.relations == len(W.poset.covers) and fc.composites > 0


def test_functor_check_catches_a_non_projection() -> None:
    W, _, _ = _load("mlp")
    lo = W.poset.index["l3"]  # the output: W(l3) is empty; give it a weight its upper cover lacks
    W.names_at[lo] = frozenset({"l1.weight"})
    fc = check_functor(W)
    assert not fc.ok and fc.worst == float("inf") and fc.worst_at is not None
    with pytest.raises(SiteError):
        W.restrict("l3", "x", {})  # x <= l3 does not hold
    with pytest.raises(SiteError):
        W.restrict("relu_1", "l3", {})  # not an element of W(relu_1)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_forward_pass_is_natural_in_w(name: str) -> None:
    W, m, x = _load(name)
    fw = forward_naturality(W, m, x, seed=1)
    assert fw.ok and fw.tolerance == FORWARD_RTOL
    assert fw.relations >= len(W.poset.covers)
    # the random weights change the outputs: the reference is not the recorded forward pass
    xs = tuple(t.double() for t in x)
    moved = torch.func.functional_call(copy.deepcopy(m).double(), W.random_weights(1), xs)
    moved = moved if isinstance(moved, tuple) else (moved,)
    assert not torch.allclose(moved[0], model_outputs(m, x)[0])


def test_forward_check_catches_a_missing_weight() -> None:
    # drop l2's weights from W(relu) (= W(rel(l2))): the restriction map now reads NaN
    W, m, x = _load("mlp")
    i = W.poset.index[W.relation["l2"]]
    W.names_at[i] = W.names_at[i] - {"l2.weight"}
    fw = forward_naturality(W, m, x)
    assert not fw.ok and fw.worst_relation == float("inf") and fw.worst_relation_at == "relu -> l2"


@pytest.mark.parametrize("name", sorted(ALL) + ["functional_weights"])
def test_sgd_step_restricts_to_every_w_of_x(name: str) -> None:
    W, m, x = _load(name)
    rep = learning_naturality(W, m, x)
    assert rep.steps and rep.skipped == 0
    assert rep.ok and rep.worst_clean <= STEP_RTOL and rep.worst_natural_clean <= STEP_RTOL
    assert rep.worst_split is None and rep.worst_natural_split is None
    assert {s.element for s in rep.steps} == {n for n in W.poset.names if W.weights_at(n)}
    if not W.graph.joins:
        assert rep.closed == len(rep.steps) and rep.worst_without_message is None
    else:
        # some W(x) leaks into a join outside ↓x: there the loss alone does not give the step
        assert rep.worst_without_message is not None and rep.worst_without_message > 0.5


@pytest.mark.parametrize("name", ["tied_autoencoder", "tied_chain"])
def test_tied_weights_break_thm_1_1(name: str) -> None:
    W, m, x = _load(name)
    rep = learning_naturality(W, m, x)
    assert rep.worst_split is not None and rep.worst_split > 1e-2
    assert rep.worst_natural_split is not None and rep.worst_natural_split > 1e-2
    for s in rep.steps:  # it fails exactly where a shared parameter is split
        assert (s.residual > STEP_RTOL) == bool(s.split), s
    assert rep.ok  # the unsplit objects (the input) still satisfy it


def test_learning_step_is_the_whole_models_step() -> None:
    # an independent closed form at the last layer: W(relu_1) = {l3}, grad = (y - t)^T h / numel
    W, m, x = _load("mlp")
    rep = learning_naturality(W, m, x, lr=1.0)
    (last,) = [s for s in rep.steps if s.element == "relu_1"]
    assert last.params == 2 and last.closed and last.residual <= STEP_RTOL
    gen = torch.Generator().manual_seed(0)
    target = torch.randn(W.graph.values["l3"].shape, generator=gen, dtype=torch.float64)
    h, y = W.graph.values["relu_1"], W.graph.values["l3"]
    g_weight = (y - target).T @ h / y.numel()
    model = m.double()
    wg = {k: v.detach().clone().requires_grad_() for k, v in model.named_parameters()}
    loss = 0.5 * ((torch.func.functional_call(model, wg, (x[0].double(),)) - target) ** 2).mean()
    loss.backward()
    assert torch.allclose(wg["l3.weight"].grad, g_weight, rtol=1e-12, atol=1e-14)


def test_cli_rows() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["presheaf", f"{MODELS}:residual"])
    assert res.exit_code == 0, res.output
    assert "W: functor laws (9 covers, 4 composites)" in res.output
    assert "Thm 1.1 without the fork's message (control)" in res.output
    res = runner.invoke(app, ["presheaf", f"{MODELS}:tied_autoencoder"])
    assert res.exit_code == 0, res.output  # documented failures are reported, not asserted
    rows = {ln.split("  ")[1]: ln.split() for ln in res.output.splitlines() if ln.startswith("  ")}
    assert "fails" in rows["W = product over layers (control)"]
    assert "fails" in rows["Thm 1.1 at split shared weights (2 objects; control)"]
    assert "ok" in rows["Thm 1.1: SGD step on W(x), 1 obj, 1 closed"]


def test_cli_exit_9_when_a_weight_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> ForwardCheck:
        return ForwardCheck(1, 1.0, "x -> l1", 0.0, 0.0, FORWARD_RTOL)

    monkeypatch.setattr(weights_mod, "forward_naturality", broken)
    res = CliRunner().invoke(app, ["presheaf", f"{MODELS}:mlp"])
    assert res.exit_code == 9, res.output
    (line,) = [ln for ln in res.output.splitlines() if ln.startswith("  forward natural in W")]
    assert line.split()[-3] == "FAIL" and "1 check(s) failed" in res.output
