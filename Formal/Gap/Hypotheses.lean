import Formal.Gap.LineAffine

/-!
# Named hypotheses for the deep facts behind VM.C1–C3, over concrete notions

Core Lean cannot reach these results of real geometry and model theory. Following the library's
rule (hypotheses, not axioms), each is a `Prop`-valued definition that a theorem can take as an
explicit argument. Every notion they speak about is defined here concretely, over the scalars `α`
(`Scalar` operations, with `OrderedFieldLaws` where a proof needs them); none is a free parameter.

**The notions.**
* `LinFormula α m n`: finite Boolean combinations (`not`, `and`) of atoms `a·x + c·y + b > 0` and
  `a·x + c·y + b = 0` in `(x, y) ∈ αᵐ × αⁿ`, coefficients and constants in `α`; `LinFormula.holds`
  is their meaning. `SemilinearRel R`: `R` is cut out by such a formula. `SemilinearSet S`: a
  subset of `αⁿ`, as a relation to `α⁰`. `SemilinearMap f`: the graph of `f` is a semilinear
  relation (no continuity asked). `SemilinearRel.swap`: the converse of a semilinear relation is
  semilinear.
* `EpsDeltaContinuous f`: ε-δ continuity in the max norm, written with the order of `α`
  (`|a| < ε` is `a < ε ∧ -a < ε`, `AbsLt`). `PiecewiseAffine f`: a finite list of affine pieces
  `x ↦ A x + c`, each with a semilinear domain, such that at every `x` some piece whose domain
  contains `x` gives `f x`. `ContinuousPL f`: both. (We chose ε-δ continuity plus finitely many
  affine pieces on semilinear domains; the pieces need not be closed or disjoint, the value of `f`
  decides.)
* `ExpFormula α`: first-order formulas of the ordered field with exponential, `(α, +, ·, -, <, exp)`
  with constants from `α` (`ExpTerm`: variables, constants, `+`, `·`, `-`, `exp`; formulas: `<`,
  `=`, `¬`, `∧`, `∃`), `exp` being the operation `Transcendental.exp`. `DefinableExp f`: the graph
  of `f : α → α` is defined by such a formula (with parameters).

**Checks.** `mul_not_piecewiseAffine`: the product `(x₀, x₁) ↦ x₀ x₁` is not `PiecewiseAffine`
(along the diagonal it would be one of finitely many affine functions at every point, but each
agrees with `t ↦ t²` at two points at most), hence not `ContinuousPL` (`mul_not_continuousPL`): so
`AroraReLU` is not refuted by `Formal.PL.mul_not_pl`. `SemilinearRel` is a concrete notion, so
`DefinableChoice` can no longer be made vacuous by choosing it; the graph hypothesis of the earlier
`semilinear_surj_splits` is now the theorem `SemilinearRel.swap`.

**The hypotheses.**
* `DefinableChoice` — o-minimal definable choice for semilinear relations (van den Dries, *Tame
  Topology and O-minimal Structures*, 1998, Ch. 6, (1.2)); the ordered vector space
  `(α, <, +, (λ·)_{λ∈α})` is o-minimal and, by quantifier elimination for ordered vector spaces,
  its definable sets are the semilinear ones, so the cited theorem applies over every ordered
  field (not formalised). With cell decomposition it
  makes semilinear sets with (possibly discontinuous) semilinear maps a pretopos: our reading of
  VM.C1. The one consequence derived here is `semilinear_surj_splits`; the pretopos itself is not
  constructed.
* `AroraReLU` — every continuous PL map is computed by a ReLU network (Arora, Basu, Mianjy,
  Mukherjee, *Understanding Deep Neural Networks with Rectified Linear Units*, ICLR 2018, Thm 2.1,
  for `ℝ`), stated for the PL fragment `Formal.PL.IsPL` and `ContinuousPL` above; over ordered fields
  other than `ℝ` it is not claimed.
