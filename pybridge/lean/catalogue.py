"""The Zoo catalogue, read from the Lean sources (or a layer file outside the repository).

Every ``def`` in ``Formal/Zoo/*.lean`` under the namespace ``Formal.Zoo`` is a layer; the definitions
of ``Formal/Network/Derived.lean`` and of every file a layer file imports (transitively) are the
combinators they may use. A file outside the repository (``pybridge emit path/File.lean:name``) is
read the same way: its own definitions (in any namespace) are its layers, its ``import Formal.…``
resolve to this repository's ``Formal/``, and its other imports to files beside it (Lean's module
name → path, from the file's directory or one of the directories above it, each read from the path
where it was found). As in Lean, an import cycle is an error, and so is a definition that declares
again a name that a module the file imports declares.

A layer's docstring may carry structured lines that the bridge reads; all are optional::

    PyTorch: `torch.nn.MultiheadAttention(d_model, heads, batch_first=True)`
    Reference: `package.module:function`
    Example: `seq=5 d_model=8 heads=2`

``PyTorch:`` is a nesting of allowed ``torch.nn`` classes (read with ``ast``, never evaluated), or
``none``, or ``none (reference: `module.function`)`` (a hand-written reference of
:mod:`pybridge.laws.references`). ``Reference:`` names a Python function returning a
``torch.nn.Module`` for the layer's parameters (imported with importlib, never evaluated from a
string). A layer with no counterpart is checked against the exact interpreter of ``Arch.eval``.
A definition the reader cannot read is kept in :attr:`Catalogue.broken` with its ``file:line`` error
and affects no other layer. Python keeps no list of layers of its own.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pybridge.errors import LeanParseError, UnknownLayerError, UsageError
from pybridge.lean.claims import find_repo_root
from pybridge.lean.display import escape_text
from pybridge.lean.expand import ARCH_KEY, binder_kind, instantiate, render, resolve_name
from pybridge.lean.lexer import read_lean_bytes
from pybridge.lean.parser import BrokenDef, Def, LeanFile, parse_source
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
    #: A hand-written reference of :mod:`pybridge.laws.references` (``PyTorch: none (reference: …)``).
    reference: str | None
    example: dict[str, int]
    type: str
    #: The ``Reference:`` line: ``package.module:function`` returning a ``torch.nn.Module``.
    module_reference: str | None = None

    @property
    def counterparts(self) -> tuple[str, ...]:
        """The counterparts the layer is checked against, as the docstring names them (empty: the
        exact interpreter of ``Arch.eval`` only)."""
        return tuple(c for c in (self.pytorch, self.module_reference, self.reference) if c)


@dataclass(frozen=True)
class Catalogue:
    """The parsed Zoo: layers by name, every definition by qualified name, and file hashes."""

    root: Path
    layers: dict[str, LayerInfo]
    defs: dict[str, Def]
    sha256: dict[str, str]
    #: For each file read, the files it imports directly or transitively (itself included).
    visible: dict[str, frozenset[str]] | None = None
    #: Layers (by name) that the reader cannot read, each with its ``file:line`` error.
    broken: dict[str, BrokenDef] = field(default_factory=dict)
    #: Every definition the reader cannot read, by qualified name (a use of one is an error).
    broken_defs: dict[str, BrokenDef] = field(default_factory=dict)
    #: Files that could not be read at all (an unterminated comment, invalid UTF-8, ...).
    file_errors: dict[str, LeanParseError] = field(default_factory=dict)
    #: The file the layers come from when it is a file outside the Zoo (``list FILE``), else None.
    source: str | None = None

    def layer(self, name: str) -> LayerInfo:
        """The layer called ``name`` (or its qualified name); the reader's error when that layer cannot
        be read; :class:`UnknownLayerError` with the known names otherwise."""
        if name in self.layers:
            return self.layers[name]
        for info in self.layers.values():
            if info.lean_decl == name:
                return info
        for key, bad in self.broken.items():
            if name in (key, bad.name):
                raise bad.error
        for rel, err in self.file_errors.items():
            if _is_layer_file(rel, self.source) and _declares(self.root, rel, name.rsplit(".", 1)[-1]):
                raise err
        where = f"{self.source} has" if self.source else "the Zoo has"
        known = ", ".join(sorted(self.layers)) or "no layer"
        raise UnknownLayerError(f"unknown layer {name!r}; {where}: {known}")

    def instantiate(self, name: str, params: dict[str, int]) -> tuple[Term, Signature]:
        """The checked term of a layer for the given parameters. An unknown name in a layer whose file
        imports a file that could not be read is reported as that file's error."""
        info = self.layer(name)
        try:
            return instantiate(self.defs[info.lean_decl], self.defs, params, self.visible, self.broken_defs)
        except LeanParseError as err:
            if "unknown name" in err.message:
                for rel in sorted((self.visible or {}).get(info.file, frozenset())):
                    if rel in self.file_errors:
                        raise self.file_errors[rel] from None
            raise

    def dependencies(self, name: str) -> list[str]:
        """Relative paths of the Lean files a layer's expansion reads (its own file first)."""
        info = self.layer(name)
        deps = [info.file]
        seen = {info.lean_decl}
        stack = [self.defs[info.lean_decl]]
        while stack:
            d = stack.pop()
            for ident in dict.fromkeys(_identifiers(d.body)):  # each name once (a body may repeat one)
                found = resolve_name(self.defs, ident, d)
                for cand in (found, ident, f"Formal.{ident}", f"Formal.Zoo.{ident}"):
                    if cand is not None and cand in self.defs and cand not in seen:
                        seen.add(cand)
                        stack.append(self.defs[cand])
                        if self.defs[cand].file not in deps:
                            deps.append(self.defs[cand].file)
        return deps


