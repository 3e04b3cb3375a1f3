import Formal.Network.Scalar

/-!
# Ordered-field laws for the scalars, and the algebra the PL proofs use

`Formal.Scalar` declares the operations only. The piecewise-linear development (Villani &
McBurney's claims C1–C2, `Formal/PL/`) needs their laws: this file declares them as a `Prop`-valued
class `OrderedFieldLaws α` over the `Scalar` operations and derives, by short rewriting proofs, the
handful of ring and order facts the later files use (cancellation, `0 * a = 0`, monotonicity of
`x ↦ k * x + c`, density of the order). Some fields are derivable from the others (`inv_pos`,
`mul_lt_mul_left`); they are listed to keep the proofs short, and every ordered field satisfies them.

No instance is given here; `Formal/PL/Rat.lean` provides one for core's `Rat`, so every theorem
over an arbitrary `OrderedFieldLaws α` holds over the rationals.
-/

namespace Formal.PL

universe u

/-- The ordered-field laws of the `Scalar` operations that the PL proofs use. -/
class OrderedFieldLaws (α : Type u) [Scalar α] : Prop where
  /-- Associativity of `+`. -/
  add_assoc : ∀ a b c : α, a + b + c = a + (b + c)
  /-- Commutativity of `+`. -/
  add_comm : ∀ a b : α, a + b = b + a
  /-- `0` is a left unit of `+`. -/
  zero_add : ∀ a : α, (Scalar.zero : α) + a = a
  /-- `-a` is an additive inverse of `a`. -/
  add_neg : ∀ a : α, a + -a = Scalar.zero
  /-- Associativity of `*`. -/
  mul_assoc : ∀ a b c : α, a * b * c = a * (b * c)
  /-- Commutativity of `*`. -/
  mul_comm : ∀ a b : α, a * b = b * a
  /-- `1` is a left unit of `*`. -/
  one_mul : ∀ a : α, (Scalar.one : α) * a = a
  /-- Distributivity. -/
  mul_add : ∀ a b c : α, a * (b + c) = a * b + a * c
  /-- Nonzero elements are invertible. -/
  mul_inv : ∀ a : α, a ≠ Scalar.zero → a * Scalar.inv a = Scalar.one
  /-- `<` is irreflexive. -/
  lt_irrefl : ∀ a : α, ¬ a < a
  /-- `<` is transitive. -/
  lt_trans : ∀ {a b c : α}, a < b → b < c → a < c
  /-- `<` is total. -/
  lt_trichotomy : ∀ a b : α, a < b ∨ a = b ∨ b < a
  /-- Adding on the left preserves `<`. -/
  add_lt_add_left : ∀ {a b : α} (c : α), a < b → c + a < c + b
  /-- Multiplying on the left by a positive element preserves `<`. -/
  mul_lt_mul_left : ∀ {a b c : α}, Scalar.zero < c → a < b → c * a < c * b
  /-- The inverse of a positive element is positive. -/
  inv_pos : ∀ a : α, Scalar.zero < a → Scalar.zero < Scalar.inv a
  /-- `0 < 1`. -/
  zero_lt_one : (Scalar.zero : α) < Scalar.one

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-! ## Additive facts -/

theorem add_zero (a : α) : a + Scalar.zero = a :=
  (OrderedFieldLaws.add_comm a Scalar.zero).trans (OrderedFieldLaws.zero_add a)

theorem neg_add_cancel (a : α) : -a + a = (Scalar.zero : α) :=
  (OrderedFieldLaws.add_comm (-a) a).trans (OrderedFieldLaws.add_neg a)

theorem add_left_comm (a b c : α) : a + (b + c) = b + (a + c) := by
  rw [← OrderedFieldLaws.add_assoc a b c, OrderedFieldLaws.add_comm a b,
    OrderedFieldLaws.add_assoc b a c]

theorem add_add_add_comm (a b c d : α) : a + b + (c + d) = a + c + (b + d) := by
  rw [OrderedFieldLaws.add_assoc a b (c + d), add_left_comm b c d,
    ← OrderedFieldLaws.add_assoc a c (b + d)]

theorem add_left_cancel {a b c : α} (h : a + b = a + c) : b = c :=
  calc b = Scalar.zero + b := (OrderedFieldLaws.zero_add b).symm
    _ = -a + a + b := by rw [neg_add_cancel a]
    _ = -a + (a + b) := OrderedFieldLaws.add_assoc (-a) a b
    _ = -a + (a + c) := by rw [h]
    _ = -a + a + c := (OrderedFieldLaws.add_assoc (-a) a c).symm
    _ = c := by rw [neg_add_cancel a, OrderedFieldLaws.zero_add c]

theorem add_right_cancel {a b c : α} (h : a + c = b + c) : a = b :=
  add_left_cancel ((OrderedFieldLaws.add_comm c a).trans (h.trans (OrderedFieldLaws.add_comm b c)))

/-! ## Multiplicative facts -/

theorem mul_one (a : α) : a * Scalar.one = a :=
  (OrderedFieldLaws.mul_comm a Scalar.one).trans (OrderedFieldLaws.one_mul a)

theorem add_mul (a b c : α) : (a + b) * c = a * c + b * c := by
  rw [OrderedFieldLaws.mul_comm (a + b) c, OrderedFieldLaws.mul_add c a b,
    OrderedFieldLaws.mul_comm c a, OrderedFieldLaws.mul_comm c b]

theorem zero_mul (a : α) : (Scalar.zero : α) * a = Scalar.zero :=
  add_left_cancel (a := (Scalar.zero : α) * a) (by
    rw [← add_mul (Scalar.zero : α) Scalar.zero a, OrderedFieldLaws.zero_add (Scalar.zero : α),
      add_zero (Scalar.zero * a)])

/-! ## Order facts -/

theorem add_lt_add_right {a b : α} (c : α) (h : a < b) : a + c < b + c := by
  rw [OrderedFieldLaws.add_comm a c, OrderedFieldLaws.add_comm b c]
  exact OrderedFieldLaws.add_lt_add_left c h

theorem mul_lt_mul_right {a b c : α} (hc : Scalar.zero < c) (h : a < b) : a * c < b * c := by
  rw [OrderedFieldLaws.mul_comm a c, OrderedFieldLaws.mul_comm b c]
  exact OrderedFieldLaws.mul_lt_mul_left hc h

theorem ne_of_lt' {a b : α} (h : a < b) : b ≠ a := fun e => by
  rw [e] at h
  exact OrderedFieldLaws.lt_irrefl a h

/-- `a < b → 0 < b - a`, with subtraction written `b + -a`. -/
theorem sub_pos {a b : α} (h : a < b) : Scalar.zero < b + -a := by
  have h' : -a + a < -a + b := OrderedFieldLaws.add_lt_add_left (-a) h
  rw [neg_add_cancel a, OrderedFieldLaws.add_comm (-a) b] at h'
  exact h'

theorem neg_pos_of_neg {k : α} (h : k < Scalar.zero) : Scalar.zero < -k := by
  have h' : -k + k < -k + Scalar.zero := OrderedFieldLaws.add_lt_add_left (-k) h
  rw [neg_add_cancel k, add_zero (-k)] at h'
  exact h'

/-- Multiplying by a negative element reverses `<`. -/
theorem mul_lt_mul_of_neg_left {k x y : α} (hk : k < Scalar.zero) (h : x < y) : k * y < k * x := by
  have h1 : (-k) * x < (-k) * y := OrderedFieldLaws.mul_lt_mul_left (neg_pos_of_neg hk) h
  have h2 : k * x + k * y + (-k) * x < k * x + k * y + (-k) * y :=
    OrderedFieldLaws.add_lt_add_left (k * x + k * y) h1
  have e1 : k * x + k * y + (-k) * x = k * y := by
    rw [OrderedFieldLaws.add_comm (k * x) (k * y),
      OrderedFieldLaws.add_assoc (k * y) (k * x) ((-k) * x), ← add_mul k (-k) x,
      OrderedFieldLaws.add_neg k, zero_mul x, add_zero (k * y)]
  have e2 : k * x + k * y + (-k) * y = k * x := by
    rw [OrderedFieldLaws.add_assoc (k * x) (k * y) ((-k) * y), ← add_mul k (-k) y,
      OrderedFieldLaws.add_neg k, zero_mul y, add_zero (k * x)]
  rw [e1, e2] at h2
  exact h2

/-- An affine map with positive slope is strictly increasing. -/
theorem affine_lt_of_pos {k c x y : α} (hk : Scalar.zero < k) (h : x < y) :
    k * x + c < k * y + c :=
  add_lt_add_right c (OrderedFieldLaws.mul_lt_mul_left hk h)

/-- An affine map with negative slope is strictly decreasing. -/
theorem affine_lt_of_neg {k c x y : α} (hk : k < Scalar.zero) (h : x < y) :
    k * y + c < k * x + c :=
  add_lt_add_right c (mul_lt_mul_of_neg_left hk h)

/-! ## Density: the midpoint -/

theorem zero_lt_two : (Scalar.zero : α) < Scalar.one + Scalar.one := by
  have h : Scalar.one + Scalar.zero < Scalar.one + Scalar.one :=
    OrderedFieldLaws.add_lt_add_left (Scalar.one : α) (OrderedFieldLaws.zero_lt_one (α := α))
  rw [add_zero (Scalar.one : α)] at h
  exact OrderedFieldLaws.lt_trans OrderedFieldLaws.zero_lt_one h

/-- `(a + a) / 2 = a`. -/
theorem double_mul_half (a : α) :
    (a + a) * Scalar.inv (Scalar.one + Scalar.one) = a :=
  calc (a + a) * Scalar.inv (Scalar.one + Scalar.one)
        = (a * Scalar.one + a * Scalar.one) * Scalar.inv (Scalar.one + Scalar.one) := by
          rw [mul_one a]
    _ = a * (Scalar.one + Scalar.one) * Scalar.inv (Scalar.one + Scalar.one) := by
          rw [OrderedFieldLaws.mul_add a Scalar.one Scalar.one]
    _ = a * ((Scalar.one + Scalar.one) * Scalar.inv (Scalar.one + Scalar.one)) :=
          OrderedFieldLaws.mul_assoc a (Scalar.one + Scalar.one) (Scalar.inv (Scalar.one + Scalar.one))
    _ = a * Scalar.one := by
          rw [OrderedFieldLaws.mul_inv (Scalar.one + Scalar.one : α) (ne_of_lt' zero_lt_two)]
    _ = a := mul_one a

/-- The order is dense: the midpoint `(a + b) / 2` lies strictly between `a < b`. -/
theorem exists_between {a b : α} (h : a < b) : ∃ c : α, a < c ∧ c < b := by
  have hpos : Scalar.zero < Scalar.inv (Scalar.one + Scalar.one) :=
    OrderedFieldLaws.inv_pos (Scalar.one + Scalar.one : α) zero_lt_two
  have h1 : (a + a) * Scalar.inv (Scalar.one + Scalar.one) <
      (a + b) * Scalar.inv (Scalar.one + Scalar.one) :=
    mul_lt_mul_right hpos (OrderedFieldLaws.add_lt_add_left a h)
  have h2 : (a + b) * Scalar.inv (Scalar.one + Scalar.one) <
      (b + b) * Scalar.inv (Scalar.one + Scalar.one) :=
    mul_lt_mul_right hpos (add_lt_add_right b h)
  rw [double_mul_half a] at h1
  rw [double_mul_half b] at h2
  exact ⟨(a + b) * Scalar.inv (Scalar.one + Scalar.one), h1, h2⟩

end Formal.PL
