import Formal.PL.OneDim

/-!
# One-dimensional PL functions with finitely many breakpoints

`Formal/PL/OneDim.lean` formalises the *local* form of piecewise linearity (`LocallyAffine`). This
file gives the global definition that Villani & McBurney's claims C1–C2 presuppose (arXiv
2403.18415v2, §3: "piecewise-linear maps"), in one variable:

* `PL1 f`: there is a finite list `B` of breakpoints such that `f` is affine (`AffineOn`, on the
  open interval) on every interval `(s, u)` that contains no breakpoint strictly inside
  (`Avoids B s u`). The values of `f` *at* the breakpoints are not constrained, so `PL1` is the
  class of piecewise-affine functions with finitely many pieces, jumps allowed; the continuous PL
  functions (ReLU networks of one variable) are among them.
* `PL1.toLocallyAffine`: every `PL1` function is `LocallyAffine` (a subinterval avoiding the
  finitely many breakpoints always exists), hence `sq_not_PL1`: `t ↦ t * t` is not `PL1`
  (**VM.C2**, sound half, for the global definition).
* Closure: `PL1.const`, `PL1.id`, `PL1.add` (breakpoints `B₁ ++ B₂`), `PL1.scale` (same
  breakpoints), `PL1.comp` (`g ∘ f`), and `PL1.relu` (`Scalar.relu ∘ f`, since `Scalar.relu` itself
  is `PL1` with the single breakpoint `0`, `PL1.relu_self`).

The composition is the one non-local step. On an interval avoiding the breakpoints of `f`, `f` is
`t ↦ k * t + c`; `g ∘ f` is affine there as soon as no breakpoint `v` of `g` is a value `k * z + c`
at an interior point `z`. The breakpoints of `g ∘ f` are those of `f` plus one *level point* per
triple (lower end, upper end, breakpoint `v` of `g`), where the ends range over the breakpoints of
`f` and `±∞` (`opts`): `levelPt f lo hi v` is, when it exists, the unique `z` in the cell
`(lo, hi)` at which the affine piece of `f` on that cell (with nonzero slope) takes the value `v`,
chosen with `Classical.choose` (`LevelProp`, `levelProp_unique`). Every interval avoiding the
breakpoints of `f` lies in such a cell (`cell_exists`), on which `f` has the same affine piece
(`cell_affine`), so a forbidden interior level point is one of the listed points.

Everything is over an abstract `OrderedFieldLaws` scalar type; no decidability beyond
`Classical.em` is used.
-/

namespace Formal.PL

universe u

/-! ## Lists: membership facts proved from the constructors of `List.Mem` -/

theorem bp_mem_cons {β : Type u} {x b : β} {l : List β} (h : x ∈ b :: l) : x = b ∨ x ∈ l := by
  cases h with
  | head => exact Or.inl rfl
  | tail _ h' => exact Or.inr h'

