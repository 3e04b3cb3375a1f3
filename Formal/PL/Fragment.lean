import Formal.PL.OneDim
import Formal.PL.Breakpoints
import Formal.Network.Arch

/-!
# The piecewise-linear fragment of the layer syntax, and `pl_on_lines`

Villani & McBurney (arXiv 2403.18415v2, §3, claim C1) place CNN/RNN/GCN-style networks in a
category of piecewise-linear maps. This file makes "PL network" precise on the layer syntax `Arch`:

* `IsPL f`: `f` is built from `id`, composition, products (`par`), fan-out (`copy`), projections,
  addition, scaling by a constant, affine maps (`linear`), ReLU, and the index plumbing
  (`transpose`, `splitLast`, `mergeLast`). Excluded: `mul`, `matmul` (bilinear), `sigmoid`,
  `softmax`, `layerNorm` (transcendental or rational), and `route`/`copair` (hard routing is PL but
  discontinuous; it is not in this fragment).
* `ShapeCoords P s γ`: every scalar coordinate of the curve `γ : α → s.denote α` satisfies `P`
  (for a coproduct: the tag is constant along the curve and the payload satisfies `P`).
* `IsPL.preserves`: for any property `P` of one-variable functions closed under constants, the
  identity, sums, scalings and ReLU (`Closure P`), fragment terms map `P`-curves to `P`-curves.
* `pl_on_lines` (**VM.C1**, the part provable here): along every line `t ↦ x + v * t`, every
  coordinate of a fragment term is `LocallyAffine` (every interval has a subinterval on which it is
  affine; this local form alone allows infinitely many pieces).
* `pl1_on_lines` (**VM.C1**, the global form): along every line, every coordinate of a fragment
  term is `PL1` (finitely many breakpoints, `Formal/PL/Breakpoints.lean`), because `PL1` is closed
  under the operations of `Closure` (`pl1_closure`).
* `mul_not_pl` (**VM.C2**): no fragment term denotes `(x, y) ↦ x * y`, because along the diagonal it
  would give `t ↦ t * t` (`sq_not_pl`).
-/

namespace Formal.PL

universe u

/-- The PL fragment of the layer syntax (an inductive predicate on `Arch` terms). -/
inductive IsPL : {s t : Shape} → Arch s t → Prop where
  | id (s : Shape) : IsPL (Arch.id s)
  | comp {a b c : Shape} {f : Arch a b} {g : Arch b c} : IsPL f → IsPL g → IsPL (Arch.comp f g)
  | par {a b c d : Shape} {f : Arch a b} {g : Arch c d} : IsPL f → IsPL g → IsPL (Arch.par f g)
  | copy (s : Shape) : IsPL (Arch.copy s)
  | fst (a b : Shape) : IsPL (Arch.fst a b)
  | snd (a b : Shape) : IsPL (Arch.snd a b)
  | add (s : List Nat) : IsPL (Arch.add s)
  | scale (c : Const) (s : List Nat) : IsPL (Arch.scale c s)
  | linear (pre : List Nat) (m n : Nat) : IsPL (Arch.linear pre m n)
  | relu (s : List Nat) : IsPL (Arch.relu s)
  | transpose (pre : List Nat) (a b : Nat) (post : List Nat) : IsPL (Arch.transpose pre a b post)
  | splitLast (pre : List Nat) (a b : Nat) : IsPL (Arch.splitLast pre a b)
  | mergeLast (pre : List Nat) (a b : Nat) : IsPL (Arch.mergeLast pre a b)

variable {α : Type u} [Scalar α]

/-- Every scalar coordinate of a curve in tensors satisfies `P`. -/
def TensorCoords (P : (α → α) → Prop) : (s : List Nat) → (α → Tensor α s) → Prop
  | [], γ => P γ
  | n :: s, γ => ∀ i : Fin n, TensorCoords P s (fun t => γ t i)

/-- Every scalar coordinate of a curve in a shape satisfies `P`; along a coproduct the tag is
constant. -/
def ShapeCoords (P : (α → α) → Prop) : (s : Shape) → (α → Shape.denote α s) → Prop
  | .tensor d, γ => TensorCoords P d γ
  | .prod a b, γ =>
      ShapeCoords P a (fun t => Prod.fst (γ t)) ∧ ShapeCoords P b (fun t => Prod.snd (γ t))
  | .coprod k a, γ =>
      ∃ i : Fin k, (∀ t : α, Prod.fst (γ t) = i) ∧ ShapeCoords P a (fun t => Prod.snd (γ t))

