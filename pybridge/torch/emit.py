"""Emit a Zoo layer as a standalone PyTorch source file.

The file imports only ``torch`` and ``math``. It holds a copy of :mod:`pybridge.torch.runtime` (one
module per Lean constructor), the adapter for the layer's PyTorch counterpart when there is one, and
``class Layer(torch.nn.Module)`` whose ``__init__`` builds the same constructor tree as
:func:`pybridge.torch.compile_term`. Provenance constants name the Lean declaration, the SHA-256 of its
source, and whether a Lean toolchain verified that source (``LEAN_VERIFIED``, from
``verification.json``; never assumed).
"""

from __future__ import annotations

import ast
import inspect

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
    raise ValueError("a layer whose input is a coproduct cannot be emitted as a standalone layer")


def counterpart_adapter(pytorch: str | None) -> str | None:
    """The adapter function for a ``PyTorch:`` counterpart expression, or None."""
    if not pytorch:
        return None
    head = pytorch.split("(", 1)[0].rsplit(".", 1)[-1]
    return adapters.ADAPTERS.get(head)


def render_source(cat: Catalogue, name: str, params: dict[str, int]) -> str:
    """The text of the emitted file for layer ``name`` with ``params``."""
    info = cat.layer(name)
    term, sig = cat.instantiate(name, params)
    call = realize(term)
    deps = cat.dependencies(name)
    dep_hashes = {d: cat.sha256[d] for d in deps}
    verified = all(is_verified(cat.root / d) for d in deps)
    adapter = counterpart_adapter(info.pytorch)
    bound = dict(params)
    runtime_dims = [d for d in info.runtime_dims if d not in params]
    sig_text = _batched(sig.dom) + " -> " + _batched(sig.cod)
    header = [
        f'"""{name}: emitted by topos-bridge from its Lean definition. Do not edit; re-emit.',
        "",
        f"Lean declaration: {info.lean_decl} ({info.file}:{info.line})",
        f"Parameters: {', '.join(f'{k}={v}' for k, v in bound.items()) or 'none'}"
        + (f"; run-time dimensions: {', '.join(runtime_dims)}" if runtime_dims else ""),
        f"Signature (batch first): {sig_text}",
        f"PyTorch counterpart: {info.pytorch or 'none'}",
        "",
        "Standalone: this file imports only torch and math.",
        '"""',
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
        "",
        "",
        "# --- one module per constructor of Formal.Arch (from pybridge/torch/runtime.py) ---",
        "",
        _strip_module_header(inspect.getsource(runtime)).rstrip(),
        "",
    ]
    if adapter:
        header += [
            "",
            "# --- weights from the PyTorch counterpart (from pybridge/torch/adapters.py) ---",
            "",
            _strip_module_header(inspect.getsource(adapters)).rstrip(),
            "",
        ]
    layer = [
        "",
        "class Layer(nn.Module):",
        f'    """{info.summary}',
        "",
        f"    Built from {info.lean_decl}; the tree below is its Lean term, constructor for constructor.",
        '    """',
        "",
        "    def __init__(self, *, device=None, dtype=None):",
        "        super().__init__()",
        '        kw = {"device": device, "dtype": dtype}',
        f"        self.net = {render_call(call)}",
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
            f'        """A Layer with the weights of ``{info.pytorch}``."""',
            "        ref = next(module.parameters())",
            "        layer = cls(device=device or ref.device, dtype=dtype or ref.dtype)",
            f"        load_leaves(layer.net, {adapter}(module))",
            "        return layer",
        ]
    text = "\n".join(header + layer) + "\n"
    ast.parse(text)  # the emitted file is valid Python, or this is a bug here
    return text


def _batched(shape: Shape) -> str:
    if isinstance(shape, TensorShape):
        return "[" + ", ".join(["B", *(str(d) for d in shape.dims)]) + "]"
    return format_shape(shape)