theorem bp_mem_append_left {β : Type u} {x : β} {l1 : List β} (l2 : List β) (h : x ∈ l1) :
    x ∈ l1 ++ l2 := by
  induction l1 with
  | nil => exact nomatch h
  | cons b l ih =>
    rcases bp_mem_cons h with e | h'
    · rw [e]
      exact List.Mem.head _
    · exact List.Mem.tail _ (ih h')

theorem bp_mem_append_right {β : Type u} {x : β} (l1 : List β) {l2 : List β} (h : x ∈ l2) :
    x ∈ l1 ++ l2 := by
  induction l1 with
  | nil => exact h
  | cons b l ih => exact List.Mem.tail _ ih

/-- Concatenate `g b` over the elements `b` of a list (left to right). -/
def pairsFlat {β γ : Type u} (g : β → List γ) : List β → List γ
  | [] => []
  | b :: bs => g b ++ pairsFlat g bs

theorem mem_pairsFlat {β γ : Type u} {g : β → List γ} {b : β} {y : γ} {bs : List β}
    (hb : b ∈ bs) (hy : y ∈ g b) : y ∈ pairsFlat g bs := by
  induction bs with
  | nil => exact nomatch hb
  | cons b' bs ih =>
    show y ∈ g b' ++ pairsFlat g bs
    rcases bp_mem_cons hb with e | hb'
    · rw [e] at hy
      exact bp_mem_append_left _ hy
    · exact bp_mem_append_right _ (ih hb')

/-- The possible ends of a cell: `none` (an infinite end) and every breakpoint. -/
def opts {β : Type u} : List β → List (Option β)
  | [] => [none]
  | b :: B => some b :: opts B

variable {α : Type u} [Scalar α]

/-! ## The definition -/

/-- No element of `B` lies strictly between `s` and `u`. -/
def Avoids (B : List α) (s u : α) : Prop :=
  ∀ b ∈ B, ¬ (s < b ∧ b < u)

/-- `f` is piecewise affine with finitely many breakpoints: for some finite list `B`, `f` is affine
on every open interval `(s, u)` with no element of `B` strictly between `s` and `u`. The values at
the breakpoints themselves are unconstrained (jumps are allowed). -/
def PL1 (f : α → α) : Prop :=
  ∃ B : List α, ∀ s u : α, Avoids B s u → AffineOn f s u

/-! ## Cells: intervals between two ends, each a breakpoint or infinite -/

/-- `x` lies above the lower end `lo` (no condition for the infinite end `none`). -/
def LowerOK (lo : Option α) (x : α) : Prop :=
  ∀ l : α, lo = some l → l < x

/-- `x` lies below the upper end `hi` (no condition for the infinite end `none`). -/
def UpperOK (hi : Option α) (x : α) : Prop :=
  ∀ r : α, hi = some r → x < r

/-- `x` lies strictly inside the cell with ends `lo`, `hi`. -/
def InCell (lo hi : Option α) (x : α) : Prop :=
  LowerOK lo x ∧ UpperOK hi x

/-- `z` is a point of the cell `(lo, hi)` at which `f`, affine on the whole cell with a nonzero
slope, takes the value `v`. -/
def LevelProp (f : α → α) (lo hi : Option α) (v z : α) : Prop :=
  ∃ k c : α, k ≠ Scalar.zero ∧ k * z + c = v ∧ InCell lo hi z ∧
    ∀ x : α, InCell lo hi x → f x = k * x + c

theorem levelPt_exists (f : α → α) (lo hi : Option α) (v : α) :
    ∃ z : α, (∃ z' : α, LevelProp f lo hi v z') → LevelProp f lo hi v z := by
  rcases Classical.em (∃ z' : α, LevelProp f lo hi v z') with h | h
  · obtain ⟨z, hz⟩ := h
    exact ⟨z, fun _ => hz⟩
  · exact ⟨v, fun h' => absurd h' h⟩

/-- The level point of `f` at value `v` in the cell `(lo, hi)`: the point `z` of `LevelProp` when
there is one (it is then unique, `levelProp_unique`), an arbitrary point otherwise. -/
noncomputable def levelPt (f : α → α) (lo hi : Option α) (v : α) : α :=
  Classical.choose (levelPt_exists f lo hi v)

theorem levelPt_spec {f : α → α} {lo hi : Option α} {v : α}
    (h : ∃ z : α, LevelProp f lo hi v z) : LevelProp f lo hi v (levelPt f lo hi v) :=
  Classical.choose_spec (levelPt_exists f lo hi v) h

/-- All level points `levelPt f lo hi v` for ends `lo, hi ∈ C` and values `v ∈ V`. -/
noncomputable def levelList (f : α → α) (C : List (Option α)) (V : List α) : List α :=
  pairsFlat (fun lo => pairsFlat (fun hi => pairsFlat (fun v => [levelPt f lo hi v]) V) C) C

theorem mem_levelList {f : α → α} {C : List (Option α)} {V : List α} {lo hi : Option α} {v : α}
    (hlo : lo ∈ C) (hhi : hi ∈ C) (hv : v ∈ V) : levelPt f lo hi v ∈ levelList f C V := by
  have h3 : levelPt f lo hi v ∈ pairsFlat (fun v' => [levelPt f lo hi v']) V :=
    mem_pairsFlat (g := fun v' => [levelPt f lo hi v']) hv (List.Mem.head _)
  have h2 : levelPt f lo hi v ∈
      pairsFlat (fun hi' => pairsFlat (fun v' => [levelPt f lo hi' v']) V) C :=
    mem_pairsFlat (g := fun hi' => pairsFlat (fun v' => [levelPt f lo hi' v']) V) hhi h3
  exact mem_pairsFlat
    (g := fun lo' => pairsFlat (fun hi' => pairsFlat (fun v' => [levelPt f lo' hi' v']) V) C)
    hlo h2

variable [OrderedFieldLaws α]

/-! ## Order helpers -/

/-- From `¬ s < b` and `s < x`: `b < x`. -/
theorem bp_lt_of_not_lt_of_lt {s b x : α} (h : ¬ s < b) (hx : s < x) : b < x := by
  rcases OrderedFieldLaws.lt_trichotomy b s with h1 | h1 | h1
  · exact OrderedFieldLaws.lt_trans h1 hx
  · rw [h1]
    exact hx
  · exact absurd h1 h

/-- From `x < u` and `¬ b < u`: `x < b`. -/
theorem bp_lt_of_lt_of_not_lt {x u b : α} (hx : x < u) (h : ¬ b < u) : x < b := by
  rcases OrderedFieldLaws.lt_trichotomy u b with h1 | h1 | h1
  · exact OrderedFieldLaws.lt_trans hx h1
  · rw [← h1]
    exact hx
  · exact absurd h1 h

