"""Shared fixtures: a small, valid Lean fixture tree that each audit/claims/verify test breaks in one way."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

#: The files of a minimal topos-bridge checkout that passes every static-audit rule.
MINI_REPO: dict[str, str] = {
    "lakefile.lean": """import Lake
open Lake DSL

/-! Fixture build configuration. -/

package «fixture» where

@[default_target]
lean_lib Formal where
""",
    "lean-toolchain": "leanprover/lean4:v4.35.0\n",
    "Formal.lean": """import Formal.Core
import Formal.Network.Derived
import Formal.Zoo.Identity
import Formal.Claims

/-! Root of the fixture library. -/
""",
    "Formal/Core.lean": """/-!
# Core of the fixture

A shape type, a layer syntax with one constructor, a hypothesis and a theorem.
-/

namespace Formal

/-- Shapes. -/
inductive Shape where
  /-- A tensor. -/
  | tensor (dims : List Nat)
  deriving Repr

/-- Layers. -/
inductive Arch : Shape → Shape → Type where
  /-- The identity layer. -/
  | id (s : Shape) : Arch s s

/-- A hypothesis standing for Smith (2020), Theorem 1. -/
structure Hyp where
  /-- The statement assumed from Smith (2020), Theorem 1. -/
  holds : True

-- a comment that mentions sorry, admit and axiom is fine
/-- The identity equals itself ("sorry" in a string is fine too). -/
theorem id_eq (s : Shape) : Arch.id s = Arch.id s := rfl

/-- Used by no claim, private. -/
private theorem hidden : True := trivial

end Formal
""",
    "Formal/Network/Derived.lean": """import Formal.Core

/-! Derived layers of the fixture. -/

namespace Formal.Arch

/-- The identity, through a combinator. -/
def same (s : Shape) : Arch s s := Arch.id s

end Formal.Arch
""",
    "Formal/Zoo/Identity.lean": """import Formal.Network.Derived

/-! Zoo: the identity layer of the fixture. -/

namespace Formal.Zoo

/-- The identity layer on vectors.

PyTorch: `torch.nn.Identity()`

Example: `d=4` -/
def identity (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=
  Arch.same (.tensor [d])

end Formal.Zoo
""",
    "Formal/Claims.lean": """import Formal.Core

/-! The fixture's claims ledger. -/

namespace Formal.Claims

/-- How a claim stands. -/
inductive Status where
  | proved
  | assumed
  | refuted
  | outOfScope

/-- One entry. -/
structure Claim where
  id : String
  paper : String
  statement : String
  status : Status
  decls : List Lean.Name

def cId : Claim where
  id := "TB.id"
  paper := "TB"
  statement := "The identity layer equals itself (a \\"trivial\\" claim) | with a bar."
  status := .proved
  decls := [``Formal.id_eq]

def cHyp : Claim where
  id := "BB.hyp"
  paper := "BB"
  statement := "A hypothesis taken from the literature."
  status := .assumed
  decls := [``Formal.Hyp.holds]

def cOut : Claim where
  id := "VM.out"
  paper := "VM"
  statement := "Something this fixture does not formalise."
  status := .outOfScope
  decls := []

/-- First section. -/
def networkClaims : List Claim := [cId, cHyp]

/-- Second section. -/
def otherClaims : List Claim :=
  [cOut]

/-- The whole ledger. -/
def ledger : List Claim :=
  networkClaims ++ otherClaims

end Formal.Claims
""",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def pytest_configure(config: pytest.Config) -> None:
    """Unset ``TOPOS_BRIDGE_ROOT`` for the whole run, before collection: tests find their checkout (the
    real one, or a fixture they ``chdir`` into) themselves, and one that needs the variable sets it
    with monkeypatch. Otherwise a developer's setting would point the tests, ``trust --write``
    included, at that other checkout."""
    os.environ.pop("TOPOS_BRIDGE_ROOT", None)


@pytest.fixture
def mini_repo(tmp_path: Path) -> Path:
    """A fresh copy of the minimal valid checkout in a temporary directory."""
    return write_tree(tmp_path / "repo", MINI_REPO)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The root of this checkout (the real ``Formal/``)."""
    from pybridge.lean.claims import find_repo_root

    return find_repo_root(Path(__file__).resolve().parent)


def lake_available() -> bool:
    """True when a ``lake`` executable is on PATH."""
    return shutil.which("lake") is not None


def lean_zoo_names(root: Path | None = None) -> set[str]:
    """The Zoo layers, read off the Lean files with a regular expression (independently of the
    catalogue reader under test): every ``def NAME`` at the top of a line in ``Formal/Zoo/*.lean``."""
    import re

    root = root or Path(__file__).resolve().parents[1]
    names: set[str] = set()
    for path in sorted((root / "Formal" / "Zoo").glob("*.lean")):
        names.update(re.findall(r"^def\s+([A-Za-z_][A-Za-z0-9_']*)", path.read_text(encoding="utf-8"), re.M))
    return names
