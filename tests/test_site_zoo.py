"""Every Zoo layer goes through the site commands: its Lean term compiled, traced and analysed."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.spec.terms import walk
from pybridge.zoo import instantiate, layer_names

runner = CliRunner()


@pytest.mark.parametrize("name", layer_names())
def test_site_and_presheaf_on_zoo_layers(name: str) -> None:
    site = runner.invoke(app, ["site", name])
    assert site.exit_code == 0, site.output
    assert "C thin (Prop. 1.1(i)): yes" in site.stdout
    presheaf = runner.invoke(app, ["presheaf", name])
    assert presheaf.exit_code == 0, presheaf.output
    lines = presheaf.stdout.splitlines()
    term = instantiate(name)[0]
    weighted = any(t.kind in ("linear", "layerNorm", "rmsNorm") for t in walk(term))
    rows = ["recorded activations form a section", "that section reproduces model(x)", "forward natural in W"]
    # a layer without weights has no SGD step: the row says n/a (read off the term)
    rows.append("Thm 1.1: step natural along covers" if weighted else "Thm 1.1: SGD step on W(x)")
    for row in rows:
        line = next(line for line in lines if row in line)
        assert (" ok " if weighted or not row.startswith("Thm") else " n/a ") in line, line
    # where a tensor is read twice, the gradients of its readers add up (chains have no such row)
    sum_rule = [line for line in lines if "(sum rule)" in line]
    assert all(" ok " in line for line in sum_rule)
    # A tensor is read twice exactly where the Lean term copies it (`Arch.copy`), or where a primitive's
    # realisation reads its input twice (`rmsNorm`: `x * rsqrt(mean(x²) + eps)` reads x for x² and for
    # the product; `rope`: x·cos θ and the rotated x·sin θ): read off the term.
    copies = any(t.kind in ("copy", "rmsNorm", "rope") for t in walk(term))
    assert bool(sum_rule) == copies
    assert "Traceback" not in presheaf.output
