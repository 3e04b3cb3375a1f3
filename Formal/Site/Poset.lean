/-!
# Posets and finite posets

Belfiore & Bennequin (*Topos and Stacks of Deep Neural Networks*, arXiv 2106.14587 v3, §1.2–1.3)
reduce the site of a network to a poset `X` (Prop. 1.1: the topos of the network is the category of
presheaves on `X`). This file fixes the order-theoretic vocabulary used by the rest of
`Formal/Site`: a partial order (`Poset`, written with core's `≤`), a finite poset (`FinPoset`: a
poset with a complete list of its elements and a decidable order), and one concrete finite poset,
`ResX`: the layers of the tree unfolding `normalize raw` of the residual block of
`Formal/Site/Residual.lean`, ordered by the paths of its fork graph (`Residual.normalized_order_resX`).
In that unfolding the input appears as two unrelated vertices, so `ResX` has no element for the
shared input: it is the poset of the network `(a, b) ↦ f(a) + b`.

Convention (as in the paper, where arrows of the site point against the data flow): `y ≤ x` means
that there is a data-flow path from `x` to `y`, so the output layer is the least element and a
presheaf's restriction map along `y ≤ x` transports data from `x` forward to `y`.
-/

namespace Formal.Site

universe u

/-- A partial order: a reflexive, transitive, antisymmetric relation `≤`. -/
class Poset (α : Type u) extends LE α where
  /-- Reflexivity. -/
  le_refl : ∀ a : α, a ≤ a
  /-- Transitivity. -/
  le_trans : ∀ {a b c : α}, a ≤ b → b ≤ c → a ≤ c
  /-- Antisymmetry. -/
  le_antisymm : ∀ {a b : α}, a ≤ b → b ≤ a → a = b

/-- A finite poset: a poset together with a list containing every element and a decision
procedure for the order. -/
class FinPoset (α : Type u) extends Poset α where
  /-- Every element, listed. -/
  elems : List α
  /-- The list is complete. -/
  mem_elems : ∀ a : α, a ∈ elems
  /-- The order is decidable. -/
  decLe : ∀ a b : α, Decidable (a ≤ b)

/-! ## The poset of the tree unfolding of the residual block

The tree unfolding `normalize raw` of the residual block `y = x + f(x)` (`Formal/Site/Fork.lean`,
`Formal/Site/Residual.lean`) has four vertices that are not fork points `A★`: two vertices for the
input, with no common source (`inMain` feeds the branch `f`, `inSkip` is the skip edge), the branch
`branch` and the join `join` (the addition). Data flows `inMain → branch → join` and
`inSkip → join`. `Residual.normalized_order_resX` proves that this order is the path order of the
fork graph of `normalize raw` on these four vertices. -/

/-- The layers of the tree unfolding of the residual block. -/
inductive ResX where
  /-- The input vertex that feeds the residual branch. -/
  | inMain
  /-- The input vertex on the skip connection. -/
  | inSkip
  /-- The residual branch `f`. -/
  | branch
  /-- The join (the addition `x + f(x)`). -/
  | join
  deriving DecidableEq

namespace ResX

/-- The order of `X` as a Boolean table: `leB y x = true` iff data flows from `x` to `y`
(or `x = y`). -/
def leB : ResX → ResX → Bool
  | inMain, inMain => true
  | inSkip, inSkip => true
  | branch, branch => true
  | branch, inMain => true
  | join, _ => true
  | _, _ => false

theorem leB_refl (a : ResX) : leB a a = true := by
  cases a <;> rfl

/-- Transitivity of the table, checked on all 64 triples: after `revert`, each case is a closed
implication between Boolean equalities, which `decide` evaluates. -/
theorem leB_trans (a b c : ResX) (h₁ : leB a b = true) (h₂ : leB b c = true) :
    leB a c = true := by
  revert h₁ h₂
  cases a <;> cases b <;> cases c <;> decide

/-- Antisymmetry of the table, checked on all 16 pairs: each case is a closed implication whose
conclusion is an equality of constructors, decidable by the derived `DecidableEq ResX`. -/
theorem leB_antisymm (a b : ResX) (h₁ : leB a b = true) (h₂ : leB b a = true) : a = b := by
  revert h₁ h₂
  cases a <;> cases b <;> decide

end ResX

/-- `ResX`, the layers of the tree unfolding of the residual block, is a finite poset. -/
instance instFinPosetResX : FinPoset ResX where
  le := fun a b => ResX.leB a b = true
  le_refl := fun a => ResX.leB_refl a
  le_trans := fun {a b c} h₁ h₂ => ResX.leB_trans a b c h₁ h₂
  le_antisymm := fun {a b} h₁ h₂ => ResX.leB_antisymm a b h₁ h₂
  elems := [ResX.inMain, ResX.inSkip, ResX.branch, ResX.join]
  mem_elems := fun a => by
    cases a
    · exact List.Mem.head _
    · exact List.Mem.tail _ (List.Mem.head _)
    · exact List.Mem.tail _ (List.Mem.tail _ (List.Mem.head _))
    · exact List.Mem.tail _ (List.Mem.tail _ (List.Mem.tail _ (List.Mem.head _)))
  decLe := fun a b => inferInstanceAs (Decidable (ResX.leB a b = true))

end Formal.Site