* `WilkieMonotonicity` — `ℝ_exp` is o-minimal (Wilkie, JAMS 1996), so by the monotonicity theorem
  (van den Dries 1998, Ch. 3, (1.2)) every definable function of one variable is strictly monotone
  or constant on a subinterval of any interval. It is a hypothesis about `α` and its `exp`: true for
  `ℝ` with the real exponential; for an arbitrary `Transcendental.exp` it can fail (not formalised).
* `InvarianceOfDomain` — Brouwer: `ℝᵐ` and `ℝⁿ` are homeomorphic only if `m = n`. A hypothesis
  about `α`: it fails over `ℚ` (`ℚ` and `ℚ²` are homeomorphic, by Sierpiński's theorem that every
  countable metrizable space without isolated points is homeomorphic to `ℚ`; not formalised).

Not formalised: the proofs of the four cited theorems, the pretopos of VM.C1, and the implication
"semilinear ⇒ `LineAffine`" (argued in `Formal/Gap/LineAffine.lean`).
-/

namespace Formal.Gap

open Formal.PL

universe u

/-! ## Semilinear sets, relations and maps -/

/-- Quantifier-free linear formulas in `(x, y) ∈ αᵐ × αⁿ`: finite Boolean combinations of the
atoms `a·x + c·y + b > 0` (`pos`) and `a·x + c·y + b = 0` (`zero`). -/
inductive LinFormula (α : Type u) (m n : Nat) : Type u where
  /-- `a·x + c·y + b > 0`. -/
  | pos (a : Fin m → α) (c : Fin n → α) (b : α)
  /-- `a·x + c·y + b = 0`. -/
  | zero (a : Fin m → α) (c : Fin n → α) (b : α)
  /-- Negation. -/
  | not (φ : LinFormula α m n)
  /-- Conjunction. -/
  | and (φ ψ : LinFormula α m n)

/-- An affine piece `x ↦ A x + c` from `αᵐ` to `αⁿ`, valid on the semilinear set `dom ⊆ αᵐ`. -/
structure AffinePiece (α : Type u) (m n : Nat) where
  /-- The domain, a formula in `x ∈ αᵐ` (and no `y`). -/
  dom : LinFormula α m 0
  /-- The linear part. -/
  A : Fin n → Fin m → α
  /-- The constant part. -/
  c : Fin n → α

/-- Terms of the ordered field with exponential: variables (numbered), constants from `α`, `+`,
`·`, `-` and `exp`. -/
inductive ExpTerm (α : Type u) : Type u where
  /-- The variable number `i`. -/
  | var (i : Nat)
  /-- A constant (a parameter). -/
  | const (c : α)
  /-- Sum. -/
  | add (s t : ExpTerm α)
  /-- Product. -/
  | mul (s t : ExpTerm α)
  /-- Negation. -/
  | neg (s : ExpTerm α)
  /-- Exponential. -/
  | exp (s : ExpTerm α)

/-- First-order formulas of `(α, +, ·, -, <, exp)`: `∃` binds variable `0` and shifts the others. -/
inductive ExpFormula (α : Type u) : Type u where
  /-- `s < t`. -/
  | lt (s t : ExpTerm α)
  /-- `s = t`. -/
  | eq (s t : ExpTerm α)
  /-- Negation. -/
  | not (φ : ExpFormula α)
  /-- Conjunction. -/
  | and (φ ψ : ExpFormula α)
  /-- Existential quantifier over variable `0`. -/
  | ex (φ : ExpFormula α)

section Defs

variable {α : Type u} [Scalar α]

/-- `a·x = Σᵢ aᵢ xᵢ`. -/
def dot {n : Nat} (a x : Fin n → α) : α := Scalar.sum n (fun i => a i * x i)

/-- The value of the affine form `a·x + c·y + b`. -/
def linVal {m n : Nat} (a : Fin m → α) (c : Fin n → α) (b : α) (x : Fin m → α) (y : Fin n → α) :
    α :=
  dot a x + dot c y + b

