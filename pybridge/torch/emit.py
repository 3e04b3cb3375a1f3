"""Emit a Zoo layer as a standalone PyTorch source file.

The file imports only ``torch`` and ``math``. It holds a copy of :mod:`pybridge.torch.runtime` (one
module per Lean constructor), the adapter for the layer's PyTorch counterpart when there is one, and
``class Layer(torch.nn.Module)``. By default ``Layer`` holds ``class Net``, the straight-line
realisation of :mod:`pybridge.torch.straight` (the same source that
:func:`pybridge.torch.compile_term` executes in process), and ``LEAN_REWRITES`` lists the Lean laws it
applies; with ``literal=True`` (``pybridge emit --literal``) ``Layer.__init__`` builds the nested tree
of runtime modules, one per constructor, as ``compile_term(..., literal=True)``. Provenance constants
name the Lean declaration, the SHA-256 of its source, and whether a Lean toolchain verified that
source (``LEAN_VERIFIED``, from ``verification.json``; never assumed).
"""

from __future__ import annotations

import ast
import inspect
from functools import cache

from pybridge.errors import BridgeError, EmitError
from pybridge.lean.catalogue import Catalogue
from pybridge.spec.shapes import CoprodShape, ProdShape, Shape, TensorShape, format_shape
from pybridge.torch import adapters, runtime
from pybridge.torch.compiler import Call, realize
from pybridge.verify.record import is_verified


def _strip_module_header(source: str) -> str:
    """Drop the module docstring and top-level imports (the emitted file has its own)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    drop: set[int] = set()
    for node in tree.body:
        is_doc = (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if (is_doc and node is tree.body[0]) or isinstance(node, ast.Import | ast.ImportFrom):
            drop.update(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return "\n".join(kept).strip() + "\n"


@cache
def _library(name: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The source of ``runtime`` or ``adapters`` without its header, and its top-level statements."""
    module = {"runtime": runtime, "adapters": adapters}[name]
    stripped = _strip_module_header(inspect.getsource(module))
    return stripped, tuple(_top_level_shape(ast.parse(stripped)))


def render_call(call: Call, indent: int = 2) -> str:
    """Source for a constructor-call tree, one constructor per line, mirroring the Lean term.

    A right-nested composite ``f ≫ (g ≫ h)`` is written ``chain(f, g, h)``, which builds exactly the
    nested ``Comp`` modules of the compiler.
    """
    close = "    " * indent
    pad = close + "    "
    if call.cls == "Comp":
        steps = [call.children[0]]
        rest = call.children[1]
        while rest.cls == "Comp":
            steps.append(rest.children[0])
            rest = rest.children[1]
        steps.append(rest)
        inner = [render_call(c, indent + 1) for c in steps]
        return "chain(\n" + "".join(f"{pad}{x},\n" for x in inner) + f"{close})"
    args = [
        call.source[i] if i < len(call.source) and call.source[i] else repr(a)
        for i, a in enumerate(call.args)
    ]
    if call.params:
        args.append("**kw")
    if not call.children:
        return f"{call.cls}({', '.join(args)})"
    inner = [render_call(c, indent + 2 if call.list_children else indent + 1) for c in call.children]
    if call.list_children:
        items = "[\n" + "".join(f"{pad}    {x},\n" for x in inner) + f"{pad}]"
        parts = [items, *args]
    else:
        parts = inner + args
    return f"{call.cls}(\n" + "".join(f"{pad}{x},\n" for x in parts) + f"{close})"


def input_spec(shape: Shape) -> object:
    """The per-sample input specification checked by ``Layer.forward`` (``None`` = run-time size)."""
    if isinstance(shape, TensorShape):
        return [d if isinstance(d, int) else None for d in shape.dims]
    if isinstance(shape, ProdShape):
        return (input_spec(shape.a), input_spec(shape.b))
    assert isinstance(shape, CoprodShape)
    raise BridgeError(
        "a layer whose input is a coproduct (a tagged value, `.coprod k s`) cannot be emitted as a "
        "standalone layer: emit it composed after the `Arch.route` that makes the tag"
    )


def counterpart_adapter(pytorch: str | None) -> str | None:
    """The adapter function for a ``PyTorch:`` counterpart expression, or None."""
    if not pytorch:
        return None
    head = pytorch.split("(", 1)[0].rsplit(".", 1)[-1]
    return adapters.ADAPTERS.get(head)


def reference_adapter(reference: str | None) -> tuple[str, str] | None:
    """``(adapter function, module class)`` for a ``Reference:`` function of this package whose
    ``transformers`` module has an adapter (:data:`pybridge.references.hf.ADAPTERS`), or None. Only this
    package's table is read: a user's reference module is never imported to emit a file."""
    if not reference:
        return None
    from pybridge.references.hf import ADAPTERS

    return ADAPTERS.get(reference)


