"""The fragment report of a target (syntax, probe, agreement) and the README blocks it feeds.

:func:`analyse` is what ``pybridge fragment TARGET`` runs: a Zoo layer is classified on its
``Formal.Arch`` term, any other target on the graph that :func:`pybridge.capture.capture` returns
(``torch.export`` in core ATen, ``torch.fx`` as the named fallback), and both are probed numerically.
:func:`claims_markdown` renders the transformer paper's ledger entries (``VM.*``) for the README
section "What the paper claims and what we proved"; :func:`readme_claims_block` reads that block back
out of the README so that a test can check they agree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pybridge.capture import capture
from pybridge.errors import UsageError
from pybridge.files import write_atomic
from pybridge.fragment.classify import Classification, classify_captured, classify_term, format_degree
from pybridge.fragment.probe import ProbeResult, probe
from pybridge.lean.claims import STATUS_LABEL, Ledger


class FragmentReport(BaseModel):
    """Syntax verdict, probe verdict and whether they agree."""

    model_config = ConfigDict(frozen=True)

    target: str
    syntax: Classification
    probe: ProbeResult | None
    #: ``None`` when the probe did not run.
    agree: bool | None


def agree(syntax: Classification, measured: ProbeResult) -> bool:
    """The syntax and the probe agree: same class, and the same degree for a polynomial map.

    A ``curved-PL`` verdict (affine pieces cut by curved surfaces) agrees with a probe that sees PL or
    discontinuous-PL: along each line the probe measures, the map is piecewise linear.
    """
    if syntax.verdict.cls == "curved-PL":
        return measured.cls in ("PL", "discontinuous-PL")
    if syntax.verdict.cls != measured.cls:
        return False
    if measured.cls == "bilinear" and syntax.verdict.degree is not None:
        return measured.degree == syntax.verdict.degree
    return True


def analyse(spec: str, params: dict[str, int] | None = None, *, run_probe: bool = True, seed: int = 0,
            lines: int = 3) -> FragmentReport:
    """Classify and probe a TARGET (a Zoo layer name or ``path/to/file.py:factory``)."""
    from pybridge import zoo
    from pybridge.targets import load_target

    if spec in zoo.layer_names():
        term, _ = zoo.instantiate(spec, zoo.example_params(spec, params))
        syntax = classify_term(term, spec)
        target = load_target(spec, params, seed=seed)
    else:
        if params:
            raise UsageError(f"{spec}: --param applies to Zoo layers only")
        target = load_target(spec, seed=seed)
        cap = capture(target.module, target.inputs, target.name)
        syntax = classify_captured(cap, target.inputs, target.name)
    measured = None
    if run_probe:
        measured = probe(target.module, target.inputs, seed=seed, lines=lines, name=target.name)
    return FragmentReport(target=target.name, syntax=syntax, probe=measured,
                          agree=None if measured is None else agree(syntax, measured))


def _table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def probe_summary(p: ProbeResult) -> str:
    """One line of the probe's measurements."""
    parts = [
        f"kinks ≤ {p.kinks} of {p.lines[0].stencils_fine} stencils at h = 2^{_log2(p.steps[0])}",
        f"jump ratio {p.jump_ratio:.3f}",
    ]
    if p.d2_exponent is not None:
        parts.append(f"|D| ∝ h^{p.d2_exponent:.2f}")
    parts.append(f"degree {format_degree(p.degree)}")
    if p.homogeneity is not None:
        parts.append(f"homogeneous of degree {p.homogeneity}")
    return ", ".join(parts)


def _log2(x: float) -> int:
    return round(math.log2(x))


