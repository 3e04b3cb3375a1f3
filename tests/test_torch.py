"""The compiler: every Zoo layer against an independent reference, autograd, torch.compile, CUDA."""

from __future__ import annotations

import pytest
import torch

from pybridge.errors import BridgeError, ShapeError
from pybridge.laws import references
from pybridge.laws.checks import (
    EXACT_NAME,
    TOLERANCE,
    build_counterpart,
    check_layer,
    configurations,
    leaf_pairs,
)
from pybridge.torch import compile_term
from pybridge.torch.compiler import leaf_count
from pybridge.torch.optimize import LAX_TOLERANCE
from pybridge.zoo import info, instantiate, layer_names

ZOO = layer_names()
#: Zoo layers whose Lean definitions have the hypothesis ``h_even : 2 ∣ head_dim``.
EVEN_HEAD_DIM = {"rotary", "gqa", "llamaDecoderLayer"}
#: Layers whose transformers reference is faithful in float32 only (it declares bridge_dtypes): ``check``
#: compares them with it in float32 and with the exact interpreter of Arch.eval in float64; their own tests
#: also compare float64 with hand-written float64 references.
FLOAT32_ONLY = {
    "rmsNorm": "LlamaRMSNorm casts its input to float32 (tests/test_references_hf.py)",
    "rotary": "LlamaRotaryEmbedding's angles are float32 (tests/test_llama_layers.py)",
    "gqa": "float32 angles and eager softmax in transformers (tests/test_llama_layers.py)",
    "llamaDecoderLayer": "float32 RMSNorm, angles and eager softmax (tests/test_llama_layers.py)",
}


@pytest.mark.parametrize("name", ZOO)
def test_layer_matches_reference(name: str) -> None:
    """float64 ≤ 1e-10 and float32 ≤ 1e-5, over the example, smallest and odd parameter sets, batch 1
    and 3, sequence length 1 and 4 (the smallest attention config has one head)."""
    results = check_layer(name)
    assert {r.dtype for r in results} == {"float64", "float32"}
    assert {r.batch for r in results} == {1, 3}
    configs = configurations(name)
    assert {r.config for r in results} == set(configs) >= {"example", "minimal"}
    # distinct odd dimensions exist unless a hypothesis asks for an even one (h_even : 2 ∣ head_dim)
    assert "odd" in configs or name in EVEN_HEAD_DIM
    assert {r.realisation for r in results} == {"optimised", "literal", "optimised vs literal"}
    for r in results:
        if r.realisation == "optimised vs literal":  # bit-identical (0) or, under a lax law, LAX_TOLERANCE
            assert r.tolerance in (0.0, LAX_TOLERANCE[getattr(torch, r.dtype)])
        else:
            assert r.tolerance == TOLERANCE[getattr(torch, r.dtype)]
        assert r.passed, f"{r}"
    cross = "optimised vs literal"
    refs64 = {r.reference for r in results if r.dtype == "float64" and r.realisation != cross}
    if name in FLOAT32_ONLY or not info(name).counterparts:
        # no counterpart, or its Reference: module is compared in float32 only: float64 against Arch.eval
        assert refs64 == {EXACT_NAME}
    else:
        assert refs64 and EXACT_NAME not in refs64


def test_configurations_cover_one_head_and_odd_dimensions() -> None:
    att = configurations("attention")
    assert att["minimal"]["heads"] == 1
    assert all(v % 2 == 1 for v in att["odd"].values())
    assert att["odd"]["d_model"] % att["odd"]["heads"] == 0


def test_sequence_layers_run_at_length_one() -> None:
    results = check_layer("encoderBlock", {"d_model": 6, "heads": 3, "d_ff": 7}, seqs=(1,), batches=(1,))
    assert [(r.batch, r.seq) for r in results] == [(1, 1)] * 6  # 2 dtypes × 3 comparisons
    assert all(r.passed for r in results)