def render_source(cat: Catalogue, name: str, params: dict[str, int], *, literal: bool = False) -> str:
    """The text of the emitted file for layer ``name`` with ``params`` (straight-line and optimised, or
    the literal constructor tree when ``literal``)."""
    from pybridge import budget
    from pybridge.torch.optimize import declared_theorems
    from pybridge.torch.straight import class_source, program

    info = cat.layer(name)
    term, sig = cat.instantiate(name, params)
    # Emitting builds one call per module and the file's Layer() allocates the weights (float32).
    budget.require(budget.estimate(term, batch=0), f"emitting {name}")
    call = realize(term)
    prog = None if literal else program(term, declared_theorems(cat.root))
    rewrites = [] if prog is None else [tuple(r) for r in prog.rewrites]
    deps = cat.dependencies(name)
    dep_hashes = {d: cat.sha256[d] for d in deps}
    verified = all(is_verified(cat.root / d) for d in deps)
    adapter = counterpart_adapter(info.pytorch)
    counterpart = info.pytorch
    by_reference = None if adapter else reference_adapter(info.module_reference)
    if by_reference:  # a transformers module, e.g. GPT2Attention for pybridge.references.hf:gpt2_attention
        adapter, counterpart = by_reference[0], f"transformers' {by_reference[1]}"
    bound = dict(params)
    runtime_dims = [d for d in info.runtime_dims if d not in params]
    sig_text = _batched(sig.dom) + " -> " + _batched(sig.cod)
    module_doc = "\n".join(
        [
            f"{name}: emitted by topos-bridge from its Lean definition. Do not edit; re-emit.",
            "",
            f"Lean declaration: {info.lean_decl} ({info.file}:{info.line})",
            f"Parameters: {', '.join(f'{k}={v}' for k, v in bound.items()) or 'none'}"
            + (f"; run-time dimensions: {', '.join(runtime_dims)}" if runtime_dims else ""),
            f"Signature (batch first): {sig_text}",
            f"PyTorch counterpart: {info.pytorch or 'none'}",
            "",
            "Standalone: this file imports only torch and math.",
        ]
    )
    if literal:
        class_doc = (
            f"{info.summary}\n\nBuilt from {info.lean_decl}; the tree below is its Lean term, "
            "constructor for constructor."
        )
    else:
        class_doc = (
            f"{info.summary}\n\nBuilt from {info.lean_decl}; Net above is its Lean term as "
            "straight-line code, after the rewrites of LEAN_REWRITES (each a Lean theorem)."
        )
    from_torch_doc = f"A Layer with the weights of ``{counterpart}``."
    # Every string that came from Lean (names, paths, docstrings) enters the file through ``repr``.
    header = [
        _docstring(module_doc, ""),
        "",
        "import math",
        "",
        "import torch",
        "from torch import nn",
        "",
        f"LEAN_DECL = {info.lean_decl!r}",
        f"LEAN_SOURCE = {info.file!r}",
        f"LEAN_SOURCE_SHA256 = {cat.sha256[info.file]!r}",
        f"LEAN_DEPENDENCIES = {dep_hashes!r}",
        f"LEAN_VERIFIED = {verified!r}",
        f"PARAMS = {bound!r}",
        f"SIGNATURE = {sig_text!r}",
        f"INPUT_SPEC = {input_spec(sig.dom)!r}",
        f"LEAN_REWRITES = {rewrites!r}",
        "",
        "",
        "# --- one module per constructor of Formal.Arch (from pybridge/torch/runtime.py) ---",
        "",
        _library("runtime")[0].rstrip(),
        "",
    ]
    if adapter:
        header += [
            "",
            "# --- weights from the PyTorch counterpart (from pybridge/torch/adapters.py) ---",
            "",
            _library("adapters")[0].rstrip(),
            "",
        ]
    if prog is not None:
        header += [
            "",
            "# --- the Lean term as straight-line code (from pybridge/torch/straight.py) ---",
            "",
            class_source(prog).rstrip(),
            "",
        ]
    net = "Net(**kw)" if prog is not None else render_call(call)
    layer = [
        "",
        "class Layer(nn.Module):",
        _docstring(class_doc, "    "),
        "",
        "    def __init__(self, *, device=None, dtype=None):",
        "        super().__init__()",
        '        kw = {"device": device, "dtype": dtype}',
        f"        self.net = {net}",
        "",
        "    def forward(self, x):",
        "        check_input(x, INPUT_SPEC)",
        "        return self.net(x)",
    ]
    if adapter:
        layer += [
            "",
            "    @classmethod",
            "    def from_torch(cls, module, *, device=None, dtype=None):",
            _docstring(from_torch_doc, "        "),
            "        ref = next(module.parameters())",
            "        layer = cls(device=device or ref.device, dtype=dtype or ref.dtype)",
            f"        load_leaves(layer.net, {adapter}(module))",
            "        return layer",
        ]
    text = "\n".join(header + layer) + "\n"
    verify_module(
        text,
        module_doc,
        class_doc,
        from_torch_doc if adapter else None,
        adapter is not None,
        with_net=prog is not None,
    )
    return text


