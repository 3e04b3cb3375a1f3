"""The Zoo catalogue, read from the Lean sources.

Every ``def`` in ``Formal/Zoo/*.lean`` under the namespace ``Formal.Zoo`` is a layer; the definitions
of ``Formal/Network/Derived.lean`` are the combinators they may use. A layer's docstring carries two
structured lines that the bridge reads::

    PyTorch: `torch.nn.MultiheadAttention(d_model, heads, batch_first=True)`
    Example: `seq=5 d_model=8 heads=2`

(``PyTorch: none (reference: `module.function`)`` when PyTorch has no counterpart). Python keeps no
list of layers of its own.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pybridge.errors import LeanParseError, UnknownLayerError
from pybridge.lean.claims import find_repo_root
from pybridge.lean.expand import ARCH_KEY, binder_kind, instantiate, render
from pybridge.lean.parser import Def, LeanFile, parse_source
from pybridge.spec.terms import Term
from pybridge.spec.typing import Signature

#: Files, relative to the repository root, whose definitions layers may use.
COMBINATOR_FILES = ("Formal/Network/Derived.lean",)
ZOO_DIR = "Formal/Zoo"
#: The file that declares ``Formal.Arch`` (its constructors need it imported).
ARCH_FILE = "Formal/Network/Arch.lean"
ZOO_NAMESPACE = "Formal.Zoo"


class Hypothesis(BaseModel):
    """A ``Prop`` binder of a layer: a side condition on its parameters."""

    model_config = ConfigDict(frozen=True)
    name: str
    statement: str


class LayerInfo(BaseModel):
    """One Zoo layer, as declared in Lean."""

    model_config = ConfigDict(frozen=True)
    name: str
    lean_decl: str
    file: str
    line: int
    summary: str
    doc: str
    params: tuple[str, ...]
    runtime_dims: tuple[str, ...]
    hypotheses: tuple[Hypothesis, ...]
    pytorch: str | None
    reference: str | None
    example: dict[str, int]
    type: str


@dataclass(frozen=True)
class Catalogue:
    """The parsed Zoo: layers by name, every definition by qualified name, and file hashes."""

    root: Path
    layers: dict[str, LayerInfo]
    defs: dict[str, Def]
    sha256: dict[str, str]
    #: For each file read, the files it imports directly or transitively (itself included).
    visible: dict[str, frozenset[str]] | None = None

    def layer(self, name: str) -> LayerInfo:
        """The layer called ``name``; :class:`UnknownLayerError` with the known names otherwise."""
        if name not in self.layers:
            raise UnknownLayerError(f"unknown layer {name!r}; the Zoo has: {', '.join(sorted(self.layers))}")
        return self.layers[name]

    def instantiate(self, name: str, params: dict[str, int]) -> tuple[Term, Signature]:
        """The checked term of a layer for the given parameters."""
        info = self.layer(name)
        return instantiate(self.defs[info.lean_decl], self.defs, params, self.visible)

    def dependencies(self, name: str) -> list[str]:
        """Relative paths of the Lean files a layer's expansion reads (its own file first)."""
        info = self.layer(name)
        deps = [info.file]
        seen = {info.lean_decl}
        stack = [self.defs[info.lean_decl]]
        while stack:
            d = stack.pop()
            for ident in _identifiers(d.body):
                for cand in (ident, f"{d.namespace}.{ident}", f"Formal.{ident}", f"Formal.Zoo.{ident}"):
                    if cand in self.defs and cand not in seen:
                        seen.add(cand)
                        stack.append(self.defs[cand])
                        if self.defs[cand].file not in deps:
                            deps.append(self.defs[cand].file)
        return deps


def _identifiers(root: object) -> list[str]:
    """The identifiers of an expression, left to right (iteratively: expressions may be deep)."""
    from pybridge.lean import parser as P

    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, P.Ident):
            out.append(node.name)
        kids: list[object] = []
        for child in getattr(node, "__dict__", {}).values():
            if isinstance(child, P.Node):
                kids.append(child)
            elif isinstance(child, tuple):
                kids.extend(c for c in child if isinstance(c, P.Node))
        stack.extend(reversed(kids))
    return out


_IMPORT_LINE = re.compile(r"^import\s+(\S+)", re.MULTILINE)


def module_file(module: str) -> str:
    """``Formal.Zoo.MoE`` → ``Formal/Zoo/MoE.lean``."""
    return module.replace(".", "/") + ".lean"


