import Formal.PL.Laws

/-!
# One-dimensional piecewise-linear functions: the local form

A function `f : α → α` on an ordered field is piecewise linear (PL) when finitely many breakpoints
cut the line into intervals on each of which `f` is affine. The proofs about networks only use the
local consequence of that definition, and this file formalises exactly that consequence:

* `AffineOn f a b`: `f` agrees with some `t ↦ k * t + c` on the open interval `(a, b)`;
* `LocallyAffine f`: every nondegenerate open interval contains a nondegenerate open subinterval on
  which `f` is affine. Every PL function (finitely many breakpoints) is `LocallyAffine`: a subinterval
  avoiding the finitely many breakpoints always exists (`PL1.toLocallyAffine`). The converse fails
  (not formalised): `LocallyAffine` allows infinitely many pieces, so it is weaker than "piecewise
  linear"; the global definition with finitely many breakpoints is `PL1` (`Formal/PL/Breakpoints.lean`).

`LocallyAffine` is closed under constants, the identity, sums, scalings and ReLU (`la_const`,
`la_ident`, `la_add`, `la_scale`, `la_relu`), which is all that the layers of the PL fragment do to
a coordinate. The square `t ↦ t * t` is affine on *no* nondegenerate interval (`sq_not_affineOn`),
so it is not `LocallyAffine` (`sq_not_pl`): the sound half of Villani & McBurney's claim C2
("`x · y` restricted to the diagonal is `x²`, which is not PL").
-/

namespace Formal.PL

universe u

variable {α : Type u} [Scalar α]

/-- `f` agrees with the affine map `t ↦ k * t + c` on the open interval `(a, b)`, for some `k, c`. -/
def AffineOn (f : α → α) (a b : α) : Prop :=
  ∃ k c : α, ∀ x : α, a < x → x < b → f x = k * x + c

/-- `(a', b')` is a nondegenerate open interval contained in `(a, b)`. -/
def SubInterval (a' b' a b : α) : Prop :=
  a' < b' ∧ ∀ x : α, a' < x → x < b' → a < x ∧ x < b

/-- Every nondegenerate open interval contains a nondegenerate open subinterval on which `f` is
affine: the local form of "piecewise linear" that the network proofs use. -/
def LocallyAffine (f : α → α) : Prop :=
  ∀ a b : α, a < b → ∃ a' b' : α, SubInterval a' b' a b ∧ AffineOn f a' b'

variable [OrderedFieldLaws α]

theorem SubInterval.refl {a b : α} (h : a < b) : SubInterval a b a b :=
  And.intro h (fun _ h1 h2 => And.intro h1 h2)

theorem SubInterval.trans {a2 b2 a1 b1 a b : α} (h2 : SubInterval a2 b2 a1 b1)
    (h1 : SubInterval a1 b1 a b) : SubInterval a2 b2 a b :=
  And.intro (And.left h2) (fun x hx1 hx2 =>
    And.right h1 x (And.left (And.right h2 x hx1 hx2)) (And.right (And.right h2 x hx1 hx2)))

/-! ## Closure properties -/

theorem const_eq (c x : α) : c = (Scalar.zero : α) * x + c := by
  rw [zero_mul x, OrderedFieldLaws.zero_add c]

/-- Constants are locally affine. -/
theorem la_const (c : α) : LocallyAffine (fun _ : α => c) := fun a b h =>
  ⟨a, b, SubInterval.refl h, Exists.intro Scalar.zero (Exists.intro c (fun x _ _ => const_eq c x))⟩

theorem ident_eq (x : α) : x = (Scalar.one : α) * x + Scalar.zero := by
  rw [OrderedFieldLaws.one_mul x, add_zero x]

/-- The identity is locally affine. -/
theorem la_ident : LocallyAffine (fun t : α => t) := fun a b h =>
  ⟨a, b, SubInterval.refl h,
    Exists.intro Scalar.one (Exists.intro Scalar.zero (fun x _ _ => ident_eq x))⟩

theorem affine_add_eq (k1 c1 k2 c2 x : α) :
    k1 * x + c1 + (k2 * x + c2) = (k1 + k2) * x + (c1 + c2) := by
  rw [add_mul k1 k2 x, add_add_add_comm (k1 * x) c1 (k2 * x) c2]

