"""The fragment class and degree rule of every core ATen op (the graphs that ``torch.export`` captures).

The core ATen opset is the set of ATen operator overloads tagged ``torch.Tag.core``: the closed set
that ``ExportedProgram.run_decompositions()`` lowers every model to. :data:`CORE_RULES` gives each of
them (by overload packet name, ``addmm`` for ``aten.addmm.default``) a rule; ``tests`` enumerate the set
from PyTorch itself and fail on any op without one. :data:`EXTRA_RULES` covers the few non-core
operators that decomposed graphs still hold (``_assert_tensor_metadata``, ``cumsum`` overloads, ...).

A rule is ``(kind, reason)``. The kinds, with the class and the degree bound they give a node (``d`` is
the largest degree of the node's arguments that depend on the input):

* ``linear`` -- PL, degree ``d``: linear or affine in each argument and never a product of two of them
  (views, reshapes, concatenation, sums, means, pooling by averages, padding, FFT, upsampling);
* ``pl`` -- PL, degree ``d``, and the node *cuts pieces* where its arguments change order (``relu``,
  ``max``, ``clamp``, ``abs``, max-pooling);
* ``step`` -- discontinuous-PL, degree ``0``: piecewise constant (comparisons, ``sign``, ``round``,
  ``argmax``, logical and bitwise ops); its arguments' degree is the degree of the surfaces that cut;
* ``jump`` -- discontinuous-PL, degree ``d``: piecewise linear with jumps (``remainder``, ``fmod``);
* ``index`` -- indexing, gathering or scattering: PL (structural) when the index does not depend on the
  input, discontinuous-PL (indexing by a computed index) when it does; degree of the indexed values;
* ``where`` -- selection by a condition: PL for a constant condition, discontinuous-PL otherwise;
* ``product`` -- a product of its arguments (``mul``, ``mm``, ``bmm``, ``addmm``, ``convolution``):
  degree the sum of the factors' degrees, bilinear when two factors depend on the input, PL when at most
  one does (a constant or piecewise-constant factor);
* ``div`` -- division: linear by a constant or piecewise-constant divisor, rational (transcendental,
  not polynomial) by an activation;
* ``pow`` -- a power: an integer power ``k`` has degree ``k·d``; any other power is transcendental;
* ``square`` -- degree ``2d`` (``var``: the mean of squared deviations, a quadratic polynomial);
* ``prod`` -- the product of the entries: a polynomial of degree ``n·d`` for ``n`` reduced entries;
* ``transcendental`` -- not piecewise polynomial (``exp``, ``sigmoid``, ``softmax``, norms, ``sqrt``);
* ``create`` -- tensor creation or a constant (``full``, ``arange``, ``empty``, ``rand``): degree ``0``, the
  value does not depend on the input's values (at most on its shape);
* ``static`` -- shape and metadata (``sym_size``, assertions): no value of the input flows through it.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["linear", "pl", "step", "jump", "index", "where", "product", "div", "pow", "square", "prod",
               "transcendental", "create", "static"]


def _rules(kind: Kind, reason: str, names: str) -> dict[str, tuple[Kind, str]]:
    return {n: (kind, reason) for n in names.split()}


#: The rule of each core ATen op, by overload packet name.
CORE_RULES: dict[str, tuple[Kind, str]] = {
    **_rules("linear", "structural (view, reshape, slice, concatenation, copy)",
             "alias as_strided cat clone copy diagonal expand flip permute repeat select slice "
             "split_with_sizes squeeze unsqueeze view _to_copy select_scatter slice_scatter"),
    **_rules("linear", "linear (sum, mean, difference, negation)", "add sub neg sum mean cumsum"),
    **_rules("linear", "linear (padding)",
             "constant_pad_nd reflection_pad1d reflection_pad2d reflection_pad3d replication_pad2d "
             "replication_pad3d"),
    **_rules("linear", "linear (average pooling, interpolation, folding)",
             "avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d _adaptive_avg_pool2d _adaptive_avg_pool3d "
             "upsample_bilinear2d "
             "upsample_nearest2d col2im avg_pool2d_backward _adaptive_avg_pool2d_backward"),
    **_rules("linear", "linear (discrete Fourier transform)", "_fft_r2c _fft_c2r"),
    **_rules("linear", "reads a scalar out of a tensor (.item())", "_local_scalar_dense"),
    **_rules("linear", "dropout: the input times a random mask (linear in the input)", "native_dropout"),
    **_rules("linear", "batch norm with fixed statistics (an affine map)",
             "_native_batch_norm_legit_no_training"),
    **_rules("linear", "fill with a tensor value", "fill"),
    **_rules("pl", "piecewise-linear nonlinearity (continuous)",
             "relu hardtanh leaky_relu clamp abs maximum minimum amax amin max min"),
    **_rules("pl", "max-pooling (continuous PL; the indices output is piecewise constant)",
             "max_pool2d_with_indices max_pool3d_with_indices"),
    **_rules("pl", "sorting (values continuous PL; the indices output is piecewise constant)", "sort topk"),
    **_rules("step", "piecewise constant in the input (jumps)",
             "argmax argmin sign round floor ceil trunc eq ne gt ge lt le isinf isnan any nonzero "
             "logical_and logical_or logical_not logical_xor bitwise_and bitwise_or bitwise_not bitwise_xor"),
    **_rules("jump", "piecewise linear with jumps (sawtooth)", "remainder fmod"),
    **_rules("index", "indexing, gathering or scattering",
             "index index_select gather embedding _embedding_bag index_put scatter scatter_add "
             "scatter_reduce masked_scatter embedding_dense_backward max_pool2d_with_indices_backward"),
    **_rules("where", "selection by a condition", "where"),
    **_rules("product", "product of its arguments", "mul mm bmm addmm convolution grid_sampler_2d"),
    **_rules("product", "gradient of a convolution (products of the gradient and the activations)",
             "convolution_backward"),
    **_rules("div", "division", "div"),
    **_rules("pow", "power", "pow"),
    **_rules("square", "variance: the mean of squared deviations (a quadratic polynomial)", "var"),
    **_rules("prod", "product of the entries (a polynomial)", "prod"),
    **_rules("transcendental", "transcendental or rational function",
             "exp expm1 log log10 log1p log2 sigmoid tanh sin cos tan asin acos atan atan2 sinh cosh asinh "
             "acosh atanh erf sqrt rsqrt reciprocal elu gelu _softmax _log_softmax _cdist_forward "
             "_pdist_forward"),
    **_rules("transcendental", "normalisation with computed statistics (division by a square root)",
             "native_layer_norm native_group_norm _native_batch_norm_legit native_layer_norm_backward "
             "native_group_norm_backward"),
    **_rules("create", "tensor creation (a constant: degree 0)",
             "empty empty_strided full full_like arange scalar_tensor"),
    **_rules("create", "random tensor (independent of the input's values: degree 0)", "rand randn randperm"),
    **_rules("static", "shape or metadata (no value flows)",
             "sym_size sym_numel sym_stride sym_storage_offset sym_is_contiguous"),
    **_rules("linear", "resize in place (kept entries unchanged; new entries are uninitialised memory)",
             "resize_"),
}

#: Non-core operators that decomposed graphs still hold, and ``operator.getitem``.
EXTRA_RULES: dict[str, tuple[Kind, str]] = {
    **_rules("static", "assertion or shape constraint (no value flows)",
             "_assert_tensor_metadata _assert_scalar _assert_async sym_constrain_range_for_size "
             "sym_constrain_range"),
    **_rules("create", "tensor creation (a constant: degree 0)",
             "zeros zeros_like ones ones_like empty_like new_zeros new_ones new_full new_empty "
             "lift_fresh_copy"),
    **_rules("linear", "structural (view, reshape, copy)",
             "_unsafe_view reshape t transpose contiguous detach lift_fresh unbind split chunk flatten "
             "unflatten expand_as view_as"),
    **_rules("linear", "linear or affine", "linear rsub"),
    **_rules("product", "product of its arguments", "matmul baddbmm einsum"),
    **_rules("transcendental", "transcendental or rational function",
             "silu softmax log_softmax layer_norm rms_norm _fused_rms_norm scaled_dot_product_attention"),
}

#: Argument positions of the index (or mask, or condition) of ``index`` ops, by packet name.
INDEX_ARGUMENT = {
    "index": 1, "index_select": 2, "gather": 2, "embedding": 1, "_embedding_bag": 1, "index_put": 1,
    "scatter": 2, "scatter_add": 2, "scatter_reduce": 2, "masked_scatter": 1, "embedding_dense_backward": 1,
    "max_pool2d_with_indices_backward": 7,
}


def core_aten_names() -> frozenset[str]:
    """Overload packet names of every ATen op that has an overload tagged ``torch.Tag.core``."""
    import torch

    names = set()
    # every registered ATen schema (``dir(torch.ops.aten)`` lists only the packets loaded so far)
    packets = {op.split("::", 1)[1].split(".", 1)[0] for op in torch._C._dispatch_get_all_op_names()
               if op.startswith("aten::")}
    for name in sorted(packets):
        try:
            packet = getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            continue
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                names.add(name)
                break
    return frozenset(names)


def rule(packet: str) -> tuple[Kind, str] | None:
    """The rule of an ATen op by packet name (``None``: no rule)."""
    return CORE_RULES.get(packet) or EXTRA_RULES.get(packet)


__all__ = ["CORE_RULES", "EXTRA_RULES", "INDEX_ARGUMENT", "Kind", "core_aten_names", "rule"]
