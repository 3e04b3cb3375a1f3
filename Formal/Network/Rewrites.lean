import Formal.Network.Laws
import Formal.Network.Derived

/-!
# Rewrites of layer terms that preserve the semantics

The optimising emitter (`pybridge emit`, issue 13) replaces parts of a layer term by faster ones. It
applies a rewrite only where a theorem of this file states it: each is an equation between `Arch`
terms about `Arch.eval`, quantified over all parameters, with the reparametrisation explicit.

* The fused attention core: `(attnWeights ⊗ id) ≫ matmul` denotes the same map as the primitive
  `sdpa` (realised by `scaled_dot_product_attention`), and likewise with causal weights
  (`attnCore_eq_sdpa`, `attnCoreCausal_eq_sdpa`). Both sides have only trivial (`PUnit`) parameters.
* Congruence: a rewrite proved for a subterm holds inside `≫`, `⊗` and `copair`
  (`eval_congr_comp_left`, `eval_congr_comp_right`, `eval_congr_par_left`, `eval_congr_par_right`,
  `eval_congr_copair`), the parameters of the untouched part unchanged.
* Reassociation: `eval_comp_assoc` (`Formal/Network/Laws.lean`) and its converse
  `eval_comp_assoc_symm`, which brings `X ≫ (M ≫ R)` to `(X ≫ M) ≫ R` so that the attention core
  `X ≫ M` becomes a subterm.

All proofs unfold `eval` (it is structurally recursive, so its equations hold by `rfl`).
-/

namespace Formal.Arch

open scoped Formal.Arch

universe u

variable {α : Type u} [Scalar α] [Transcendental α]

/-! ## The fused attention core -/

/-- The attention core `((Q, K), V) ↦ softmax(Q Kᵀ/√k) V` on heads, written with the primitives
(`attnWeights`, then `matmul`), denotes the fused primitive `sdpa` (not causal), for every
parameter `p` (all of its components are `PUnit.unit`).