/-- A property of one-variable functions closed under what the PL layers do to a coordinate. -/
structure Closure (P : (α → α) → Prop) : Prop where
  /-- Constants. -/
  const : ∀ c : α, P (fun _ => c)
  /-- The identity. -/
  ident : P (fun t => t)
  /-- Sums. -/
  add : ∀ u w : α → α, P u → P w → P (fun t => u t + w t)
  /-- Scalings by a constant. -/
  scale : ∀ (c : α) (u : α → α), P u → P (fun t => c * u t)
  /-- ReLU. -/
  relu : ∀ u : α → α, P u → P (fun t => Scalar.relu (u t))

section Coords

variable {P : (α → α) → Prop}

theorem coords_zipWith (f : α → α → α) (hf : ∀ u w : α → α, P u → P w → P (fun t => f (u t) (w t))) :
    {s : List Nat} → (x y : α → Tensor α s) → TensorCoords P s x → TensorCoords P s y →
      TensorCoords P s (fun t => Tensor.zipWith f (x t) (y t))
  | [], x, y, hx, hy => hf x y hx hy
  | _ :: _, x, y, hx, hy => fun i =>
      coords_zipWith f hf (fun t => x t i) (fun t => y t i) (hx i) (hy i)

theorem coords_map (g : α → α) (hg : ∀ u : α → α, P u → P (fun t => g (u t))) :
    {s : List Nat} → (x : α → Tensor α s) → TensorCoords P s x →
      TensorCoords P s (fun t => Tensor.map g (x t))
  | [], x, hx => hg x hx
  | _ :: _, x, hx => fun i => coords_map g hg (fun t => x t i) (hx i)

theorem coords_mapPre {sIn sOut : List Nat} (F : Tensor α sIn → Tensor α sOut)
    (hF : ∀ x : α → Tensor α sIn, TensorCoords P sIn x → TensorCoords P sOut (fun t => F (x t))) :
    (pre : List Nat) → (x : α → Tensor α (pre ++ sIn)) → TensorCoords P (pre ++ sIn) x →
      TensorCoords P (pre ++ sOut) (fun t => Tensor.mapPre F pre (x t))
  | [], x, hx => hF x hx
  | _ :: pre, x, hx => fun i => coords_mapPre F hF pre (fun t => x t i) (hx i)

theorem sum_closed (C : Closure P) :
    (m : Nat) → (u : Fin m → α → α) → (∀ j : Fin m, P (u j)) →
      P (fun t => Scalar.sum m (fun j => u j t))
  | 0, _, _ => C.const Scalar.zero
  | m + 1, u, hu =>
      C.add (fun t => Scalar.sum m (fun j => u (Fin.castSucc j) t)) (u (Fin.last m))
        (sum_closed C m (fun j => u (Fin.castSucc j)) (fun j => hu (Fin.castSucc j)))
        (hu (Fin.last m))

end Coords

section Preserves

variable [Transcendental α]

theorem affine_coords {P : (α → α) → Prop} (C : Closure P) {m n : Nat} (W : Fin n → Fin m → α) (b : Fin n → α)
    (x : α → Fin m → α) (hx : TensorCoords P [m] x) :
    TensorCoords P [n] (fun t => Kernel.affine (α := α) W b (x t)) := fun i =>
  C.add (fun t => Scalar.sum m (fun j => W i j * x t j)) (fun _ => b i)
    (sum_closed C m (fun j t => W i j * x t j) (fun j => C.scale (W i j) (fun t => x t j) (hx j)))
    (C.const (b i))

