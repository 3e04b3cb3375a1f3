"""The activity presheaf: the forward pass is a section; unique from the inputs on the normal form;
not unique on the raw residual site (the negative control)."""

from __future__ import annotations

import pytest
import torch
from models_site import ALL, inplace_alias, residual

from pybridge.site.graph import extract
from pybridge.site.presheaf import SECTION_RTOL, ActivityPresheaf, check_section, model_outputs, propagate


def _load(factory):
    m, x = factory()
    x = x if isinstance(x, tuple) else (x,)
    return extract(m, x, factory.__name__, method="fx"), m, x


@pytest.mark.parametrize("name", sorted(ALL) + ["inplace_alias"])
def test_forward_pass_is_the_unique_section(name: str) -> None:
    g, m, x = _load(ALL.get(name, inplace_alias))
    g = g.normalized()
    pre = ActivityPresheaf(g)
    assert check_section(pre, pre.recorded()).ok
    prop = propagate(pre, {n: g.values[n] for n in g.inputs}, reference=model_outputs(m, x))
    assert prop.unique and prop.free == ()
    assert prop.section.ok
    assert prop.reproduces_model is not None and prop.reproduces_model <= SECTION_RTOL


def test_section_check_detects_a_wrong_activation() -> None:
    g, _, _ = _load(residual)
    pre = ActivityPresheaf(g.normalized())
    family = pre.recorded()
    family["relu"] = family["relu"] + 1e-3
    sec = check_section(pre, family)
    assert not sec.ok and sec.worst > 1e-6


def test_negative_control_raw_residual_site() -> None:
    g, m, x = _load(residual)
    pre = ActivityPresheaf(g)  # raw: f(s) <= A is not a covering relation
    assert check_section(pre, pre.recorded()).ok  # the forward pass is still a section ...
    prop = propagate(pre, {"x": g.values["x"]}, reference=model_outputs(m, x))
    assert not prop.unique  # ... but the inputs do not determine it
    assert prop.free == ("A[add] factor 0 (lin2)",)
    assert prop.section.ok and prop.alternative_section is not None and prop.alternative_section.ok
    assert prop.alternative_output_gap is not None and prop.alternative_output_gap > 0.1


def test_raw_densenet_has_one_free_factor_per_join() -> None:
    g, _, _ = _load(ALL["densenet"])
    prop = propagate(ActivityPresheaf(g), {"x": g.values["x"]})
    assert not prop.unique and len(prop.free) == 4


def test_model_outputs_are_float64() -> None:
    m, x = residual()
    (out,) = model_outputs(m, (x,))
    assert out.dtype == torch.float64