Why it holds by unfolding: `Kernel.sdpa` is defined, head by head, from the very kernels that
`eval` applies to the left-hand side, in the same order: `Kernel.swap` (the `transpose`),
`Kernel.matmul` (the scores), `Tensor.map` of the multiplication by `inv (sqrt (ofNat k))` (the
`scale` by `Const.invSqrt k`, whose `Const.denote` is that expression by definition),
`Kernel.softmax` on each row (the `softmax`), and `Kernel.matmul` with the values. `Tensor.mapPre`,
`Tensor.zipPre` and `Tensor.map` over the concrete leading axes `[heads]`, `[heads, seq]` and
`[heads, seq, seq]` reduce to the per-head functions, and `cond false a b` reduces to `b`; so both
sides reduce to the same term, and `rfl` closes the goal at every input. -/
theorem attnCore_eq_sdpa (seq heads k : Nat)
    (p : Params α ((attnWeights seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
      Arch.matmul [heads] seq seq [k])) :
    eval ((attnWeights seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
        Arch.matmul [heads] seq seq [k]) p =
      eval (α := α) (Arch.sdpa heads seq k false) PUnit.unit :=
  funext fun _ => rfl

/-- The causal attention core `((Q, K), V) ↦ causalSoftmax(Q Kᵀ/√k) V` on heads, written with the
primitives (`attnWeightsCausal`, then `matmul`), denotes the fused primitive `sdpa` with
`causal = true`, for every parameter `p` (all `PUnit.unit`). It holds by unfolding for the reason
given at `attnCore_eq_sdpa`, with `Kernel.causalSoftmax` applied to each `[seq, seq]` score block
(the `causalSoftmax [heads] seq` layer) and `cond true a b` reducing to `a`. -/
theorem attnCoreCausal_eq_sdpa (seq heads k : Nat)
    (p : Params α ((attnWeightsCausal seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
      Arch.matmul [heads] seq seq [k])) :
    eval ((attnWeightsCausal seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
        Arch.matmul [heads] seq seq [k]) p =
      eval (α := α) (Arch.sdpa heads seq k true) PUnit.unit :=
  funext fun _ => rfl

/-! ## Congruence: rewriting inside a term -/

/-- A rewrite of the first factor of a composite: if `f` with `p` and `f'` with `p'` denote the same
map, so do `f ≫ g` and `f' ≫ g` with the parameters `(p, q)` and `(p', q)`. -/
theorem eval_congr_comp_left {a b c : Shape} (f f' : Arch a b) (g : Arch b c)
    (p : Params α f) (p' : Params α f') (q : Params α g) (h : eval f p = eval f' p') :
    eval (f ≫ g) ((p, q) : Params α (f ≫ g)) = eval (f' ≫ g) ((p', q) : Params α (f' ≫ g)) :=
  funext fun x =>
    show eval g q (eval f p x) = eval g q (eval f' p' x) from congrArg (eval g q) (congrFun h x)

/-- A rewrite of the second factor of a composite: if `f` with `p` and `f'` with `p'` denote the
same map, so do `g ≫ f` and `g ≫ f'` with the parameters `(q, p)` and `(q, p')`. -/
theorem eval_congr_comp_right {a b c : Shape} (g : Arch a b) (f f' : Arch b c)
    (q : Params α g) (p : Params α f) (p' : Params α f') (h : eval f p = eval f' p') :
    eval (g ≫ f) ((q, p) : Params α (g ≫ f)) = eval (g ≫ f') ((q, p') : Params α (g ≫ f')) :=
  funext fun x =>
    show eval f p (eval g q x) = eval f' p' (eval g q x) from congrFun h (eval g q x)

/-- A rewrite of the left factor of a parallel composite: if `f` with `p` and `f'` with `p'` denote
the same map, so do `f ⊗ g` and `f' ⊗ g` with the parameters `(p, q)` and `(p', q)`. -/
theorem eval_congr_par_left {a b c d : Shape} (f f' : Arch a b) (g : Arch c d)
    (p : Params α f) (p' : Params α f') (q : Params α g) (h : eval f p = eval f' p') :
    eval (f ⊗ g) ((p, q) : Params α (f ⊗ g)) = eval (f' ⊗ g) ((p', q) : Params α (f' ⊗ g)) :=
  funext fun x =>
    show (eval f p (Prod.fst x), eval g q (Prod.snd x)) =
        (eval f' p' (Prod.fst x), eval g q (Prod.snd x)) from
      congrArg (fun y => (y, eval g q (Prod.snd x))) (congrFun h (Prod.fst x))

/-- A rewrite of the right factor of a parallel composite: if `f` with `p` and `f'` with `p'`
denote the same map, so do `g ⊗ f` and `g ⊗ f'` with the parameters `(q, p)` and `(q, p')`. -/
theorem eval_congr_par_right {a b c d : Shape} (g : Arch a b) (f f' : Arch c d)
    (q : Params α g) (p : Params α f) (p' : Params α f') (h : eval f p = eval f' p') :
    eval (g ⊗ f) ((q, p) : Params α (g ⊗ f)) = eval (g ⊗ f') ((q, p') : Params α (g ⊗ f')) :=
  funext fun x =>
    show (eval g q (Prod.fst x), eval f p (Prod.snd x)) =
        (eval g q (Prod.fst x), eval f' p' (Prod.snd x)) from
      congrArg (fun y => (eval g q (Prod.fst x), y)) (congrFun h (Prod.snd x))

/-- A rewrite of the branch of a copairing: if for every tag `j` the branch `f` with `p j` and `f'`
with `p' j` denote the same map, so do `copair k f` with `p` and `copair k f'` with `p'`. -/
theorem eval_congr_copair (k : Nat) {s t : Shape} (f f' : Arch s t)
    (p : Fin k → Params α f) (p' : Fin k → Params α f') (h : ∀ j, eval f (p j) = eval f' (p' j)) :
    eval (Arch.copair k f) p = eval (Arch.copair k f') p' :=
  funext fun x =>
    show eval f (p (Prod.fst x)) (Prod.snd x) = eval f' (p' (Prod.fst x)) (Prod.snd x) from
      congrFun (h (Prod.fst x)) (Prod.snd x)

/-! ## Reassociation -/

/-- `eval_comp_assoc` read right to left: `f ≫ (g ≫ h)` denotes `(f ≫ g) ≫ h`, up to the
reparametrisation `(p, (q, r)) ↦ ((p, q), r)`. -/
theorem eval_comp_assoc_symm {a b c d : Shape} (f : Arch a b) (g : Arch b c) (h : Arch c d)
    (p : Params α f) (q : Params α g) (r : Params α h) :
    eval (f ≫ (g ≫ h)) ((p, (q, r)) : Params α (f ≫ (g ≫ h))) =
      eval ((f ≫ g) ≫ h) (((p, q), r) : Params α ((f ≫ g) ≫ h)) :=
  Eq.symm (eval_comp_assoc f g h p q r)

end Formal.Arch
