"""The static audit of ``Formal/``: the checks that need no Lean toolchain.

``pybridge audit`` runs it, and so does the test suite. Each rule yields findings, one line each,
``file:line: message``; the audit passes when no rule has a finding. The rules:

``syntax``
    every Lean file can be read by the scanner (comments and strings closed, ``namespace``/``end``
    balanced).
``forbidden``
    no ``sorry``, ``admit``, ``axiom``, ``unsafe``, ``implemented_by`` or ``extern`` in ``Formal/``
    (outside comments and strings): a proof either holds from the core axioms or takes its hypothesis
    as an explicit argument.
``core-only``
    Mathlib, Batteries and Aesop are neither imported nor required by the lakefile; imports are core
    Lean (``Init``, ``Std``, ``Lean``) or modules of ``Formal/``.
``import-exists``
    every ``import Formal.…`` names an existing file.
``import-acyclic``
    the import graph of ``Formal/`` has no cycle.
``root-imports``
    ``Formal.lean`` exists and imports every module under ``Formal/``.
``module-doc``
    every module has a non-empty module docstring (``/-! ... -/``).
``ledger``
    the claims ledger parses; every declaration it names is declared in ``Formal/``, is not private,
    and is imported by ``Formal/Claims.lean``; every claim except the out-of-scope ones names at least
    one declaration; every hypothesis of an ``assumed`` claim has a docstring (naming the literature it
    stands for); every entry is in the ledger.
``zoo``
    every Zoo layer (``Formal/Zoo/*.lean``, namespace ``Formal.Zoo``) is declared in ``Formal/``, every
    Zoo file declares at least one layer, and every ``Arch.…``/``Formal.…`` name a Zoo file uses is
    declared in ``Formal/``.

Four rules catch, as text, build errors that an independent reading of the library found (issue 14,
pitfalls in the project's Lean guide):

``decide-ascription``
    no ``absurd (h : T) …`` and no ``(h : T) (by decide)``: a type ascription does not change the type
    of ``h`` that unification sees, so ``decide`` is handed ``h``'s original goal (with its free
    variables); ascribe the ``by`` block instead, ``absurd h (by decide : ¬T)``.
``lambda-hom``
    no ``fun`` (bare, or ascribed ``((fun …) : A ⟶ B)``) as an operand of ``≫``: the lambda keeps its
    function type, which does not unify with a hom type; write ``(show A ⟶ B from fun …)``.
``kernel-scalar``
    every ``Kernel.…`` call names its scalar type, ``(α := …)`` (or ``(β := …)`` for the
    type-generic kernels): elaborated against ``Tensor α s``, an implicit scalar would be solved as
    ``Tensor α []``, which has no ``Scalar`` instance.
``no-first``
    no ``first | … | …`` tactic: a fallback branch is code that no compiler here checks (it named
    lemmas that core Lean does not have); each goal gets the one proof confirmed against Lean's
    sources.

The review record (``REVIEWS.json``, :mod:`pybridge.lean.reviews`) is reported with the audit but is
not a rule: a Lean file with no review of its current text fails the audit only with
``require_reviews`` (``pybridge audit --require-reviews``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator

from pybridge.errors import BridgeError, LeanParseError
from pybridge.lean.claims import (
    CLAIMS_FILE,
    CLAIMS_NAMESPACE,
    STATUS_LABEL,
    STATUSES,
    Ledger,
    load_ledger,
)
from pybridge.lean.decls import (
    DECL_KEYWORDS,
    Declaration,
    ModuleInfo,
    Token,
    declared_names,
    lean_sources,
    module_name,
    module_path,
    read_lean,
    resolve,
    scan_text,
    tokenize,
)
from pybridge.lean.display import dumps_json, escape_text
from pybridge.lean.reviews import REVIEWS_FILE, FileReview, review_status

#: Words that must not occur as tokens in ``Formal/`` (``sorryAx`` is what ``sorry`` elaborates to).
FORBIDDEN_WORDS = ("sorry", "sorryAx", "admit", "axiom", "unsafe", "implemented_by", "extern")
#: Import roots that make the library depend on more than core Lean.
FORBIDDEN_PACKAGES = ("Mathlib", "Batteries", "Aesop")
#: Import roots that ship with the Lean toolchain.
CORE_ROOTS = ("Init", "Std", "Lean")
ROOT_MODULE = "Formal"
ZOO_DIR = "Formal/Zoo/"
ZOO_NAMESPACE = "Formal.Zoo"

#: Rule name -> one-line description, in report order.
RULES: dict[str, str] = {
    "syntax": "every Lean file is readable (comments, strings, namespace/end balanced)",
    "forbidden": "no sorry, admit, axiom, unsafe, implemented_by or extern in Formal/",
    "core-only": "core Lean only: Mathlib, Batteries and Aesop are not imported or required",
    "import-exists": "every `import Formal.…` names an existing file",
    "import-acyclic": "the import graph of Formal/ is acyclic",
    "root-imports": "Formal.lean imports every module under Formal/",
    "module-doc": "every module has a module docstring (/-! ... -/)",
    "ledger": "every declaration named in the claims ledger is declared in Formal/",
    "zoo": "every Zoo layer, and every Arch/Formal name the Zoo uses, is declared in Formal/",
    "decide-ascription": "no `absurd (h : T) …` or `(h : T) (by decide)`: ascribe the `by` block instead",
    "lambda-hom": "no `fun` composed with `≫`: give the morphism its hom type with `show A ⟶ B from`",
    "kernel-scalar": "every `Kernel.…` call names its scalar type, `(α := …)` or `(β := …)`",
    "no-first": "no `first | … | …` fallbacks: one proof per goal, checked against Lean's sources",
    "import-visible": "every definition a Zoo or combinator file uses comes from a module it imports "
    "(directly or transitively) or from earlier in the same file",
}


class Finding(BaseModel):
    """One violation of one rule, at a file and line (line 0: the file as a whole)."""

    model_config = ConfigDict(frozen=True)

    rule: str
    file: str
    line: int
    message: str

    @field_validator("file", "message")
    @classmethod
    def _one_printable_line(cls, text: str) -> str:
        """A path or a message quotes text of a Lean file (a name, an import, a path): its line breaks
        and the other characters a terminal acts on are written as escapes, so a finding is one line."""
        return escape_text(text)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class RuleResult(BaseModel):
    """The outcome of one rule."""

    model_config = ConfigDict(frozen=True)

    rule: str
    description: str
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when the rule found nothing."""
        return not self.findings