def render_text(report: FragmentReport) -> str:
    """The report as the CLI prints it: the per-node table, the verdicts, the agreement."""
    s = report.syntax
    source = {"arch": "Formal.Arch term", "fx": "torch.fx graph (fallback)",
              "export": "torch.export graph (core ATen)"}[s.source]
    rows = [[n.node, n.op, n.cls, format_degree(n.degree), n.reason] for n in s.nodes]
    out = [f"{report.target}: {source}, {len(s.nodes)} nodes",
           _table(rows, ["node", "op", "class", "degree", "why"]), ""]
    v = s.verdict
    verdict = f"syntax verdict: {v.cls} (degree {format_degree(v.degree)})"
    if v.offending:
        ops = {n.node: n.op for n in s.nodes}
        named = ", ".join(f"{o} ({ops[o].split(':')[-1]})" for o in v.offending)
        verdict += f"; out of the PL fragment because of: {named}"
    out.append(verdict)
    if v.explanation:
        out.append(f"why {v.cls}: {v.explanation}")
    if report.probe is not None:
        p = report.probe
        out.append(f"probe verdict:  {p.cls} ({probe_summary(p)})")
        out.append(f"agree: {'yes' if report.agree else 'NO'}")
    return "\n".join(out)


# --- README --------------------------------------------------------------------------------------

CLAIMS_BEGIN = "<!-- BEGIN GENERATED: VM claims (pybridge fragment --claims-md) -->"
CLAIMS_END = "<!-- END GENERATED: VM claims -->"


def claims_lines(ledger: Ledger, prefix: str = "VM.") -> list[str]:
    """One markdown line per ledger entry whose id starts with ``prefix``: id, status, declarations."""
    lines = []
    for c in ledger.claims:
        if not c.id.startswith(prefix):
            continue
        decls = ", ".join(f"`{d}`" for d in c.decls) if c.decls else "none"
        lines.append(f"- **{c.id}** ({STATUS_LABEL[c.status]}): {c.statement} Lean: {decls}.")
    return lines


def claims_markdown(ledger: Ledger, prefix: str = "VM.") -> str:
    """The generated block for the README, markers included."""
    lines = claims_lines(ledger, prefix) or [f"- (no `{prefix}*` entries in `Formal/Claims.lean` yet)"]
    return "\n".join([CLAIMS_BEGIN, *lines, CLAIMS_END])


def readme_claims_block(readme: str) -> str | None:
    """The generated claims block in the README text, markers included (``None`` if absent)."""
    m = re.search(re.escape(CLAIMS_BEGIN) + r".*?" + re.escape(CLAIMS_END), readme, flags=re.S)
    return m.group(0) if m else None


def sync_readme_claims(readme_path: Path, ledger: Ledger) -> bool:
    """Rewrite the generated claims block of ``readme_path`` from the ledger; ``True`` if it changed."""
    try:
        text = readme_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{readme_path}: cannot read ({getattr(err, 'strerror', None) or err})") from None
    old = readme_claims_block(text)
    if old is None:
        raise UsageError(f"{readme_path}: no generated claims block ({CLAIMS_BEGIN})")
    new = claims_markdown(ledger)
    if new == old:
        return False
    write_atomic(readme_path, text.replace(old, new))
    return True


def results_markdown(reports: Iterable[FragmentReport]) -> str:
    """The README results table: syntax verdict vs probe verdict, with the measured numbers."""
    header = ("| model | syntax verdict | offending nodes | probe verdict | kinks / stencils | "
              "jump ratio | \\|D\\| ∝ hᵖ | f(2x) = 2ᵈ f(x) | agree |")
    rows = [header, "|" + "---|" * 9]
    for r in reports:
        p = r.probe
        assert p is not None, "results_markdown needs probed reports"
        ops = {n.node: n.op.split(":")[-1] for n in r.syntax.nodes}
        shown = r.syntax.verdict.offending[:3]
        off = ", ".join(f"`{o}`" if ops[o] == o else f"`{o}` ({ops[o]})" for o in shown)
        if len(r.syntax.verdict.offending) > 3:
            off += f" (+{len(r.syntax.verdict.offending) - 3})"
        exp = "D = 0 off kinks" if p.d2_exponent is None else f"p = {p.d2_exponent:.2f}"
        rows.append(
            f"| `{r.target}` | {r.syntax.verdict.cls} (deg {format_degree(r.syntax.verdict.degree)}) | "
            f"{off or '—'} | {p.cls} (deg {format_degree(p.degree)}) | "
            f"{p.kinks} / {p.lines[0].stencils_fine} | "
            f"{p.jump_ratio:.3f} | {exp} | "
            f"{'—' if p.homogeneity is None else f'd = {p.homogeneity}'} | {'yes' if r.agree else 'NO'} |"
        )
    return "\n".join(rows)