def _declares(root: Path, rel: str, short: str) -> bool:
    """Whether the text of a file that could not be read has a ``def``/``abbrev`` named ``short``
    (so that asking for that layer reports the file's error, not an unknown name)."""
    path = Path(rel) if Path(rel).is_absolute() else root / rel
    try:
        text = read_lean_bytes(path, rel).decode("utf-8", errors="replace")
    except LeanParseError:
        return False
    return re.search(rf"\b(?:def|abbrev)\s+{re.escape(short)}(?![\w'!?])", text) is not None


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
                text = read_lean_bytes(root / rel, rel).decode("utf-8", errors="replace")
            except LeanParseError:
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


def _closure_of(resolved: dict[str, list[str]], start: str) -> frozenset[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in resolved.get(stack.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return frozenset(seen)


_PYTORCH = re.compile(r"^PyTorch:\s*(.*)$", re.MULTILINE)
_REFERENCE = re.compile(r"^Reference:\s*(.*)$", re.MULTILINE)
_EXAMPLE = re.compile(r"^Example:\s*`([^`]*)`", re.MULTILINE)
#: ``package.module:function``: dotted Python identifiers, a colon, one identifier (ASCII only).
REFERENCE_SYNTAX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def _metadata(d: Def) -> tuple[str | None, str | None, dict[str, int], str | None]:
    """``(pytorch, hand-written reference, example, module reference)`` from a layer's docstring."""
    doc = d.doc or ""
    pytorch = reference = module_reference = None
    lines = _PYTORCH.findall(doc)
    if len(lines) > 1:
        raise LeanParseError(d.file, d.line, f"the docstring of {d.short} has {len(lines)} 'PyTorch:' lines")
    if lines:
        text = lines[0].strip().replace("\t", " ")  # a tab is white space to `ast`, as a space
        if escape_text(text) != text:
            raise LeanParseError(
                d.file,
                d.line,
                f"the 'PyTorch:' line in the docstring of {d.short} holds a control or bidirectional "
                f"character: {escape_text(text[:80])}",
            )
        if len(text) > 2 and text.startswith("`") and text.endswith("`"):
            pytorch = text.strip("`")
        elif text != "none":
            ref = re.fullmatch(r"none \(reference: `([\w.]+)`\)", text)
            if not ref:
                raise LeanParseError(
                    d.file,
                    d.line,
                    f"malformed 'PyTorch:' line in the docstring of {d.short}: {text[:80]} (expected "
                    "`torch.nn.X(...)`, none, or none (reference: `module.function`))",
                )
            reference = ref.group(1)
    refs = _REFERENCE.findall(doc)
    if len(refs) > 1:
        raise LeanParseError(d.file, d.line, f"the docstring of {d.short} has {len(refs)} 'Reference:' lines")
    if refs:
        text = refs[0].strip()
        inner = text[1:-1] if len(text) > 2 and text.startswith("`") and text.endswith("`") else ""
        if not REFERENCE_SYNTAX.fullmatch(inner):
            raise LeanParseError(
                d.file,
                d.line,
                f"malformed 'Reference:' line in the docstring of {d.short}: {text[:80]!r} (expected "
                "`package.module:function`, Python identifiers only)",
            )
        module_reference = inner
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
    return pytorch, reference, example, module_reference


def _layer_info(d: Def) -> LayerInfo:
    pytorch, reference, example, module_reference = _metadata(d)
    doc = (d.doc or "").replace("\r\n", "\n")  # Lean reads CRLF as LF
    return LayerInfo(
        name=d.short,
        lean_decl=d.name,
        file=d.file,
        line=d.line,
        # the text as written (the emitter writes it as a string literal; `show`, `list` and `--json`
        # print its control characters escaped)
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
        module_reference=module_reference,
    )


@lru_cache(maxsize=8)
def _load(root: Path, stamp: tuple[tuple[str, float], ...]) -> Catalogue:
    files = [root / f for f in COMBINATOR_FILES] + sorted((root / ZOO_DIR).glob("*.lean"))
    sources: dict[str, bytes] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        sources[rel] = read_lean_bytes(path, rel)
    return build_catalogue(root, sources)


@lru_cache(maxsize=64)
def _parse(text: str, rel: str, tolerant: bool = False) -> LeanFile:
    """:func:`parse_source`, remembered for unchanged text (the result is not modified by readers)."""
    return parse_source(text, rel, tolerant=tolerant)


#: A module name whose parts map to path components: no separators, no empty or dot-only parts.
_PLAIN_MODULE = re.compile(r"[^./\\\x00]+(?:\.[^./\\\x00]+)*")

#: Module prefixes that are Lean's own (``Init``, ``Std``, ``Lean``): no file to read.
LEAN_OWN_MODULES = ("Init", "Std", "Lean")


def _is_file(path: Path) -> bool:
    """``path.is_file()``, and False where the path cannot be looked up at all (a module name that
    makes a file name longer than the system allows, a directory that cannot be searched)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _resolve_import(root: Path, module: str, importer: Path, external: bool) -> tuple[str, Path] | None:
    """The key and the path of the file that ``import module`` in the file at ``importer`` reads:
    ``Formal.…`` under ``root`` (key: the path relative to ``root``); for a file outside the
    repository, other modules beside it (in its directory or a directory above it, as Lean's module
    name → path; key: that path as found from ``importer``). The file is read from the path returned,
    where it was found. None when there is no such file."""
    if not _PLAIN_MODULE.fullmatch(module):  # «a/b», «..»: no such module name maps to a file here
        return None
    rel = module_file(module)
    if module == "Formal" or module.startswith("Formal."):
        return (rel, root / rel) if _is_file(root / rel) else None
    if not external:
        return None
    here = importer.parent
    for base in (here, *here.parents):
        candidate = base / rel
        if _is_file(candidate):
            return candidate.as_posix(), candidate
    return None


def _import_cycle(resolved: dict[str, list[str]], start: str) -> list[str] | None:
    """A cycle of imports reachable from ``start`` in ``resolved`` (file → the files it imports), as
    the files ``a, b, …, a`` along it; None when there is none. Iterative (import chains may be long)."""
    path, on_path, done = [start], {start}, set()
    stack = [iter(resolved.get(start, []))]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            done.add(path[-1])
            on_path.discard(path.pop())
        elif nxt in on_path:
            return path[path.index(nxt) :] + [nxt]
        elif nxt not in done:
            path.append(nxt)
            on_path.add(nxt)
            stack.append(iter(resolved.get(nxt, [])))
    return None


def build_catalogue(root: Path, sources: dict[str, bytes], *, external: str | None = None) -> Catalogue:
    """The catalogue of the given sources (relative path → bytes, combinator files first), read as if
    they were the files of the checkout at ``root``. The files they import (transitively) are read
    from ``root`` (or, for ``external``, the key of a file outside the Zoo whose definitions are the
    layers, from beside it) for their definitions. A definition that cannot be read is recorded in
    ``broken``, a file that cannot be read at all in ``file_errors``; only the ``external`` file
    itself, when it cannot be read, raises :class:`LeanParseError`."""
    defs: dict[str, Def] = {}
    broken_defs: dict[str, BrokenDef] = {}
    layers: dict[str, LayerInfo] = {}
    broken: dict[str, BrokenDef] = {}
    hashes: dict[str, str] = {}
    resolved: dict[str, list[str]] = {}
    #: The line of each import: (importing file, imported file) → line.
    import_lines: dict[tuple[str, str], int] = {}
    #: Where each file is read from (its imports are found from there).
    locations = {
        rel: Path(rel) if rel == external or Path(rel).is_absolute() else root / rel for rel in sources
    }
    file_errors: dict[str, LeanParseError] = {}
    #: A definition of a given file and one of an imported file that declares the same name.
    redeclared: list[tuple[Def, Def]] = []
    primary = list(sources)
    queue = list(sources)
    seen = set(queue)
    while queue:
        rel = queue.pop(0)
        is_primary = rel in sources
        if is_primary:
            data = sources[rel]
        else:
            try:
                data = read_lean_bytes(locations[rel], rel)
            except LeanParseError as err:
                file_errors[rel] = err
                continue
        hashes[rel] = hashlib.sha256(data).hexdigest()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            error = LeanParseError(rel, 1, f"not valid UTF-8 ({err.reason})")
            if rel == external:
                raise error from None
            file_errors[rel] = error
            continue
        is_external = external is not None and not (rel == "Formal.lean" or rel.startswith("Formal/"))
        try:
            parsed = _parse(text, rel, not is_primary)
        except LeanParseError as err:
            if rel == external:
                raise
            file_errors[rel] = err
            resolved[rel] = []
            for module in _IMPORT_LINE.findall(text):
                found = _resolve_import(root, module, locations[rel], is_external)
                if found is not None:
                    resolved[rel].append(found[0])
                    locations.setdefault(found[0], found[1])
            continue
        resolved[rel] = []
        for module, line in zip(parsed.imports, parsed.import_lines):
            found = _resolve_import(root, module, locations[rel], is_external)
            if found is None:
                if rel == external and not module.startswith(LEAN_OWN_MODULES):
                    where = (
                        "this repository has no such Formal module"
                        if module.startswith("Formal")
                        else ("no file beside it has that module name")
                    )
                    raise LeanParseError(rel, line, f"cannot find the imported module {module} ({where})")
                continue
            key = found[0]
            locations.setdefault(key, found[1])
            resolved[rel].append(key)
            import_lines.setdefault((rel, key), line)
            if key not in seen:
                seen.add(key)
                queue.append(key)
        for d in parsed.defs:
            if d.name in defs:
                if is_primary:
                    first = defs[d.name]
                    error = LeanParseError(
                        rel, d.line, f"{d.name} is defined twice (first at {first.file}:{first.line})"
                    )
                    broken_defs.setdefault(
                        d.name, BrokenDef(d.name, d.short, d.doc, rel, d.line, d.namespace, error)
                    )
                elif defs[d.name].file in sources:
                    redeclared.append((defs[d.name], d))
                continue
            defs[d.name] = d
        for b in parsed.broken:
            if b.name is not None and b.name not in defs:
                broken_defs.setdefault(b.name, b)
            if is_primary and _is_layer_file(rel, external) and (b.namespace == ZOO_NAMESPACE or external):
                broken[b.short or f"<line {b.line}>"] = b
    for mine, theirs in redeclared:  # Lean: "'X' has already been declared"; the name is the import's
        if theirs.file not in _closure_of(resolved, mine.file) or defs.get(mine.name) is not mine:
            continue
        defs[mine.name] = theirs
        error = LeanParseError(
            mine.file,
            mine.line,
            f"'{mine.name}' has already been declared (at {theirs.file}:{theirs.line}, in a module this "
            "file imports); Lean rejects the second declaration",
        )
        bad = BrokenDef(mine.name, mine.short, mine.doc, mine.file, mine.line, mine.namespace, error)
        if _is_layer_file(mine.file, external) and (mine.namespace == ZOO_NAMESPACE or external):
            broken[mine.short if mine.short not in broken else mine.name] = bad
    for rel in primary:
        cycle = _import_cycle(resolved, rel)
        if cycle is None:
            continue
        error = LeanParseError(
            cycle[0],
            import_lines.get((cycle[0], cycle[1]), 1),
            f"import cycle {' → '.join(cycle)} (Lean rejects a module that imports itself)",
        )
        if rel == external:
            raise error
        for d in [d for d in defs.values() if d.file == rel and d.parent is None]:
            broken_defs.setdefault(d.name, BrokenDef(d.name, d.short, d.doc, rel, d.line, d.namespace, error))
            del defs[d.name]
            if _is_layer_file(rel, external) and d.namespace == ZOO_NAMESPACE:
                broken[d.short] = broken_defs[d.name]
    for d in defs.values():
        if d.parent is not None or not _is_layer_file(d.file, external) or d.file not in sources:
            continue
        if external is None and d.namespace != ZOO_NAMESPACE:
            continue
        if external is not None and not _layer_shaped(d):
            continue
        key = d.short
        if key in layers or key in broken:  # the same short name in two namespaces: use qualified names
            key = d.name
        twice = broken_defs.get(d.name)
        if twice is not None and twice.file == d.file and twice.line != d.line:
            broken[key] = twice
            continue
        try:
            layers[key] = _layer_info(d)
        except LeanParseError as err:
            broken[key] = BrokenDef(d.name, d.short, d.doc, d.file, d.line, d.namespace, err)
    if external is not None and not any(
        k == "Formal.lean" or k.startswith("Formal/") for k in _closure_of(resolved, external)
    ):
        raise LeanParseError(
            external,
            1,
            "imports no module of Formal (a layer file starts with, e.g., 'import Formal.Network.Derived')",
        )
    visible = {rel: _closure_of(resolved, rel) for rel in resolved}
    for rel in primary:  # files whose imports were not read (the Zoo of a copied tree)
        visible.setdefault(rel, frozenset({rel}))
    if (root / ARCH_FILE).is_file():
        visible[ARCH_KEY] = frozenset({ARCH_FILE})
    return Catalogue(
        root=root,
        layers=layers,
        defs=defs,
        sha256=hashes,
        visible=visible,
        broken=broken,
        broken_defs=broken_defs,
        file_errors=file_errors,
        source=external,
    )


def _is_layer_file(rel: str, external: str | None) -> bool:
    return rel == external if external is not None else rel.startswith(ZOO_DIR + "/")


def _layer_shaped(d: Def) -> bool:
    """A definition of a file outside the Zoo is a layer when its type is ``Arch s t`` and its binders
    are ``Nat`` parameters and hypotheses (helpers that take layers as arguments are not)."""
    return binder_kind(d.type) == "arch" and all(binder_kind(b.type) in ("nat", "prop") for b in d.binders)


def load_catalogue(root: Path | None = None) -> Catalogue:
    """Parse the Zoo (cached while the files are unchanged)."""
    root = (root or find_repo_root()).resolve()
    zoo = root / ZOO_DIR
    if not zoo.is_dir():
        raise LeanParseError(ZOO_DIR, 0, "the Zoo directory is missing")
    paths = [root / f for f in COMBINATOR_FILES] + sorted(zoo.glob("*.lean"))
    direct = {p.relative_to(root).as_posix(): [] for p in paths}
    for rel in direct:
        try:
            direct[rel] = _IMPORT_LINE.findall(
                read_lean_bytes(root / rel, rel).decode("utf-8", errors="replace")
            )
        except LeanParseError:
            pass
    closure = set().union(*import_closure(root, direct).values()) if direct else set()
    stamp = tuple(
        sorted(
            (p.as_posix(), p.stat().st_mtime) for p in {root / r for r in closure} | set(paths) if _is_file(p)
        )
    )
    return _load(root, stamp)


def load_external(path: Path, root: Path | None = None) -> Catalogue:
    """The layers of one Lean file outside the Zoo (``pybridge list path/File.lean``), its
    ``Formal`` imports read from the repository at ``root``."""
    root = (root or find_repo_root()).resolve()
    key = path.as_posix()
    try:
        found = path.is_file()
    except OSError as err:  # a name too long, a directory that cannot be searched
        raise LeanParseError(key, 0, f"cannot read ({err.strerror})") from None
    if not found:
        raise LeanParseError(key, 0, "no such Lean file")
    return build_catalogue(root, {key: read_lean_bytes(path, key)}, external=key)


def catalogue_for(spec: str, root: Path | None = None) -> tuple[Catalogue, str]:
    """The catalogue and layer name that a layer argument names: ``NAME`` (a Zoo layer) or
    ``path/File.lean:NAME`` (a layer of a file outside the Zoo; NAME may be qualified)."""
    path, sep, name = spec.rpartition(":")
    if sep and path.endswith(".lean"):
        if not name:
            raise UsageError(f"{spec}: name the layer after the colon, {path}:NAME")
        return load_external(Path(path), root), name
    if spec.endswith(".lean"):
        raise UsageError(f"{spec}: name the layer as {spec}:NAME (or list its layers: pybridge list {spec})")
    return load_catalogue(root), spec
