import Formal.PL.ExpLaws
import Formal.PL.Fragment
import Formal.Zoo.Attention

/-!
# Softmax attention is not piecewise linear (VM.C2)

Villani & McBurney (*The Topos of Transformer Networks*, arXiv 2403.18415v2, §4, claim C2) say that
a transformer is not piecewise linear. `Formal/Attention/Witness.lean` proves it for the bilinear
atoms (`mul`, the hyper-linear layer, linear attention without softmax). This file proves it for the
Zoo's softmax attention itself, `Formal.Zoo.attention` (`torch.nn.MultiheadAttention`), over any
ordered field with an exponential and a square root (`OrderedFieldLaws`, `ExpLaws`, `SqrtLaws`,
`NatCastLaws` of `Formal/PL/ExpLaws.lean`; no instance for `Rat` is given, so nothing here is stated
over ℚ).

* `logistic_not_locallyAffine`: for `κ > 0` and `D > 0`, `t ↦ exp (κ t) / (exp (κ t) + D)` is not
  `LocallyAffine`. If it agreed with an affine `u` on an interval, then at `p`, the midpoint `m` and
  `q` the values `A, B, C` of `exp (κ ·)` satisfy `u·(X + D) = X`, `u_p + u_q = 2 u_m` and
  `A C = B²` (`exp` turns sums into products). Clearing denominators gives
  `A (C+D)(B+D) + C (A+D)(B+D) = 2 B (A+D)(C+D)` (`star_eq`); if `B < D` or `D < B`, the
  rearrangement inequality with `2B < A + C` (strict AM–GM, `amgm_strict`, since `A < B < C`) makes
  one side strictly smaller, so `B = D` (`mid_value_eq`). Two different midpoints would both have
  `exp (κ m) = D`, against strict monotonicity (`logistic_contra`).
* `attention_line`: the Zoo attention with `seq = 2`, `d_model = 2`, `heads = 2` (so `d_head = 1`
  and the scores are scaled by `1/√1`), at the weights `attnParams` (query `1`, key = feature 0,
  value = feature 1, output = head 0), along the line `lineS lineBase lineDir`
  (token 0 is `(t, 1)`, token 1 is `(0, 0)`), has output coordinate `(0, 0)` equal to the logistic
  `exp (c t) / (exp (c t) + 1)` with `c = 1/√1 > 0`.
* `attention_not_locallyAffine` (**VM.C2**): that coordinate is not `LocallyAffine`, and
  `attention_not_pl` (**VM.C2**): no term of the PL fragment (`IsPL`), whatever its weights, agrees
  with it along that line (by `pl_on_lines`).

The evaluation of the Zoo term is unfolded definitionally (`show`), then simplified with the unit
laws of `OrderedFieldLaws`; the polynomial identities of the logistic argument are explicit
rewriting chains with the commutative-semiring laws (distributivity, associativity,
commutativity), each stated as its own lemma over variables.
-/

namespace Formal.PL

universe u

namespace Softmax

section Algebra

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-! ## Algebra over `OrderedFieldLaws` -/

theorem mul_zero (a : α) : a * Scalar.zero = Scalar.zero :=
  (OrderedFieldLaws.mul_comm a Scalar.zero).trans (zero_mul a)

theorem mul_left_comm (a b c : α) : a * (b * c) = b * (a * c) := by
  rw [← OrderedFieldLaws.mul_assoc a b c, OrderedFieldLaws.mul_comm a b,
    OrderedFieldLaws.mul_assoc b a c]

/-- `c = a`, `a < b`, `b = d` give `c < d`. -/
theorem lt_of_eq_of_lt_of_eq {a b c d : α} (ha : c = a) (h : a < b) (hb : b = d) : c < d := by
  rw [ha, ← hb]
  exact h

/-- Cancel a positive left factor in a strict inequality. -/
theorem lt_of_mul_lt_mul_pos {k x y : α} (hk : Scalar.zero < k) (h : k * x < k * y) : x < y := by
  rcases OrderedFieldLaws.lt_trichotomy x y with hxy | hxy | hxy
  · exact hxy
  · rw [hxy] at h
    exact absurd h (OrderedFieldLaws.lt_irrefl (k * y))
  · exact absurd (OrderedFieldLaws.lt_trans h (OrderedFieldLaws.mul_lt_mul_left hk hxy))
      (OrderedFieldLaws.lt_irrefl (k * x))

/-- The sum of two positive elements is positive. -/
theorem pos_add {a b : α} (ha : Scalar.zero < a) (hb : Scalar.zero < b) :
    Scalar.zero < a + b := by
  have h1 : Scalar.zero + b < a + b := add_lt_add_right b ha
  rw [OrderedFieldLaws.zero_add b] at h1
  exact OrderedFieldLaws.lt_trans hb h1

/-- From `e / (e + D) = u` with `e + D ≠ 0`: `u (e + D) = e`. -/
theorem cleared {e D u : α} (hS : e + D ≠ Scalar.zero) (h : e * Scalar.inv (e + D) = u) :
    u * (e + D) = e := by
  rw [← h, OrderedFieldLaws.mul_assoc e (Scalar.inv (e + D)) (e + D),
    OrderedFieldLaws.mul_comm (Scalar.inv (e + D)) (e + D), OrderedFieldLaws.mul_inv (e + D) hS,
    mul_one e]