/-- **Fragment terms preserve `P`-curves**, for every `P` closed under the PL operations. -/
theorem IsPL.preserves {P : (α → α) → Prop} (C : Closure P) {s t : Shape} {f : Arch s t}
    (h : IsPL f) :
    ∀ (p : Arch.Params α f) (γ : α → Shape.denote α s), ShapeCoords P s γ →
      ShapeCoords P t (fun x => Arch.eval f p (γ x)) := by
  induction h with
  | id s =>
    intro p γ hγ
    exact hγ
  | comp _ _ ihf ihg =>
    intro p γ hγ
    exact ihg (Prod.snd p) _ (ihf (Prod.fst p) γ hγ)
  | par _ _ ihf ihg =>
    intro p γ hγ
    exact And.intro (ihf (Prod.fst p) (fun x => Prod.fst (γ x)) (And.left hγ))
      (ihg (Prod.snd p) (fun x => Prod.snd (γ x)) (And.right hγ))
  | copy s =>
    intro p γ hγ
    exact And.intro hγ hγ
  | fst a b =>
    intro p γ hγ
    exact And.left hγ
  | snd a b =>
    intro p γ hγ
    exact And.right hγ
  | add s =>
    intro p γ hγ
    exact coords_zipWith (s := s) (fun (a b : α) => a + b) C.add (fun x => Prod.fst (γ x))
      (fun x => Prod.snd (γ x)) (And.left hγ) (And.right hγ)
  | scale c s =>
    intro p γ hγ
    exact coords_map (s := s) (fun (a : α) => (Const.denote c : α) * a) (C.scale (Const.denote c))
      γ hγ
  | linear pre m n =>
    intro p γ hγ
    -- `(α := α)`: left implicit, unification would solve the kernel's scalar type as `Tensor α []`
    -- (from `Tensor α [n, m]`), and `Scalar (Tensor α [])` has no instance; as in `Arch.eval`.
    exact coords_mapPre (sIn := [m]) (sOut := [n])
      (Kernel.affine (α := α) (m := m) (n := n) (Prod.fst p) (Prod.snd p))
      (affine_coords C (m := m) (n := n) (Prod.fst p) (Prod.snd p)) pre γ hγ
  | relu s =>
    intro p γ hγ
    exact coords_map (s := s) Scalar.relu C.relu γ hγ
  | transpose pre a b post =>
    intro p γ hγ
    exact coords_mapPre (sIn := a :: b :: post) (sOut := b :: a :: post)
      (fun (y : Fin a → Fin b → Tensor α post) (j : Fin b) (i : Fin a) => y i j)
      (fun _ hy j i => hy i j) pre γ hγ
  | splitLast pre a b =>
    intro p γ hγ
    exact coords_mapPre (sIn := [a * b]) (sOut := [a, b])
      (Kernel.splitAxis (α := α) (a := a) (b := b))
      (fun _ hy i j => hy ⟨i.val * b + j.val, Index.split_lt i.isLt j.isLt⟩) pre γ hγ
  | mergeLast pre a b =>
    intro p γ hγ
    exact coords_mapPre (sIn := [a, b]) (sOut := [a * b])
      (Kernel.mergeAxis (α := α) (a := a) (b := b))
      (fun _ hy c => hy ⟨c.val / b, Index.div_lt c.isLt⟩ ⟨c.val % b, Index.mod_lt c.isLt⟩)
      pre γ hγ

end Preserves

/-! ## Lines -/

/-- The line `t ↦ x + v * t` in a tensor space. -/
def lineT : {s : List Nat} → Tensor α s → Tensor α s → α → Tensor α s
  | [], x, v, t => (Tensor.toScalar x + Tensor.toScalar v * t : α)
  | _ :: _, x, v, t => fun i => lineT (x i) (v i) t

/-- The line `t ↦ x + v * t` in the values of a shape (along a coproduct: in the summand of `x`). -/
def lineS : (s : Shape) → Shape.denote α s → Shape.denote α s → α → Shape.denote α s
  | .tensor _, x, v, t => lineT x v t
  | .prod a b, x, v, t =>
      (lineS a (Prod.fst x) (Prod.fst v) t, lineS b (Prod.snd x) (Prod.snd v) t)
  | .coprod _ a, x, v, t => (Prod.fst x, lineS a (Prod.snd x) (Prod.snd v) t)

theorem lineT_coords {P : (α → α) → Prop} (C : Closure P) :
    {s : List Nat} → (x v : Tensor α s) → TensorCoords P s (fun t => lineT x v t)
  | [], x, v => C.add (fun _ => Tensor.toScalar x) (fun t => Tensor.toScalar v * t)
      (C.const (Tensor.toScalar x)) (C.scale (Tensor.toScalar v) (fun t => t) C.ident)
  | _ :: _, x, v => fun i => lineT_coords C (x i) (v i)

theorem lineS_coords {P : (α → α) → Prop} (C : Closure P) :
    (s : Shape) → (x v : Shape.denote α s) → ShapeCoords P s (fun t => lineS s x v t)
  | .tensor _, x, v => lineT_coords C x v
  | .prod a b, x, v =>
      And.intro (lineS_coords C a (Prod.fst x) (Prod.fst v)) (lineS_coords C b (Prod.snd x) (Prod.snd v))
  | .coprod _ a, x, v =>
      Exists.intro (Prod.fst x) (And.intro (fun _ => rfl) (lineS_coords C a (Prod.snd x) (Prod.snd v)))