/-- The meaning of a linear formula at `(x, y)`. -/
def LinFormula.holds {m n : Nat} : LinFormula α m n → (Fin m → α) → (Fin n → α) → Prop
  | .pos a c b, x, y => Scalar.zero < linVal a c b x y
  | .zero a c b, x, y => linVal a c b x y = Scalar.zero
  | .not φ, x, y => ¬ LinFormula.holds φ x y
  | .and φ ψ, x, y => LinFormula.holds φ x y ∧ LinFormula.holds ψ x y

/-- The formula with the roles of `x` and `y` exchanged. -/
def LinFormula.swap {m n : Nat} : LinFormula α m n → LinFormula α n m
  | .pos a c b => .pos c a b
  | .zero a c b => .zero c a b
  | .not φ => .not (LinFormula.swap φ)
  | .and φ ψ => .and (LinFormula.swap φ) (LinFormula.swap ψ)

/-- A semilinear relation between `αᵐ` and `αⁿ`: cut out by a linear formula. -/
def SemilinearRel {m n : Nat} (R : (Fin m → α) → (Fin n → α) → Prop) : Prop :=
  ∃ φ : LinFormula α m n, ∀ (x : Fin m → α) (y : Fin n → α), R x y ↔ LinFormula.holds φ x y

/-- A semilinear subset of `αⁿ`: semilinear as a relation to `α⁰`. -/
def SemilinearSet {n : Nat} (S : (Fin n → α) → Prop) : Prop :=
  SemilinearRel (fun (x : Fin n → α) (_ : Fin 0 → α) => S x)

/-- A semilinear map `αᵐ → αⁿ`: its graph is a semilinear relation (continuity is not asked). -/
def SemilinearMap {m n : Nat} (f : (Fin m → α) → (Fin n → α)) : Prop :=
  SemilinearRel (fun (x : Fin m → α) (y : Fin n → α) => f x = y)

/-- `|a| < ε`, written with the order: `a < ε ∧ -a < ε`. -/
def AbsLt (a ε : α) : Prop := a < ε ∧ -a < ε

/-- ε-δ continuity in the max norm: for every `x` and `ε > 0` there is `δ > 0` such that every `y`
with `|yᵢ - xᵢ| < δ` for all `i` has `|f(y)ⱼ - f(x)ⱼ| < ε` for all `j`. -/
def EpsDeltaContinuous {m n : Nat} (f : (Fin m → α) → (Fin n → α)) : Prop :=
  ∀ (x : Fin m → α) (ε : α), Scalar.zero < ε → ∃ δ : α, Scalar.zero < δ ∧
    ∀ y : Fin m → α, (∀ i : Fin m, AbsLt (y i + -(x i)) δ) →
      ∀ j : Fin n, AbsLt (f y j + -(f x j)) ε

/-- The value `A x + c` of an affine piece. -/
def AffinePiece.apply {m n : Nat} (p : AffinePiece α m n) (x : Fin m → α) : Fin n → α :=
  fun j => dot (p.A j) x + p.c j

/-- `f` is given by finitely many affine pieces with semilinear domains: at every `x`, some piece
of the list has `x` in its domain and gives `f x`. -/
def PiecewiseAffine {m n : Nat} (f : (Fin m → α) → (Fin n → α)) : Prop :=
  ∃ L : List (AffinePiece α m n), ∀ x : Fin m → α, ∃ p : AffinePiece α m n,
    p ∈ L ∧ LinFormula.holds p.dom x Fin.elim0 ∧ f x = p.apply x

/-- A continuous piecewise-linear map: ε-δ continuous and `PiecewiseAffine`. -/
def ContinuousPL {m n : Nat} (f : (Fin m → α) → (Fin n → α)) : Prop :=
  EpsDeltaContinuous f ∧ PiecewiseAffine f

/-- The environment `a, ρ 0, ρ 1, …` (the value `a` for the variable bound by `∃`). -/
def consEnv (a : α) (ρ : Nat → α) : Nat → α
  | 0 => a
  | i + 1 => ρ i