/-! ### Midpoints -/

/-- The midpoint `(a + b) / 2`. -/
def mid (a b : α) : α := (a + b) * Scalar.inv (Scalar.one + Scalar.one)

theorem half_pos : (Scalar.zero : α) < Scalar.inv (Scalar.one + Scalar.one) :=
  OrderedFieldLaws.inv_pos (Scalar.one + Scalar.one : α) zero_lt_two

theorem lt_mid {a b : α} (h : a < b) : a < mid a b := by
  have h1 : (a + a) * Scalar.inv (Scalar.one + Scalar.one) <
      (a + b) * Scalar.inv (Scalar.one + Scalar.one) :=
    mul_lt_mul_right half_pos (OrderedFieldLaws.add_lt_add_left a h)
  rw [double_mul_half a] at h1
  exact h1

theorem mid_lt {a b : α} (h : a < b) : mid a b < b := by
  have h2 : (a + b) * Scalar.inv (Scalar.one + Scalar.one) <
      (b + b) * Scalar.inv (Scalar.one + Scalar.one) :=
    mul_lt_mul_right half_pos (add_lt_add_right b h)
  rw [double_mul_half b] at h2
  exact h2

/-- `m + m = a + b` for the midpoint `m` of `a` and `b`. -/
theorem mid_add_mid (a b : α) : mid a b + mid a b = a + b :=
  calc (a + b) * Scalar.inv (Scalar.one + Scalar.one) + (a + b) * Scalar.inv (Scalar.one + Scalar.one)
        = (a + b) * (Scalar.inv (Scalar.one + Scalar.one) + Scalar.inv (Scalar.one + Scalar.one)) :=
          (OrderedFieldLaws.mul_add (a + b) (Scalar.inv (Scalar.one + Scalar.one))
            (Scalar.inv (Scalar.one + Scalar.one))).symm
    _ = (a + b) * ((Scalar.one + Scalar.one) * Scalar.inv (Scalar.one + Scalar.one)) := by
          rw [add_mul (Scalar.one : α) Scalar.one (Scalar.inv (Scalar.one + Scalar.one)),
            OrderedFieldLaws.one_mul (Scalar.inv (Scalar.one + Scalar.one : α))]
    _ = (a + b) * Scalar.one := by
          rw [OrderedFieldLaws.mul_inv (Scalar.one + Scalar.one : α) (ne_of_lt' zero_lt_two)]
    _ = a + b := mul_one (a + b)

/-! ### Polynomial identities

Every identity is an explicit rewriting chain (no `simp`): products of three factors are first
brought to the fixed forms `A (B C)`, `A (B D)`, `B (C D)`, `B (D D)`, `A (C D)`, `A (D D)`,
`C (D D)` (`expand_*`), then the sums are regrouped with `add_assoc` and `add_add_add_comm`
(`sum_rearrange_*`). -/

theorem poly_affine_sum (k c p q : α) : k * p + c + (k * q + c) = k * (p + q) + (c + c) := by
  rw [OrderedFieldLaws.mul_add k p q, add_add_add_comm (k * p) c (k * q) c]

/-- An affine map takes the mean value at a midpoint: `p + q = m + m` gives
`u p + u q = u m + u m` for `u t = k t + c`. -/
theorem affine_mid (k c p q m : α) (h : p + q = m + m) :
    k * p + c + (k * q + c) = k * m + c + (k * m + c) := by
  rw [poly_affine_sum k c p q, poly_affine_sum k c m m, h]

theorem poly_star_left (up uq A B C D : α) :
    up * (A + D) * ((C + D) * (B + D)) + uq * (C + D) * ((A + D) * (B + D)) =
      (up + uq) * ((A + D) * ((B + D) * (C + D))) := by
  rw [add_mul up uq ((A + D) * ((B + D) * (C + D))),
    OrderedFieldLaws.mul_assoc up (A + D) ((C + D) * (B + D)),
    OrderedFieldLaws.mul_comm (C + D) (B + D),
    OrderedFieldLaws.mul_assoc uq (C + D) ((A + D) * (B + D)),
    mul_left_comm (C + D) (A + D) (B + D), OrderedFieldLaws.mul_comm (C + D) (B + D)]

theorem poly_star_right (um A B C D : α) :
    (um + um) * ((A + D) * ((B + D) * (C + D))) =
      um * (B + D) * ((A + D) * (C + D)) + um * (B + D) * ((A + D) * (C + D)) := by
  rw [add_mul um um ((A + D) * ((B + D) * (C + D))),
    OrderedFieldLaws.mul_assoc um (B + D) ((A + D) * (C + D)),
    mul_left_comm (B + D) (A + D) (C + D)]

/-- `x (y z) = z (y x)`. -/
theorem mul_swap_outer (x y z : α) : x * (y * z) = z * (y * x) := by
  rw [OrderedFieldLaws.mul_comm y z, mul_left_comm x z y, OrderedFieldLaws.mul_comm x y]

/-- `x (y z) = y (z x)`. -/
theorem mul_cycle (x y z : α) : x * (y * z) = y * (z * x) := by
  rw [mul_left_comm x y z, OrderedFieldLaws.mul_comm x z]

/-- `B (A + D)(C + D) = ABC + ABD + BCD + BDD`. -/
theorem expand_b (A B C D : α) :
    B * ((A + D) * (C + D)) = A * (B * C) + A * (B * D) + (B * (C * D) + B * (D * D)) := by
  rw [add_mul A D (C + D), OrderedFieldLaws.mul_add A C D, OrderedFieldLaws.mul_add D C D,
    OrderedFieldLaws.mul_add B (A * C + A * D) (D * C + D * D),
    OrderedFieldLaws.mul_add B (A * C) (A * D), OrderedFieldLaws.mul_add B (D * C) (D * D),
    mul_left_comm B A C, mul_left_comm B A D, OrderedFieldLaws.mul_comm D C]

/-- `D (B (A + C) + D (B + B)) = ABD + BCD + BDD + BDD`. -/
theorem expand_d_right (A B C D : α) :
    D * (B * (A + C) + D * (B + B)) =
      A * (B * D) + B * (C * D) + (B * (D * D) + B * (D * D)) := by
  rw [OrderedFieldLaws.mul_add B A C, OrderedFieldLaws.mul_add D B B,
    OrderedFieldLaws.mul_add D (B * A + B * C) (D * B + D * B),
    OrderedFieldLaws.mul_add D (B * A) (B * C), OrderedFieldLaws.mul_add D (D * B) (D * B),
    mul_swap_outer D B A, mul_cycle D B C, mul_swap_outer D D B]

/-- `A (C + D)(B + D) = ABC + ACD + ABD + ADD`. -/
theorem expand_a (A B C D : α) :
    A * ((C + D) * (B + D)) = A * (B * C) + A * (C * D) + (A * (B * D) + A * (D * D)) := by
  rw [add_mul C D (B + D), OrderedFieldLaws.mul_add C B D, OrderedFieldLaws.mul_add D B D,
    OrderedFieldLaws.mul_add A (C * B + C * D) (D * B + D * D),
    OrderedFieldLaws.mul_add A (C * B) (C * D), OrderedFieldLaws.mul_add A (D * B) (D * D),
    OrderedFieldLaws.mul_comm C B, OrderedFieldLaws.mul_comm D B]

/-- `C (A + D)(B + D) = ABC + ACD + BCD + CDD`. -/
theorem expand_c (A B C D : α) :
    C * ((A + D) * (B + D)) = A * (B * C) + A * (C * D) + (B * (C * D) + C * (D * D)) := by
  rw [add_mul A D (B + D), OrderedFieldLaws.mul_add A B D, OrderedFieldLaws.mul_add D B D,
    OrderedFieldLaws.mul_add C (A * B + A * D) (D * B + D * D),
    OrderedFieldLaws.mul_add C (A * B) (A * D), OrderedFieldLaws.mul_add C (D * B) (D * D),
    mul_cycle C A B, mul_left_comm C A D, OrderedFieldLaws.mul_comm D B, mul_left_comm C B D]

/-- `D (AC + AC + D (A + C)) = ACD + ACD + ADD + CDD`. -/
theorem expand_d_left (A C D : α) :
    D * (A * C + A * C + D * (A + C)) =
      A * (C * D) + A * (C * D) + (A * (D * D) + C * (D * D)) := by
  rw [OrderedFieldLaws.mul_add D A C, OrderedFieldLaws.mul_add D (A * C + A * C) (D * A + D * C),
    OrderedFieldLaws.mul_add D (A * C) (A * C), OrderedFieldLaws.mul_add D (D * A) (D * C),
    mul_cycle D A C, mul_swap_outer D D A, mul_swap_outer D D C]

/-- `p + p + (q + r) + (q + r + (s + s))` regrouped as two copies of `p + q + (r + s)`. -/
theorem sum_rearrange_right (p q r s : α) :
    p + p + (q + r) + (q + r + (s + s)) = p + q + (r + s) + (p + q + (r + s)) :=
  calc p + p + (q + r) + (q + r + (s + s))
        = p + p + ((q + r) + (q + r + (s + s))) :=
          OrderedFieldLaws.add_assoc (p + p) (q + r) (q + r + (s + s))
    _ = p + p + ((q + r) + (q + r) + (s + s)) := by
          rw [OrderedFieldLaws.add_assoc (q + r) (q + r) (s + s)]
    _ = p + p + ((q + q) + (r + r) + (s + s)) := by rw [add_add_add_comm q r q r]
    _ = p + p + ((q + q) + ((r + r) + (s + s))) := by
          rw [OrderedFieldLaws.add_assoc (q + q) (r + r) (s + s)]
    _ = p + p + (q + q) + ((r + r) + (s + s)) :=
          (OrderedFieldLaws.add_assoc (p + p) (q + q) ((r + r) + (s + s))).symm
    _ = p + q + (p + q) + ((r + r) + (s + s)) := by rw [add_add_add_comm p q p q]
    _ = p + q + (p + q) + ((r + s) + (r + s)) := by rw [add_add_add_comm r s r s]
    _ = p + q + (r + s) + (p + q + (r + s)) :=
          (add_add_add_comm (p + q) (r + s) (p + q) (r + s)).symm

/-- `p + p + (q + r) + (u + u + (v + w))` regrouped as `(p + u + (q + v)) + (p + u + (r + w))`. -/
theorem sum_rearrange_left (p q r u v w : α) :
    p + p + (q + r) + (u + u + (v + w)) = p + u + (q + v) + (p + u + (r + w)) :=
  calc p + p + (q + r) + (u + u + (v + w))
        = p + p + (u + u) + ((q + r) + (v + w)) := add_add_add_comm (p + p) (q + r) (u + u) (v + w)
    _ = p + p + (u + u) + ((q + v) + (r + w)) := by rw [add_add_add_comm q v r w]
    _ = p + u + (p + u) + ((q + v) + (r + w)) := by rw [add_add_add_comm p u p u]
    _ = p + u + (q + v) + (p + u + (r + w)) :=
          (add_add_add_comm (p + u) (q + v) (p + u) (r + w)).symm

/-- The common part `2ABC + ABD + BCD` of the two sides of the cleared equation. -/
def common (A B C D : α) : α := A * (B * C) + A * (B * C) + (A * (B * D) + B * (C * D))

theorem poly_right_of_lt (A B C D : α) :
    common A B C D + D * (B * (A + C) + D * (B + B)) =
      B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) := by
  show A * (B * C) + A * (B * C) + (A * (B * D) + B * (C * D)) +
      D * (B * (A + C) + D * (B + B)) = B * ((A + D) * (C + D)) + B * ((A + D) * (C + D))
  rw [expand_d_right A B C D, expand_b A B C D]
  exact sum_rearrange_right (A * (B * C)) (A * (B * D)) (B * (C * D)) (B * (D * D))

theorem poly_left_of_lt (A B C D : α) :
    common A B C D + D * (A * C + A * C + D * (A + C)) =
      A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) := by
  show A * (B * C) + A * (B * C) + (A * (B * D) + B * (C * D)) +
      D * (A * C + A * C + D * (A + C)) = A * ((C + D) * (B + D)) + C * ((A + D) * (B + D))
  rw [expand_d_left A C D, expand_a A B C D, expand_c A B C D]
  exact sum_rearrange_left (A * (B * C)) (A * (B * D)) (B * (C * D)) (A * (C * D)) (A * (D * D))
    (C * (D * D))