/-- Sums of locally affine functions are locally affine (nest the subintervals). -/
theorem la_add {u w : α → α} (hu : LocallyAffine u) (hw : LocallyAffine w) :
    LocallyAffine (fun t => u t + w t) := by
  intro a b hab
  obtain ⟨a1, b1, hs1, k1, c1, hc1⟩ := hu a b hab
  obtain ⟨a2, b2, hs2, k2, c2, hc2⟩ := hw a1 b1 (And.left hs1)
  refine ⟨a2, b2, SubInterval.trans hs2 hs1, ?_⟩
  refine Exists.intro (k1 + k2) (Exists.intro (c1 + c2) ?_)
  intro x hx1 hx2
  have hs : a1 < x ∧ x < b1 := And.right hs2 x hx1 hx2
  show u x + w x = (k1 + k2) * x + (c1 + c2)
  rw [hc1 x (And.left hs) (And.right hs), hc2 x hx1 hx2]
  exact affine_add_eq k1 c1 k2 c2 x

theorem affine_scale_eq (w k c x : α) : w * (k * x + c) = w * k * x + w * c := by
  rw [OrderedFieldLaws.mul_add w (k * x) c, OrderedFieldLaws.mul_assoc w k x]

/-- Scalings of locally affine functions are locally affine. -/
theorem la_scale (w : α) {u : α → α} (hu : LocallyAffine u) :
    LocallyAffine (fun t => w * u t) := by
  intro a b hab
  obtain ⟨a1, b1, hs1, k, c, hc⟩ := hu a b hab
  refine ⟨a1, b1, hs1, ?_⟩
  refine Exists.intro (w * k) (Exists.intro (w * c) ?_)
  intro x hx1 hx2
  show w * u x = w * k * x + w * c
  rw [hc x hx1 hx2]
  exact affine_scale_eq w k c x

theorem relu_of_pos {y : α} (h : Scalar.zero < y) : Scalar.relu y = y := if_pos h

theorem relu_of_not_pos {y : α} (h : ¬ Scalar.zero < y) : Scalar.relu y = Scalar.zero := if_neg h

/-- ReLU of a function that is affine and positive on `(a, b)` is affine there. -/
theorem relu_affineOn_pos {u : α → α} {k c a b : α}
    (hu : ∀ x : α, a < x → x < b → u x = k * x + c)
    (hpos : ∀ x : α, a < x → x < b → Scalar.zero < k * x + c) :
    AffineOn (fun t => Scalar.relu (u t)) a b :=
  Exists.intro k (Exists.intro c (fun x h1 h2 => by
    show Scalar.relu (u x) = k * x + c
    rw [hu x h1 h2]
    exact relu_of_pos (hpos x h1 h2)))

/-- ReLU of a function that is affine and nonpositive on `(a, b)` is zero there. -/
theorem relu_affineOn_nonpos {u : α → α} {k c a b : α}
    (hu : ∀ x : α, a < x → x < b → u x = k * x + c)
    (hneg : ∀ x : α, a < x → x < b → ¬ Scalar.zero < k * x + c) :
    AffineOn (fun t => Scalar.relu (u t)) a b :=
  Exists.intro Scalar.zero (Exists.intro Scalar.zero (fun x h1 h2 => by
    show Scalar.relu (u x) = (Scalar.zero : α) * x + Scalar.zero
    rw [hu x h1 h2, relu_of_not_pos (hneg x h1 h2), zero_mul x, add_zero (Scalar.zero : α)]))

/-- ReLU of a constant is constant. -/
theorem relu_affineOn_const {u : α → α} {c a b : α}
    (hu : ∀ x : α, a < x → x < b → u x = (Scalar.zero : α) * x + c) :
    AffineOn (fun t => Scalar.relu (u t)) a b :=
  Exists.intro Scalar.zero (Exists.intro (Scalar.relu c) (fun x h1 h2 => by
    show Scalar.relu (u x) = (Scalar.zero : α) * x + Scalar.relu c
    rw [hu x h1 h2, zero_mul x, OrderedFieldLaws.zero_add c,
      OrderedFieldLaws.zero_add (Scalar.relu c)]))