def import_closure(root: Path, direct: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """For each file of ``direct`` (file → the modules it imports), every file it imports directly or
    transitively, itself included. Files outside ``direct`` are read for their ``import`` lines only;
    a module with no file under ``root`` (Lean's own ``Init``, ...) ends the search there."""
    imports: dict[str, list[str]] = {f: [module_file(m) for m in ms] for f, ms in direct.items()}

    def imports_of(rel: str) -> list[str]:
        if rel not in imports:
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            imports[rel] = [module_file(m) for m in _IMPORT_LINE.findall(text)]
        return imports[rel]

    closure: dict[str, frozenset[str]] = {}
    for start in direct:
        seen, stack = {start}, [start]
        while stack:
            for nxt in imports_of(stack.pop()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        closure[start] = frozenset(seen)
    return closure


_PYTORCH = re.compile(r"^PyTorch:\s*(.*)$", re.MULTILINE)
_EXAMPLE = re.compile(r"^Example:\s*`([^`]*)`", re.MULTILINE)


def _metadata(d: Def) -> tuple[str | None, str | None, dict[str, int]]:
    doc = d.doc or ""
    m = _PYTORCH.search(doc)
    if not m:
        raise LeanParseError(d.file, d.line, f"the docstring of {d.short} has no 'PyTorch:' line")
    text = m.group(1).strip()
    pytorch = reference = None
    if text.startswith("`") and text.endswith("`"):
        pytorch = text.strip("`")
    else:
        ref = re.match(r"none \(reference: `([\w.]+)`\)", text)
        if not ref:
            raise LeanParseError(
                d.file, d.line, f"malformed 'PyTorch:' line in the docstring of {d.short}: {text}"
            )
        reference = ref.group(1)
    example: dict[str, int] = {}
    ex = _EXAMPLE.search(doc)
    if ex:
        for part in ex.group(1).split():
            k, _, v = part.partition("=")
            if not (k.isidentifier() and v.isascii() and v.isdigit()):
                raise LeanParseError(d.file, d.line, f"malformed 'Example:' entry {part[:40]!r} in {d.short}")
            if len(v) > 18:
                raise LeanParseError(
                    d.file, d.line, f"'Example:' value of {k} in {d.short} has {len(v)} digits (at most 18)"
                )
            if k in example:
                raise LeanParseError(d.file, d.line, f"'Example:' gives {k} twice in {d.short}")
            example[k] = int(v)
    return pytorch, reference, example


@lru_cache(maxsize=8)
def _load(root: Path, stamp: tuple[tuple[str, float], ...]) -> Catalogue:
    files = [root / f for f in COMBINATOR_FILES] + sorted((root / ZOO_DIR).glob("*.lean"))
    sources: dict[str, bytes] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        try:
            sources[rel] = path.read_bytes()
        except OSError as err:
            raise LeanParseError(rel, 1, f"cannot read ({err.strerror})") from None
    return build_catalogue(root, sources)


@lru_cache(maxsize=64)
def _parse(text: str, rel: str) -> LeanFile:
    """:func:`parse_source`, remembered for unchanged text (the result is not modified by readers)."""
    return parse_source(text, rel)


def build_catalogue(root: Path, sources: dict[str, bytes]) -> Catalogue:
    """The catalogue of the given sources (relative path → bytes, combinator files first), read as if
    they were the files of the checkout at ``root``; raises :class:`LeanParseError`."""
    defs: dict[str, Def] = {}
    layers: dict[str, LayerInfo] = {}
    hashes: dict[str, str] = {}
    direct: dict[str, list[str]] = {}
    for rel, data in sources.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise LeanParseError(rel, 1, f"not valid UTF-8 ({err.reason})") from None
        hashes[rel] = hashlib.sha256(data).hexdigest()
        parsed = _parse(text, rel)
        direct[rel] = parsed.imports
        for d in parsed.defs:
            if d.name in defs:
                raise LeanParseError(rel, d.line, f"{d.name} is defined twice")
            defs[d.name] = d
    for d in defs.values():
        if not (d.file.startswith(ZOO_DIR + "/") and d.namespace == ZOO_NAMESPACE):
            continue
        pytorch, reference, example = _metadata(d)
        doc = d.doc or ""
        layers[d.short] = LayerInfo(
            name=d.short,
            lean_decl=d.name,
            file=d.file,
            line=d.line,
            summary=doc.split("\n\n")[0].replace("\n", " ").strip(),
            doc=doc,
            params=tuple(b.name for b in d.binders if binder_kind(b.type) == "nat" and not b.implicit),
            runtime_dims=tuple(b.name for b in d.binders if binder_kind(b.type) == "nat" and b.implicit),
            hypotheses=tuple(
                Hypothesis(name=b.name, statement=render(b.type))
                for b in d.binders
                if binder_kind(b.type) == "prop"
            ),
            pytorch=pytorch,
            reference=reference,
            example=example,
            type=render(d.type),
        )
    visible = import_closure(root, direct)
    if (root / ARCH_FILE).is_file():
        visible[ARCH_KEY] = frozenset({ARCH_FILE})
    return Catalogue(root=root, layers=layers, defs=defs, sha256=hashes, visible=visible)


def load_catalogue(root: Path | None = None) -> Catalogue:
    """Parse the Zoo (cached while the files are unchanged)."""
    root = (root or find_repo_root()).resolve()
    zoo = root / ZOO_DIR
    if not zoo.is_dir():
        raise LeanParseError(ZOO_DIR, 0, "the Zoo directory is missing")
    paths = [root / f for f in COMBINATOR_FILES] + sorted(zoo.glob("*.lean"))
    stamp = tuple((p.as_posix(), p.stat().st_mtime) for p in paths if p.exists())
    return _load(root, stamp)