theorem bp_sub_one_lt (a : α) : a + -(Scalar.one : α) < a := by
  have h : a + -(Scalar.one : α) + Scalar.zero < a + -(Scalar.one : α) + Scalar.one :=
    OrderedFieldLaws.add_lt_add_left (a + -(Scalar.one : α)) OrderedFieldLaws.zero_lt_one
  rw [add_zero (a + -(Scalar.one : α)), OrderedFieldLaws.add_assoc a (-(Scalar.one : α)) Scalar.one,
    neg_add_cancel (Scalar.one : α), add_zero a] at h
  exact h

theorem bp_lt_add_one (a : α) : a < a + Scalar.one := by
  have h : a + Scalar.zero < a + Scalar.one :=
    OrderedFieldLaws.add_lt_add_left a OrderedFieldLaws.zero_lt_one
  rw [add_zero a] at h
  exact h

/-- Below any two points there is a point. -/
theorem exists_lt_both (p q : α) : ∃ l : α, l < p ∧ l < q := by
  rcases Classical.em (p < q) with h | h
  · exact ⟨p + -(Scalar.one : α), bp_sub_one_lt p,
      OrderedFieldLaws.lt_trans (bp_sub_one_lt p) h⟩
  · exact ⟨q + -(Scalar.one : α), bp_lt_of_lt_of_not_lt (bp_sub_one_lt q) h, bp_sub_one_lt q⟩

/-- Above any two points there is a point. -/
theorem exists_gt_both (p q : α) : ∃ r : α, p < r ∧ q < r := by
  rcases Classical.em (p < q) with h | h
  · exact ⟨q + Scalar.one, OrderedFieldLaws.lt_trans h (bp_lt_add_one q), bp_lt_add_one q⟩
  · exact ⟨p + Scalar.one, bp_lt_add_one p, bp_lt_of_not_lt_of_lt h (bp_lt_add_one p)⟩

/-! ## Affine algebra -/

/-- Two affine maps that agree at two distinct points have the same coefficients. -/
theorem coeffs_eq {k1 c1 k2 c2 x y : α} (hxy : x < y) (ex : k1 * x + c1 = k2 * x + c2)
    (ey : k1 * y + c1 = k2 * y + c2) : k1 = k2 ∧ c1 = c2 := by
  have hsum : k1 * y + k2 * x + (c1 + c2) = k1 * x + k2 * y + (c1 + c2) :=
    calc k1 * y + k2 * x + (c1 + c2) = k1 * y + c1 + (k2 * x + c2) :=
          add_add_add_comm (k1 * y) (k2 * x) c1 c2
      _ = k2 * y + c2 + (k1 * x + c1) := by rw [ey, ex]
      _ = k1 * x + c1 + (k2 * y + c2) := OrderedFieldLaws.add_comm _ _
      _ = k1 * x + k2 * y + (c1 + c2) := (add_add_add_comm (k1 * x) (k2 * y) c1 c2).symm
  have hlin : k1 * y + k2 * x = k1 * x + k2 * y := add_right_cancel hsum
  have hk : k1 = k2 := by
    rcases OrderedFieldLaws.lt_trichotomy k1 k2 with h | h | h
    · have r : k1 * y + k2 * x < k1 * x + k2 * y := rearrangement h hxy
      rw [hlin] at r
      exact absurd r (OrderedFieldLaws.lt_irrefl _)
    · exact h
    · have r : k2 * y + k1 * x < k2 * x + k1 * y := rearrangement h hxy
      rw [OrderedFieldLaws.add_comm (k2 * y) (k1 * x), OrderedFieldLaws.add_comm (k2 * x) (k1 * y),
        ← hlin] at r
      exact absurd r (OrderedFieldLaws.lt_irrefl _)
  refine ⟨hk, ?_⟩
  rw [hk] at ex
  exact add_left_cancel ex

