import Formal.Network.Shape

/-!
# `Arch`: the intrinsically typed syntax of layers

`Arch s t` is the type of layer architectures from shape `s` to shape `t`. Ill-shaped networks cannot
be written: sequential composition `f ≫ g` requires the output shape of `f` to be the input shape of
`g`, as in a category. Each constructor is a PyTorch primitive (the table in `README.md` maps Lean
constructor ↔ Python class ↔ PyTorch realisation), and each primitive earns its place in the Zoo:

* structure: `id`, `comp` (`≫`), `par` (`⊗`), `copy` (fan-out), `fst`, `snd`;
* arithmetic: `add`, `scale` by a constant, `linear` (affine, on the last axis);
* nonlinearities: `relu`, `sigmoid`, `softmax` (last axis), `layerNorm` (last axis);
* the bilinear atoms of input-dependent weights: `mul` (entrywise, gates) and `matmul` (a matrix
  computed from the input applied to another computed tensor: attention, hypernetworks);
* index plumbing for heads: `transpose` of two adjacent axes, `splitLast`, `mergeLast`;
* routing: `route` (arg-max tag into a coproduct) and `copair` (one parametrised branch per tag);
* the layers of today's decoders: `causalSoftmax` (masked attention weights), `rmsNorm`, `rope`
  (rotary position embedding), `repeatInterleave` (shared key/value heads), and `sdpa`, the fused
  attention core `softmax(Q Kᵀ/√k) V`, which the Zoo never writes: it is the target of the rewrites
  `Formal.Arch.attnCore_eq_sdpa` and `Formal.Arch.attnCoreCausal_eq_sdpa` (`Formal/Network/Rewrites.lean`).

Layers act on one sample; the PyTorch side adds a leading batch axis. Parameters are not part of
the syntax: `Arch.Params α f` is the type of weights of `f`, and `Arch.eval f : Params α f → ...`
is its meaning as a parametrised map (the `Para` construction of `Formal/Para`).

Sources: Villani & McBurney §3–4 (layers as morphisms, attention as a product of computed
tensors); Belfiore & Bennequin §1.1 (the network as a composite of layer maps).
-/

namespace Formal

universe u

/-- Scalar constants that layers scale by. -/
inductive Const where
  /-- The rational `num / den`. -/
  | rat (num : Int) (den : Nat)
  /-- `1 / √n`, the attention temperature for head dimension `n`. -/
  | invSqrt (n : Nat)
  deriving Repr, DecidableEq

/-- The value of a constant. -/
def Const.denote {α : Type u} [Scalar α] [Transcendental α] : Const → α
  | .rat num den => (Scalar.ofInt num : α) * Scalar.inv (Scalar.ofNat den : α)
  | .invSqrt n => Scalar.inv (Transcendental.sqrt (Scalar.ofNat n : α))

