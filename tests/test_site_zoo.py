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
    rows.append("Thm 1.1: SGD step on W(x)")
    for row in rows:
        line = next(line for line in lines if row in line)
        assert (" ok " if weighted or not row.startswith("Thm") else " n/a ") in line, line
    if weighted:
        _assert_step_naturality_row(lines)
    # where a tensor is read twice, the gradients of its readers add up (chains have no such row)
    sum_rule = [line for line in lines if "(sum rule)" in line]
    assert all(" ok " in line for line in sum_rule)
    # A tensor is read twice exactly where the Lean term copies it (`Arch.copy`), or where a primitive's
    # realisation reads its input twice (`rmsNorm`: `x * rsqrt(mean(x²) + eps)` reads x for x² and for
    # the product; `rope`: x·cos θ and the rotated x·sin θ): read off the term.
    copies = any(t.kind in ("copy", "rmsNorm", "rope") for t in walk(term))
    assert bool(sum_rule) == copies
    assert "Traceback" not in presheaf.output


def _assert_step_naturality_row(lines: list[str]) -> None:
    """"step natural along covers" compares the steps at the two ends of covering relations between
    objects with weights: with a single such object (the SGD row says "1 obj") nothing is compared, and
    the row must say n/a with the reason, never a vacuous ok; with several, it compares and holds."""
    sgd = next(line for line in lines if "Thm 1.1: SGD step on W(x)," in line)
    objects = int(sgd.split("Thm 1.1: SGD step on W(x),")[1].split(" obj")[0])
    line = next(line for line in lines if "Thm 1.1: step natural along covers" in line)
    if objects == 1:
        assert " n/a " in line and " ok " not in line, line
        reason = "nothing compared: no covering relation between two of the 1 unsplit object with weights"
        assert reason in line, line
    else:
        assert " ok " in line, line
        covers = int(line.split("along covers (")[1].split(" covers)")[0])
        assert 1 <= covers < objects * objects, line


@pytest.mark.parametrize(("name", "vacuous"), [("glu", True), ("hyperLinear", True), ("mlp", False)])
def test_step_naturality_is_na_when_nothing_is_compared(name: str, vacuous: bool) -> None:
    """glu and hyperLinear have one linear layer reading the input: one object carries weights, so no
    covering relation joins two of them (the old table said ``ok`` with residual 0.0 here); the MLP's
    two linear layers give three such objects on a chain, and the row compares along their covers."""
    res = runner.invoke(app, ["presheaf", name])
    assert res.exit_code == 0, res.output
    line = next(line for line in res.stdout.splitlines() if "Thm 1.1: step natural along covers" in line)
    assert (" n/a " in line) == vacuous and (" ok " in line) == (not vacuous), line
    _assert_step_naturality_row(res.stdout.splitlines())
    if not vacuous:  # objects above lin2's argument, the relu and lin1's argument: a chain of 3, 2 covers
        assert "Thm 1.1: SGD step on W(x), 3 obj" in res.stdout and "(2 covers)" in line, line