variable [Transcendental α]

/-- The value of a term in the environment `ρ`. -/
def ExpTerm.eval (ρ : Nat → α) : ExpTerm α → α
  | .var i => ρ i
  | .const c => c
  | .add s t => ExpTerm.eval ρ s + ExpTerm.eval ρ t
  | .mul s t => ExpTerm.eval ρ s * ExpTerm.eval ρ t
  | .neg s => -(ExpTerm.eval ρ s)
  | .exp s => Transcendental.exp (ExpTerm.eval ρ s)

/-- The meaning of a formula in the environment `ρ`. -/
def ExpFormula.holds : ExpFormula α → (Nat → α) → Prop
  | .lt s t, ρ => ExpTerm.eval ρ s < ExpTerm.eval ρ t
  | .eq s t, ρ => ExpTerm.eval ρ s = ExpTerm.eval ρ t
  | .not φ, ρ => ¬ ExpFormula.holds φ ρ
  | .and φ ψ, ρ => ExpFormula.holds φ ρ ∧ ExpFormula.holds ψ ρ
  | .ex φ, ρ => ∃ a : α, ExpFormula.holds φ (consEnv a ρ)

/-- `f : α → α` is definable in `(α, +, ·, -, <, exp)` with parameters: some formula holds at
`(x, y)` (variables `0` and `1`) exactly when `f x = y`. -/
def DefinableExp (f : α → α) : Prop :=
  ∃ φ : ExpFormula α, ∀ x y : α,
    f x = y ↔ ExpFormula.holds φ (consEnv x (consEnv y (fun _ => Scalar.zero)))

end Defs

/-! ## The converse of a semilinear relation -/

section Swap

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-- The affine form with the two blocks exchanged has the same value. -/
theorem linVal_swap {m n : Nat} (a : Fin m → α) (c : Fin n → α) (b : α) (x : Fin m → α)
    (y : Fin n → α) : linVal c a b y x = linVal a c b x y := by
  show dot c y + dot a x + b = dot a x + dot c y + b
  rw [OrderedFieldLaws.add_comm (dot c y) (dot a x)]

/-- Exchanging `x` and `y` in the formula exchanges them in its meaning. -/
theorem LinFormula.holds_swap {m n : Nat} :
    (φ : LinFormula α m n) → (x : Fin m → α) → (y : Fin n → α) →
      (LinFormula.holds (LinFormula.swap φ) y x ↔ LinFormula.holds φ x y)
  | .pos a c b, x, y =>
      Iff.of_eq (congrArg (fun z : α => (Scalar.zero : α) < z) (linVal_swap a c b x y))
  | .zero a c b, x, y =>
      Iff.of_eq (congrArg (fun z : α => z = (Scalar.zero : α)) (linVal_swap a c b x y))
  | .not φ, x, y =>
      ⟨fun h h' => h ((LinFormula.holds_swap φ x y).mpr h'),
        fun h h' => h ((LinFormula.holds_swap φ x y).mp h')⟩
  | .and φ ψ, x, y =>
      ⟨fun h => ⟨(LinFormula.holds_swap φ x y).mp (And.left h),
          (LinFormula.holds_swap ψ x y).mp (And.right h)⟩,
        fun h => ⟨(LinFormula.holds_swap φ x y).mpr (And.left h),
          (LinFormula.holds_swap ψ x y).mpr (And.right h)⟩⟩

/-- The converse of a semilinear relation is semilinear. -/
theorem SemilinearRel.swap {m n : Nat} {R : (Fin m → α) → (Fin n → α) → Prop}
    (h : SemilinearRel R) : SemilinearRel (fun (y : Fin n → α) (x : Fin m → α) => R x y) :=
  Exists.elim h (fun φ hφ =>
    ⟨LinFormula.swap φ, fun y x => (hφ x y).trans (LinFormula.holds_swap φ x y).symm⟩)