/-- The first coordinate of a vector. -/
def coord0 {n : Nat} (y : Shape.denote α (.tensor [n + 1])) : α := y ⟨0, Nat.succ_pos n⟩

/-- The vector `(a, a)`. -/
def diag2 (a : α) : Shape.denote α (.tensor [2]) := fun _ => a

/-! ## PL along lines, and the product is not PL -/

variable [OrderedFieldLaws α]

/-- `LocallyAffine` is closed under the PL operations. -/
theorem locallyAffine_closure : Closure (LocallyAffine (α := α)) where
  const := la_const
  ident := la_ident
  add := fun _ _ hu hw => la_add hu hw
  scale := fun c _ hu => la_scale c hu
  relu := fun _ hu => la_relu hu

/-- `PL1` (finitely many breakpoints) is closed under the PL operations. -/
theorem pl1_closure : Closure (PL1 (α := α)) where
  const := PL1.const
  ident := PL1.id
  add := fun _ _ hu hw => PL1.add hu hw
  scale := fun c _ hu => PL1.scale c hu
  relu := fun _ hu => PL1.relu hu

variable [Transcendental α]

/-- **VM.C1 (the part proved here, local form).** Every term of the PL fragment is locally affine
along every line: for all weights `p`, base point `x` and direction `v`, every scalar coordinate of
`t ↦ f(x + v t)` is `LocallyAffine` (every nondegenerate interval has a nondegenerate subinterval on
which it is affine). Finitely many pieces is `pl1_on_lines`. -/
theorem pl_on_lines {s t : Shape} (f : Arch s t) (hf : IsPL f) (p : Arch.Params α f)
    (x v : Shape.denote α s) :
    ShapeCoords LocallyAffine t (fun τ => Arch.eval f p (lineS s x v τ)) :=
  IsPL.preserves locallyAffine_closure hf p (fun τ => lineS s x v τ)
    (lineS_coords locallyAffine_closure s x v)

/-- **VM.C1 (the part proved here, global form).** Every term of the PL fragment is piecewise
linear along every line with finitely many pieces: for all weights `p`, base point `x` and
direction `v`, every scalar coordinate of `t ↦ f(x + v t)` is `PL1` (there is a finite list of
breakpoints off which it is affine; values at the breakpoints are not constrained). -/
theorem pl1_on_lines {s t : Shape} (f : Arch s t) (hf : IsPL f) (p : Arch.Params α f)
    (x v : Shape.denote α s) :
    ShapeCoords PL1 t (fun τ => Arch.eval f p (lineS s x v τ)) :=
  IsPL.preserves pl1_closure hf p (fun τ => lineS s x v τ) (lineS_coords pl1_closure s x v)

/-- **VM.C2.** No term of the PL fragment denotes the product `(x₀, x₁) ↦ x₀ * x₁` (as its first
output coordinate), whatever its weights: along the diagonal `t ↦ (t, t)` it would be `t ↦ t²`,
which is not piecewise linear (`sq_not_pl`). -/
theorem mul_not_pl {n : Nat} (f : Arch (.tensor [2]) (.tensor [n + 1])) (hf : IsPL f)
    (p : Arch.Params α f) :
    ¬ ∀ x : Fin 2 → α, coord0 (Arch.eval f p x) = x ⟨0, by decide⟩ * x ⟨1, by decide⟩ := by
  intro hmul
  have hc : ShapeCoords LocallyAffine (.tensor [n + 1]) (fun τ => Arch.eval f p (diag2 τ)) :=
    -- `la_ident` ascribed at `α`, so that it is checked against the unfolded coordinate
    -- `TensorCoords LocallyAffine [] (fun τ => diag2 τ i)` with no pending metavariables.
    IsPL.preserves locallyAffine_closure hf p (fun τ => diag2 τ)
      (fun (_ : Fin 2) => (la_ident : LocallyAffine (fun τ : α => τ)))
  have h1 : LocallyAffine (fun τ : α => coord0 (Arch.eval f p (diag2 τ))) := hc ⟨0, Nat.succ_pos n⟩
  have hsq : (fun τ : α => coord0 (Arch.eval f p (diag2 τ))) = (fun τ : α => τ * τ) :=
    funext (fun τ => hmul (diag2 τ))
  exact sq_not_pl (Eq.subst (motive := fun g => LocallyAffine g) hsq h1)

end Formal.PL