/-- ReLU preserves local affinity. On an interval where `u = k * t + c`, split at an interior point
`q`: if `k = 0` the composite is constant; otherwise `u` is strictly monotone, so on one of the two
halves `u` keeps the sign it has at `q`, and there `relu ∘ u` is `u` or `0`. -/
theorem la_relu {u : α → α} (hu : LocallyAffine u) :
    LocallyAffine (fun t => Scalar.relu (u t)) := by
  intro a b hab
  obtain ⟨a1, b1, hs1, k, c, hc⟩ := hu a b hab
  obtain ⟨q, hq1, hq2⟩ := exists_between (And.left hs1)
  have hl : SubInterval a1 q a1 b1 :=
    And.intro hq1 (fun x hx1 hx2 => And.intro hx1 (OrderedFieldLaws.lt_trans hx2 hq2))
  have hr : SubInterval q b1 a1 b1 :=
    And.intro hq2 (fun x hx1 hx2 => And.intro (OrderedFieldLaws.lt_trans hq1 hx1) hx2)
  have hcl : ∀ x : α, a1 < x → x < q → u x = k * x + c :=
    fun x hx1 hx2 => hc x hx1 (OrderedFieldLaws.lt_trans hx2 hq2)
  have hcr : ∀ x : α, q < x → x < b1 → u x = k * x + c :=
    fun x hx1 hx2 => hc x (OrderedFieldLaws.lt_trans hq1 hx1) hx2
  rcases OrderedFieldLaws.lt_trichotomy k Scalar.zero with hk | hk | hk
  · -- `k < 0`: `u` is decreasing
    rcases Classical.em (Scalar.zero < k * q + c) with hpos | hpos
    · refine ⟨a1, q, SubInterval.trans hl hs1, relu_affineOn_pos hcl ?_⟩
      intro x _ hx2
      exact OrderedFieldLaws.lt_trans hpos (affine_lt_of_neg hk hx2)
    · refine ⟨q, b1, SubInterval.trans hr hs1, relu_affineOn_nonpos hcr ?_⟩
      intro x hx1 _ hx
      exact hpos (OrderedFieldLaws.lt_trans hx (affine_lt_of_neg hk hx1))
  · -- `k = 0`: `u` is constant
    refine ⟨a1, b1, hs1, relu_affineOn_const (c := c) ?_⟩
    intro x hx1 hx2
    rw [hc x hx1 hx2, hk]
  · -- `0 < k`: `u` is increasing
    rcases Classical.em (Scalar.zero < k * q + c) with hpos | hpos
    · refine ⟨q, b1, SubInterval.trans hr hs1, relu_affineOn_pos hcr ?_⟩
      intro x hx1 _
      exact OrderedFieldLaws.lt_trans hpos (affine_lt_of_pos hk hx1)
    · refine ⟨a1, q, SubInterval.trans hl hs1, relu_affineOn_nonpos hcl ?_⟩
      intro x _ hx2 hx
      exact hpos (OrderedFieldLaws.lt_trans hx (affine_lt_of_pos hk hx2))

/-! ## The square is nowhere affine (VM.C2) -/

/-- The identity `(x + y) x + y² = (x + y) y + x²`. -/
theorem sum_mul_identity (x y : α) : (x + y) * x + y * y = (x + y) * y + x * x := by
  rw [add_mul x y x, add_mul x y y, OrderedFieldLaws.mul_comm y x,
    OrderedFieldLaws.add_comm (x * x) (x * y), OrderedFieldLaws.add_assoc (x * y) (x * x) (y * y),
    OrderedFieldLaws.add_assoc (x * y) (y * y) (x * x), OrderedFieldLaws.add_comm (y * y) (x * x)]

/-- A rearrangement inequality: `k < s` and `x < y` give `k y + s x < k x + s y`. -/
theorem rearrangement {k s x y : α} (hks : k < s) (hxy : x < y) :
    k * y + s * x < k * x + s * y := by
  have h1 : (s + -k) * x < (s + -k) * y := OrderedFieldLaws.mul_lt_mul_left (sub_pos hks) hxy
  have h2 : k * y + k * x + (s + -k) * x < k * y + k * x + (s + -k) * y :=
    OrderedFieldLaws.add_lt_add_left (k * y + k * x) h1
  have e1 : k * y + k * x + (s + -k) * x = k * y + s * x := by
    rw [add_mul s (-k) x, OrderedFieldLaws.add_assoc (k * y) (k * x) (s * x + (-k) * x),
      add_left_comm (k * x) (s * x) ((-k) * x), ← add_mul k (-k) x, OrderedFieldLaws.add_neg k,
      zero_mul x, add_zero (s * x)]
  have e2 : k * y + k * x + (s + -k) * y = k * x + s * y := by
    rw [add_mul s (-k) y, OrderedFieldLaws.add_comm (k * y) (k * x),
      OrderedFieldLaws.add_assoc (k * x) (k * y) (s * y + (-k) * y),
      add_left_comm (k * y) (s * y) ((-k) * y), ← add_mul k (-k) y, OrderedFieldLaws.add_neg k,
      zero_mul y, add_zero (s * y)]
  rw [e1, e2] at h2
  exact h2