end Swap

/-! ## The hypotheses -/

/-- **Hypothesis (o-minimal definable choice; van den Dries, *Tame Topology and O-minimal
Structures*, 1998, Ch. 6, (1.2)).** Every total semilinear relation `R ⊆ αᵐ × αⁿ` has a semilinear
section. Semilinear is the concrete `SemilinearRel`/`SemilinearMap` of this file. -/
def DefinableChoice (α : Type u) [Scalar α] : Prop :=
  ∀ (m n : Nat) (R : (Fin m → α) → (Fin n → α) → Prop), SemilinearRel R →
    (∀ x, ∃ y, R x y) →
      ∃ f : (Fin m → α) → (Fin n → α), SemilinearMap f ∧ ∀ x, R x (f x)

/-- **VM.C1 (one consequence of the hypothesis, not the pretopos).** Under `DefinableChoice`,
every surjective semilinear map `f : αᵐ → αⁿ` has a semilinear section `s` (`f ∘ s = id`):
surjections split in the semilinear category. (The converse of the graph of `f` is semilinear by
`SemilinearRel.swap`.) The pretopos structure itself (finite limits, disjoint stable coproducts,
effective quotients) is not constructed in this library. -/
theorem semilinear_surj_splits {α : Type u} [Scalar α] [OrderedFieldLaws α]
    (hDC : DefinableChoice α) {m n : Nat} (f : (Fin m → α) → (Fin n → α)) (hf : SemilinearMap f)
    (hsurj : ∀ y : Fin n → α, ∃ x : Fin m → α, f x = y) :
    ∃ s : (Fin n → α) → (Fin m → α), SemilinearMap s ∧ ∀ y : Fin n → α, f (s y) = y :=
  hDC n m (fun y x => f x = y) (SemilinearRel.swap hf) hsurj

/-- **Hypothesis (Arora, Basu, Mianjy, Mukherjee, ICLR 2018, Thm 2.1, for `ℝ`).** Every continuous
PL map `αᵐ → αⁿ` (`ContinuousPL`: ε-δ continuous with finitely many affine pieces on semilinear
domains) is denoted by a term of the PL fragment. -/
def AroraReLU (α : Type u) [Scalar α] [Transcendental α] : Prop :=
  ∀ (m n : Nat) (f : (Fin m → α) → (Fin n → α)), ContinuousPL f →
    ∃ (a : Arch (.tensor [m]) (.tensor [n])) (p : Arch.Params α a),
      IsPL a ∧ ∀ x : Fin m → α, @Eq (Fin n → α) (Arch.eval a p x) (f x)

/-- **Hypothesis (Wilkie, JAMS 1996, with the monotonicity theorem, van den Dries 1998, Ch. 3).**
Every function of one variable definable in `(α, +, ·, -, <, exp)` (`DefinableExp`) is, on a
subinterval of any nondegenerate interval, strictly increasing, strictly decreasing or constant.
True for `ℝ` with the real exponential; a hypothesis about `α` and its `Transcendental.exp`. -/
def WilkieMonotonicity (α : Type u) [Scalar α] [Transcendental α] : Prop :=
  ∀ f : α → α, DefinableExp f → ∀ a b : α, a < b → ∃ a' b' : α, SubInterval a' b' a b ∧
    ((∀ x y : α, a' < x → x < y → y < b' → f x < f y) ∨
      (∀ x y : α, a' < x → x < y → y < b' → f y < f x) ∨
      (∀ x y : α, a' < x → x < b' → a' < y → y < b' → f x = f y))