@pytest.mark.parametrize(
    ("expr", "params", "error", "message"),
    [
        (
            "torch.nn.MultiheadAttention(d, h, batch_first=True)",
            {"d": 0, "h": 1},
            ShapeError,
            "rejects the parameters d=0 h=1",
        ),
        ("torch.nn.Linear(d * 0.5, 2)", {"d": 4}, BridgeError, "not integer arithmetic"),
        ("torch.nn.Linear(d // 0, 2)", {"d": 4}, BridgeError, "not integer arithmetic"),
        ("torch.nn.Linear(d, 2, frobnicate=True)", {"d": 4}, ShapeError, "rejects the parameters d=4"),
        ("torch.nn.Conv2d(d, 2, 3)", {"d": 4}, BridgeError, "not an allowed torch.nn class"),
    ],
)
def test_a_bad_counterpart_is_a_one_line_error(
    expr: str, params: dict[str, int], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as info:
        build_counterpart(expr, params, torch.float64)
    assert "\n" not in str(info.value)


def test_a_wrong_weight_is_caught() -> None:
    """Negative control: the same comparison fails once one weight of our layer is perturbed."""
    term, sig = instantiate("mlp", {"d_in": 3, "d_hidden": 5, "d_out": 2})
    ref = build_counterpart(
        "torch.nn.Sequential(torch.nn.Linear(d_in, d_hidden), torch.nn.ReLU(), "
        "torch.nn.Linear(d_hidden, d_out))",
        {"d_in": 3, "d_hidden": 5, "d_out": 2},
        torch.float64,
    )
    ours = compile_term(term, dtype=torch.float64)
    from pybridge.torch import adapters, runtime

    runtime.load_leaves(ours, adapters.from_sequential(ref))
    x = torch.randn(4, 3, dtype=torch.float64)
    assert (ours(x) - ref(x)).abs().max() <= 1e-12
    with torch.no_grad():
        runtime._leaves(ours)[1].bias[0] += 1e-3
    assert (ours(x) - ref(x)).abs().max() > 1e-4


def test_hyper_linear_reference_is_independent() -> None:
    """The hand-written reference against a loop written from the definition y_o = Σ_i W(x)_{o,i} x_i."""
    term, _ = instantiate("hyperLinear", {"d_in": 3, "d_out": 2})
    ours = compile_term(term, dtype=torch.float64)
    ((a_w, a_b),) = leaf_pairs(ours)
    x = torch.randn(5, 3, dtype=torch.float64)
    loop = torch.zeros(5, 2, dtype=torch.float64)
    for b in range(5):
        w = (a_w @ x[b] + a_b).reshape(2, 3)
        for o in range(2):
            loop[b, o] = sum(w[o, i] * x[b, i] for i in range(3))
    assert torch.allclose(references.hyper_linear(x, [(a_w, a_b)], {"d_out": 2}), loop, atol=1e-12)
    assert torch.allclose(ours(x), loop, atol=1e-12)


def test_moe_routes_each_sample_to_one_expert() -> None:
    term, _ = instantiate("moe", {"d": 2, "experts": 3})
    ours = compile_term(term, dtype=torch.float64)
    pairs = leaf_pairs(ours)
    assert len(pairs) == 1 + 3 == leaf_count(term)
    x = torch.randn(16, 2, dtype=torch.float64)
    tags = (x @ pairs[0][0].T + pairs[0][1]).argmax(-1)
    for i in range(16):
        w, b = pairs[1 + int(tags[i])]
        assert torch.allclose(ours(x)[i], w @ x[i] + b)


@pytest.mark.parametrize("name", ZOO)
def test_gradients_flow_and_match_finite_differences(name: str) -> None:
    term, sig = instantiate(name, configurations(name)["minimal"] | {d: 2 for d in info(name).runtime_dims})
    torch.manual_seed(0)
    module = compile_term(term, dtype=torch.float64)
    shape = [2] + [d for d in sig.dom.dims]  # type: ignore[union-attr]
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(module, (x,), eps=1e-6, atol=1e-6)
    if name == "moe":  # the routing (argmax) has no gradient: the router's weights get none
        module(x).sum().backward()
        assert x.grad is not None and torch.isfinite(x.grad).all()
        return
    module(x).sum().backward()
    assert all(p.grad is not None for p in module.parameters())


def test_moe_gradcheck_between_routing_boundaries() -> None:
    """With several experts, the hard-routed layer is smooth in x wherever no sample is near a tie of
    router logits; gradcheck holds there (the minimal configuration above has a single expert)."""
    term, _ = instantiate("moe", {"d": 3, "experts": 3})
    torch.manual_seed(0)
    module = compile_term(term, dtype=torch.float64)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    (router_w, router_b), *_ = leaf_pairs(module)
    top2 = (x.detach() @ router_w.T + router_b).topk(2, dim=-1).values
    assert (top2[:, 0] - top2[:, 1]).min() > 1e-4  # no tie within the finite-difference step
    assert len(set((x.detach() @ router_w.T + router_b).argmax(-1).tolist())) > 1  # routing matters
    assert torch.autograd.gradcheck(module, (x,), eps=1e-6, atol=1e-6)


def test_torch_compile_gives_the_same_values() -> None:
    term, sig = instantiate("attention", {"d_model": 4, "heads": 2})
    torch.manual_seed(0)
    module = compile_term(term, dtype=torch.float32).eval()
    compiled = torch.compile(module, backend="aot_eager", fullgraph=True)
    x = torch.randn(2, 3, 4)
    assert torch.allclose(compiled(x), module(x), atol=1e-6)


def test_float_dtypes_are_respected() -> None:
    term, _ = instantiate("glu", {"d_in": 2, "d_out": 2})
    for dtype in (torch.float32, torch.float64):
        module = compile_term(term, dtype=dtype)
        assert {p.dtype for p in module.parameters()} == {dtype}
        assert module(torch.randn(1, 2, dtype=dtype)).dtype == dtype


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("name", ZOO)
def test_layer_on_cuda_matches_cpu(name: str) -> None:
    term, sig = instantiate(name, configurations(name)["example"] | {d: 5 for d in info(name).runtime_dims})
    torch.manual_seed(0)
    cpu = compile_term(term, dtype=torch.float64)
    gpu = compile_term(term, dtype=torch.float64, device="cuda")
    gpu.load_state_dict(cpu.state_dict())
    x = torch.randn([3] + list(sig.dom.dims), dtype=torch.float64)  # type: ignore[union-attr]
    assert (gpu(x.cuda()).cpu() - cpu(x)).abs().max() <= 1e-10


def test_torch_compile_inductor_on_hard_routing() -> None:
    """The default backend (inductor) compiles the data-dependent routing of `moe` without graph breaks.
    Compiled, the copair runs its masked form; eager, by dispatch (a lax law): equal within
    LAX_TOLERANCE."""
    term, _ = instantiate("moe", {"d": 4, "experts": 3})
    torch.manual_seed(0)
    module = compile_term(term).eval()
    compiled = torch.compile(module, fullgraph=True)
    x = torch.randn(5, 4)
    assert (compiled(x) - module(x)).abs().max().item() <= LAX_TOLERANCE[torch.float32]