/-- If the square agrees with `t ↦ k t + c` at two points `x < y` (in the form
`k y + x² = k x + y²`), then the slope is `k = x + y`. -/
theorem slope_eq_sum {k x y : α} (hxy : x < y) (e : k * y + x * x = k * x + y * y) :
    k = x + y := by
  have hsum : k * y + x * x + ((x + y) * x + y * y) = k * x + y * y + ((x + y) * y + x * x) := by
    rw [e, sum_mul_identity x y]
  rw [add_add_add_comm (k * y) (x * x) ((x + y) * x) (y * y),
    add_add_add_comm (k * x) (y * y) ((x + y) * y) (x * x),
    OrderedFieldLaws.add_comm (y * y) (x * x)] at hsum
  have hpq : k * y + (x + y) * x = k * x + (x + y) * y := add_right_cancel hsum
  rcases OrderedFieldLaws.lt_trichotomy k (x + y) with h | h | h
  · have r : k * y + (x + y) * x < k * x + (x + y) * y := rearrangement h hxy
    rw [hpq] at r
    exact absurd r (OrderedFieldLaws.lt_irrefl _)
  · exact h
  · have r : (x + y) * y + k * x < (x + y) * x + k * y := rearrangement h hxy
    rw [OrderedFieldLaws.add_comm ((x + y) * y) (k * x),
      OrderedFieldLaws.add_comm ((x + y) * x) (k * y), hpq] at r
    exact absurd r (OrderedFieldLaws.lt_irrefl _)

/-- Two values of an affine map, rearranged: from `x² = k x + c` and `y² = k y + c`,
`k y + x² = k x + y²`. -/
theorem sq_two_points {k c x y : α} (ex : x * x = k * x + c) (ey : y * y = k * y + c) :
    k * y + x * x = k * x + y * y := by
  rw [ex, ey, add_left_comm (k * y) (k * x) c]

/-- **VM.C2 (sound half).** The square `t ↦ t * t` is affine on no nondegenerate open interval. -/
theorem sq_not_affineOn {a b : α} (hab : a < b) : ¬ AffineOn (fun t : α => t * t) a b := by
  intro h
  obtain ⟨k, c, hc⟩ := h
  obtain ⟨x, hx1, hx2⟩ := exists_between hab
  obtain ⟨y, hy1, hy2⟩ := exists_between hx2
  obtain ⟨z, hz1, hz2⟩ := exists_between hy2
  have ex : x * x = k * x + c := hc x hx1 hx2
  have ey : y * y = k * y + c := hc y (OrderedFieldLaws.lt_trans hx1 hy1) hy2
  have ez : z * z = k * z + c :=
    hc z (OrderedFieldLaws.lt_trans (OrderedFieldLaws.lt_trans hx1 hy1) hz1) hz2
  have kxy : k = x + y := slope_eq_sum hy1 (sq_two_points ex ey)
  have kxz : k = x + z := slope_eq_sum (OrderedFieldLaws.lt_trans hy1 hz1) (sq_two_points ex ez)
  have hyz : y = z := add_left_cancel (kxy.symm.trans kxz)
  rw [hyz] at hz1
  exact OrderedFieldLaws.lt_irrefl z hz1

/-- **VM.C2 (sound half).** `t ↦ t²` is not piecewise linear: it is not even `LocallyAffine`. -/
theorem sq_not_pl : ¬ LocallyAffine (fun t : α => t * t) := fun h =>
  match h Scalar.zero Scalar.one OrderedFieldLaws.zero_lt_one with
  | ⟨_, _, hs, ha⟩ => sq_not_affineOn (And.left hs) ha

end Formal.PL
