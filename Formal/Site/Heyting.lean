/-!
# Heyting algebras

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3 and §2.1–2.2) use that the subobject classifier
`Ω` of the topos of a network is, at every layer `x`, the set of sieves on `x`, and that this set is
a Heyting algebra (the logic of the network is intuitionistic). This file gives the algebraic
structure, core-style: a class bundling the order, the operations `inf` (∧), `sup` (∨), `himp` (⇒),
`compl` (¬), `bot` (⊥), `top` (⊤) with their laws. The defining law of implication is the adjunction
`le_himp_iff : a ≤ (b ⇒ c) ↔ a ∧ b ≤ c`, and negation is `¬a = a ⇒ ⊥`. The instance on sieves is in
`Formal/Site/Sieve.lean`.

Operations are named (`inf`, `sup`, ...) rather than given notation, because core Lean has no
lattice notation classes.
-/

namespace Formal.Site

universe u

/-- A Heyting algebra: a bounded lattice with an implication right adjoint to `inf`. -/
class HeytingAlgebra (α : Type u) where
  /-- The order. -/
  le : α → α → Prop
  /-- Meet (∧). -/
  inf : α → α → α
  /-- Join (∨). -/
  sup : α → α → α
  /-- Heyting implication (⇒). -/
  himp : α → α → α
  /-- Pseudo-complement (¬). -/
  compl : α → α
  /-- Least element (⊥). -/
  bot : α
  /-- Greatest element (⊤). -/
  top : α
  le_refl : ∀ a : α, le a a
  le_trans : ∀ {a b c : α}, le a b → le b c → le a c
  le_antisymm : ∀ {a b : α}, le a b → le b a → a = b
  inf_le_left : ∀ a b : α, le (inf a b) a
  inf_le_right : ∀ a b : α, le (inf a b) b
  le_inf : ∀ {a b c : α}, le c a → le c b → le c (inf a b)
  le_sup_left : ∀ a b : α, le a (sup a b)
  le_sup_right : ∀ a b : α, le b (sup a b)
  sup_le : ∀ {a b c : α}, le a c → le b c → le (sup a b) c
  bot_le : ∀ a : α, le bot a
  le_top : ∀ a : α, le a top
  /-- Implication is right adjoint to meet. -/
  le_himp_iff : ∀ a b c : α, le a (himp b c) ↔ le (inf a b) c
  /-- Negation is implication of `⊥`. -/
  compl_eq : ∀ a : α, compl a = himp a bot

namespace HeytingAlgebra

variable {α : Type u} [HeytingAlgebra α]

/-- Modus ponens: `(a ⇒ b) ∧ a ≤ b`. -/
theorem himp_inf_le (a b : α) :
    HeytingAlgebra.le (HeytingAlgebra.inf (HeytingAlgebra.himp a b) a) b :=
  (HeytingAlgebra.le_himp_iff (HeytingAlgebra.himp a b) a b).mp
    (HeytingAlgebra.le_refl (HeytingAlgebra.himp a b))

/-- Non-contradiction: `¬a ∧ a ≤ ⊥`. -/
theorem compl_inf_le_bot (a : α) :
    HeytingAlgebra.le (HeytingAlgebra.inf (HeytingAlgebra.compl a) a) HeytingAlgebra.bot := by
  rw [HeytingAlgebra.compl_eq a]
  exact himp_inf_le a HeytingAlgebra.bot

/-- If `a ≤ b` then the implication `a ⇒ b` is `⊤`. -/
theorem top_le_himp_of_le {a b : α} (h : HeytingAlgebra.le a b) :
    HeytingAlgebra.le HeytingAlgebra.top (HeytingAlgebra.himp a b) :=
  (HeytingAlgebra.le_himp_iff HeytingAlgebra.top a b).mpr
    (HeytingAlgebra.le_trans (HeytingAlgebra.inf_le_right HeytingAlgebra.top a) h)

end HeytingAlgebra

end Formal.Site
