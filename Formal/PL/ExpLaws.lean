import Formal.PL.Laws

/-!
# Laws of `exp`, `sqrt` and the embedding of `Nat`

`Formal.Transcendental` declares `exp` and `sqrt` (and `log`, `sin`, `cos`, which no proof here
uses and which get no laws) as bare operations, and `Formal.Scalar` declares `ofNat` as a bare
operation. With no laws, `exp := fun _ => 1` is allowed, and then softmax attention
is affine; so no statement about softmax (Villani & McBurney, arXiv 2403.18415v2, §4, claim C2: "a
transformer is not piecewise linear") can be proved without them. This file states the laws the
proofs use, in the library's style: `Prop`-valued hypothesis classes over the operations (as
`OrderedFieldLaws` in `Formal/PL/Laws.lean`), never fields of `Scalar` or `Transcendental`, so every
theorem names the laws it assumes.

* `ExpLaws α`: `exp 0 = 1`, `exp (x + y) = exp x * exp y`, `0 < exp x`, and `exp` strictly
  increasing: the laws of the real exponential.
* `SqrtLaws α`: on non-negative arguments `sqrt x * sqrt x = x`, and `sqrt x` is never negative:
  the laws of the real square root (no law is stated for negative arguments).
* `NatCastLaws α`: `ofNat 0 = 0` and `ofNat (n + 1) = ofNat n + 1`.

The real numbers with their exponential and square root satisfy all three together with
`OrderedFieldLaws`. Core's `Rat` does not satisfy `ExpLaws` with any `exp`: `e := exp 1` would be a
rational `> 1` with a rational `n`-th root `exp (1/n)` for every `n`, and no rational other than `1`
has that. (Both are standard facts, not proved here.) So theorems that assume `ExpLaws` hold "over
any ordered field with an exponential", never "over ℚ". No instance is given here.
-/

namespace Formal.PL

universe u

/-- The laws of the exponential that the softmax proofs use (those of the real `exp`). -/
class ExpLaws (α : Type u) [Scalar α] [Transcendental α] : Prop where
  /-- `exp 0 = 1`. -/
  exp_zero : Transcendental.exp (Scalar.zero : α) = Scalar.one
  /-- `exp` turns sums into products. -/
  exp_add : ∀ x y : α, Transcendental.exp (x + y) = Transcendental.exp x * Transcendental.exp y
  /-- `exp` is positive. -/
  exp_pos : ∀ x : α, Scalar.zero < Transcendental.exp x
  /-- `exp` is strictly increasing. -/
  exp_lt_exp : ∀ {x y : α}, x < y → Transcendental.exp x < Transcendental.exp y

/-- The laws of the square root on non-negative arguments (those of the real `sqrt`), stated with
the strict order only: `¬ x < 0` is `0 ≤ x`. -/
class SqrtLaws (α : Type u) [Scalar α] [Transcendental α] : Prop where
  /-- `sqrt x * sqrt x = x` for `x ≥ 0`. -/
  sqrt_mul_self : ∀ x : α, ¬ x < Scalar.zero →
    Transcendental.sqrt x * Transcendental.sqrt x = x
  /-- `sqrt x ≥ 0`. -/
  sqrt_nonneg : ∀ x : α, ¬ Transcendental.sqrt x < Scalar.zero

/-- The embedding of the natural numbers is the one of an ordered field: `n ↦ 1 + ... + 1`. -/
class NatCastLaws (α : Type u) [Scalar α] : Prop where
  /-- `ofNat 0 = 0`. -/
  ofNat_zero : (Scalar.ofNat 0 : α) = Scalar.zero
  /-- `ofNat (n + 1) = ofNat n + 1`. -/
  ofNat_succ : ∀ n : Nat, (Scalar.ofNat (n + 1) : α) = Scalar.ofNat n + Scalar.one

section
variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-- `¬ 1 < 0`. -/
theorem not_one_lt_zero : ¬ (Scalar.one : α) < Scalar.zero := fun h =>
  OrderedFieldLaws.lt_irrefl (Scalar.one : α)
    (OrderedFieldLaws.lt_trans h OrderedFieldLaws.zero_lt_one)

/-- `ofNat 1 = 1`. -/
theorem ofNat_one_eq [NatCastLaws α] : (Scalar.ofNat 1 : α) = Scalar.one := by
  have h : (Scalar.ofNat 1 : α) = Scalar.ofNat 0 + Scalar.one := NatCastLaws.ofNat_succ 0
  rw [h, NatCastLaws.ofNat_zero, OrderedFieldLaws.zero_add]

end

section
variable {α : Type u} [Scalar α] [Transcendental α] [OrderedFieldLaws α] [SqrtLaws α]

/-- `0 < sqrt 1`: `sqrt 1` is not negative, and it is not `0` since its square is `1 ≠ 0`. -/
theorem sqrt_one_pos : Scalar.zero < Transcendental.sqrt (Scalar.one : α) := by
  have hsq : Transcendental.sqrt (Scalar.one : α) * Transcendental.sqrt (Scalar.one : α) =
      Scalar.one :=
    SqrtLaws.sqrt_mul_self (Scalar.one : α) not_one_lt_zero
  have htri := OrderedFieldLaws.lt_trichotomy (Transcendental.sqrt (Scalar.one : α)) Scalar.zero
  rcases htri with h | h | h
  · exact absurd h (SqrtLaws.sqrt_nonneg (Scalar.one : α))
  · rw [h, zero_mul (Scalar.zero : α)] at hsq
    exact absurd hsq.symm (ne_of_lt' (OrderedFieldLaws.zero_lt_one (α := α)))
  · exact h

end

end Formal.PL