theorem poly_left_of_gt (A B C D : α) :
    common A B C D + D * (D * (A + C) + (A * C + A * C)) =
      A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) := by
  rw [OrderedFieldLaws.add_comm (D * (A + C)) (A * C + A * C)]
  exact poly_left_of_lt A B C D

theorem poly_right_of_gt (A B C D : α) :
    common A B C D + D * (D * (B + B) + B * (A + C)) =
      B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) := by
  rw [OrderedFieldLaws.add_comm (D * (B + B)) (B * (A + C))]
  exact poly_right_of_lt A B C D

/-! ### The midpoint value of a logistic that is affine -/

/-- Clearing the denominators of `A/(A+D) + C/(C+D) = 2 B/(B+D)`:
`A (C+D)(B+D) + C (A+D)(B+D) = 2 B (A+D)(C+D)`. -/
theorem star_eq {A B C D up um uq : α}
    (hA : up * (A + D) = A) (hB : um * (B + D) = B) (hC : uq * (C + D) = C)
    (hAff : up + uq = um + um) :
    A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) =
      B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) :=
  calc A * ((C + D) * (B + D)) + C * ((A + D) * (B + D))
        = up * (A + D) * ((C + D) * (B + D)) + uq * (C + D) * ((A + D) * (B + D)) := by
          rw [hA, hC]
    _ = (up + uq) * ((A + D) * ((B + D) * (C + D))) := poly_star_left up uq A B C D
    _ = (um + um) * ((A + D) * ((B + D) * (C + D))) := by rw [hAff]
    _ = um * (B + D) * ((A + D) * (C + D)) + um * (B + D) * ((A + D) * (C + D)) :=
          poly_star_right um A B C D
    _ = B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) := by rw [hB]

