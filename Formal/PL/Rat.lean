import Formal.PL.Laws

/-!
# The ordered-field laws over ℚ

Core's rationals satisfy the ordered-field laws used by the PL proofs, so every PL theorem holds
over ℚ: this file gives `ratOrderedFieldLaws : OrderedFieldLaws Rat` for the `Scalar Rat` instance of
`Formal/Network/Scalar.lean`.

The proofs come from core's `Init.Data.Rat.Lemmas` only. The algebraic laws are core lemmas as they
stand (`Rat.add_assoc`, `Rat.mul_inv_cancel`, ...). Core states its order facts through `≤`
(`Rat.not_le`, `Rat.not_lt`, `Rat.le_antisymm`, `Rat.add_le_add_left`, ...); the strict-order laws
(`rat_lt_trans`, `rat_lt_trichotomy`, `rat_add_lt_add_left`) are derived from them below, each in a
few lines. Every helper is stated with Rat's own operations (`a + b`, `a * b`, `-a`, `Rat.inv a`,
`0`, `1`, `<`); the `Scalar Rat` operations unfold to exactly these by instance unfolding alone
(`Scalar.inv` to `Rat.inv`, `a⁻¹` to `Rat.inv a`), so each field of the instance is the helper or
core lemma itself, checked up to definitional unfolding of instances, never of the irreducible
`Rat.add`, `Rat.mul` or `Rat.inv`.
-/

namespace Formal.PL

/-! ## Order facts of core's `Rat`, with `<` -/

/-- `<` on `Rat` is irreflexive: core's `Rat.lt_irrefl`, whose argument is implicit. -/
theorem rat_lt_irrefl (a : Rat) : ¬ a < a :=
  Rat.lt_irrefl

/-- `<` on `Rat` is transitive: `a ≤ c` by transitivity of `≤`, and `a = c` would give
`c < b` and `b < c`. -/
theorem rat_lt_trans {a b c : Rat} (hab : a < b) (hbc : b < c) : a < c := by
  refine Rat.lt_of_le_of_ne (Rat.le_trans (Rat.le_of_lt hab) (Rat.le_of_lt hbc)) ?_
  intro hac
  subst hac
  exact Rat.not_le.mpr hbc (Rat.le_of_lt hab)

/-- `<` on `Rat` is total: neither `a < b` nor `b < a` means `b ≤ a` and `a ≤ b`. -/
theorem rat_lt_trichotomy (a b : Rat) : a < b ∨ a = b ∨ b < a :=
  if hab : a < b then Or.inl hab
  else if hba : b < a then Or.inr (Or.inr hba)
  else Or.inr (Or.inl (Rat.le_antisymm (Rat.not_lt.mp hba) (Rat.not_lt.mp hab)))

/-- Adding on the left preserves `<` on `Rat` (from core's `≤` version, `Rat.add_le_add_left`). -/
theorem rat_add_lt_add_left {a b : Rat} (c : Rat) (h : a < b) : c + a < c + b :=
  Rat.not_le.mp (fun (hle : c + b ≤ c + a) => Rat.not_le.mpr h (Rat.add_le_add_left.mp hle))

/-- Multiplying on the left by a positive rational preserves `<`. -/
theorem rat_mul_lt_mul_left {a b c : Rat} (hc : 0 < c) (h : a < b) : c * a < c * b :=
  Rat.mul_lt_mul_of_pos_left h hc

/-- A nonzero rational times its inverse is `1` (core states it with `a⁻¹`, which is `Rat.inv a`
by unfolding the `Inv Rat` instance). -/
theorem rat_mul_inv (a : Rat) (h : a ≠ 0) : a * Rat.inv a = 1 :=
  Rat.mul_inv_cancel a h

/-- `a + -a = 0` in `Rat`. -/
theorem rat_add_neg (a : Rat) : a + -a = 0 :=
  Rat.add_neg_cancel a

/-- `0 < 1` in `Rat`, by evaluation (core proves `(0 : Rat) ≠ 1` for its `Lean.Grind.Field Rat`
instance the same way, `by decide`). -/
theorem rat_zero_lt_one : (0 : Rat) < 1 := by
  decide

/-- The inverse of a positive rational is positive: core's `Rat.inv_pos` (`0 < a⁻¹ ↔ 0 < a`, with
`a⁻¹` the `Inv Rat` instance, which unfolds to `Rat.inv a`). -/
theorem rat_inv_pos (a : Rat) (h : 0 < a) : 0 < Rat.inv a :=
  Rat.inv_pos.mpr h

/-! ## The instance -/

/-- Core's rationals satisfy the ordered-field laws of `OrderedFieldLaws`, over the operations of the
`Scalar Rat` instance: every theorem of `Formal/PL/` (and everything stated over `OrderedFieldLaws`
scalars) holds over ℚ. -/
instance ratOrderedFieldLaws : OrderedFieldLaws Rat where
  add_assoc := fun a b c => Rat.add_assoc a b c
  add_comm := fun a b => Rat.add_comm a b
  zero_add := fun a => Rat.zero_add a
  add_neg := fun a => rat_add_neg a
  mul_assoc := fun a b c => Rat.mul_assoc a b c
  mul_comm := fun a b => Rat.mul_comm a b
  one_mul := fun a => Rat.one_mul a
  mul_add := fun a b c => Rat.mul_add a b c
  mul_inv := fun a h => rat_mul_inv a h
  lt_irrefl := fun a => rat_lt_irrefl a
  lt_trans := fun hab hbc => rat_lt_trans hab hbc
  lt_trichotomy := fun a b => rat_lt_trichotomy a b
  add_lt_add_left := fun c h => rat_add_lt_add_left c h
  mul_lt_mul_left := fun hc h => rat_mul_lt_mul_left hc h
  inv_pos := fun a h => rat_inv_pos a h
  zero_lt_one := rat_zero_lt_one

end Formal.PL
