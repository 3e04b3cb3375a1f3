"""The commands ``site``, ``presheaf`` and ``equivariance``: thin typer wrappers over :mod:`pybridge.site`.

The library computes; these functions print. :class:`SiteReport` is the ``--json`` interchange format.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import torch
import typer
from pydantic import BaseModel, ConfigDict

from pybridge.errors import CheckFailed, OutputExistsError, SiteError, TargetError, UsageError
from pybridge.site.fork import Poset, Site
from pybridge.site.graph import LayerGraph, extract
from pybridge.site.omega import GLOBAL_OMEGA_LIMIT, DownsetCounter, global_omega, omega_sizes
from pybridge.targets import Target, load_target


class SiteReport(BaseModel):
    """What ``pybridge site`` computes (the ``--json`` output)."""

    model_config = ConfigDict(frozen=True)

    target: str
    #: How the model was captured (``torch.export`` in core ATen, or the ``torch.fx`` fallback).
    capture: str | None = None
    normal_form: bool
    layers: int
    joins: int
    copies: int
    c_objects: int
    tangs: int
    arrows: int
    x_objects: int
    hasse_edges: int
    thin: bool
    nonthin_pairs: int
    witness: str | None
    raw_thin: bool
    raw_witness: str | None
    omega: dict[str, int]
    #: Objects whose |Ω(x)| exceeded the exact counter's budget: ``"k+1 <= |Ω(x)| <= 2^k"`` with ``k = |↓x|``
    #: (the empty sieve and the ``k`` principal ones; every subset). Empty when every count is exact.
    omega_bounds: dict[str, str] = {}
    largest_omega: int
    largest_omega_at: str
    global_omega: int | None
    global_omega_note: str | None
    seconds_site_and_omega: float


def _params(param: list[str] | None) -> dict[str, int]:
    """``--param NAME=VALUE`` options, parsed as for every other command."""
    from pybridge.commands import parse_params

    return parse_params(param)


def _target(target: str, param: list[str] | None) -> Target:
    params = _params(param)
    try:
        return load_target(target, params)
    except ImportError as err:  # the Zoo (Lean catalogue reader) is missing in this checkout
        raise TargetError(f"{target}: cannot load Zoo targets ({err})") from None


def _load(target: str, param: list[str] | None) -> tuple[Target, LayerGraph]:
    tgt = _target(target, param)
    return tgt, extract(tgt.module, tgt.inputs, tgt.name)


def _witness(w: tuple[str, str, int] | None) -> str | None:
    return None if w is None else f"{w[2]} paths from {w[0]} to {w[1]}"


def _sizes_one_by_one(poset: Poset, bounds: dict[str, str]) -> list[int]:
    """Every |Ω(x)| counted on its own; one too wide for the exact counter goes into ``bounds`` as
    ``k+1 <= |Omega(x)| <= 2^k`` (``k = |↓x|``) and counts 0 in the list."""
    counter = DownsetCounter(poset)
    sizes: list[int] = []
    for x in range(poset.n):
        try:
            sizes.append(counter.count(poset.down[x]))
        except SiteError:  # too wide for the exact counter: a bound, and a fresh counter for the rest
            k = poset.down[x].bit_count()
            bounds[poset.names[x]] = f"{k + 1} <= |Omega(x)| <= 2^{k}"
            sizes.append(0)
            counter = DownsetCounter(poset)
    return sizes


def site_report(target_name: str, raw_graph: LayerGraph, *, raw: bool) -> tuple[SiteReport, Site]:
    """Build the site (raw or in normal form), check thinness, count every Ω(x) and, if small, Ω(1)."""
    graph = raw_graph if raw else raw_graph.normalized()
    t0 = time.perf_counter()
    site = Site(graph)
    thin = site.thinness()
    poset = site.poset()
    bounds: dict[str, str] = {}
    try:
        # one pass up the Hasse diagram; on a site's poset it never needs the general counter
        sizes = omega_sizes(poset, DownsetCounter(poset))
    except SiteError:  # a union too wide for the exact counter: object by object, with bounds
        sizes = _sizes_one_by_one(poset, bounds)
    seconds = time.perf_counter() - t0
    raw_thin = thin if raw else Site(raw_graph).thinness()
    g_omega, note = None, None
    try:
        g_omega = global_omega(poset)
    except SiteError as err:
        note = str(err)
    k = max(range(poset.n), key=lambda i: sizes[i])
    report = SiteReport(
        target=target_name,
        capture=None if raw_graph.capture is None else raw_graph.capture.method,
        normal_form=not raw,
        layers=sum(1 for n in graph.nodes.values() if n.kind != "copy"),
        joins=len(graph.joins),
        copies=sum(1 for n in graph.nodes.values() if n.kind == "copy"),
        c_objects=len(site.objects),
        tangs=sum(1 for o in site.objects if o.kind == "tang"),
        arrows=len(site.arrows),
        x_objects=poset.n,
        hasse_edges=len(poset.covers),
        thin=thin.thin,
        nonthin_pairs=thin.nonthin_pairs,
        witness=_witness(thin.witness),
        raw_thin=raw_thin.thin,
        raw_witness=_witness(raw_thin.witness),
        omega={poset.names[i]: sizes[i] for i in range(poset.n) if poset.names[i] not in bounds},
        omega_bounds=bounds,
        largest_omega=sizes[k],
        largest_omega_at=poset.names[k],
        global_omega=g_omega,
        global_omega_note=note,
        seconds_site_and_omega=seconds,
    )
    return report, site


def _print_site(r: SiteReport) -> None:
    form = "normal form (identity copy nodes on the edges into joins)" if r.normal_form else "raw"
    typer.echo(f"site of {r.target} ({form})")
    if r.capture is not None:
        opset = " (core ATen)" if r.capture == "torch.export" else " (fallback)"
        typer.echo(f"  captured by:     {r.capture}{opset}")
    typer.echo(f"  layer graph:     {r.layers} layers, {r.joins} joins, {r.copies} copy nodes")
    typer.echo(f"  fork category C: {r.c_objects} objects ({r.tangs} tangs A*), {r.arrows} generating arrows")
    typer.echo(f"  poset X:         {r.x_objects} objects, {r.hasse_edges} covering relations")
    thin = "yes" if r.thin else f"NO: {r.nonthin_pairs} pairs with several paths, e.g. {r.witness}"
    typer.echo(f"  C thin (Prop. 1.1(i)): {thin}")
    if r.normal_form:
        raw = "yes" if r.raw_thin else f"no ({r.raw_witness}); repaired by the normal form"
        typer.echo(f"  raw site thin:   {raw}")
    exact = r.x_objects - len(r.omega_bounds)
    typer.echo(
        f"  largest |Omega(x)|: {r.largest_omega} at {r.largest_omega_at}; "
        f"{'all ' if not r.omega_bounds else ''}{exact} counted exactly in "
        f"{r.seconds_site_and_omega * 1e3:.1f} ms"
    )
    for name, bound in list(r.omega_bounds.items())[:3]:
        typer.echo(f"  |Omega({name})| too wide to count exactly: {bound}")
    if r.global_omega is not None:
        typer.echo(f"  |Omega(1)| (global sieves): {r.global_omega}")
    else:
        typer.echo(f"  |Omega(1)|: refused ({r.global_omega_note})")


def _weight_rows(graph: LayerGraph, tgt: Target, row: Callable[..., None]) -> None:
    """The rows of the weight presheaf W: functor laws, the forward pass and Thm 1.1 (learning)."""
    from pybridge.site.weights import (
        WeightPresheaf,
        check_functor,
        forward_naturality,
        learning_naturality,
    )

    W = WeightPresheaf(graph)
    fc = check_functor(W)
    row(
        f"W: functor laws ({fc.relations} covers, {fc.composites} composites)",
        fc.ok,
        f"{fc.worst:.1e}",
        "exact",
    )
    really_shared = {p: vs for p, vs in W.shared.items() if p not in W.disjoint}
    if really_shared:
        p, users = sorted(really_shared.items())[0]
        row(
            "W = product over layers (control)",
            False,
            f"{len(really_shared)} shared, e.g. {p} used by {', '.join(users)}",
            "-",
            must_hold=False,
        )
    elif W.disjoint:
        p, users = sorted(W.disjoint.items())[0]
        row(
            "W = product over layers (none shared)",
            None,
            f"{len(W.disjoint)} parameter(s) read in disjoint slices by several layers, e.g. {p} by "
            f"{', '.join(users)}: no weight is shared, but W is kept per parameter, not per slice",
            "-",
        )
    else:
        row("W = product over layers (none shared)", True, f"{len(W.params)} parameters", "-")
    try:
        fw = forward_naturality(W, tgt.module, tgt.inputs, name=tgt.name)
        tol = f"{fw.tolerance:.0e}"
        row(
            "forward natural in W (F(x<=y) reads W(y))",
            fw.worst_relation <= fw.tolerance,
            f"{fw.worst_relation:.1e}",
            tol,
        )
        worst = max(fw.worst_propagated, fw.worst_output)
        row("forward from inputs, random w = model(x; w)", worst <= fw.tolerance, f"{worst:.1e}", tol)
    except SiteError as err:
        row("forward natural in W", None, f"skipped: {err}", "-")
    try:
        ln = learning_naturality(W, tgt.module, tgt.inputs, name=tgt.name)
    except SiteError as err:
        row("Thm 1.1: SGD step on W(x)", None, f"skipped: {err}", "-")
        return
    if not ln.steps:
        row("Thm 1.1: SGD step on W(x)", None, "no weights", "-")
        return
    tol = f"{ln.tolerance:.0e}"
    clean = [s for s in ln.steps if not s.split]
    closed = sum(1 for s in clean if s.closed)
    sample = f", {ln.skipped} skipped" if ln.skipped else ""
    if clean:
        row(
            f"Thm 1.1: SGD step on W(x), {len(clean)} obj, {closed} closed{sample}",
            ln.worst_clean <= ln.tolerance,
            f"{ln.worst_clean:.1e}",
            tol,
        )
    else:  # every object with weights holds a split shared parameter: nothing must hold, nothing checked
        row(
            f"Thm 1.1: SGD step on W(x), 0 obj{sample}",
            None,
            f"no object without split shared weights ({len(ln.steps)} split)",
            "-",
        )
    if ln.natural_clean_pairs:
        row(
            f"Thm 1.1: step natural along covers ({ln.natural_clean_pairs} covers)",
            ln.worst_natural_clean <= ln.tolerance,
            f"{ln.worst_natural_clean:.1e}",
            tol,
        )
    else:  # nothing was compared: a residual of 0 would be vacuous, not a pass
        s = "" if len(clean) == 1 else "s"
        row(
            "Thm 1.1: step natural along covers",
            None,
            f"nothing compared: no covering relation between two of the {len(clean)} unsplit object{s} "
            "with weights",
            "-",
        )
    if ln.worst_without_message is not None:
        row(
            "Thm 1.1 without the fork's message (control)",
            ln.worst_without_message <= ln.tolerance,
            f"{ln.worst_without_message:.1e}",
            tol,
            must_hold=False,
        )
    if ln.worst_split is not None and all(
        p in W.disjoint for s in ln.steps for p in s.split
    ):  # every split parameter is read in disjoint slices: the residual measures the other slices
        split = sum(1 for s in ln.steps if s.split)
        row(
            f"Thm 1.1 at split shared weights ({split} objects; control)",
            None,
            "the split parameters are read in disjoint slices (not shared weights); W is kept per "
            "parameter, so the step below x lacks the other slices' gradients",
            "-",
            must_hold=False,
        )
    elif ln.worst_split is not None:
        split = sum(1 for s in ln.steps if s.split)
        row(
            f"Thm 1.1 at split shared weights ({split} objects; control)",
            ln.worst_split <= ln.tolerance,
            f"{ln.worst_split:.1e}",
            tol,
            must_hold=False,
        )


class PresheafRow(BaseModel):
    """One row of the ``presheaf`` table: a check, whether it holds (``None``: not applicable), the
    residual and the tolerance as printed, and whether it must hold (a control may fail)."""

    model_config = ConfigDict(frozen=True)

    check: str
    ok: bool | None
    residual: str
    tolerance: str
    must_hold: bool


def presheaf_rows(tgt: Target, raw_graph: LayerGraph) -> list[PresheafRow]:
    """The checks of ``pybridge presheaf`` on a captured model: section, uniqueness, raw-site control,
    path sums, backprop naturality, and the weight presheaf W (functor laws, forward pass, Thm 1.1)."""
    from pybridge.site.backprop import gradient_naturality, path_sum_check
    from pybridge.site.presheaf import ActivityPresheaf, check_section, model_outputs, propagate

    graph = raw_graph.normalized()
    ref = model_outputs(tgt.module, tgt.inputs, name=tgt.name)
    outs = [raw_graph.values[o] for o in raw_graph.outputs]
    if outs and not any(isinstance(v, torch.Tensor) and v.is_floating_point() for v in outs):
        kinds = sorted({str(v.dtype).removeprefix("torch.") for v in outs if isinstance(v, torch.Tensor)})
        raise TargetError(
            f"{tgt.name}: the model has no floating-point output (its outputs are "
            f"{', '.join(kinds) or 'not tensors'}); the presheaf's derivative and weight checks need one"
        )
    pre = ActivityPresheaf(graph)
    out: list[PresheafRow] = []

    def row(check: str, ok: bool | None, residual: str, tol: str, must_hold: bool = True) -> None:
        # Only a row labelled a control may fail without failing the command (exit 9).
        must_hold = must_hold or "control" not in check
        out.append(PresheafRow(check=check, ok=ok, residual=residual, tolerance=tol, must_hold=must_hold))

    sec = check_section(pre, pre.recorded())
    row("recorded activations form a section", sec.ok, f"{sec.worst:.1e}", f"{sec.tolerance:.0e}")
    inputs = {n: graph.values[n] for n in graph.inputs}
    prop = propagate(pre, inputs, reference=ref)
    row(
        "section from the inputs is unique",
        prop.unique,
        "free: " + ", ".join(prop.free) if prop.free else "-",
        "-",
    )
    gap = prop.reproduces_model
    row(
        "that section reproduces model(x)",
        None if gap is None else gap <= sec.tolerance,
        "-" if gap is None else f"{gap:.1e}",
        f"{sec.tolerance:.0e}",
    )
    if raw_graph.joins:
        neg = propagate(ActivityPresheaf(raw_graph), {n: raw_graph.values[n] for n in raw_graph.inputs})
        if neg.unique:
            row("raw site: section unique (no control)", True, "-", "-", must_hold=False)
        elif not neg.perturbed:
            # every free factor is a mask, an index or empty: nothing to perturb, no second section
            row(
                f"raw site: unique? (control; {len(neg.free)} free factor(s))",
                None,
                "nothing to perturb: the free factor(s) are masks, indices or empty",
                "-",
                must_hold=False,
            )
        else:
            gap_txt = "-" if neg.alternative_output_gap is None else f"{neg.alternative_output_gap:.1e}"
            row(
                f"raw site: unique? (control; {len(neg.free)} free factor(s))",
                False,
                f"2 sections, outputs differ by {gap_txt}"
                + (
                    f" ({len(neg.perturbed)} of {len(neg.free)} free factors perturbed; the others "
                    "are masks, indices or empty)"
                    if len(neg.perturbed) < len(neg.free)
                    else ""
                ),
                "-",
                must_hold=False,
            )
    try:
        for p in path_sum_check(raw_graph, tgt.module, tgt.inputs, name=tgt.name):
            row(
                f"path sum {p.input} -> {p.output} ({p.paths} paths)",
                p.ok,
                f"{p.rel_error:.1e}",
                f"{p.tolerance:.0e}",
            )
    except SiteError as err:
        row("path sums (Lemma 1.1)", None, f"skipped: {err}", "-")
    nat = gradient_naturality(raw_graph)
    row(
        "backprop natural on chains",
        nat.worst_chain <= nat.tolerance,
        f"{nat.worst_chain:.1e}",
        f"{nat.tolerance:.0e}",
    )
    if nat.worst_fanout is not None:
        row(
            "backprop natural at fan-outs (control)",
            nat.worst_fanout <= nat.tolerance,
            f"{nat.worst_fanout:.1e}",
            f"{nat.tolerance:.0e}",
            must_hold=False,
        )
        row(
            "gradients add at fan-outs (sum rule)",
            nat.worst_sum_rule <= nat.tolerance,
            f"{nat.worst_sum_rule:.1e}",
            f"{nat.tolerance:.0e}",
        )
    _weight_rows(graph, tgt, row)
    return out


def register(app: typer.Typer) -> None:
    """Add ``site``, ``presheaf`` and ``equivariance`` to ``app``."""
    from pybridge.cli import user_errors

    @app.command("site")
    @user_errors
    def site_cmd(
        target: Annotated[str, typer.Argument(help="A Zoo layer name, or path/to/file.py:factory.")],
        raw: Annotated[
            bool, typer.Option("--raw", help="Analyse the raw fork site, without copy nodes.")
        ] = False,
        png: Annotated[
            Path | None, typer.Option("--png", help="Write the Hasse diagram of X to this PNG.")
        ] = None,
        force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --png file.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        param: Annotated[
            list[str] | None, typer.Option("--param", help="Zoo parameter NAME=INTEGER.")
        ] = None,
    ) -> None:
        """The Belfiore-Bennequin site of a model: counts, thinness, every |Omega(x)|, a picture."""
        from pybridge.files import write_atomic
        from pybridge.site.picture import render_hasse

        if png is not None and png.exists() and not force:
            raise OutputExistsError(f"{png}: already exists (use --force to replace it)")
        tgt, graph = _load(target, param)
        report, site = site_report(tgt.name, graph, raw=raw)
        if png is not None:
            write_atomic(png, render_hasse(site.poset(), set(graph.outputs)), force=force)
        if as_json:
            typer.echo(json.dumps(report.model_dump(), indent=1))
        else:
            _print_site(report)
            if png is not None:
                typer.echo(f"  picture: {png}")

    @app.command("presheaf")
    @user_errors
    def presheaf_cmd(
        target: Annotated[str, typer.Argument(help="A Zoo layer name, or path/to/file.py:factory.")],
        param: Annotated[
            list[str] | None, typer.Option("--param", help="Zoo parameter NAME=INTEGER.")
        ] = None,
    ) -> None:
        """The activity presheaf: section, uniqueness, raw-site control, backprop, weights (W, Thm 1.1)."""
        tgt, raw_graph = _load(target, param)
        rows: list[tuple[str, str, str, str]] = []
        failed: list[str] = []
        for r in presheaf_rows(tgt, raw_graph):
            verdict = "n/a" if r.ok is None else ("ok" if r.ok else ("FAIL" if r.must_hold else "fails"))
            if r.ok is False and r.must_hold:
                failed.append(r.check)
            rows.append((r.check, verdict, r.residual, r.tolerance))
        widths = [
            max(len(r[i]) for r in rows + [("check", "result", "residual", "tolerance")]) for i in range(4)
        ]
        typer.echo(f"activity presheaf of {tgt.name} (normal form, float64)")
        for r in [("check", "result", "residual", "tolerance"), *rows]:
            typer.echo("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if failed:
            raise CheckFailed(f"{tgt.name}: {len(failed)} check(s) failed: {'; '.join(failed)}")

    @app.command("equivariance")
    @user_errors
    def equivariance_cmd(
        target: Annotated[str, typer.Argument(help="A Zoo layer name, or path/to/file.py:factory.")],
        group: Annotated[str, typer.Option("--group", help="shift (circular translations) or rot90.")],
        step: Annotated[
            int,
            typer.Option("--step", min=-(2**31), max=2**31, help="The shift in pixels (for --group shift)."),
        ] = 1,
        dtype: Annotated[str, typer.Option("--dtype", help="float64 or float32.")] = "float64",
        param: Annotated[
            list[str] | None, typer.Option("--param", help="Zoo parameter NAME=INTEGER.")
        ] = None,
    ) -> None:
        """Per-layer equivariance defects ||f(g.x) - g.f(x)|| / ||f(x)|| (measured and reported)."""
        from pybridge.site.equivariance import GROUPS, TOLERANCE, equivariance_report

        if group not in GROUPS:
            raise UsageError(f"--group: {group!r} is not one of {', '.join(GROUPS)}")
        dtypes = {"float64": torch.float64, "float32": torch.float32}
        if dtype not in dtypes:
            raise UsageError(f"--dtype: {dtype!r} is not one of float64, float32")
        tgt = _target(target, param)
        why: list[str] = []
        rows, whole = equivariance_report(
            tgt.module, tgt.inputs, group, name=tgt.name, step=step, dtype=dtypes[dtype], why=why
        )
        typer.echo(f"equivariance of {tgt.name} under {group} ({dtype}; defects are measured, not asserted)")
        table = [("layer", "op", "defect", "tolerance", "verdict")]
        for r in rows:
            verdict = (
                "n/a" if r.equivariant is None else ("equivariant" if r.equivariant else "not equivariant")
            )
            defect = "-" if r.defect is None else f"{r.defect:.1e}"
            text = r.note if r.equivariant is None else f"{verdict} {r.note}".strip()
            table.append((r.layer, r.op, defect, f"{r.tolerance:.0e}", text))
        if whole is not None:
            verdict = "holds" if whole.defect <= whole.tolerance else "fails"
            table.append(("(model)", whole.kind, f"{whole.defect:.1e}", f"{whole.tolerance:.0e}", verdict))
        elif len(table) > 1:  # the layers were measured, the whole model not: say why
            reason = why[0] if why else "the whole model's defect does not apply"
            tol = f"{TOLERANCE.get(dtypes[dtype], 1e-5):.0e}"
            table.append(("(model)", "-", "-", tol, f"n/a ({reason})"))
        if len(table) == 1:
            typer.echo("  no layer maps images to images; nothing to measure")
            return
        widths = [max(len(t[i]) for t in table) for i in range(5)]
        for t in table:
            typer.echo("  " + "  ".join(c.ljust(w) for c, w in zip(t, widths, strict=True)).rstrip())


__all__ = ["GLOBAL_OMEGA_LIMIT", "PresheafRow", "SiteReport", "presheaf_rows", "register", "site_report"]