/-- The typed syntax of layer architectures. -/
inductive Arch : Shape → Shape → Type where
  /-- The identity layer. -/
  | id (s : Shape) : Arch s s
  /-- Sequential composition, diagrammatic order: first `f`, then `g`. -/
  | comp {a b c : Shape} (f : Arch a b) (g : Arch b c) : Arch a c
  /-- Parallel composition: `f` on the first component, `g` on the second. -/
  | par {a b c d : Shape} (f : Arch a b) (g : Arch c d) : Arch (.prod a c) (.prod b d)
  /-- Fan-out: `x ↦ (x, x)`. -/
  | copy (s : Shape) : Arch s (.prod s s)
  /-- First projection. -/
  | fst (a b : Shape) : Arch (.prod a b) a
  /-- Second projection. -/
  | snd (a b : Shape) : Arch (.prod a b) b
  /-- Entrywise sum of two tensors. -/
  | add (s : List Nat) : Arch (.prod (.tensor s) (.tensor s)) (.tensor s)
  /-- Entrywise (Hadamard) product of two computed tensors: a bilinear atom. -/
  | mul (s : List Nat) : Arch (.prod (.tensor s) (.tensor s)) (.tensor s)
  /-- Multiplication by a constant. -/
  | scale (c : Const) (s : List Nat) : Arch (.tensor s) (.tensor s)
  /-- Affine map `W x + b` on the last axis, broadcast over the leading axes `pre` (`nn.Linear`). -/
  | linear (pre : List Nat) (m n : Nat) : Arch (.tensor (pre ++ [m])) (.tensor (pre ++ [n]))
  /-- Entrywise rectifier. -/
  | relu (s : List Nat) : Arch (.tensor s) (.tensor s)
  /-- Entrywise logistic sigmoid. -/
  | sigmoid (s : List Nat) : Arch (.tensor s) (.tensor s)
  /-- Softmax over the last axis. -/
  | softmax (pre : List Nat) (n : Nat) : Arch (.tensor (pre ++ [n])) (.tensor (pre ++ [n]))
  /-- Layer normalisation over the last axis, with a learnt elementwise affine map. -/
  | layerNorm (pre : List Nat) (n : Nat) (eps : Const) :
      Arch (.tensor (pre ++ [n])) (.tensor (pre ++ [n]))
  /-- Batched product of a computed matrix `[m, k]` and a computed tensor `k :: post`, over the
  shared leading axes `pre`: the atom of input-dependent weights. -/
  | matmul (pre : List Nat) (m k : Nat) (post : List Nat) :
      Arch (.prod (.tensor (pre ++ [m, k])) (.tensor (pre ++ k :: post))) (.tensor (pre ++ m :: post))
  /-- Swap two adjacent axes. -/
  | transpose (pre : List Nat) (a b : Nat) (post : List Nat) :
      Arch (.tensor (pre ++ a :: b :: post)) (.tensor (pre ++ b :: a :: post))
  /-- Split the last axis `[a * b]` into `[a, b]`, row-major (`torch.unflatten`). -/
  | splitLast (pre : List Nat) (a b : Nat) : Arch (.tensor (pre ++ [a * b])) (.tensor (pre ++ [a, b]))
  /-- Merge the last two axes `[a, b]` into `[a * b]`, row-major (`torch.flatten`). -/
  | mergeLast (pre : List Nat) (a b : Nat) : Arch (.tensor (pre ++ [a, b])) (.tensor (pre ++ [a * b]))
  /-- Hard routing: tag the value with the first arg-max of `k > 0` logits. -/
  | route (k : Nat) (hk : 0 < k) (s : Shape) : Arch (.prod (.tensor [k]) s) (.coprod k s)
  /-- Copairing out of a coproduct: `k` independently parametrised copies of `f`, the tag choosing
  which one runs. -/
  | copair (k : Nat) {s t : Shape} (f : Arch s t) : Arch (.coprod k s) t
  /-- Causal softmax over the last axis of each `[n, n]` block: entry `(i, j)` is `0` for `j > i`,
  and row `i` is the softmax of its entries `j ≤ i` (`masked_fill` of the upper triangle with
  `-inf`, then `softmax(dim=-1)`). -/
  | causalSoftmax (pre : List Nat) (n : Nat) : Arch (.tensor (pre ++ [n, n])) (.tensor (pre ++ [n, n]))
  /-- RMS normalisation over the last axis with a learnt scale (`LlamaRMSNorm`, `T5LayerNorm`). -/
  | rmsNorm (pre : List Nat) (n : Nat) (eps : Const) : Arch (.tensor (pre ++ [n])) (.tensor (pre ++ [n]))
  /-- Rotary position embedding on each `[seq, k]` block, base `base`, "rotate half" convention of
  `transformers`; the position is the index on the `seq` axis. -/
  | rope (pre : List Nat) (seq k base : Nat) :
      Arch (.tensor (pre ++ [seq, k])) (.tensor (pre ++ [seq, k]))
  /-- Repeat each entry of an axis `r` times in place (`torch.repeat_interleave(x, r, dim)`). -/
  | repeatInterleave (pre : List Nat) (a r : Nat) (post : List Nat) :
      Arch (.tensor (pre ++ a :: post)) (.tensor (pre ++ (a * r) :: post))
  /-- Fused scaled dot-product attention on `heads` heads, input `((Q, K), V)`:
  per head `softmax(Q Kᵀ/√k) V`, with causal softmax rows when `causal`
  (`scaled_dot_product_attention`). -/
  | sdpa (heads seq k : Nat) (causal : Bool) :
      Arch (.prod (.prod (.tensor [heads, seq, k]) (.tensor [heads, seq, k])) (.tensor [heads, seq, k]))
        (.tensor [heads, seq, k])