class ModuleSummary(BaseModel):
    """The declarations of one module, counted by kind."""

    model_config = ConfigDict(frozen=True)

    module: str
    file: str
    declarations: int
    by_kind: dict[str, int]


class AuditReport(BaseModel):
    """The whole static audit: per-rule findings, declarations per module, claims per status."""

    model_config = ConfigDict(frozen=True)

    root: str
    ok: bool
    rules: tuple[RuleResult, ...]
    modules: tuple[ModuleSummary, ...]
    claims_by_status: dict[str, int]
    #: The review state of every Lean file (from ``REVIEWS.json``); not a rule.
    reviews: tuple[FileReview, ...] = ()
    #: True when files without a review of their current text make the audit fail.
    require_reviews: bool = False

    @property
    def unreviewed(self) -> tuple[FileReview, ...]:
        """The Lean files with no review of their current text (stale or never reviewed)."""
        return tuple(r for r in self.reviews if not r.reviewed)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """All findings, rule by rule."""
        return tuple(f for r in self.rules for f in r.findings)

    def rule(self, name: str) -> RuleResult:
        """The result of the rule called ``name``."""
        for r in self.rules:
            if r.rule == name:
                return r
        raise KeyError(name)

    def to_json(self) -> str:
        """The report as indented JSON (findings also as ``file:line: message`` lines)."""
        data = self.model_dump(mode="json")
        for rule in data["rules"]:
            rule["ok"] = not rule["findings"]
            rule["lines"] = [f"{f['file']}:{f['line']}: {f['message']}" for f in rule["findings"]]
        data["unreviewed"] = [f"{r.file}: {r.describe()}" for r in self.unreviewed]
        return dumps_json(data)

    def render_text(self) -> str:
        """The human-readable report that ``pybridge audit`` prints."""
        out: list[str] = []
        total = len(self.findings)
        out.append(f"static audit of {self.root}: {len(self.rules)} rules, {total} finding(s)")
        width = max(len(r.rule) for r in self.rules)
        for r in self.rules:
            mark = "ok  " if r.ok else "FAIL"
            out.append(f"  {mark}  {r.rule:<{width}}  {r.description}")
            out.extend(f"        {f}" for f in r.findings)
        out.append("")
        out.extend(self._render_reviews())
        out.append("")
        out.append("declarations per module:")
        mwidth = max((len(m.module) for m in self.modules), default=0)
        for m in self.modules:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(m.by_kind.items()))
            out.append(f"  {m.module:<{mwidth}}  {m.declarations:>4}  {kinds}")
        out.append("")
        counts = ", ".join(f"{STATUS_LABEL[s]} {self.claims_by_status.get(s, 0)}" for s in STATUSES)
        out.append(f"claims per status: {counts}")
        return "\n".join(escape_text(line) for line in out)  # names, paths, reviewers: one line each

    def _render_reviews(self) -> list[str]:
        missing = self.unreviewed
        done = len(self.reviews) - len(missing)
        mark = "FAIL" if (self.require_reviews and missing) else ("ok  " if not missing else "note")
        effect = "fails the audit" if self.require_reviews else "reported only; --require-reviews fails on it"
        lines = [
            f"  {mark}  review record ({REVIEWS_FILE}): {done} of {len(self.reviews)} Lean file(s) "
            f"reviewed at their current text; {len(missing)} not ({effect})"
        ]
        lines.extend(f"        {r.file}: {r.describe()}" for r in missing)
        return lines


