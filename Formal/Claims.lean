import Formal.Network.Arch
import Formal.Network.Laws
import Formal.Network.Derived
import Formal.Zoo.MLP
import Formal.Zoo.Attention
import Formal.Zoo.EncoderBlock
import Formal.Zoo.GLU
import Formal.Zoo.HyperLinear
import Formal.Zoo.MoE

/-!
# The claims ledger

Every statement of the two source papers that this library formalises has one entry here:
*Topos and Stacks of Deep Neural Networks* (Belfiore & Bennequin, arXiv 2106.14587, ids `BB.*`) and
*The Topos of Transformer Networks* (Villani & McBurney, arXiv 2403.18415v2, ids `VM.*`), plus the
project's own structural results (ids `TB.*`, "topos-bridge").

An entry names the paper, states the claim in words, gives its status, and lists the Lean declarations
that settle it. The declarations are written as double-backtick name literals (``` ``Formal.foo ```),
which Lean resolves when this file is elaborated: a ledger entry that names a missing declaration is a
build error, not a silent drift. The Python bridge (`pybridge claims`, `pybridge audit`, `TRUST.md`)
reads this file as text, so every entry keeps the exact layout of the ones below: one
`def <name> : Claim where` block with the five fields in order, each on its own line.
-/

namespace Formal.Claims

/-- How a claim stands in this library. -/
inductive Status where
  /-- Proved in Lean from the core axioms (`propext`, `funext`, `Quot.sound`, `Classical.choice`). -/
  | proved
  /-- Enters as an explicit, named hypothesis (a structure field or an argument). -/
  | assumed
  /-- Refuted as stated: the listed declarations give the counterexample. -/
  | refuted
  /-- Not formalised here; the statement says why. -/
  | outOfScope
  deriving Repr, DecidableEq

/-- One ledger entry. -/
structure Claim where
  /-- `VM.C3`, `BB.Prop1.1`, `TB.Arch.assoc`, ... -/
  id : String
  /-- The source: `VM` (Villani–McBurney), `BB` (Belfiore–Bennequin) or `TB` (this project). -/
  paper : String
  /-- The claim in words, as this library reads it. -/
  statement : String
  status : Status
  /-- The declarations that settle it (empty only for `outOfScope`). -/
  decls : List Lean.Name

/-! ## Layer syntax and the Zoo (`Formal/Network`, `Formal/Zoo`) -/

def tbArchAssoc : Claim where
  id := "TB.Arch.assoc"
  paper := "TB"
  statement := "Sequential composition of layers is associative for the semantics: ((f ≫ g) ≫ h) and (f ≫ (g ≫ h)) denote the same map, up to the canonical reparametrisation ((p, q), r) ↦ (p, (q, r))."
  status := .proved
  decls := [``Formal.Arch.eval_comp_assoc, ``Formal.Arch.eval_comp]

def tbArchUnit : Claim where
  id := "TB.Arch.unit"
  paper := "TB"
  statement := "The identity layer is a two-sided unit for composition in the semantics, up to dropping the trivial parameter."
  status := .proved
  decls := [``Formal.Arch.eval_id_comp, ``Formal.Arch.eval_comp_id]

/-- The claims of the layer syntax and the Zoo. -/
def networkClaims : List Claim := [tbArchAssoc, tbArchUnit]

/-! ## Categorical core (`Formal/Category`, `Formal/Fam`, `Formal/Para`) -/

-- LEDGER: category (entries, then `def categoryClaims : List Claim := [...]`)
def categoryClaims : List Claim := []

/-! ## The transformer-topos claims (`Formal/PL`, `Formal/Attention`, `Formal/Gap`) -/

-- LEDGER: transformer (entries, then `def transformerClaims : List Claim := [...]`)
def transformerClaims : List Claim := []

/-! ## Sites, sieves and presheaves (`Formal/Site`) -/

-- LEDGER: site (entries, then `def siteClaims : List Claim := [...]`)
def siteClaims : List Claim := []

/-- The whole ledger. -/
def ledger : List Claim :=
  networkClaims ++ categoryClaims ++ transformerClaims ++ siteClaims

end Formal.Claims