namespace Arch

/-- Sequential composition in diagrammatic order, as `≫` in Mathlib's `CategoryTheory`. -/
scoped infixr:80 " ≫ " => Arch.comp

/-- Parallel composition (the cartesian product of layers). -/
scoped infixr:70 " ⊗ " => Arch.par

/-- The parameters (weights) of a layer: `nn.Linear`'s `[out, in]` weight and bias, layer norm's
scale and shift, RMS norm's scale, one parameter set per branch of a copairing; nothing for the
other primitives. -/
def Params (α : Type u) : {s t : Shape} → Arch s t → Type u
  | _, _, .id _ => PUnit
  | _, _, .comp f g => Params α f × Params α g
  | _, _, .par f g => Params α f × Params α g
  | _, _, .copy _ => PUnit
  | _, _, .fst _ _ => PUnit
  | _, _, .snd _ _ => PUnit
  | _, _, .add _ => PUnit
  | _, _, .mul _ => PUnit
  | _, _, .scale _ _ => PUnit
  | _, _, .linear _ m n => Tensor α [n, m] × Tensor α [n]
  | _, _, .relu _ => PUnit
  | _, _, .sigmoid _ => PUnit
  | _, _, .softmax _ _ => PUnit
  | _, _, .layerNorm _ n _ => Tensor α [n] × Tensor α [n]
  | _, _, .matmul _ _ _ _ => PUnit
  | _, _, .transpose _ _ _ _ => PUnit
  | _, _, .splitLast _ _ _ => PUnit
  | _, _, .mergeLast _ _ _ => PUnit
  | _, _, .route _ _ _ => PUnit
  | _, _, .copair k f => Fin k → Params α f
  | _, _, .causalSoftmax _ _ => PUnit
  | _, _, .rmsNorm _ n _ => Tensor α [n]
  | _, _, .rope _ _ _ _ => PUnit
  | _, _, .repeatInterleave _ _ _ _ => PUnit
  | _, _, .sdpa _ _ _ _ => PUnit
termination_by structural _ _ f => f

variable {α : Type u} [Scalar α] [Transcendental α]

/-- The meaning of a layer: given its parameters, a function from input values to output values.

