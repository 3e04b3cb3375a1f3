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
from pybridge.fragment.probe import BISECTIONS, ProbeResult, probe
from pybridge.lean.claims import STATUS_LABEL, Ledger


class FragmentReport(BaseModel):
    """Syntax verdict, probe verdict and whether they agree."""

    model_config = ConfigDict(frozen=True)

    target: str
    syntax: Classification
    probe: ProbeResult | None
    #: ``None`` when the probe did not run or was inconclusive.
    agree: bool | None


def agree(syntax: Classification, measured: ProbeResult) -> bool | None:
    """The syntax and the probe agree: same class, and the same degree for a polynomial map (a
    ``bilinear`` probe verdict whose degree holds piece by piece, ``x·relu(x)``, agrees with a
    ``bilinear`` syntax verdict of that degree: the syntax's degree bounds each piece).

    A ``curved-PL`` verdict (affine pieces cut by curved surfaces) agrees with a probe that sees PL or
    discontinuous-PL: along each line the probe measures, the map is piecewise linear. An
    ``inconclusive`` probe (kinks too dense to resolve, no curvature seen) neither confirms nor
    contradicts anything: ``None``.
    """
    if measured.cls == "inconclusive":
        return None
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
    bisected = f"bisected to h = 2^{_log2(p.steps[0]) - BISECTIONS}"
    if p.jumps:
        parts.append(f"{p.jumps} jump{'s' if p.jumps > 1 else ''} on a line ({bisected})")
    elif p.jump_ratio >= 0.5 and p.cls == "PL":
        parts.append(f"steep but no jump ({bisected})")
    if p.d2_exponent is not None:
        parts.append(f"|D| ∝ h^{p.d2_exponent:.2f}")
    if p.refined_lines:
        again = [ln for ln in p.lines if ln.refined_stencils]
        worst = max(again, key=lambda ln: ln.refined_kinks / ln.refined_stencils)
        kinds = ", ".join(f"{n} {k}" for k in ("refined", "curved", "unresolved")
                          if (n := sum(ln.pieces == k for ln in again)))
        step = _log2(p.steps[0] / 16)
        parts.append(f"{len(again)} of {len(p.lines)} lines re-probed at h = 2^{step}: {kinds} "
                     f"(≤ {worst.refined_kinks} of {worst.refined_stencils} stencils non-vanishing)")
    if p.cls != "inconclusive":
        if p.piecewise:
            parts.append(f"degree {format_degree(p.degree)} on each piece between kinks (piecewise "
                         "polynomial)")
        else:
            parts.append(f"degree {format_degree(p.degree)}")
    if p.homogeneity is not None:
        if p.cls == "transcendental":  # f(2x) = 2ᵈ f(x) without a polynomial degree: a norm, say
            parts.append(f"f(2x) = 2^{p.homogeneity}·f(x) (positively homogeneous, not polynomial)")
        else:
            parts.append(f"homogeneous of degree {p.homogeneity}")
    return ", ".join(parts)


def _log2(x: float) -> int:
    return round(math.log2(x))


#: Up to this many offending nodes are all named; beyond it they are counted per op kind.
OFFENDING_LISTED = 8


def offending_summary(offending: Sequence[str], ops: dict[str, str]) -> str:
    """The offending nodes, each with its op; beyond :data:`OFFENDING_LISTED` of them (an LSTM has
    ~80), a count per op kind (most frequent first) and the first few names."""
    def kind(o: str) -> str:
        return ops[o].split(":")[-1]

    if len(offending) <= OFFENDING_LISTED:
        return ", ".join(f"{o} ({kind(o)})" for o in offending)
    counts: dict[str, int] = {}
    for o in offending:
        counts[kind(o)] = counts.get(kind(o), 0) + 1
    per_kind = ", ".join(f"{n} × {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    first = ", ".join(f"{o} ({kind(o)})" for o in offending[:3])
    return f"{len(offending)} nodes ({per_kind}); first: {first}, …"


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
        verdict += f"; out of the PL fragment because of: {offending_summary(v.offending, ops)}"
    out.append(verdict)
    if v.explanation:
        out.append(f"why {v.cls}: {v.explanation}")
    if report.probe is not None:
        p = report.probe
        out.append(f"probe verdict:  {p.cls} ({probe_summary(p)})")
        if p.cls == "inconclusive":
            out.append("probe: kinks too dense to resolve linear pieces even at the refined step, and no "
                       "curvature seen: the probe neither confirms nor contradicts the syntax")
        said = "n/a (probe inconclusive)" if report.agree is None else "yes" if report.agree else "NO"
        out.append(f"agree: {said}")
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
            f"{'—' if p.homogeneity is None else f'd = {p.homogeneity}'} | "
            f"{'n/a' if r.agree is None else 'yes' if r.agree else 'NO'} |"
        )
    return "\n".join(rows)