/-- Strict AM–GM: `A C = B²` and `A < B < C` with `B > 0` give `2 B < A + C`. -/
theorem amgm_strict {A B C : α} (hMul : A * C = B * B) (hAB : A < B) (hBC : B < C)
    (hB : Scalar.zero < B) : B + B < A + C := by
  have g1 : A * C + B * B < A * B + B * C := rearrangement hAB hBC
  have e1 : B * (B + B) = A * C + B * B := by
    rw [hMul, OrderedFieldLaws.mul_add B B B]
  have e2 : A * B + B * C = B * (A + C) := by
    rw [OrderedFieldLaws.mul_add B A C, OrderedFieldLaws.mul_comm A B]
  exact lt_of_mul_lt_mul_pos hB (lt_of_eq_of_lt_of_eq e1 g1 e2)

/-- `B (B + B) = A C + A C` when `A C = B²`. -/
theorem sq_twice {A B C : α} (hMul : A * C = B * B) : B * (B + B) = A * C + A * C := by
  rw [hMul, OrderedFieldLaws.mul_add B B B]

/-- **The midpoint lemma.** If `u_X (X + D) = X` at `X = A, B, C` (the logistic `X/(X+D)` takes
the affine values `u`), the `u` take the mean value at the middle point (`u_p + u_q = 2 u_m`), and
`A C = B²` with `0 < A < B < C` and `D > 0`, then `B = D`. -/
theorem mid_value_eq {A B C D up um uq : α}
    (hA : up * (A + D) = A) (hB : um * (B + D) = B) (hC : uq * (C + D) = C)
    (hAff : up + uq = um + um) (hMul : A * C = B * B)
    (hAB : A < B) (hBC : B < C) (hApos : Scalar.zero < A) (hD : Scalar.zero < D) : B = D := by
  have hBpos : Scalar.zero < B := OrderedFieldLaws.lt_trans hApos hAB
  have star : A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) =
      B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) := star_eq hA hB hC hAff
  have amgm : B + B < A + C := amgm_strict hMul hAB hBC hBpos
  have e2 : B * (B + B) = A * C + A * C := sq_twice hMul
  rcases OrderedFieldLaws.lt_trichotomy B D with hBD | hBD | hBD
  · -- `B < D`: the right side of `star` is smaller than its left side
    have r1 : B * (A + C) + D * (B + B) < B * (B + B) + D * (A + C) := rearrangement hBD amgm
    rw [e2] at r1
    have r2 : common A B C D + D * (B * (A + C) + D * (B + B)) <
        common A B C D + D * (A * C + A * C + D * (A + C)) :=
      OrderedFieldLaws.add_lt_add_left (common A B C D) (OrderedFieldLaws.mul_lt_mul_left hD r1)
    have r3 : B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) <
        A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) :=
      lt_of_eq_of_lt_of_eq (poly_right_of_lt A B C D).symm r2 (poly_left_of_lt A B C D)
    exact absurd (lt_of_eq_of_lt_of_eq rfl r3 star)
      (OrderedFieldLaws.lt_irrefl (B * ((A + D) * (C + D)) + B * ((A + D) * (C + D))))
  · exact hBD
  · -- `D < B`: the left side of `star` is smaller than its right side
    have r1 : D * (A + C) + B * (B + B) < D * (B + B) + B * (A + C) := rearrangement hBD amgm
    rw [e2] at r1
    have r2 : common A B C D + D * (D * (A + C) + (A * C + A * C)) <
        common A B C D + D * (D * (B + B) + B * (A + C)) :=
      OrderedFieldLaws.add_lt_add_left (common A B C D) (OrderedFieldLaws.mul_lt_mul_left hD r1)
    have r3 : A * ((C + D) * (B + D)) + C * ((A + D) * (B + D)) <
        B * ((A + D) * (C + D)) + B * ((A + D) * (C + D)) :=
      lt_of_eq_of_lt_of_eq (poly_left_of_gt A B C D).symm r2 (poly_right_of_gt A B C D)
    exact absurd (lt_of_eq_of_lt_of_eq star.symm r3 rfl)
      (OrderedFieldLaws.lt_irrefl (B * ((A + D) * (C + D)) + B * ((A + D) * (C + D))))