Implementation notes. `eval` (like `Params`) is defined by structural recursion on the layer `f`
(stated with `termination_by structural`, so that Lean reports an error instead of falling back to
well-founded recursion, whose definitions do not unfold), so its defining equations hold by `rfl`
(used in `Formal/Network/Laws.lean`). Parameters and values
have types (`Params α f`, `Shape.denote α s`) that become products only after unfolding, so
components are taken with `Prod.fst`/`Prod.snd` (unification unfolds them) rather than with field
notation. Every kernel gets `(α := α)`: left implicit, unification would solve it as `Tensor α []`,
which is not reducibly `α`, and the `Scalar` instance would not be found. -/
def eval : {s t : Shape} → (f : Arch s t) → Params α f → Shape.denote α s → Shape.denote α t
  | _, _, .id _, _, x => x
  | _, _, .comp f g, p, x => eval g (Prod.snd p) (eval f (Prod.fst p) x)
  | _, _, .par f g, p, x => (eval f (Prod.fst p) (Prod.fst x), eval g (Prod.snd p) (Prod.snd x))
  | _, _, .copy _, _, x => (x, x)
  | _, _, .fst _ _, _, x => Prod.fst x
  | _, _, .snd _ _, _, x => Prod.snd x
  | _, _, .add s, _, x =>
      Tensor.zipWith (α := α) (s := s) (fun a b => a + b) (Prod.fst x) (Prod.snd x)
  | _, _, .mul s, _, x =>
      Tensor.zipWith (α := α) (s := s) (fun a b => a * b) (Prod.fst x) (Prod.snd x)
  | _, _, .scale c s, _, x =>
      Tensor.map (α := α) (s := s) (fun a => (Const.denote c : α) * a) x
  | _, _, .linear pre m n, p, x =>
      Tensor.mapPre (α := α) (s := [m]) (t := [n])
        (Kernel.affine (α := α) (m := m) (n := n) (Prod.fst p) (Prod.snd p)) pre x
  | _, _, .relu s, _, x => Tensor.map (α := α) (s := s) (Scalar.relu (α := α)) x
  | _, _, .sigmoid s, _, x => Tensor.map (α := α) (s := s) (Kernel.sigmoid (α := α)) x
  | _, _, .softmax pre n, _, x =>
      Tensor.mapPre (α := α) (s := [n]) (t := [n]) (Kernel.softmax (α := α) (n := n)) pre x
  | _, _, .layerNorm pre n eps, p, x =>
      Tensor.mapPre (α := α) (s := [n]) (t := [n])
        (Kernel.layerNorm (α := α) (n := n) (Const.denote eps : α) (Prod.fst p) (Prod.snd p)) pre x
  | _, _, .matmul pre m k post, _, x =>
      Tensor.zipPre (α := α) (s := [m, k]) (t := k :: post) (r := m :: post)
        (Kernel.matmul (α := α) (m := m) (k := k) (post := post)) pre (Prod.fst x) (Prod.snd x)
  | _, _, .transpose pre a b post, _, x =>
      Tensor.mapPre (α := α) (s := a :: b :: post) (t := b :: a :: post)
        (Kernel.swap (a := a) (b := b) (β := Tensor α post)) pre x
  | _, _, .splitLast pre a b, _, x =>
      Tensor.mapPre (α := α) (s := [a * b]) (t := [a, b])
        (Kernel.splitAxis (α := α) (a := a) (b := b)) pre x
  | _, _, .mergeLast pre a b, _, x =>
      Tensor.mapPre (α := α) (s := [a, b]) (t := [a * b])
        (Kernel.mergeAxis (α := α) (a := a) (b := b)) pre x
  | _, _, .route k hk _, _, x => (Kernel.argmax (α := α) k hk (Prod.fst x), Prod.snd x)
  | _, _, .copair _ f, p, x => eval f (p (Prod.fst x)) (Prod.snd x)
  | _, _, .causalSoftmax pre n, _, x =>
      Tensor.mapPre (α := α) (s := [n, n]) (t := [n, n]) (Kernel.causalSoftmax (α := α) (n := n)) pre x
  | _, _, .rmsNorm pre n eps, p, x =>
      Tensor.mapPre (α := α) (s := [n]) (t := [n])
        (Kernel.rmsNorm (α := α) (n := n) (Const.denote eps : α) p) pre x
  | _, _, .rope pre seq k base, _, x =>
      Tensor.mapPre (α := α) (s := [seq, k]) (t := [seq, k])
        (Kernel.rope (α := α) (seq := seq) (k := k) base) pre x
  | _, _, .repeatInterleave pre a r post, _, x =>
      Tensor.mapPre (α := α) (s := a :: post) (t := (a * r) :: post)
        (Kernel.repeatAxis (a := a) (r := r) (β := Tensor α post)) pre x
  | _, _, .sdpa heads seq k causal, _, x =>
      Kernel.sdpa (α := α) (heads := heads) (seq := seq) (k := k) causal
        (Prod.fst (Prod.fst x)) (Prod.snd (Prod.fst x)) (Prod.snd x)
termination_by structural _ _ f => f

end Arch

end Formal
