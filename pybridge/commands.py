"""The spine's commands: ``list``, ``show``, ``emit``, ``check`` and ``demo``."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from pybridge.errors import CheckFailed, LeanParseError, OutputExistsError, UsageError


def parse_params(items: list[str] | None) -> dict[str, int]:
    """``["d_model=8", "heads=2"]`` → ``{"d_model": 8, "heads": 2}``; :class:`UsageError` when malformed."""
    params: dict[str, int] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise UsageError(f"--param {item!r}: expected NAME=VALUE, e.g. --param d_model=8")
        if not (value.isascii() and value.isdigit()):
            raise UsageError(
                f"--param {item[:60]!r}: {key} must be a natural number (digits 0-9), got {value[:40]!r}"
            )
        if len(value.lstrip("0")) > 18:
            raise UsageError(
                f"--param {key}: {len(value)} digits; dimensions are at most 18 digits (below 10^18)"
            )
        if key in params:
            raise UsageError(f"--param {key} is given twice")
        params[key] = int(value)
    return params


ParamOpt = Annotated[
    list[str] | None, typer.Option("--param", "-p", help="A layer parameter NAME=VALUE (repeat).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]
MemOpt = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        help="Stop (exit 14) before allocating more than this (e.g. 512M, 2G); "
        "default: the available memory.",
    ),
]


def apply_max_memory(text: str | None) -> None:
    """Set the memory limit of :mod:`pybridge.budget` from a ``--max-memory`` option, when given."""
    if text is not None:
        from pybridge import budget

        budget.set_limit(budget.parse_size(text))


def require_check_memory(name: str, params: dict[str, int] | None) -> None:
    """Stop with exit 14 before ``check_layer(name, params)`` when one of its configurations would
    exceed the memory limit (it runs float64 at batch ≤ 3 and run-time sizes ≤ 4, our layer in both
    realisations and its reference)."""
    import torch

    from pybridge import budget, zoo
    from pybridge.laws.checks import configurations, counterpart_bytes

    configs = {"given": params} if params else configurations(name)
    info = zoo.info(name)
    for cfg in configs.values():
        term, _ = zoo.instantiate(name, cfg)
        dims = {d: 4 for d in info.runtime_dims} | cfg
        est = budget.estimate(term, dims=dims, batch=3, dtype_bytes=8, copies=3)
        if info.pytorch:  # its module, built on the meta device: nothing is allocated to measure it
            extra = counterpart_bytes(info.pytorch, cfg, torch.float64)
            est = budget.Estimate(est.weights + extra, est.activations, est.modules + 1)
        budget.require(est, f"checking {name}")


def _counterpart_text(layer: object) -> str:
    """The counterparts of a layer for ``list``: the class of its ``PyTorch:`` line, its ``Reference:``
    function, its hand-written reference; or the exact interpreter when it has none."""
    from pybridge.lean.catalogue import LayerInfo

    assert isinstance(layer, LayerInfo)
    parts = []
    if layer.pytorch:
        parts.append(layer.pytorch.split("(")[0])
    if layer.module_reference:
        parts.append(f"Reference {layer.module_reference}")
    if layer.reference:
        parts.append(f"hand-written {layer.reference}")
    return " + ".join(parts) or "none (exact interpreter of Arch.eval)"


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add the spine's commands to ``app``."""
    from pybridge.cli import user_errors

    @app.command("list")
    @user_errors
    def list_cmd(
        file: Annotated[
            Path | None,
            typer.Argument(help="A Lean file outside the Zoo whose layers to list (default: the Zoo)."),
        ] = None,
        as_json: JsonOpt = False,
        strict: Annotated[
            bool, typer.Option("--strict", help="Exit 3 when a definition cannot be read (default: list it).")
        ] = False,
    ) -> None:
        """List the layers (of the Zoo, or of FILE): parameters, counterparts, Lean source; a definition
        the reader cannot read is listed with its error."""
        from pybridge.lean.catalogue import load_catalogue, load_external
        from pybridge.lean.display import dumps_json, escape_text

        cat = load_catalogue() if file is None else load_external(file)
        layers = [cat.layers[n] for n in sorted(cat.layers)]
        broken = sorted(cat.broken.items())
        if as_json:
            entries: list[dict[str, object]] = [layer.model_dump() for layer in layers]
            entries += [
                {
                    "name": key,
                    "lean_decl": bad.name,
                    "file": bad.file,
                    "line": bad.line,
                    "error": str(bad.error),
                }
                for key, bad in broken
            ]
            entries += [
                {"name": None, "lean_decl": None, "file": rel, "line": err.line, "error": str(err)}
                for rel, err in sorted(cat.file_errors.items())
                if rel in cat.sha256 and (file is not None or rel.startswith("Formal/Zoo/"))
            ]
            typer.echo(dumps_json(entries))
        else:
            rows = [
                [
                    layer.name,
                    " ".join(layer.params),
                    " ".join(layer.runtime_dims) or "-",
                    _counterpart_text(layer),
                    f"{layer.file}:{layer.line}",
                ]
                for layer in layers
            ]
            rows += [
                [
                    key,
                    "?",
                    "?",
                    "cannot be read: " + bad.error.message.split(": ", 1)[-1],
                    f"{bad.file}:{bad.line}",
                ]
                for key, bad in broken
            ]
            rows += [
                ["(file)", "?", "?", "cannot be read: " + err.message.split(": ", 1)[-1], f"{rel}:{err.line}"]
                for rel, err in sorted(cat.file_errors.items())
                if rel in cat.sha256 and (file is not None or rel.startswith("Formal/Zoo/"))
            ]
            rows = [[escape_text(cell) for cell in row] for row in rows]  # text of a Lean file, a path
            typer.echo(_table(rows, ["layer", "parameters", "run-time", "counterpart", "Lean source"]))
        if strict:
            errors = [bad.error for _, bad in broken] + [
                err
                for rel, err in sorted(cat.file_errors.items())
                if rel in cat.sha256 and (file is not None or rel.startswith("Formal/Zoo/"))
            ]
            if errors:
                raise LeanParseError(
                    errors[0].file,
                    errors[0].line,
                    f"{errors[0].message.split(': ', 1)[-1]} "
                    f"({len(errors)} definition(s) cannot be read; --strict)",
                )

    @app.command("show")
    @user_errors
    def show_cmd(name: str, params: ParamOpt = None, as_json: JsonOpt = False) -> None:
        """Show a layer: its Lean declaration, hypotheses, signature and term. NAME: a Zoo layer or
        path/File.lean:NAME."""
        from pybridge import zoo
        from pybridge.lean.display import dumps_json, escape_text
        from pybridge.spec.terms import walk

        info = zoo.info(name)
        given = parse_params(params)
        merged = {k: v for k, v in zoo.example_params(name, given).items() if k in info.params or k in given}
        term, sig = zoo.instantiate(name, merged)
        if as_json:
            typer.echo(
                dumps_json(
                    {
                        "layer": info.model_dump(),
                        "params": merged,
                        "signature": str(sig),
                        "term": term.model_dump(mode="json"),
                    }
                )
            )
            return
        counts: dict[str, int] = {}
        for node in walk(term):
            counts[node.kind] = counts.get(node.kind, 0) + 1
        lines = [
            f"{info.name}  ({info.lean_decl}, {info.file}:{info.line})",
            f"  {info.summary}",
            f"  Lean type:    {info.type}",
            f"  parameters:   {', '.join(info.params)}"
            + (f"   run-time: {', '.join(info.runtime_dims)}" if info.runtime_dims else ""),
            *(f"  hypothesis:   {hyp.name} : {hyp.statement}" for hyp in info.hypotheses),
            f"  counterpart:  {_counterpart_text(info)}",
            f"  instance:     {', '.join(f'{k}={v}' for k, v in merged.items())}",
            f"  signature:    {sig}",
            "  constructors: " + ", ".join(f"{k}×{v}" for k, v in sorted(counts.items())),
        ]
        for line in lines:  # each line quotes text of a Lean file (docstring, names, path)
            typer.echo(escape_text(line))

    @app.command("schema")
    @user_errors
    def schema_cmd() -> None:
        """Print the JSON schema of layer terms (the interchange format of `show --json`)."""
        import pydantic

        from pybridge.spec.terms import Term

        typer.echo(json.dumps(pydantic.TypeAdapter(Term).json_schema(), indent=2, ensure_ascii=False))

    @app.command("emit")
    @user_errors
    def emit_cmd(
        name: str,
        out: Annotated[Path, typer.Option("--out", "-o", help="The Python file to write.")],
        params: ParamOpt = None,
        force: Annotated[bool, typer.Option("--force", help="Replace an existing output file.")] = False,
        max_memory: MemOpt = None,
        literal: Annotated[
            bool,
            typer.Option(
                "--literal",
                help="Emit the nested constructor tree (one module per Lean constructor, no rewrites) "
                "instead of the optimised straight-line forward.",
            ),
        ] = False,
    ) -> None:
        """Emit a layer as a standalone PyTorch file (imports only torch and math). NAME: a Zoo layer or
        path/File.lean:NAME."""
        apply_max_memory(max_memory)
        from pybridge.files import write_atomic
        from pybridge.torch.emit import render_source

        if out.suffix != ".py":
            raise UsageError(f"--out {out}: the output must be a .py file")
        from pybridge.lean.catalogue import catalogue_for

        cat, short = catalogue_for(name)
        text = render_source(cat, short, parse_params(params), literal=literal)
        write_atomic(out, text, force=force)
        form = "literal constructor tree" if literal else "straight-line"
        typer.echo(f"wrote {out} ({name}, {form}, {len(text.splitlines())} lines)")

    @app.command("check")
    @user_errors
    def check_cmd(
        name: str,
        params: ParamOpt = None,
        as_json: JsonOpt = False,
        max_memory: MemOpt = None,
        import_references: Annotated[
            bool,
            typer.Option(
                "--import-references",
                help="Import the Python module that a Reference: line names outside pybridge "
                "(this runs that module's code; without it, such a layer stops with exit 2).",
            ),
        ] = False,
    ) -> None:
        """Run a layer's numerical checks against its counterparts (or the exact interpreter of Arch.eval
        when it has none) and print a table. NAME: a Zoo layer or path/File.lean:NAME."""
        from pybridge.laws.checks import CROSS, DTYPES, EXACT_NAME, check_layer

        apply_max_memory(max_memory)
        given = parse_params(params)
        require_check_memory(name, given or None)
        results = check_layer(name, given or None, import_references=import_references)
        failed = [r for r in results if not r.passed]
        if as_json:
            typer.echo(json.dumps([{**r.__dict__, "passed": r.passed} for r in results], indent=2))
        else:
            refs = list(dict.fromkeys(r.reference for r in results if r.realisation != CROSS))
            several = len(refs) > 1  # then a column says which reference each row compares with
            rows = [
                [
                    r.config,
                    r.realisation,
                    " ".join(f"{k}={v}" for k, v in r.params.items()),
                    r.dtype,
                    str(r.batch),
                    "-" if r.seq is None else str(r.seq),
                    *(
                        [str(refs.index(r.reference) + 1) if r.realisation != CROSS else "-"]
                        if several
                        else []
                    ),
                    f"{r.max_abs_error:.2e}",
                    f"{r.tolerance:.0e}",
                    "ok" if r.passed else "FAIL",
                ]
                for r in results
            ]
            listed = "; ".join(f"[{i}] {ref}" if several else ref for i, ref in enumerate(refs, 1))
            typer.echo(
                f"{name} vs {listed or '?'} (max abs error, lax equality); both realisations, "
                "optimised and literal, each against the reference and against each other"
            )
            run_dtypes = [str(d).removeprefix("torch.") for d in DTYPES]
            for ref in refs:
                ref_dtypes = [
                    d for d in run_dtypes if any(r.reference == ref and r.dtype == d for r in results)
                ]
                if ref_dtypes != run_dtypes:
                    typer.echo(
                        f"{ref} is compared in {', '.join(ref_dtypes)} only (the bridge_dtypes of its module)"
                    )
            if refs == [EXACT_NAME]:
                typer.echo(
                    f"{name} has no PyTorch: or Reference: counterpart: checked against the exact "
                    "interpreter of Arch.eval only (pybridge/laws/exact.py)"
                )
            header = [
                "config",
                "realisation",
                "parameters",
                "dtype",
                "batch",
                "seq",
                *(["ref"] if several else []),
            ]
            typer.echo(_table(rows, [*header, "error", "tol", ""]))
            typer.echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        if failed:
            raise CheckFailed(f"{name}: {len(failed)} of {len(results)} checks exceed their tolerance")

    @app.command("demo")
    @user_errors
    def demo_cmd(
        out: Annotated[
            Path | None,
            typer.Option("--out", help="Directory for the emitted file (default: a temporary one)."),
        ] = None,
    ) -> None:
        """List the Zoo, emit the attention layer, check the emitted file against nn.MultiheadAttention."""
        import torch

        from pybridge.files import write_atomic
        from pybridge.laws.checks import TOLERANCE, check_layer
        from pybridge.lean.catalogue import load_catalogue
        from pybridge.torch.emit import render_source

        if out is not None and not out.is_dir():
            raise UsageError(f"--out {out}: not a directory")
        if out is not None and (out / "attention.py").exists():
            raise OutputExistsError(f"{out / 'attention.py'}: already exists (demo does not replace files)")
        typer.echo("== The Zoo (every layer is a Lean definition in Formal/Zoo) ==")
        list_cmd(as_json=False)
        target = (out or Path(tempfile.mkdtemp(prefix="pybridge-demo-"))) / "attention.py"
        params = {"d_model": 8, "heads": 2}
        write_atomic(target, render_source(load_catalogue(), "attention", params), force=False)
        typer.echo(f"\n== Emitted Formal.Zoo.attention (d_model=8, heads=2) to {target} ==")
        typer.echo("\n== The emitted file, run in a fresh interpreter against torch.nn.MultiheadAttention ==")
        tol64, tol32 = TOLERANCE[torch.float64], TOLERANCE[torch.float32]
        script = (
            "import importlib.util, torch\n"
            f"spec = importlib.util.spec_from_file_location('attention', {str(target)!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "print('LEAN_DECL =', m.LEAN_DECL, '| LEAN_VERIFIED =', m.LEAN_VERIFIED,\n"
            "      '| SIGNATURE =', m.SIGNATURE)\n"
            "worst = 0.0\n"
            f"for dtype, tol in ((torch.float64, {tol64!r}), (torch.float32, {tol32!r})):\n"
            "    torch.manual_seed(0)\n"
            "    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True, dtype=dtype).eval()\n"
            "    layer = m.Layer.from_torch(ref)\n"
            "    for batch, seq in ((1, 1), (3, 7)):\n"
            "        x = torch.randn(batch, seq, 8, dtype=dtype)\n"
            "        err = (layer(x) - ref(x, x, x, need_weights=False)[0]).abs().max().item()\n"
            "        ok = err <= tol\n"
            "        worst = max(worst, err / tol)\n"
            "        print(f'{str(dtype):14} batch={batch} seq={seq}  max abs error {err:.2e}'\n"
            "              f'  (tol {tol:.0e})  ' + ('ok' if ok else 'FAIL'))\n"
            "raise SystemExit(0 if worst <= 1 else 1)\n"
        )
        try:
            proc = subprocess.run(
                [sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True, timeout=300
            )
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"{target}: running the emitted attention layer took over 300 s") from None
        typer.echo(proc.stdout.rstrip())
        if proc.returncode != 0:
            raise CheckFailed(
                "the emitted attention layer does not match nn.MultiheadAttention: "
                + (proc.stderr.strip().splitlines() or ["see above"])[-1]
            )
        typer.echo("\n== Checks of every Zoo layer against its reference ==")
        from pybridge.zoo import layer_names

        for name in layer_names():
            require_check_memory(name, None)
            results = check_layer(name)
            worst = max(
                results,
                key=lambda r: (
                    r.max_abs_error / r.tolerance if r.tolerance else (0.0 if r.max_abs_error == 0 else 1e300)
                ),
            )
            ref = worst.reference.split("(")[0]
            typer.echo(
                f"{name:13} {sum(r.passed for r in results):3}/{len(results)} within tolerance "
                f"(worst {worst.max_abs_error:.1e} in {worst.dtype}, vs {ref})"
            )
            if not all(r.passed for r in results):
                raise CheckFailed(f"{name}: numerical check failed")