end Algebra

/-! ## The logistic `t ↦ exp (κ t) / (exp (κ t) + D)` -/

section Logistic

variable {α : Type u} [Scalar α] [Transcendental α] [OrderedFieldLaws α] [ExpLaws α]

theorem expk_lt {κ s t : α} (hκ : Scalar.zero < κ) (h : s < t) :
    Transcendental.exp (κ * s) < Transcendental.exp (κ * t) :=
  ExpLaws.exp_lt_exp (OrderedFieldLaws.mul_lt_mul_left hκ h)

/-- `exp (κ p) exp (κ q) = exp (κ m)²` when `p + q = m + m`. -/
theorem expk_mul {κ p q m : α} (h : p + q = m + m) :
    Transcendental.exp (κ * p) * Transcendental.exp (κ * q) =
      Transcendental.exp (κ * m) * Transcendental.exp (κ * m) := by
  rw [← ExpLaws.exp_add (κ * p) (κ * q), ← ExpLaws.exp_add (κ * m) (κ * m),
    ← OrderedFieldLaws.mul_add κ p q, ← OrderedFieldLaws.mul_add κ m m, h]

theorem denom_ne {κ D x : α} (hD : Scalar.zero < D) :
    Transcendental.exp (κ * x) + D ≠ Scalar.zero :=
  ne_of_lt' (pos_add (ExpLaws.exp_pos (κ * x)) hD)

