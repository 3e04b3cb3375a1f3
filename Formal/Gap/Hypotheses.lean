import Formal.PL.Fragment

/-!
# Named hypotheses for the deep facts behind VM.C1–C3

Core Lean cannot reach these results of real geometry and model theory. Following the library's
rule (hypotheses, not axioms), each is a `Prop`-valued definition that a theorem can take as an
explicit argument; the notions they speak about (semilinear relations, continuous PL maps,
definability in `ℝ_exp`, homeomorphisms) are themselves parameters, since core Lean has no real
numbers or topology. None of them is asserted anywhere in the library; a theorem that uses one takes
it as an explicit argument.

* `DefinableChoice` — o-minimal definable choice for semilinear relations (van den Dries,
  *Tame Topology and O-minimal Structures*, 1998, Ch. 6, (1.2)); with cell decomposition it makes
  semilinear sets with (possibly discontinuous) semilinear maps a pretopos: our reading of VM.C1.
  The one consequence derived here is `semilinear_surj_splits` (surjective semilinear maps have
  semilinear sections); the pretopos itself is not constructed.
* `AroraReLU` — every continuous PL map is computed by a ReLU network (Arora, Basu, Mianjy,
  Mukherjee, *Understanding Deep Neural Networks with Rectified Linear Units*, ICLR 2018, Thm 2.1),
  stated for the PL fragment `Formal.PL.IsPL`.
* `WilkieMonotonicity` — `ℝ_exp` is o-minimal (Wilkie, JAMS 1996), so by the monotonicity theorem
  (van den Dries 1998, Ch. 3) every definable function of one variable is strictly monotone or
  constant on a subinterval of any interval; this is what places softmax attention in a tame
  (o-minimal) setting without making it PL.
* `InvarianceOfDomain` — Brouwer: `ℝᵐ` and `ℝⁿ` are homeomorphic only if `m = n`; so the images of
  Euclidean spaces of different dimensions stay distinct in any completion.
-/

namespace Formal.Gap

open Formal.PL

universe u

/-- **Hypothesis (o-minimal definable choice).** Every semilinear relation that is total has a
semilinear section. `SemilinearRel m n R` and `SemilinearMap m n f` are the notions of
semilinearity, supplied by the user of the hypothesis. -/
def DefinableChoice (α : Type u)
    (SemilinearRel : (m n : Nat) → ((Fin m → α) → (Fin n → α) → Prop) → Prop)
    (SemilinearMap : (m n : Nat) → ((Fin m → α) → (Fin n → α)) → Prop) : Prop :=
  ∀ (m n : Nat) (R : (Fin m → α) → (Fin n → α) → Prop), SemilinearRel m n R →
    (∀ x, ∃ y, R x y) → ∃ f : (Fin m → α) → (Fin n → α), SemilinearMap m n f ∧ ∀ x, R x (f x)

/-- **VM.C1 (one consequence of the hypothesis, not the pretopos).** Under `DefinableChoice`, and
the hypothesis that the graph of a semilinear map is a semilinear relation, every surjective
semilinear map `f : αᵐ → αⁿ` has a semilinear section `s` (`f ∘ s = id`): surjections split in
the semilinear category. The pretopos structure itself (finite limits, disjoint stable coproducts,
effective quotients) is not constructed in this library. -/
theorem semilinear_surj_splits {α : Type u}
    {SemilinearRel : (m n : Nat) → ((Fin m → α) → (Fin n → α) → Prop) → Prop}
    {SemilinearMap : (m n : Nat) → ((Fin m → α) → (Fin n → α)) → Prop}
    (hDC : DefinableChoice α SemilinearRel SemilinearMap)
    (hgraph : ∀ (m n : Nat) (f : (Fin m → α) → (Fin n → α)), SemilinearMap m n f →
      SemilinearRel n m (fun y x => f x = y))
    {m n : Nat} (f : (Fin m → α) → (Fin n → α)) (hf : SemilinearMap m n f)
    (hsurj : ∀ y : Fin n → α, ∃ x : Fin m → α, f x = y) :
    ∃ s : (Fin n → α) → (Fin m → α), SemilinearMap n m s ∧ ∀ y : Fin n → α, f (s y) = y :=
  hDC n m (fun y x => f x = y) (hgraph m n f hf) hsurj

/-- **Hypothesis (Arora et al. 2018, Thm 2.1).** Every continuous PL map `αᵐ → αⁿ` is denoted by a
term of the PL fragment. `ContinuousPL m n f` is the notion of continuous piecewise-linear map. -/
def AroraReLU (α : Type u) [Scalar α] [Transcendental α]
    (ContinuousPL : (m n : Nat) → ((Fin m → α) → (Fin n → α)) → Prop) : Prop :=
  ∀ (m n : Nat) (f : (Fin m → α) → (Fin n → α)), ContinuousPL m n f →
    ∃ (a : Arch (.tensor [m]) (.tensor [n])) (p : Arch.Params α a),
      IsPL a ∧ ∀ x : Fin m → α, @Eq (Fin n → α) (Arch.eval a p x) (f x)

/-- **Hypothesis (Wilkie 1996 with the monotonicity theorem).** Every function of one variable
definable in `(α, +, ·, exp)` is, on a subinterval of any nondegenerate interval, strictly
increasing, strictly decreasing or constant. `DefinableExp f` is the notion of definability. -/
def WilkieMonotonicity (α : Type u) [Scalar α] (DefinableExp : (α → α) → Prop) : Prop :=
  ∀ f : α → α, DefinableExp f → ∀ a b : α, a < b → ∃ a' b' : α, SubInterval a' b' a b ∧
    ((∀ x y : α, a' < x → x < y → y < b' → f x < f y) ∨
      (∀ x y : α, a' < x → x < y → y < b' → f y < f x) ∨
      (∀ x y : α, a' < x → x < b' → a' < y → y < b' → f x = f y))

/-- **Hypothesis (Brouwer's invariance of domain).** Homeomorphic Euclidean spaces have the same
dimension. `Homeomorphism m n f` is the notion of homeomorphism `αᵐ → αⁿ`. -/
def InvarianceOfDomain (α : Type u)
    (Homeomorphism : (m n : Nat) → ((Fin m → α) → (Fin n → α)) → Prop) : Prop :=
  ∀ (m n : Nat) (f : (Fin m → α) → (Fin n → α)), Homeomorphism m n f → m = n

end Formal.Gap