/-- An affine map with nonzero slope is injective. -/
theorem affine_inj {k c x y : α} (hk : k ≠ Scalar.zero) (h : k * x + c = k * y + c) : x = y := by
  rcases OrderedFieldLaws.lt_trichotomy x y with hxy | hxy | hxy
  · rcases OrderedFieldLaws.lt_trichotomy k Scalar.zero with hk' | hk' | hk'
    · have r : k * y + c < k * x + c := affine_lt_of_neg hk' hxy
      exact absurd h (ne_of_lt' r)
    · exact absurd hk' hk
    · have r : k * x + c < k * y + c := affine_lt_of_pos hk' hxy
      exact absurd h.symm (ne_of_lt' r)
  · exact hxy
  · rcases OrderedFieldLaws.lt_trichotomy k Scalar.zero with hk' | hk' | hk'
    · have r : k * x + c < k * y + c := affine_lt_of_neg hk' hxy
      exact absurd h.symm (ne_of_lt' r)
    · exact absurd hk' hk
    · have r : k * y + c < k * x + c := affine_lt_of_pos hk' hxy
      exact absurd h (ne_of_lt' r)

/-- Solving `k * z + c = v` for `k ≠ 0`: `z = (v - c) / k`. -/
theorem affine_solve {k : α} (hk : k ≠ Scalar.zero) (c v : α) :
    k * ((v + -c) * Scalar.inv k) + c = v := by
  rw [OrderedFieldLaws.mul_comm (v + -c) (Scalar.inv k),
    ← OrderedFieldLaws.mul_assoc k (Scalar.inv k) (v + -c), OrderedFieldLaws.mul_inv k hk,
    OrderedFieldLaws.one_mul (v + -c), OrderedFieldLaws.add_assoc v (-c) c, neg_add_cancel c,
    add_zero v]

/-- A point whose image under an increasing affine map lies strictly between the images of `s`
and `u` lies strictly between `s` and `u`. -/
theorem between_of_affine_pos {k c s u z : α} (hk : Scalar.zero < k)
    (h1 : k * s + c < k * z + c) (h2 : k * z + c < k * u + c) : s < z ∧ z < u := by
  constructor
  · rcases OrderedFieldLaws.lt_trichotomy s z with h | h | h
    · exact h
    · rw [h] at h1
      exact absurd h1 (OrderedFieldLaws.lt_irrefl _)
    · have r : k * z + c < k * s + c := affine_lt_of_pos hk h
      exact absurd (OrderedFieldLaws.lt_trans h1 r) (OrderedFieldLaws.lt_irrefl _)
  · rcases OrderedFieldLaws.lt_trichotomy z u with h | h | h
    · exact h
    · rw [h] at h2
      exact absurd h2 (OrderedFieldLaws.lt_irrefl _)
    · have r : k * u + c < k * z + c := affine_lt_of_pos hk h
      exact absurd (OrderedFieldLaws.lt_trans h2 r) (OrderedFieldLaws.lt_irrefl _)

/-- The decreasing counterpart of `between_of_affine_pos`. -/
theorem between_of_affine_neg {k c s u z : α} (hk : k < Scalar.zero)
    (h1 : k * u + c < k * z + c) (h2 : k * z + c < k * s + c) : s < z ∧ z < u := by
  constructor
  · rcases OrderedFieldLaws.lt_trichotomy s z with h | h | h
    · exact h
    · rw [h] at h2
      exact absurd h2 (OrderedFieldLaws.lt_irrefl _)
    · have r : k * s + c < k * z + c := affine_lt_of_neg hk h
      exact absurd (OrderedFieldLaws.lt_trans h2 r) (OrderedFieldLaws.lt_irrefl _)
  · rcases OrderedFieldLaws.lt_trichotomy z u with h | h | h
    · exact h
    · rw [h] at h1
      exact absurd h1 (OrderedFieldLaws.lt_irrefl _)
    · have r : k * z + c < k * u + c := affine_lt_of_neg hk h
      exact absurd (OrderedFieldLaws.lt_trans h1 r) (OrderedFieldLaws.lt_irrefl _)

/-- `k' (k x + c) + c' = (k' k) x + (k' c + c')`. -/
theorem comp_affine_eq (k' c' k c x : α) :
    k' * (k * x + c) + c' = k' * k * x + (k' * c + c') := by
  rw [affine_scale_eq k' k c x, OrderedFieldLaws.add_assoc (k' * k * x) (k' * c) c']

/-- On an empty interval every function is affine. -/
theorem affineOn_of_not_lt {f : α → α} {s u : α} (h : ¬ s < u) : AffineOn f s u :=
  ⟨Scalar.zero, Scalar.zero, fun _ h1 h2 => absurd (OrderedFieldLaws.lt_trans h1 h2) h⟩

/-! ## From breakpoints to the local form -/

theorem avoids_append_left {B1 B2 : List α} {s u : α} (h : Avoids (B1 ++ B2) s u) :
    Avoids B1 s u :=
  fun b hb => h b (bp_mem_append_left B2 hb)

theorem avoids_append_right {B1 B2 : List α} {s u : α} (h : Avoids (B1 ++ B2) s u) :
    Avoids B2 s u :=
  fun b hb => h b (bp_mem_append_right B1 hb)

/-- Every nondegenerate interval contains a nondegenerate subinterval avoiding a finite list:
cut at each element of the list that falls inside. -/
theorem exists_avoiding_subinterval {a b : α} (hab : a < b) (B : List α) :
    ∃ a' b' : α, SubInterval a' b' a b ∧ Avoids B a' b' := by
  induction B with
  | nil => exact ⟨a, b, SubInterval.refl hab, fun _ hx => nomatch hx⟩
  | cons x B ih =>
    obtain ⟨a1, b1, hs, hav⟩ := ih
    rcases Classical.em (a1 < x ∧ x < b1) with hx | hx
    · have hsub : SubInterval a1 x a1 b1 :=
        And.intro (And.left hx)
          (fun y hy1 hy2 => And.intro hy1 (OrderedFieldLaws.lt_trans hy2 (And.right hx)))
      refine ⟨a1, x, SubInterval.trans hsub hs, ?_⟩
      intro y hy hyin
      rcases bp_mem_cons hy with e | hy'
      · rw [e] at hyin
        exact OrderedFieldLaws.lt_irrefl x (And.right hyin)
      · exact hav y hy' (And.intro (And.left hyin)
          (OrderedFieldLaws.lt_trans (And.right hyin) (And.right hx)))
    · refine ⟨a1, b1, hs, ?_⟩
      intro y hy hyin
      rcases bp_mem_cons hy with e | hy'
      · rw [e] at hyin
        exact hx hyin
      · exact hav y hy' hyin

/-- A function with finitely many breakpoints is locally affine. -/
theorem PL1.toLocallyAffine {f : α → α} (hf : PL1 f) : LocallyAffine f := by
  obtain ⟨B, hB⟩ := hf
  intro a b hab
  obtain ⟨a', b', hs, hav⟩ := exists_avoiding_subinterval hab B
  exact ⟨a', b', hs, hB a' b' hav⟩

/-- **VM.C2 (sound half), global form.** `t ↦ t * t` has no finite set of breakpoints. -/
theorem sq_not_PL1 : ¬ PL1 (fun t : α => t * t) := fun h => sq_not_pl (PL1.toLocallyAffine h)

/-! ## Closure under constants, the identity, sums and scalings -/

/-- Constants are `PL1` (no breakpoint). -/
theorem PL1.const (c : α) : PL1 (fun _ : α => c) :=
  ⟨[], fun _ _ _ => ⟨Scalar.zero, c, fun x _ _ => const_eq c x⟩⟩

/-- The identity is `PL1` (no breakpoint). -/
theorem PL1.id : PL1 (fun t : α => t) :=
  ⟨[], fun _ _ _ => ⟨Scalar.one, Scalar.zero, fun x _ _ => ident_eq x⟩⟩

/-- Sums of `PL1` functions are `PL1`, with the breakpoints of both summands. -/
theorem PL1.add {f g : α → α} (hf : PL1 f) (hg : PL1 g) : PL1 (fun t => f t + g t) := by
  obtain ⟨B1, h1⟩ := hf
  obtain ⟨B2, h2⟩ := hg
  refine ⟨B1 ++ B2, fun s u hav => ?_⟩
  obtain ⟨k1, c1, e1⟩ := h1 s u (avoids_append_left hav)
  obtain ⟨k2, c2, e2⟩ := h2 s u (avoids_append_right hav)
  refine ⟨k1 + k2, c1 + c2, fun x hx1 hx2 => ?_⟩
  show f x + g x = (k1 + k2) * x + (c1 + c2)
  rw [e1 x hx1 hx2, e2 x hx1 hx2]
  exact affine_add_eq k1 c1 k2 c2 x

/-- Scalings of `PL1` functions are `PL1`, with the same breakpoints. -/
theorem PL1.scale (w : α) {f : α → α} (hf : PL1 f) : PL1 (fun t => w * f t) := by
  obtain ⟨B, hB⟩ := hf
  refine ⟨B, fun s u hav => ?_⟩
  obtain ⟨k, c, e⟩ := hB s u hav
  refine ⟨w * k, w * c, fun x hx1 hx2 => ?_⟩
  show w * f x = w * k * x + w * c
  rw [e x hx1 hx2]
  exact affine_scale_eq w k c x

/-! ## Cells -/

theorem lowerOK_none (x : α) : LowerOK (none : Option α) x := fun _ h => nomatch h

theorem upperOK_none (x : α) : UpperOK (none : Option α) x := fun _ h => nomatch h

theorem lowerOK_some {l x : α} (h : l < x) : LowerOK (some l) x := fun l' e => by
  cases e
  exact h

theorem upperOK_some {r x : α} (h : x < r) : UpperOK (some r) x := fun r' e => by
  cases e
  exact h

theorem lowerOK_trans {lo : Option α} {b x : α} (h1 : LowerOK lo b) (h2 : b < x) : LowerOK lo x :=
  fun l e => OrderedFieldLaws.lt_trans (h1 l e) h2

theorem upperOK_trans {hi : Option α} {b x : α} (h1 : UpperOK hi b) (h2 : x < b) : UpperOK hi x :=
  fun r e => OrderedFieldLaws.lt_trans h2 (h1 r e)

/-- Every interval avoiding `B` lies in a cell whose ends are breakpoints of `B` or infinite and
which contains no breakpoint of `B`. -/
theorem cell_exists (B : List α) (s u : α) (hB : Avoids B s u) :
    ∃ lo hi : Option α, lo ∈ opts B ∧ hi ∈ opts B ∧
      (∀ x : α, s < x → x < u → InCell lo hi x) ∧ ∀ b ∈ B, ¬ InCell lo hi b := by
  induction B with
  | nil =>
    refine ⟨none, none, List.Mem.head _, List.Mem.head _, ?_, ?_⟩
    · intro x _ _
      exact And.intro (lowerOK_none x) (upperOK_none x)
    · intro b hb
      exact nomatch hb
  | cons b B ih =>
    have hB' : Avoids B s u := fun b' hb' => hB b' (List.Mem.tail _ hb')
    have hb : ¬ (s < b ∧ b < u) := hB b (List.Mem.head _)
    obtain ⟨lo, hi, hlo, hhi, hsub, hfree⟩ := ih hB'
    rcases Classical.em (InCell lo hi b) with hin | hin
    · rcases Classical.em (s < b) with hsb | hsb
      · -- `b` is at or above `u`: it becomes the upper end
        have hbu : ¬ b < u := fun h => hb (And.intro hsb h)
        refine ⟨lo, some b, List.Mem.tail _ hlo, List.Mem.head _, ?_, ?_⟩
        · intro x hx1 hx2
          exact And.intro (And.left (hsub x hx1 hx2))
            (upperOK_some (bp_lt_of_lt_of_not_lt hx2 hbu))
        · intro b' hb' hin'
          rcases bp_mem_cons hb' with e | hb''
          · rw [e] at hin'
            exact OrderedFieldLaws.lt_irrefl b (And.right hin' b rfl)
          · exact hfree b' hb''
              (And.intro (And.left hin') (upperOK_trans (And.right hin) (And.right hin' b rfl)))
      · -- `b` is at or below `s`: it becomes the lower end
        refine ⟨some b, hi, List.Mem.head _, List.Mem.tail _ hhi, ?_, ?_⟩
        · intro x hx1 hx2
          exact And.intro (lowerOK_some (bp_lt_of_not_lt_of_lt hsb hx1))
            (And.right (hsub x hx1 hx2))
        · intro b' hb' hin'
          rcases bp_mem_cons hb' with e | hb''
          · rw [e] at hin'
            exact OrderedFieldLaws.lt_irrefl b (And.left hin' b rfl)
          · exact hfree b' hb''
              (And.intro (lowerOK_trans (And.left hin) (And.left hin' b rfl)) (And.right hin'))
    · -- `b` is outside the cell: keep it
      refine ⟨lo, hi, List.Mem.tail _ hlo, List.Mem.tail _ hhi, hsub, ?_⟩
      intro b' hb'
      rcases bp_mem_cons hb' with e | hb''
      · rw [e]
        exact hin
      · exact hfree b' hb''

theorem lower_end (lo : Option α) (p q : α) (hp : LowerOK lo p) (hq : LowerOK lo q) :
    ∃ l : α, l < p ∧ l < q ∧ ∀ y : α, l < y → LowerOK lo y := by
  cases lo with
  | none =>
    obtain ⟨l, hlp, hlq⟩ := exists_lt_both p q
    exact ⟨l, hlp, hlq, fun y _ => lowerOK_none y⟩
  | some l =>
    exact ⟨l, hp l rfl, hq l rfl, fun _ hy => lowerOK_some hy⟩

theorem upper_end (hi : Option α) (p q : α) (hp : UpperOK hi p) (hq : UpperOK hi q) :
    ∃ r : α, p < r ∧ q < r ∧ ∀ y : α, y < r → UpperOK hi y := by
  cases hi with
  | none =>
    obtain ⟨r, hpr, hqr⟩ := exists_gt_both p q
    exact ⟨r, hpr, hqr, fun y _ => upperOK_none y⟩
  | some r =>
    exact ⟨r, hp r rfl, hq r rfl, fun _ hy => upperOK_some hy⟩

/-- On a cell that contains no breakpoint, `f` has one affine piece: the one it has on any
nondegenerate interval inside the cell. -/
theorem cell_affine {f : α → α} {B : List α} (hf : ∀ s u : α, Avoids B s u → AffineOn f s u)
    {lo hi : Option α} (hfree : ∀ b ∈ B, ¬ InCell lo hi b) {s u k c : α} (hsu : s < u)
    (hsub : ∀ x : α, s < x → x < u → InCell lo hi x)
    (hkc : ∀ x : α, s < x → x < u → f x = k * x + c) :
    ∀ x : α, InCell lo hi x → f x = k * x + c := by
  intro x hx
  obtain ⟨y1, hy1, hy1u⟩ := exists_between hsu
  obtain ⟨y2, hy12, hy2u⟩ := exists_between hy1u
  have hsy2 : s < y2 := OrderedFieldLaws.lt_trans hy1 hy12
  have hin1 : InCell lo hi y1 := hsub y1 hy1 hy1u
  have hin2 : InCell lo hi y2 := hsub y2 hsy2 hy2u
  obtain ⟨l, hlx, hly, hl⟩ := lower_end lo x y1 (And.left hx) (And.left hin1)
  obtain ⟨r, hxr, hyr, hr⟩ := upper_end hi x y2 (And.right hx) (And.right hin2)
  have hav : Avoids B l r := fun b hb hlr =>
    hfree b hb (And.intro (hl b (And.left hlr)) (hr b (And.right hlr)))
  obtain ⟨k', c', h'⟩ := hf l r hav
  have e1 : k' * y1 + c' = k * y1 + c :=
    (h' y1 hly (OrderedFieldLaws.lt_trans hy12 hyr)).symm.trans (hkc y1 hy1 hy1u)
  have e2 : k' * y2 + c' = k * y2 + c :=
    (h' y2 (OrderedFieldLaws.lt_trans hly hy12) hyr).symm.trans (hkc y2 hsy2 hy2u)
  obtain ⟨hk, hc⟩ := coeffs_eq hy12 e1 e2
  rw [h' x hlx hxr, hk, hc]

/-- The level point is unique. -/
theorem levelProp_unique {f : α → α} {lo hi : Option α} {v z1 z2 : α}
    (h1 : LevelProp f lo hi v z1) (h2 : LevelProp f lo hi v z2) : z1 = z2 := by
  obtain ⟨k1, c1, hk1, hv1, hin1, hf1⟩ := h1
  obtain ⟨k2, c2, _, hv2, hin2, hf2⟩ := h2
  have e1 : k1 * z1 + c1 = k2 * z1 + c2 := (hf1 z1 hin1).symm.trans (hf2 z1 hin1)
  have e2 : k1 * z2 + c1 = k2 * z2 + c2 := (hf1 z2 hin2).symm.trans (hf2 z2 hin2)
  have key : k1 = k2 ∧ c1 = c2 → z1 = z2 := by
    intro hkc
    obtain ⟨hk, hc⟩ := hkc
    have e : k1 * z1 + c1 = k1 * z2 + c1 := by
      rw [hv1, hk, hc]
      exact hv2.symm
    exact affine_inj hk1 e
  rcases OrderedFieldLaws.lt_trichotomy z1 z2 with h | h | h
  · exact key (coeffs_eq h e1 e2)
  · exact h
  · exact key (coeffs_eq h e2 e1)

/-! ## Composition and ReLU -/

/-- Compositions of `PL1` functions are `PL1`. Breakpoints of `g ∘ f`: those of `f`, and the level
points of `f` at the breakpoints of `g` in every cell of `f`. -/
theorem PL1.comp {f g : α → α} (hg : PL1 g) (hf : PL1 f) : PL1 (fun t => g (f t)) := by
  obtain ⟨Bg, hBg⟩ := hg
  obtain ⟨Bf, hBf⟩ := hf
  refine ⟨Bf ++ levelList f (opts Bf) Bg, fun s u hav => ?_⟩
  have havf : Avoids Bf s u := avoids_append_left hav
  have havl : Avoids (levelList f (opts Bf) Bg) s u := avoids_append_right hav
  rcases Classical.em (s < u) with hsu | hsu
  · obtain ⟨k, c, hkc⟩ := hBf s u havf
    obtain ⟨lo, hi, hlo, hhi, hsub, hfree⟩ := cell_exists Bf s u havf
    have hcell : ∀ x : α, InCell lo hi x → f x = k * x + c := cell_affine hBf hfree hsu hsub hkc
    -- no breakpoint of `g` is a value of the affine piece at an interior point
    have hnolevel : ∀ v ∈ Bg, ∀ z : α, s < z → z < u → k ≠ Scalar.zero → k * z + c ≠ v := by
      intro v hv z hz1 hz2 hk he
      have hP : LevelProp f lo hi v z := ⟨k, c, hk, he, hsub z hz1 hz2, hcell⟩
      have hspec : LevelProp f lo hi v (levelPt f lo hi v) := levelPt_spec ⟨z, hP⟩
      have hz : levelPt f lo hi v = z := levelProp_unique hspec hP
      have hin : s < levelPt f lo hi v ∧ levelPt f lo hi v < u := by
        rw [hz]
        exact And.intro hz1 hz2
      exact havl (levelPt f lo hi v) (mem_levelList hlo hhi hv) hin
    rcases OrderedFieldLaws.lt_trichotomy k Scalar.zero with hk | hk | hk
    · -- decreasing piece: `f` maps `(s, u)` into `(k u + c, k s + c)`
      have hk0 : k ≠ Scalar.zero := fun e => ne_of_lt' hk e.symm
      have havg : Avoids Bg (k * u + c) (k * s + c) := by
        intro v hv hbet
        have hz : k * ((v + -c) * Scalar.inv k) + c = v := affine_solve hk0 c v
        have h1 : k * u + c < k * ((v + -c) * Scalar.inv k) + c := by
          rw [hz]
          exact And.left hbet
        have h2 : k * ((v + -c) * Scalar.inv k) + c < k * s + c := by
          rw [hz]
          exact And.right hbet
        obtain ⟨hs, hu⟩ := between_of_affine_neg hk h1 h2
        exact hnolevel v hv _ hs hu hk0 hz
      obtain ⟨k', c', hg'⟩ := hBg (k * u + c) (k * s + c) havg
      refine ⟨k' * k, k' * c + c', fun x hx1 hx2 => ?_⟩
      show g (f x) = k' * k * x + (k' * c + c')
      rw [hkc x hx1 hx2, hg' (k * x + c) (affine_lt_of_neg hk hx2) (affine_lt_of_neg hk hx1)]
      exact comp_affine_eq k' c' k c x
    · -- constant piece
      refine ⟨Scalar.zero, g c, fun x hx1 hx2 => ?_⟩
      show g (f x) = Scalar.zero * x + g c
      rw [hkc x hx1 hx2, hk, zero_mul x, OrderedFieldLaws.zero_add c,
        OrderedFieldLaws.zero_add (g c)]
    · -- increasing piece: `f` maps `(s, u)` into `(k s + c, k u + c)`
      have hk0 : k ≠ Scalar.zero := ne_of_lt' hk
      have havg : Avoids Bg (k * s + c) (k * u + c) := by
        intro v hv hbet
        have hz : k * ((v + -c) * Scalar.inv k) + c = v := affine_solve hk0 c v
        have h1 : k * s + c < k * ((v + -c) * Scalar.inv k) + c := by
          rw [hz]
          exact And.left hbet
        have h2 : k * ((v + -c) * Scalar.inv k) + c < k * u + c := by
          rw [hz]
          exact And.right hbet
        obtain ⟨hs, hu⟩ := between_of_affine_pos hk h1 h2
        exact hnolevel v hv _ hs hu hk0 hz
      obtain ⟨k', c', hg'⟩ := hBg (k * s + c) (k * u + c) havg
      refine ⟨k' * k, k' * c + c', fun x hx1 hx2 => ?_⟩
      show g (f x) = k' * k * x + (k' * c + c')
      rw [hkc x hx1 hx2, hg' (k * x + c) (affine_lt_of_pos hk hx1) (affine_lt_of_pos hk hx2)]
      exact comp_affine_eq k' c' k c x
  · exact affineOn_of_not_lt hsu

/-- `Scalar.relu` is `PL1`, with the single breakpoint `0`. -/
theorem PL1.relu_self : PL1 (fun t : α => Scalar.relu t) := by
  refine ⟨[Scalar.zero], fun s u hav => ?_⟩
  have h0 : ¬ (s < Scalar.zero ∧ Scalar.zero < u) := hav Scalar.zero (List.Mem.head _)
  rcases Classical.em (s < Scalar.zero) with hs | hs
  · have hu : ¬ (Scalar.zero : α) < u := fun h => h0 (And.intro hs h)
    refine ⟨Scalar.zero, Scalar.zero, fun x _ hx2 => ?_⟩
    have hx : ¬ (Scalar.zero : α) < x := fun h => hu (OrderedFieldLaws.lt_trans h hx2)
    show Scalar.relu x = Scalar.zero * x + Scalar.zero
    rw [relu_of_not_pos hx, zero_mul x, add_zero (Scalar.zero : α)]
  · refine ⟨Scalar.one, Scalar.zero, fun x hx1 _ => ?_⟩
    have hx : (Scalar.zero : α) < x := bp_lt_of_not_lt_of_lt hs hx1
    show Scalar.relu x = Scalar.one * x + Scalar.zero
    rw [relu_of_pos hx]
    exact ident_eq x

/-- ReLU of a `PL1` function is `PL1` (the composite with `PL1.relu_self`). -/
theorem PL1.relu {f : α → α} (hf : PL1 f) : PL1 (fun t => Scalar.relu (f t)) :=
  PL1.comp (g := fun t : α => Scalar.relu t) (f := f) PL1.relu_self hf

end Formal.PL