/-- If the logistic is affine (`= k t + c`) on `(a, b)` and `a < p < q < b`, then at the midpoint
`m` of `p` and `q`, `exp (κ m) = D`. -/
theorem logistic_mid_eq {κ D k c a b p q : α} (hκ : Scalar.zero < κ) (hD : Scalar.zero < D)
    (hc : ∀ x : α, a < x → x < b →
      Transcendental.exp (κ * x) * Scalar.inv (Transcendental.exp (κ * x) + D) = k * x + c)
    (hap : a < p) (hpq : p < q) (hqb : q < b) : Transcendental.exp (κ * mid p q) = D := by
  have hpm : p < mid p q := lt_mid hpq
  have hmq : mid p q < q := mid_lt hpq
  have ham : a < mid p q := OrderedFieldLaws.lt_trans hap hpm
  have hmb : mid p q < b := OrderedFieldLaws.lt_trans hmq hqb
  have haq : a < q := OrderedFieldLaws.lt_trans hap hpq
  have hpb : p < b := OrderedFieldLaws.lt_trans hpq hqb
  have hmm : p + q = mid p q + mid p q := (mid_add_mid p q).symm
  exact mid_value_eq
    (cleared (denom_ne (κ := κ) (x := p) hD) (hc p hap hpb))
    (cleared (denom_ne (κ := κ) (x := mid p q) hD) (hc (mid p q) ham hmb))
    (cleared (denom_ne (κ := κ) (x := q) hD) (hc q haq hqb))
    (affine_mid k c p q (mid p q) hmm)
    (expk_mul (κ := κ) hmm)
    (expk_lt hκ hpm) (expk_lt hκ hmq) (ExpLaws.exp_pos (κ * p)) hD

/-- Three points `a < x₁ < x₂ < x₃ < b` on which the logistic is affine give two midpoints
`m₁ < x₂ < m₂` with `exp (κ m₁) = D = exp (κ m₂)`, against strict monotonicity. -/
theorem logistic_contra {κ D k c a b x1 x2 x3 : α} (hκ : Scalar.zero < κ) (hD : Scalar.zero < D)
    (hc : ∀ x : α, a < x → x < b →
      Transcendental.exp (κ * x) * Scalar.inv (Transcendental.exp (κ * x) + D) = k * x + c)
    (h1 : a < x1) (h12 : x1 < x2) (h23 : x2 < x3) (h3 : x3 < b) : False := by
  have e1 : Transcendental.exp (κ * mid x1 x2) = D :=
    logistic_mid_eq hκ hD hc h1 h12 (OrderedFieldLaws.lt_trans h23 h3)
  have e2 : Transcendental.exp (κ * mid x2 x3) = D :=
    logistic_mid_eq hκ hD hc (OrderedFieldLaws.lt_trans h1 h12) h23 h3
  have hlt : Transcendental.exp (κ * mid x1 x2) < Transcendental.exp (κ * mid x2 x3) :=
    expk_lt hκ (OrderedFieldLaws.lt_trans (mid_lt h12) (lt_mid h23))
  rw [e1, e2] at hlt
  exact OrderedFieldLaws.lt_irrefl D hlt

end Logistic

/-! ## The Zoo attention at explicit weights, along an explicit line -/

section Attention

variable {α : Type u} [Scalar α]

/-- Token or feature `0`. -/
def r0 : Fin 2 := ⟨0, by decide⟩

/-- Token or feature `1`. -/
def r1 : Fin 2 := ⟨1, by decide⟩

/-- The indicator of index `0`. -/
def col0 : Fin 2 → α
  | ⟨0, _⟩ => Scalar.one
  | ⟨_ + 1, _⟩ => Scalar.zero

/-- The indicator of index `1`. -/
def col1 : Fin 2 → α
  | ⟨0, _⟩ => Scalar.zero
  | ⟨_ + 1, _⟩ => Scalar.one

/-- Zero weights. -/
def zeroW : Fin 2 → Fin 2 → α := fun _ _ => (Scalar.zero : α)

/-- Zero bias. -/
def zeroB : Fin 2 → α := fun _ => (Scalar.zero : α)

/-- Unit bias. -/
def oneB : Fin 2 → α := fun _ => (Scalar.one : α)

/-- Every row reads feature `0`. -/
def read0 : Fin 2 → Fin 2 → α := fun _ f => col0 f

/-- Every row reads feature `1`. -/
def read1 : Fin 2 → Fin 2 → α := fun _ f => col1 f

/-- A `2 × 2` input, as a value of the attention's input shape. -/
def inp (x : Fin 2 → Fin 2 → α) : Shape.denote α (.tensor [2, 2]) := x

/-- The coordinate `(token 0, feature 0)` of an output. -/
def out00 (y : Shape.denote α (.tensor [2, 2])) : α := y r0 r0

/-- Base point of the line: token 0 is `(0, 1)`, token 1 is `(0, 0)`. -/
def baseE : Fin 2 → Fin 2 → α
  | ⟨0, _⟩ => col1
  | ⟨_ + 1, _⟩ => fun _ => (Scalar.zero : α)

/-- Direction of the line: token 0 moves along feature 0. -/
def dirE : Fin 2 → Fin 2 → α
  | ⟨0, _⟩ => col0
  | ⟨_ + 1, _⟩ => fun _ => (Scalar.zero : α)

/-- The base point as an input. -/
def lineBase : Shape.denote α (.tensor [2, 2]) := inp baseE