@dataclass(frozen=True)
class _Source:
    file: str
    module: str
    tokens: tuple[Token, ...]
    info: ModuleInfo | None


def _read_sources(root: Path, findings: list[Finding]) -> list[_Source]:
    out: list[_Source] = []
    for path in lean_sources(root):
        rel = path.relative_to(root).as_posix()
        mod = module_name(rel)
        try:
            text = read_lean(path, rel)
            tokens = tokenize(text, rel)
            info = scan_text(text, rel, mod)
        except LeanParseError as err:
            findings.append(
                Finding(rule="syntax", file=rel, line=err.line, message=err.message.split(": ", 1)[-1])
            )
            out.append(_Source(file=rel, module=mod, tokens=(), info=None))
            continue
        out.append(_Source(file=rel, module=mod, tokens=tuple(tokens), info=info))
    return out


def _rule_forbidden(sources: list[_Source]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        for tok in src.tokens:
            if tok.kind != "ident":
                continue
            hit = next((w for w in FORBIDDEN_WORDS if tok.text == w or tok.text.endswith("." + w)), None)
            if hit is not None:
                found.append(
                    Finding(
                        rule="forbidden",
                        file=src.file,
                        line=tok.line,
                        message=f"`{hit}` is not allowed in Formal/",
                    )
                )
    return found


def _rule_core_only(root: Path, sources: list[_Source], modules: set[str]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        if src.info is None:
            continue
        for imp in src.info.imports:
            head = imp.module.split(".")[0]
            if head in FORBIDDEN_PACKAGES:
                found.append(
                    Finding(
                        rule="core-only",
                        file=src.file,
                        line=imp.line,
                        message=f"imports `{imp.module}`: {head} is not allowed (core Lean only)",
                    )
                )
            elif head not in CORE_ROOTS and head != ROOT_MODULE:
                found.append(
                    Finding(
                        rule="core-only",
                        file=src.file,
                        line=imp.line,
                        message=f"imports `{imp.module}`, which is neither core Lean "
                        f"({', '.join(CORE_ROOTS)}) nor a module of Formal/",
                    )
                )
    lakefile = root / "lakefile.lean"
    if lakefile.is_file():
        try:
            lake_tokens = tokenize(read_lean(lakefile, "lakefile.lean"), "lakefile.lean")
        except LeanParseError as err:
            found.append(Finding(rule="core-only", file="lakefile.lean", line=err.line, message=err.message))
            lake_tokens = []
        for idx, tok in enumerate(lake_tokens):
            if tok.kind == "ident" and tok.text == "require":
                words = [t.text.strip('"').lower() for t in lake_tokens[idx + 1 : idx + 4]]
                for pkg in FORBIDDEN_PACKAGES:
                    if pkg.lower() in words:
                        found.append(
                            Finding(
                                rule="core-only",
                                file="lakefile.lean",
                                line=tok.line,
                                message=f"requires {pkg}: the library is core Lean only",
                            )
                        )
    manifest = root / "lake-manifest.json"
    if manifest.is_file():
        try:
            packages = json.loads(manifest.read_text(encoding="utf-8")).get("packages", [])
            names = [str(p.get("name", "")) for p in packages if isinstance(p, dict)]
        except (OSError, ValueError, AttributeError) as err:
            found.append(
                Finding(rule="core-only", file="lake-manifest.json", line=0, message=f"unreadable ({err})")
            )
            names = []
        for name in names:
            if name.lower() in {p.lower() for p in FORBIDDEN_PACKAGES}:
                found.append(
                    Finding(
                        rule="core-only",
                        file="lake-manifest.json",
                        line=0,
                        message=f"lists the package `{name}`: the library is core Lean only",
                    )
                )
    return found


def _local_imports(src: _Source) -> list[tuple[str, int]]:
    if src.info is None:
        return []
    return [(i.module, i.line) for i in src.info.imports if i.module.split(".")[0] == ROOT_MODULE]


def _rule_import_exists(root: Path, sources: list[_Source]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        for mod, line in _local_imports(src):
            target = module_path(mod)
            if not (root / target).is_file():
                found.append(
                    Finding(
                        rule="import-exists",
                        file=src.file,
                        line=line,
                        message=f"imports `{mod}`, but {target} does not exist",
                    )
                )
    return found


def _rule_import_acyclic(sources: list[_Source]) -> list[Finding]:
    graph: dict[str, list[tuple[str, int]]] = {s.module: _local_imports(s) for s in sources}
    files = {s.module: s.file for s in sources}
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    found: list[Finding] = []
    reported: set[frozenset[str]] = set()

    def visit(mod: str, path: list[str]) -> None:
        state[mod] = 1
        for dep, line in graph.get(mod, []):
            if dep not in graph:
                continue
            if state.get(dep) == 1:
                cycle = [*path[path.index(dep) :], dep]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    found.append(
                        Finding(
                            rule="import-acyclic",
                            file=files[mod],
                            line=line,
                            message="import cycle: " + " → ".join(cycle),
                        )
                    )
            elif state.get(dep) is None:
                visit(dep, [*path, dep])
        state[mod] = 2

    for mod in sorted(graph):
        if state.get(mod) is None:
            visit(mod, [mod])
    return found


def _rule_root_imports(sources: list[_Source]) -> list[Finding]:
    root_src = next((s for s in sources if s.module == ROOT_MODULE), None)
    if root_src is None:
        return [Finding(rule="root-imports", file="Formal.lean", line=0, message="Formal.lean is missing")]
    if root_src.info is None:
        return []
    imported = {m for m, _ in _local_imports(root_src)}
    return [
        Finding(
            rule="root-imports",
            file="Formal.lean",
            line=1,
            message=f"does not import `{s.module}` ({s.file}), so `lake build` does not check it",
        )
        for s in sources
        if s.module != ROOT_MODULE and s.module not in imported
    ]


def _rule_module_doc(sources: list[_Source]) -> list[Finding]:
    return [
        Finding(rule="module-doc", file=s.file, line=1, message="no module docstring (`/-! ... -/`)")
        for s in sources
        if s.info is not None and not (s.info.module_doc or "").strip()
    ]


def _transitive_imports(module: str, graph: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = [module]
    while stack:
        for dep in graph.get(stack.pop(), []):
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen


def _rule_ledger(
    root: Path, sources: list[_Source], declared: dict[str, Declaration]
) -> tuple[list[Finding], Ledger | None]:
    try:
        ledger = load_ledger(root)
    except LeanParseError as err:
        return [
            Finding(rule="ledger", file=err.file, line=err.line, message=err.message.split(": ", 1)[-1])
        ], None
    found: list[Finding] = []
    graph = {s.module: [m for m, _ in _local_imports(s)] for s in sources}
    claims_module = module_name(CLAIMS_FILE)
    reachable = _transitive_imports(claims_module, graph) | {claims_module}
    for claim in ledger.claims:
        if not claim.decls and claim.status != "outOfScope":
            found.append(
                Finding(
                    rule="ledger",
                    file=ledger.file,
                    line=claim.line,
                    message=f"claim `{claim.id}` is {STATUS_LABEL[claim.status]} but names no declaration",
                )
            )
        for name in claim.decls:
            decl = resolve(name, CLAIMS_NAMESPACE, declared)
            if decl is None:
                found.append(
                    Finding(
                        rule="ledger",
                        file=ledger.file,
                        line=claim.line,
                        message=f"claim `{claim.id}` names `{name}`, which no file in Formal/ declares",
                    )
                )
                continue
            if decl.private:
                found.append(
                    Finding(
                        rule="ledger",
                        file=ledger.file,
                        line=claim.line,
                        message=f"claim `{claim.id}` names `{name}`, which is private "
                        f"({decl.file}:{decl.line})",
                    )
                )
            if module_name(decl.file) not in reachable:
                found.append(
                    Finding(
                        rule="ledger",
                        file=ledger.file,
                        line=claim.line,
                        message=f"claim `{claim.id}` names `{name}` from {decl.file}, which {CLAIMS_FILE} "
                        "does not import",
                    )
                )
            if claim.status == "assumed" and not (decl.doc or "").strip():
                found.append(
                    Finding(
                        rule="ledger",
                        file=decl.file,
                        line=decl.line,
                        message=f"hypothesis `{decl.name}` of assumed claim `{claim.id}` has no docstring "
                        "naming the literature it stands for",
                    )
                )
    for name, line in ledger.orphans:
        found.append(
            Finding(
                rule="ledger",
                file=ledger.file,
                line=line,
                message=f"claim entry `{name}` is not reachable from `ledger` (add it to its section's list)",
            )
        )
    return found, ledger


def zoo_layers(modules: list[ModuleInfo]) -> list[Declaration]:
    """The Zoo layers as the scanner sees them: public ``def``/``abbrev``s of ``Formal/Zoo/*.lean``
    directly in the namespace ``Formal.Zoo``."""
    return [
        d
        for m in modules
        if m.file.startswith(ZOO_DIR)
        for d in m.declarations
        if d.kind in ("def", "abbrev") and not d.private and d.name.rpartition(".")[0] == ZOO_NAMESPACE
    ]


def _is_namespace(name: str, declared: dict[str, Declaration]) -> bool:
    prefix = name + "."
    return any(k.startswith(prefix) for k in declared)


def _rule_zoo(root: Path, sources: list[_Source], declared: dict[str, Declaration]) -> list[Finding]:
    found: list[Finding] = []
    zoo_sources = [s for s in sources if s.file.startswith(ZOO_DIR)]
    for src in zoo_sources:
        if src.info is None:
            continue
        if not zoo_layers([src.info]):
            found.append(
                Finding(
                    rule="zoo",
                    file=src.file,
                    line=1,
                    message=f"declares no layer in namespace {ZOO_NAMESPACE}",
                )
            )
        toks = src.tokens
        for idx, tok in enumerate(toks):
            if tok.kind != "ident" or "." not in tok.text:
                continue
            if tok.text.split(".")[0] not in ("Arch", ROOT_MODULE):
                continue
            prev = toks[idx - 1].text if idx else ""
            if prev in ("import", "namespace", "end"):
                continue
            if resolve(tok.text, ZOO_NAMESPACE, declared) is not None:
                continue
            if any(_is_namespace(c, declared) for c in (tok.text, f"Formal.{tok.text}")):
                continue
            found.append(
                Finding(
                    rule="zoo",
                    file=src.file,
                    line=tok.line,
                    message=f"uses `{tok.text}`, which no file in Formal/ declares",
                )
            )
    # The catalogue (the bridge's reading of the Zoo) must agree: each layer it offers is declared.
    if zoo_sources:
        try:
            from pybridge.lean.catalogue import load_catalogue

            catalogue = load_catalogue(root)
        except BridgeError as err:
            found.append(Finding(rule="zoo", file=ZOO_DIR.rstrip("/"), line=0, message=f"catalogue: {err}"))
        else:
            for layer in catalogue.layers.values():
                if layer.lean_decl not in declared:
                    found.append(
                        Finding(
                            rule="zoo",
                            file=layer.file,
                            line=layer.line,
                            message=f"Zoo layer `{layer.name}` ({layer.lean_decl}) is not declared "
                            "in Formal/",
                        )
                    )
    return found


# --- rules on the token stream: build-error patterns found by reading the library (issue 14) -------

_OPENERS = {"(": ")", "⟨": "⟩", "[": "]", "@[": "]", "{": "}"}
_CLOSERS = {")": "(", "⟩": "⟨", "]": "[", "}": "{"}
_LAMBDA = ("fun", "λ")
#: Named arguments that give a kernel its scalar (or element) type.
KERNEL_SCALAR_ARGS = ("α", "β")


def _match_forward(toks: tuple[Token, ...], i: int) -> int:
    """Index of the bracket closing the one at ``i`` (``-1`` if unbalanced)."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "sym":
            continue
        if t.text in _OPENERS:
            depth += 1
        elif t.text in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _match_backward(toks: tuple[Token, ...], j: int) -> int:
    """Index of the bracket opening the one closed at ``j`` (``-1`` if unbalanced)."""
    depth = 0
    for i in range(j, -1, -1):
        t = toks[i]
        if t.kind != "sym":
            continue
        if t.text in _CLOSERS:
            depth += 1
        elif t.text in _OPENERS:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _is_sym(tok: Token, *texts: str) -> bool:
    return tok.kind == "sym" and tok.text in texts


def _is_word(tok: Token, *words: str) -> bool:
    return tok.kind in ("ident", "sym") and tok.text in words


def _is_ascription(toks: tuple[Token, ...], i: int, j: int) -> bool:
    """True when the parenthesised group ``toks[i..j]`` is a type ascription ``(e : T)`` of a term
    (not of a ``by`` block or a ``show``, whose ascribed type is the one Lean uses)."""
    if not _is_sym(toks[i], "(") or j - i < 3 or _is_word(toks[i + 1], "by", "show"):
        return False
    depth = 0
    for k in range(i + 1, j):
        t = toks[k]
        if t.kind != "sym":
            continue
        if t.text in _OPENERS:
            depth += 1
        elif t.text in _CLOSERS:
            depth -= 1
        elif t.text == ":" and depth == 0:
            return True
    return False


def _is_bare_decide(toks: tuple[Token, ...], i: int) -> bool:
    """True when ``toks[i:i+4]`` is ``(by decide)`` with no ascription."""
    return (
        i + 3 < len(toks)
        and _is_sym(toks[i], "(")
        and _is_word(toks[i + 1], "by")
        and _is_word(toks[i + 2], "decide")
        and _is_sym(toks[i + 3], ")")
    )


def _rule_decide_ascription(sources: list[_Source]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        toks = src.tokens
        for i, tok in enumerate(toks):
            if (
                tok.kind == "ident"
                and tok.text == "absurd"
                and i + 1 < len(toks)
                and _is_sym(toks[i + 1], "(")
            ):
                end = _match_forward(toks, i + 1)
                if end > 0 and _is_ascription(toks, i + 1, end):
                    found.append(
                        Finding(
                            rule="decide-ascription",
                            file=src.file,
                            line=tok.line,
                            message="`absurd (h : T) …`: the ascription does not change the type of `h`, "
                            "so `absurd`'s proposition is `h`'s original type; write "
                            "`absurd h (by decide : ¬T)`",
                        )
                    )
                    continue
            if _is_bare_decide(toks, i) and i > 0 and _is_sym(toks[i - 1], ")"):
                start = _match_backward(toks, i - 1)
                if start >= 0 and _is_ascription(toks, start, i - 1):
                    if start > 0 and _is_word(toks[start - 1], "absurd"):
                        continue  # reported above, once
                    found.append(
                        Finding(
                            rule="decide-ascription",
                            file=src.file,
                            line=tok.line,
                            message="`(h : T) (by decide)`: the ascription does not change the type of `h`, "
                            "so `decide` gets a goal built from `h`'s original type; ascribe the `by` "
                            "block instead, `(by decide : …)`",
                        )
                    )
    return found


def _lambda_group(toks: tuple[Token, ...], i: int, j: int) -> bool:
    """True when the group ``toks[i..j]`` is a lambda, bare ``(fun …)`` or ascribed ``((fun …) : T)``."""
    if not _is_sym(toks[i], "(") or j - i < 2:
        return False
    first = toks[i + 1]
    if _is_word(first, *_LAMBDA):
        return True
    return _is_sym(first, "(") and i + 2 < j and _is_word(toks[i + 2], *_LAMBDA)


#: Keywords after which a term starts (so a group after them is a whole operand, not an argument).
_TERM_START_WORDS = frozenset(
    {"exact", "refine", "have", "show", "from", "by", "then", "else", "return", "calc", "let", "in", "at"}
)


def _starts_operand(prev: Token) -> bool:
    """True when a term that follows ``prev`` cannot be an argument of an application ending at
    ``prev``: ``prev`` is an opening bracket, an operator or punctuation, or a keyword."""
    if prev.kind == "sym":
        return prev.text not in _CLOSERS
    return prev.kind == "ident" and prev.text in _TERM_START_WORDS


def _rule_lambda_hom(sources: list[_Source]) -> list[Finding]:
    found: list[Finding] = []
    message = (
        "a `fun` composed with `≫` keeps its function type (an ascription does not retype it), which "
        "does not unify with a hom type; write `(show A ⟶ B from fun …)`"
    )
    for src in sources:
        toks = src.tokens
        for i, tok in enumerate(toks):
            if not _is_sym(tok, "≫"):
                continue
            left = i > 0 and _is_sym(toks[i - 1], ")")
            if left:
                start = _match_backward(toks, i - 1)
                # the group is the whole left operand only when no application head precedes it
                # (in `h.desc (fun j => …) ≫ g` the operand is `h.desc (…)`)
                left = (
                    start >= 0
                    and _lambda_group(toks, start, i - 1)
                    and (start == 0 or _starts_operand(toks[start - 1]))
                )
            right = i + 1 < len(toks) and _is_sym(toks[i + 1], "(")
            if right:
                end = _match_forward(toks, i + 1)
                right = end > 0 and _lambda_group(toks, i + 1, end)
            if left or right:
                found.append(Finding(rule="lambda-hom", file=src.file, line=tok.line, message=message))
    return found


def _is_kernel_name(text: str) -> bool:
    return text.startswith("Kernel.") or ".Kernel." in text


def _rule_kernel_scalar(sources: list[_Source], declared: dict[str, Declaration]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        toks = src.tokens
        for i, tok in enumerate(toks):
            if tok.kind != "ident" or not _is_kernel_name(tok.text):
                continue
            decl = resolve(tok.text, "Formal", declared)
            if decl is not None and decl.kind not in ("def", "abbrev"):
                continue  # a lemma about a kernel, not a kernel
            prev = toks[i - 1] if i else None
            if prev is not None and (_is_sym(prev, "@") or _is_word(prev, *DECL_KEYWORDS)):
                continue
            named: list[str] = []
            k = i + 1
            while (
                k + 2 < len(toks)
                and _is_sym(toks[k], "(")
                and toks[k + 1].kind == "ident"
                and _is_sym(toks[k + 2], ":=")
            ):
                named.append(toks[k + 1].text)
                end = _match_forward(toks, k)
                if end < 0:
                    break
                k = end + 1
            if not any(n in KERNEL_SCALAR_ARGS for n in named):
                found.append(
                    Finding(
                        rule="kernel-scalar",
                        file=src.file,
                        line=tok.line,
                        message=f"`{tok.text}` without its scalar type: write `{tok.text} (α := α)` "
                        "(against an expected `Tensor α s`, Lean solves an implicit scalar as "
                        "`Tensor α []`, which has no `Scalar` instance)",
                    )
                )
    return found


def _rule_no_first(sources: list[_Source]) -> list[Finding]:
    found: list[Finding] = []
    for src in sources:
        toks = src.tokens
        for i, tok in enumerate(toks):
            if (
                tok.kind == "ident"
                and tok.text == "first"
                and i + 1 < len(toks)
                and _is_sym(toks[i + 1], "|")
            ):
                found.append(
                    Finding(
                        rule="no-first",
                        file=src.file,
                        line=tok.line,
                        message="`first | … | …`: its fallback branches are unchecked code; keep the one "
                        "proof confirmed against Lean's sources",
                    )
                )
    return found


def scan_modules(root: Path) -> list[ModuleInfo]:
    """Scan every Lean source of the library (raises :class:`LeanParseError` on the first unreadable
    file)."""
    out: list[ModuleInfo] = []
    for path in lean_sources(root):
        rel = path.relative_to(root).as_posix()
        out.append(scan_text(read_lean(path, rel), rel, module_name(rel)))
    return out


def run_audit(root: Path, *, require_reviews: bool = False) -> AuditReport:
    """Run every rule on the repository at ``root`` and return the report (never raises for a finding).

    The report also gives the review state of every Lean file (``REVIEWS.json``); a file with no review
    of its current text makes ``ok`` false only when ``require_reviews`` is set. Raises
    :class:`ReviewRecordError` when the review record is malformed.
    """
    root = root.resolve()
    reviews = review_status(root)
    findings: dict[str, list[Finding]] = {rule: [] for rule in RULES}
    syntax: list[Finding] = []
    sources = _read_sources(root, syntax)
    findings["syntax"] = syntax
    modules = [s.info for s in sources if s.info is not None]
    declared = declared_names(modules)
    local_modules = {s.module for s in sources}
    findings["forbidden"] = _rule_forbidden(sources)
    findings["core-only"] = _rule_core_only(root, sources, local_modules)
    findings["import-exists"] = _rule_import_exists(root, sources)
    findings["import-acyclic"] = _rule_import_acyclic(sources)
    findings["root-imports"] = _rule_root_imports(sources)
    findings["module-doc"] = _rule_module_doc(sources)
    ledger_findings, ledger = _rule_ledger(root, sources, declared)
    if syntax:
        # Declarations of an unreadable file are unknown: checking names against them would report
        # false "not declared" findings, so these rules say that they did not run.
        unread = ", ".join(sorted({f.file for f in syntax}))
        for rule in ("ledger", "zoo"):
            findings[rule] = [
                Finding(
                    rule=rule,
                    file=syntax[0].file,
                    line=syntax[0].line,
                    message=f"not checked: the declarations of {unread} are unknown (see rule `syntax`)",
                )
            ]
    else:
        findings["ledger"] = ledger_findings
        findings["zoo"] = _rule_zoo(root, sources, declared)
        findings["import-visible"] = rule_import_visible(root)
    findings["decide-ascription"] = _rule_decide_ascription(sources)
    findings["lambda-hom"] = _rule_lambda_hom(sources)
    findings["kernel-scalar"] = _rule_kernel_scalar(sources, declared)
    findings["no-first"] = _rule_no_first(sources)
    rules = tuple(
        RuleResult(rule=rule, description=desc, findings=tuple(findings[rule]))
        for rule, desc in RULES.items()
    )
    summaries = tuple(
        ModuleSummary(
            module=m.module,
            file=m.file,
            declarations=len(m.declarations),
            by_kind=dict(Counter(d.kind for d in m.declarations)),
        )
        for m in modules
    )
    counts = ledger.counts() if ledger is not None else {s: 0 for s in STATUSES}
    unreviewed = any(not r.reviewed for r in reviews)
    return AuditReport(
        root=str(root),
        ok=all(r.ok for r in rules) and not (require_reviews and unreviewed),
        rules=rules,
        modules=summaries,
        claims_by_status=counts,
        reviews=reviews,
        require_reviews=require_reviews,
    )


# --- import visibility (issue 10): the reader's scoping rule, as an audit rule ------------------------


def rule_import_visible(root: Path) -> list[Finding]:
    """Every name a definition of the catalogue (``Formal/Zoo/*.lean``, ``Formal/Network/Derived.lean``)
    uses resolves to a definition in a module its file imports, directly or transitively, or to one
    earlier in the same file; and ``Arch`` constructors need ``Formal.Network.Arch`` imported. These are
    the checks of :meth:`pybridge.lean.expand.Expander.check_visible`, run on every definition rather
    than only on the ones a layer expands. An unreadable catalogue is reported by rule ``zoo``."""
    from pybridge.lean import parser as P
    from pybridge.lean.catalogue import load_catalogue
    from pybridge.lean.expand import CTOR_ARGS, Expander, _strip

    try:
        catalogue = load_catalogue(root)
    except BridgeError:
        return []
    expander = Expander(catalogue.defs, catalogue.visible)
    found: list[Finding] = []
    for d in catalogue.defs.values():
        stack: list[object] = [d.body, d.type, *(b.type for b in d.binders)]
        while stack:
            node = stack.pop()
            for child in getattr(node, "__dict__", {}).values():
                stack.extend(
                    c for c in (child if isinstance(child, tuple) else (child,)) if isinstance(c, P.Node)
                )
            if not isinstance(node, P.Ident):
                continue
            ctor = _strip(node.name, ("Arch.", "Formal.Arch."))
            target = expander.resolve_def(node.name, d)
            try:
                if target is not None:
                    expander.check_visible(target.file, target.line, node.name, d, node)
                elif ctor in CTOR_ARGS:
                    expander.check_arch_visible(node.name, d, node)
            except BridgeError as err:
                found.append(
                    Finding(
                        rule="import-visible",
                        file=d.file,
                        line=node.line,
                        message=str(err).split(": ", 1)[-1],
                    )
                )
    return sorted(set(found), key=lambda f: (f.file, f.line, f.message))
