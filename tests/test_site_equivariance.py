"""Per-layer equivariance defects under circular shifts and 90° rotations, with dtype tolerances."""

from __future__ import annotations

import pytest
import torch
from models_site import circular, convnet, unet

from pybridge.errors import UsageError
from pybridge.site.equivariance import TOLERANCE, equivariance_report, layer_defects
from pybridge.site.graph import extract


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_circular_convnet_is_shift_equivariant(dtype: torch.dtype) -> None:
    m, x = circular()
    rows, whole = equivariance_report(m, (x,), "shift", dtype=dtype, method="fx")
    assert [r.layer for r in rows] == ["c1", "tanh", "c2"]
    assert all(r.defect is not None and r.defect <= TOLERANCE[dtype] for r in rows)
    assert whole is not None and whole.kind == "equivariance" and whole.defect <= TOLERANCE[dtype]


def test_rot90_breaks_generic_kernels_but_not_pointwise_maps() -> None:
    m, x = circular()
    rows = {r.layer: r for r in equivariance_report(m, (x,), "rot90", method="fx")[0]}
    assert rows["tanh"].equivariant is True
    assert rows["c1"].defect is not None and rows["c1"].defect > 0.1


def test_zero_padding_and_strided_pooling() -> None:
    m, x = convnet()
    rows = {r.layer: r for r in layer_defects(extract(m, (x,), method="fx"), "shift")}
    assert rows["c1"].defect is not None and rows["c1"].defect > 1e-3  # zero padding breaks shifts
    assert rows["pool"].defect is None  # a stride-2 pool has no action for a 1-pixel shift
    rows2 = {r.layer: r for r in layer_defects(extract(m, (x,), method="fx"), "shift", step=2)}
    assert rows2["pool"].equivariant is True  # ... and commutes with 2-pixel shifts
    m, x = unet()
    rows = {r.layer: r for r in layer_defects(extract(m, (x,), method="fx"), "rot90")}
    assert rows["up"].equivariant is True and rows["cat"].equivariant is True


def test_unknown_group() -> None:
    m, x = circular()
    with pytest.raises(UsageError):
        equivariance_report(m, (x,), "flip")