/-- The direction as an input. -/
def lineDir : Shape.denote α (.tensor [2, 2]) := inp dirE

variable [Transcendental α]

/-- Weights of `Zoo.attention 2 2` (two heads of width `2 / 2 = 1`, sequence length 2): query
`W_Q = 0`, `b_Q = 1`; key `W_K` reads feature 0; value `W_V` reads feature 1; all other biases 0;
output `W_O` reads the merged feature 0 (head 0). -/
def attnParams : Arch.Params α (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2)) :=
  ((PUnit.unit, ((PUnit.unit, (((zeroW, oneB), (PUnit.unit, PUnit.unit)),
      ((read0, zeroB), (PUnit.unit, PUnit.unit)))), ((read1, zeroB), (PUnit.unit, PUnit.unit)))),
    ((((PUnit.unit, PUnit.unit), (PUnit.unit, (PUnit.unit, PUnit.unit))), PUnit.unit),
      (PUnit.unit, ((PUnit.unit, PUnit.unit), (read0, zeroB)))))

/-- The attention temperature `1/√d_head` at `d_head = 2 / 2 = 1`. -/
def temp : α := Scalar.inv (Transcendental.sqrt (Scalar.ofNat 1 : α))

variable [OrderedFieldLaws α]

/-- The output coordinate `(0, 0)` at any input `x`: head 0 attends from token 0 with scores
`temp * x₀₀`, `temp * x₁₀` (query `1`, keys = feature 0) to the values `x₀₁`, `x₁₁` (feature 1).
The left side is `eval` unfolded (`show`; the one entry of head 1, multiplied by the zero weight of
the output projection, is left as a hole), then the unit laws remove the zero terms. -/
theorem attn_coord (x : Fin 2 → Fin 2 → α) :
    out00 (Arch.eval (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2)) attnParams
        (inp x)) =
      Transcendental.exp (temp * x r0 r0) *
          Scalar.inv (Transcendental.exp (temp * x r0 r0) + Transcendental.exp (temp * x r1 r0)) *
          x r0 r1 +
        Transcendental.exp (temp * x r1 r0) *
          Scalar.inv (Transcendental.exp (temp * x r0 r0) + Transcendental.exp (temp * x r1 r0)) *
          x r1 r1 := by
  show (Scalar.zero : α) + (Scalar.one : α) *
      ((Scalar.zero : α) +
        Transcendental.exp (temp * ((Scalar.zero : α) +
            ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
              (Scalar.one : α)) *
            ((((Scalar.zero : α) + (Scalar.one : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
              (Scalar.zero : α)))) *
          Scalar.inv (((Scalar.zero : α) +
            Transcendental.exp (temp * ((Scalar.zero : α) +
              ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.one : α)) *
              ((((Scalar.zero : α) + (Scalar.one : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.zero : α))))) +
            Transcendental.exp (temp * ((Scalar.zero : α) +
              ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.one : α)) *
              ((((Scalar.zero : α) + (Scalar.one : α) * x r1 r0) + (Scalar.zero : α) * x r1 r1) +
                (Scalar.zero : α))))) *
          ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.one : α) * x r0 r1) +
            (Scalar.zero : α)) +
        Transcendental.exp (temp * ((Scalar.zero : α) +
            ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
              (Scalar.one : α)) *
            ((((Scalar.zero : α) + (Scalar.one : α) * x r1 r0) + (Scalar.zero : α) * x r1 r1) +
              (Scalar.zero : α)))) *
          Scalar.inv (((Scalar.zero : α) +
            Transcendental.exp (temp * ((Scalar.zero : α) +
              ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.one : α)) *
              ((((Scalar.zero : α) + (Scalar.one : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.zero : α))))) +
            Transcendental.exp (temp * ((Scalar.zero : α) +
              ((((Scalar.zero : α) + (Scalar.zero : α) * x r0 r0) + (Scalar.zero : α) * x r0 r1) +
                (Scalar.one : α)) *
              ((((Scalar.zero : α) + (Scalar.one : α) * x r1 r0) + (Scalar.zero : α) * x r1 r1) +
                (Scalar.zero : α))))) *
          ((((Scalar.zero : α) + (Scalar.zero : α) * x r1 r0) + (Scalar.one : α) * x r1 r1) +
            (Scalar.zero : α))) +
      (Scalar.zero : α) * (_ : α) + (Scalar.zero : α) = _
  simp only [OrderedFieldLaws.zero_add, add_zero, zero_mul, mul_zero, OrderedFieldLaws.one_mul,
    mul_one]

end Attention

end Softmax

/-! ## VM.C2 for softmax attention -/

section Theorems

variable {α : Type u} [Scalar α] [Transcendental α] [OrderedFieldLaws α] [ExpLaws α]