def _docstring(text: str, indent: str) -> str:
    """A docstring statement at ``indent`` whose value is ``text`` (up to the indentation that
    ``inspect.cleandoc`` removes).

    Plain text (printable characters and newlines, no quote and no backslash) is written as a
    readable triple-quoted block; anything else as ``repr(text)`` on one line, so that no quote,
    backslash, NUL or line separator from Lean can end the literal early or change its value.
    """
    plain = all(ch == "\n" or ch.isprintable() for ch in text) and '"' not in text and "\\" not in text
    if not plain:
        return f"{indent}{text!r}"
    body = "\n".join(f"{indent}{line}" if i and line else line for i, line in enumerate(text.split("\n")))
    return f'{indent}"""{body}\n{indent}"""' if "\n" in text else f'{indent}"""{text}"""'


#: Top-level assignments of the emitted file, in order.
_CONSTANTS = (
    "LEAN_DECL",
    "LEAN_SOURCE",
    "LEAN_SOURCE_SHA256",
    "LEAN_DEPENDENCIES",
    "LEAN_VERIFIED",
    "PARAMS",
    "SIGNATURE",
    "INPUT_SPEC",
    "LEAN_REWRITES",
)


def _top_level_shape(tree: ast.Module) -> list[tuple[str, str]]:
    """``(statement kind, name)`` for each top-level statement of a module."""
    out: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            out.append((type(node).__name__, node.name))
        elif (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            out.append(("Assign", node.targets[0].id))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.append((type(node).__name__, ast.unparse(node)))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            out.append(("Constant", type(node.value.value).__name__))
        else:
            out.append((type(node).__name__, ast.unparse(node)[:60]))
    return out


def verify_module(
    text: str,
    module_doc: str,
    class_doc: str,
    from_torch_doc: str | None,
    with_adapter: bool,
    *,
    with_net: bool = True,
) -> None:
    """Check with ``ast`` that the emitted ``text`` has exactly the intended top-level statements: the
    module docstring ``module_doc``, the imports of torch and math, the provenance constants, the
    runtime (and adapter) definitions copied from this package, ``class Net`` (the straight-line
    realisation, unless ``with_net`` is false: ``--literal``), and ``class Layer`` with the intended
    docstrings and methods. Anything else (text from Lean that escaped its string literal) is a bug
    here: :class:`EmitError`."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as err:
        raise EmitError(f"the emitted file is not valid Python ({err})") from None
    expected = [
        ("Constant", "str"),
        ("Import", "import math"),
        ("Import", "import torch"),
        ("ImportFrom", "from torch import nn"),
        *(("Assign", c) for c in _CONSTANTS),
        *_library("runtime")[1],
        *(_library("adapters")[1] if with_adapter else ()),
        *((("ClassDef", "Net"),) if with_net else ()),
        ("ClassDef", "Layer"),
    ]
    got = _top_level_shape(tree)
    if got != expected:
        diff = next(
            (i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected))
        )
        raise EmitError(
            f"the emitted file does not have the intended top-level statements (statement {diff + 1}: "
            f"{got[diff] if diff < len(got) else 'missing'}, expected "
            f"{expected[diff] if diff < len(expected) else 'nothing'})"
        )
    if ast.get_docstring(tree) != inspect.cleandoc(module_doc):
        raise EmitError("the emitted file's module docstring is not the intended text")
    layer = tree.body[-1]
    assert isinstance(layer, ast.ClassDef)
    if ast.get_docstring(layer) != inspect.cleandoc(class_doc):
        raise EmitError("the emitted class Layer's docstring is not the intended text")
    methods = [n.name for n in layer.body if isinstance(n, ast.FunctionDef)]
    want = ["__init__", "forward", *(["from_torch"] if from_torch_doc is not None else [])]
    if methods != want or len(layer.body) != len(want) + 1:
        raise EmitError(f"the emitted class Layer has members {methods}, expected {want}")
    if from_torch_doc is not None:
        ft = layer.body[-1]
        assert isinstance(ft, ast.FunctionDef)
        if ast.get_docstring(ft) != inspect.cleandoc(from_torch_doc):
            raise EmitError("the emitted Layer.from_torch docstring is not the intended text")


def _batched(shape: Shape) -> str:
    if isinstance(shape, TensorShape):
        return "[" + ", ".join(["B", *(str(d) for d in shape.dims)]) + "]"
    return format_shape(shape)