/-- **Hypothesis (Brouwer's invariance of domain, for `ℝ`).** If `f : αᵐ → αⁿ` and `g : αⁿ → αᵐ`
are mutually inverse and both ε-δ continuous (`EpsDeltaContinuous`), then `m = n`. A hypothesis
about `α`: it fails for `ℚ` (`ℚ ≅ ℚ²` as topological spaces, Sierpiński; not formalised). -/
def InvarianceOfDomain (α : Type u) [Scalar α] : Prop :=
  ∀ (m n : Nat) (f : (Fin m → α) → (Fin n → α)) (g : (Fin n → α) → (Fin m → α)),
    EpsDeltaContinuous f → EpsDeltaContinuous g → (∀ x, g (f x) = x) → (∀ y, f (g y) = y) → m = n

/-! ## Check: the product is not a continuous PL map -/

section MulCheck

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-- `Σᵢ aᵢ t = (Σᵢ aᵢ) t`. -/
theorem sum_mul_const : (n : Nat) → (a : Fin n → α) → (t : α) →
    Scalar.sum n (fun i => a i * t) = Scalar.sum n a * t
  | 0, _, t => (PL.zero_mul t).symm
  | n + 1, a, t => by
    show Scalar.sum n (fun i => a (Fin.castSucc i) * t) + a (Fin.last n) * t =
      (Scalar.sum n (fun i => a (Fin.castSucc i)) + a (Fin.last n)) * t
    exact (congrArg (fun z => z + a (Fin.last n) * t)
        (sum_mul_const n (fun i => a (Fin.castSucc i)) t)).trans
      (PL.add_mul (Scalar.sum n (fun i => a (Fin.castSucc i))) (a (Fin.last n)) t).symm

/-- Finitely many affine functions `t ↦ K p * t + C p` (`p ∈ L`) miss `t ↦ t * t` on a whole
subinterval of any nondegenerate interval: each agrees with the square at two points at most, so of
three consecutive subintervals one contains none of its agreement points. -/
theorem sq_avoids {β : Type u} (K C : β → α) : (L : List β) → ∀ a b : α, a < b →
    ∃ a' b' : α, SubInterval a' b' a b ∧
      ∀ t : α, a' < t → t < b' → ∀ p : β, p ∈ L → t * t ≠ K p * t + C p
  | [], a, b, hab => ⟨a, b, SubInterval.refl hab, fun _ _ _ _ hp => nomatch hp⟩
  | q :: L, a, b, hab => by
    obtain ⟨a1, b1, hs1, h1⟩ := sq_avoids K C L a b hab
    obtain ⟨q1, hq1a, hq1b⟩ := PL.exists_between (And.left hs1)
    obtain ⟨q2, hq2a, hq2b⟩ := PL.exists_between hq1b
    have key : ∀ u w : α, SubInterval u w a1 b1 →
        (∀ t : α, u < t → t < w → t * t ≠ K q * t + C q) →
        ∃ a' b' : α, SubInterval a' b' a b ∧
          ∀ t : α, a' < t → t < b' → ∀ p : β, p ∈ q :: L → t * t ≠ K p * t + C p := by
      intro u w hsub hno
      refine ⟨u, w, SubInterval.trans hsub hs1, fun t ht1 ht2 p hp => ?_⟩
      have hin : a1 < t ∧ t < b1 := And.right hsub t ht1 ht2
      rcases PL.bp_mem_cons hp with e | hp'
      · rw [e]
        exact hno t ht1 ht2
      · exact h1 t (And.left hin) (And.right hin) p hp'
    have s1 : SubInterval a1 q1 a1 b1 :=
      And.intro hq1a (fun x hx1 hx2 => And.intro hx1
        (OrderedFieldLaws.lt_trans hx2 (OrderedFieldLaws.lt_trans hq2a hq2b)))
    have s2 : SubInterval q1 q2 a1 b1 :=
      And.intro hq2a (fun x hx1 hx2 => And.intro (OrderedFieldLaws.lt_trans hq1a hx1)
        (OrderedFieldLaws.lt_trans hx2 hq2b))
    have s3 : SubInterval q2 b1 a1 b1 :=
      And.intro hq2b (fun x hx1 hx2 => And.intro
        (OrderedFieldLaws.lt_trans (OrderedFieldLaws.lt_trans hq1a hq2a) hx1) hx2)
    rcases Classical.em (∃ x : α, a1 < x ∧ x < q1 ∧ x * x = K q * x + C q) with hr1 | hn1
    · rcases Classical.em (∃ y : α, q1 < y ∧ y < q2 ∧ y * y = K q * y + C q) with hr2 | hn2
      · rcases Classical.em (∃ z : α, q2 < z ∧ z < b1 ∧ z * z = K q * z + C q) with hr3 | hn3
        · obtain ⟨x, _, hx2, ex⟩ := hr1
          obtain ⟨y, hy1, hy2, ey⟩ := hr2
          obtain ⟨z, hz1, _, ez⟩ := hr3
          have hxy : x < y := OrderedFieldLaws.lt_trans hx2 hy1
          have hyz : y < z := OrderedFieldLaws.lt_trans hy2 hz1
          have kxy : K q = x + y := PL.slope_eq_sum hxy (PL.sq_two_points ex ey)
          have kxz : K q = x + z :=
            PL.slope_eq_sum (OrderedFieldLaws.lt_trans hxy hyz) (PL.sq_two_points ex ez)
          have e : y = z := PL.add_left_cancel (kxy.symm.trans kxz)
          rw [e] at hyz
          exact absurd hyz (OrderedFieldLaws.lt_irrefl z)
        · exact key q2 b1 s3 (fun z hz1 hz2 ez => hn3 ⟨z, hz1, hz2, ez⟩)
      · exact key q1 q2 s2 (fun y hy1 hy2 ey => hn2 ⟨y, hy1, hy2, ey⟩)
    · exact key a1 q1 s1 (fun x hx1 hx2 ex => hn1 ⟨x, hx1, hx2, ex⟩)

/-- **Check for `AroraReLU`.** The product `(x₀, x₁) ↦ x₀ x₁` (`mulMap`) is not `PiecewiseAffine`:
along the diagonal, every piece is `t ↦ (A₀₀ + A₀₁) t + c₀`, and `sq_avoids` finds a point where
none of them gives `t * t`. -/
theorem mul_not_piecewiseAffine : ¬ PiecewiseAffine (mulMap (α := α)) := by
  intro h
  obtain ⟨L, hL⟩ := h
  obtain ⟨a', b', hs, hav⟩ := sq_avoids
    (fun p : AffinePiece α 2 1 => Scalar.sum 2 (p.A ⟨0, Nat.succ_pos 0⟩))
    (fun p : AffinePiece α 2 1 => p.c ⟨0, Nat.succ_pos 0⟩) L Scalar.zero Scalar.one
    OrderedFieldLaws.zero_lt_one
  obtain ⟨t, ht1, ht2⟩ := PL.exists_between (And.left hs)
  obtain ⟨p, hp, _, hf⟩ := hL (fun _ => t)
  have e0 : mulMap (fun _ => t) ⟨0, Nat.succ_pos 0⟩ =
      AffinePiece.apply p (fun _ => t) ⟨0, Nat.succ_pos 0⟩ :=
    congrFun hf ⟨0, Nat.succ_pos 0⟩
  have e1 : t * t = Scalar.sum 2 (p.A ⟨0, Nat.succ_pos 0⟩) * t + p.c ⟨0, Nat.succ_pos 0⟩ :=
    e0.trans (congrArg (fun z => z + p.c ⟨0, Nat.succ_pos 0⟩)
      (sum_mul_const 2 (p.A ⟨0, Nat.succ_pos 0⟩) t))
  exact hav t ht1 ht2 p hp e1

/-- **Check for `AroraReLU`.** The product is not a continuous PL map in the sense of
`ContinuousPL`, so `AroraReLU` is not refuted by `Formal.PL.mul_not_pl`. -/
theorem mul_not_continuousPL : ¬ ContinuousPL (mulMap (α := α)) :=
  fun h => mul_not_piecewiseAffine (And.right h)

end MulCheck

end Formal.Gap