/-- **The logistic is not piecewise linear.** For `κ > 0` and `D > 0`,
`t ↦ exp (κ t) / (exp (κ t) + D)` is not `LocallyAffine`: on no nondegenerate interval inside
`(0, 1)` does it agree with an affine map (`Softmax.logistic_contra`). -/
theorem logistic_not_locallyAffine {κ D : α} (hκ : Scalar.zero < κ) (hD : Scalar.zero < D) :
    ¬ LocallyAffine (fun t : α =>
      Transcendental.exp (κ * t) * Scalar.inv (Transcendental.exp (κ * t) + D)) := by
  intro h
  obtain ⟨a, b, hs, k, c, hc⟩ := h Scalar.zero Scalar.one OrderedFieldLaws.zero_lt_one
  obtain ⟨x1, h1, h1b⟩ := exists_between (And.left hs)
  obtain ⟨x2, h12, h2b⟩ := exists_between h1b
  obtain ⟨x3, h23, h3⟩ := exists_between h2b
  exact Softmax.logistic_contra (κ := κ) (D := D) (k := k) (c := c) hκ hD hc h1 h12 h23 h3

variable [SqrtLaws α] [NatCastLaws α]

/-- The temperature `1/√1` is positive. -/
theorem Softmax.temp_pos : (Scalar.zero : α) < Softmax.temp := by
  show (Scalar.zero : α) < Scalar.inv (Transcendental.sqrt (Scalar.ofNat 1 : α))
  rw [ofNat_one_eq]
  exact OrderedFieldLaws.inv_pos (Transcendental.sqrt (Scalar.one : α)) sqrt_one_pos

/-- Along the line `t ↦ lineBase + lineDir * t` (token 0 is `(t, 1)`, token 1 is `(0, 0)`), the
output coordinate `(0, 0)` of the Zoo attention at `attnParams` is the logistic
`exp (c t) / (exp (c t) + 1)`, `c = 1/√1`. -/
theorem attention_line (t : α) :
    Softmax.out00 (Arch.eval (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
        Softmax.attnParams (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t)) =
      Transcendental.exp (Softmax.temp * t) *
        Scalar.inv (Transcendental.exp (Softmax.temp * t) + Scalar.one) := by
  refine (Softmax.attn_coord (fun s f => Softmax.baseE s f + Softmax.dirE s f * t)).trans ?_
  show Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.one : α) * t)) *
        Scalar.inv (Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.one : α) * t)) +
          Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.zero : α) * t))) *
        ((Scalar.one : α) + (Scalar.zero : α) * t) +
      Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.zero : α) * t)) *
        Scalar.inv (Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.one : α) * t)) +
          Transcendental.exp (Softmax.temp * ((Scalar.zero : α) + (Scalar.zero : α) * t))) *
        ((Scalar.zero : α) + (Scalar.zero : α) * t) = _
  simp only [OrderedFieldLaws.zero_add, add_zero, zero_mul, Softmax.mul_zero,
    OrderedFieldLaws.one_mul, mul_one, ExpLaws.exp_zero]

/-- **VM.C2 (softmax attention).** The Zoo's multi-head self-attention `Zoo.attention 2 2`
(`torch.nn.MultiheadAttention(2, 2)`, sequence length 2) is not piecewise linear: at the weights
`attnParams`, along the line `t ↦ lineBase + lineDir * t`, its output coordinate `(0, 0)` is the
logistic `exp (c t) / (exp (c t) + 1)` with `c = 1/√1 > 0` (`attention_line`), which is not
`LocallyAffine` (`logistic_not_locallyAffine`). Over any scalars with `OrderedFieldLaws`,
`ExpLaws`, `SqrtLaws` and `NatCastLaws` (an ordered field with an exponential). -/
theorem attention_not_locallyAffine :
    ¬ LocallyAffine (fun t : α =>
      Softmax.out00 (Arch.eval (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
        Softmax.attnParams (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t))) :=
  fun h => logistic_not_locallyAffine (κ := Softmax.temp) (D := Scalar.one) Softmax.temp_pos
    OrderedFieldLaws.zero_lt_one
    (Eq.subst (motive := fun g => LocallyAffine g) (funext attention_line) h)

/-- **VM.C2 (softmax attention, against the PL fragment).** No term of the PL fragment, whatever
its weights, agrees with the Zoo attention `Zoo.attention 2 2` at `attnParams` in output
coordinate `(0, 0)` along the line `t ↦ lineBase + lineDir * t`: the fragment term is
`LocallyAffine` there (`pl_on_lines`), the attention is not (`attention_not_locallyAffine`). -/
theorem attention_not_pl (f : Arch (.tensor [2, 2]) (.tensor [2, 2])) (hf : IsPL f)
    (p : Arch.Params α f) :
    ¬ ∀ t : α,
      Softmax.out00 (Arch.eval f p (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t)) =
        Softmax.out00 (Arch.eval (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
          Softmax.attnParams (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t)) := by
  intro hagree
  have hc : ShapeCoords LocallyAffine (.tensor [2, 2])
      (fun τ => Arch.eval f p (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir τ)) :=
    pl_on_lines f hf p Softmax.lineBase Softmax.lineDir
  have h1 : LocallyAffine (fun τ : α =>
      Softmax.out00 (Arch.eval f p (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir τ))) :=
    hc Softmax.r0 Softmax.r0
  exact attention_not_locallyAffine
    (Eq.subst (motive := fun g => LocallyAffine g) (funext hagree) h1)

end Theorems

end Formal.PL
