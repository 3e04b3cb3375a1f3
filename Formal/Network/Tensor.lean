import Formal.Network.Scalar

/-!
# Tensors as nested finite functions

A tensor of shape `[n₁, ..., n_k]` over `α` is a function `Fin n₁ → ... → Fin n_k → α`; the
empty shape is a scalar. This is the representation of TorchLean-style specifications: total,
no out-of-bounds indexing, and transposition is argument swapping. PyTorch tensors realise it
(`pybridge/torch`), with one extra leading batch axis.

The combinators here are the whole vocabulary that `Formal.Arch.eval` uses: entrywise maps and
zips, broadcasting a map over leading axes (`mapPre`, `zipPre`), and the vector/matrix kernels of the
primitive layers, written on plain function types so that instance search sees `α` directly.
-/

namespace Formal

universe u

/-- Tensors of a given shape: `Tensor α [] = α`, `Tensor α (n :: s) = Fin n → Tensor α s`. -/
def Tensor (α : Type u) : List Nat → Type u
  | [] => α
  | n :: s => Fin n → Tensor α s

namespace Tensor

variable {α : Type u}

/-- Apply `f` to every entry. -/
def map (f : α → α) : {s : List Nat} → Tensor α s → Tensor α s
  | [], x => f x
  | _ :: _, x => fun i => map f (x i)

/-- Combine two tensors of the same shape entrywise. -/
def zipWith (f : α → α → α) : {s : List Nat} → Tensor α s → Tensor α s → Tensor α s
  | [], x, y => f x y
  | _ :: _, x, y => fun i => zipWith f (x i) (y i)

/-- Broadcast a map on trailing axes over the leading axes `pre` (PyTorch's batching rule for
`nn.Linear`, `softmax(dim=-1)`, ...). -/
def mapPre {s t : List Nat} (f : Tensor α s → Tensor α t) :
    (pre : List Nat) → Tensor α (pre ++ s) → Tensor α (pre ++ t)
  | [], x => f x
  | _ :: pre, x => fun i => mapPre f pre (x i)

/-- Broadcast a binary map on trailing axes over the shared leading axes `pre`. -/
def zipPre {s t r : List Nat} (f : Tensor α s → Tensor α t → Tensor α r) :
    (pre : List Nat) → Tensor α (pre ++ s) → Tensor α (pre ++ t) → Tensor α (pre ++ r)
  | [], x, y => f x y
  | _ :: pre, x, y => fun i => zipPre f pre (x i) (y i)

/-- A scalar tensor is its entry. -/
def toScalar (x : Tensor α []) : α := x

/-- `∑_{c < k} a c • t c`, entrywise.

Implementation note: the expected type of the `[]` case is `Tensor α []`; left implicit, the scalar
type of `Scalar.sum` would be unified with it (expected-type propagation) and the instance
`Scalar (Tensor α [])` would not be found (instance search does not unfold `Tensor`), hence
`(α := α)`. -/
def lincomb [Scalar α] (k : Nat) (a : Fin k → α) : {s : List Nat} → (Fin k → Tensor α s) → Tensor α s
  | [], t => Scalar.sum (α := α) k (fun c => a c * toScalar (t c))
  | _ :: _, t => fun i => lincomb k a (fun c => t c i)

end Tensor

/-! ## Kernels of the primitive layers, on plain function types -/

namespace Kernel

variable {α : Type u} [Scalar α] [Transcendental α]

/-- `x ↦ W x + b`, with `W` stored `[out, in]` as in `nn.Linear.weight`. -/
def affine {m n : Nat} (W : Fin n → Fin m → α) (b : Fin n → α) (x : Fin m → α) : Fin n → α :=
  fun i => Scalar.sum m (fun j => W i j * x j) + b i

/-- `σ(x) = 1 / (1 + exp (-x))`. -/
def sigmoid (x : α) : α := Scalar.inv ((Scalar.one : α) + Transcendental.exp (-x))

/-- `softmax(v)ᵢ = exp vᵢ / ∑ⱼ exp vⱼ` (PyTorch subtracts `max v` first; the value is the same). -/
def softmax {n : Nat} (v : Fin n → α) : Fin n → α :=
  fun i => Transcendental.exp (v i) * Scalar.inv (Scalar.sum n (fun j => Transcendental.exp (v j)))

/-- Layer normalisation over a vector, as `nn.LayerNorm`: biased variance, `eps` inside the root,
then the elementwise affine map `γ ⊙ · + β`. -/
def layerNorm {n : Nat} (eps : α) (γ β : Fin n → α) (v : Fin n → α) : Fin n → α :=
  let invN : α := Scalar.inv (Scalar.ofNat n : α)
  let μ : α := Scalar.sum n v * invN
  let var : α := Scalar.sum n (fun j => Scalar.sub (v j) μ * Scalar.sub (v j) μ) * invN
  fun i => Scalar.sub (v i) μ * Scalar.inv (Transcendental.sqrt (var + eps)) * γ i + β i

/-- Matrix times tensor, contracting the shared axis: `(A B)ᵢ = ∑_c A i c • B c`. With `post = []`
this is a matrix-vector product, with `post = [n]` a matrix product. -/
def matmul {m k : Nat} {post : List Nat} (A : Fin m → Fin k → α) (B : Fin k → Tensor α post) :
    Fin m → Tensor α post :=
  fun i => Tensor.lincomb k (A i) B

/-- Causal softmax of one `[n, n]` block of scores (row `i` a query, column `j` a key): entry
`(i, j)` is `exp vᵢⱼ / ∑_{j' ≤ i} exp vᵢⱼ'` for `j ≤ i` and `0` for `j > i`. The denominator is
`Scalar.sum n` over all `j' < n` with the masked terms `0`, so row `0` sums the term `j' = 0` alone.
PyTorch fills the upper triangle with `-inf` and takes `softmax(dim=-1)`: the same value, with the
masked entries exactly `0`. -/
def causalSoftmax {n : Nat} (v : Fin n → Fin n → α) : Fin n → Fin n → α :=
  fun i j =>
    if j.val ≤ i.val then
      Transcendental.exp (v i j) *
        Scalar.inv (Scalar.sum (α := α) n
          (fun j' => if j'.val ≤ i.val then Transcendental.exp (v i j') else (Scalar.zero : α)))
    else (Scalar.zero : α)

/-- RMS normalisation of a vector with the learnt scale `γ`, as `LlamaRMSNorm` and `T5LayerNorm`:
`vᵢ / √(mean_j vⱼ² + eps) · γᵢ`, the mean being `(∑ⱼ vⱼ · vⱼ) · (ofNat n)⁻¹`. No centring and no
shift (unlike `layerNorm`). -/
def rmsNorm {n : Nat} (eps : α) (γ : Fin n → α) (v : Fin n → α) : Fin n → α :=
  let ms : α := Scalar.sum n (fun j => v j * v j) * Scalar.inv (Scalar.ofNat n : α)
  fun i => v i * Scalar.inv (Transcendental.sqrt (ms + eps)) * γ i

/-- The rotary angle of position `p` and frequency `f` for head width `k`:
`θ(p, f) = p · base^(-2f/k)`, written as `ofNat p * exp (-(ofNat (2 f) * (ofNat k)⁻¹) * log (ofNat base))`
(`transformers` computes `inv_freq = 1 / base^(2f/k)` and the angle `p · inv_freq`). -/
def ropeAngle (k base p f : Nat) : α :=
  (Scalar.ofNat p : α) *
    Transcendental.exp
      ((-((Scalar.ofNat (2 * f) : α) * Scalar.inv (Scalar.ofNat k : α))) *
        Transcendental.log (Scalar.ofNat base : α))

/-- Entry `c` of a vector, `0` when `c` is out of range. -/
def entryOr {k : Nat} (v : Fin k → α) (c : Nat) : α :=
  if h : c < k then v ⟨c, h⟩ else (Scalar.zero : α)

/-- Rotary position embedding of one `[seq, k]` block in the "rotate half" convention of
`transformers` (`apply_rotary_pos_emb`, `rotate_half`): position `p` is the row, `h = k / 2`, and
for `i < h`: `out p i = x p i · cos θ(p, i) - x p (i + h) · sin θ(p, i)`;
for `i ≥ h`: `out p i = x p i · cos θ(p, i - h) + x p (i - h) · sin θ(p, i - h)`
(`θ` is `ropeAngle`). The partner entries are read with `entryOr`, which gives `0` out of range;
reading through it spares an index lemma. That branch is not reached (`i + h < 2h ≤ k` when
`i < h`, and `i - h ≤ i < k` otherwise): an arithmetic remark, not proved here. An odd `k` is
allowed by the type; the Zoo layers require `2 ∣ k`. -/
def rope {seq k : Nat} (base : Nat) (x : Fin seq → Fin k → α) : Fin seq → Fin k → α :=
  fun p i =>
    if i.val < k / 2 then
      Scalar.sub
        (x p i * Transcendental.cos (Kernel.ropeAngle (α := α) k base p.val i.val))
        (Kernel.entryOr (α := α) (x p) (i.val + k / 2) *
          Transcendental.sin (Kernel.ropeAngle (α := α) k base p.val i.val))
    else
      x p i * Transcendental.cos (Kernel.ropeAngle (α := α) k base p.val (i.val - k / 2)) +
        Kernel.entryOr (α := α) (x p) (i.val - k / 2) *
          Transcendental.sin (Kernel.ropeAngle (α := α) k base p.val (i.val - k / 2))

/-- The first index of a maximal entry, scanning `0, 1, ..., k-1` (as `torch.argmax`). -/
def scanMax {k : Nat} (v : Fin k → α) : (n : Nat) → Fin k → Fin k
  | 0, best => best
  | n + 1, best =>
    if h : k - (n + 1) < k then
      (if v best < v ⟨k - (n + 1), h⟩ then scanMax v n ⟨k - (n + 1), h⟩ else scanMax v n best)
    else scanMax v n best

/-- Arg-max of a non-empty vector, ties to the first index. -/
def argmax (k : Nat) (hk : 0 < k) (v : Fin k → α) : Fin k := scanMax v k ⟨0, hk⟩

end Kernel

/-! ## Index arithmetic for splitting and merging an axis (row-major, as `torch.unflatten`) -/

namespace Index

theorem split_lt {a b i j : Nat} (hi : i < a) (hj : j < b) : i * b + j < a * b :=
  have h1 : i * b + j < i * b + b := Nat.add_lt_add_left hj (i * b)
  -- `i < a` unfolds (`Nat.lt`) to `i + 1 ≤ a`
  have hi' : i + 1 ≤ a := hi
  have h2 : (i + 1) * b ≤ a * b := Nat.mul_le_mul hi' (Nat.le_refl b)
  -- `Nat.succ_mul : succ n * m = n * m + m`; `succ i` and `i + 1` agree definitionally
  have h3 : i * b + b = (i + 1) * b := (Nat.succ_mul i b).symm
  Nat.lt_of_lt_of_le h1 (Nat.le_trans (Nat.le_of_eq h3) h2)

theorem pos_of_lt_mul {a b c : Nat} (hc : c < a * b) : 0 < b :=
  match b, hc with
  | 0, hc => absurd hc (Nat.not_lt_zero c)
  | _ + 1, _ => Nat.succ_pos _

theorem div_lt {a b c : Nat} (hc : c < a * b) : c / b < a :=
  (Nat.div_lt_iff_lt_mul (pos_of_lt_mul hc)).2 hc

theorem mod_lt {a b c : Nat} (hc : c < a * b) : c % b < b :=
  Nat.mod_lt c (pos_of_lt_mul hc)

end Index

namespace Kernel

variable {α : Type u}

/-- `[a * b] → [a, b]`, row-major: entry `(i, j)` is entry `i * b + j`. -/
def splitAxis {a b : Nat} (t : Fin (a * b) → α) : Fin a → Fin b → α :=
  fun i j => t ⟨i.val * b + j.val, Index.split_lt i.isLt j.isLt⟩

/-- `[a, b] → [a * b]`, the inverse of `splitAxis`. -/
def mergeAxis {a b : Nat} (t : Fin a → Fin b → α) : Fin (a * b) → α :=
  fun c => t ⟨c.val / b, Index.div_lt c.isLt⟩ ⟨c.val % b, Index.mod_lt c.isLt⟩

/-- Swap two leading axes: `(swap y) j i = y i j` (the transposition of two adjacent axes). -/
def swap {a b : Nat} {β : Type u} (y : Fin a → Fin b → β) : Fin b → Fin a → β :=
  fun j i => y i j

/-- `[a] → [a * r]` on the leading axis, each entry repeated `r` times in place: entry `c` is entry
`c / r` (`torch.repeat_interleave(x, r, dim)`, `transformers`' `repeat_kv`). -/
def repeatAxis {a r : Nat} {β : Type u} (t : Fin a → β) : Fin (a * r) → β :=
  fun c => t ⟨c.val / r, Index.div_lt c.isLt⟩

end Kernel

/-! ## The fused attention core -/

namespace Kernel

variable {α : Type u} [Scalar α] [Transcendental α]

/-- The scaled scores of one head, `Q Kᵀ · (1/√k)`: the same kernels, in the same order, as the
first three layers of `Arch.attnWeights` (`Kernel.swap`, `Kernel.matmul`, then `Tensor.map` of the
multiplication by `inv (sqrt (ofNat k))`, which is `Const.denote (.invSqrt k)` by definition). -/
def attnScores {seq k : Nat} (q kk : Fin seq → Fin k → α) : Fin seq → Fin seq → α :=
  Tensor.map (α := α) (s := [seq, seq])
    (fun a => Scalar.inv (Transcendental.sqrt (Scalar.ofNat k : α)) * a)
    (Kernel.matmul (α := α) (m := seq) (k := k) (post := [seq]) q (Kernel.swap (β := α) kk))

/-- Scaled dot-product attention on `heads` heads, as `scaled_dot_product_attention(Q, K, V,
is_causal=causal, scale=1/√k)`: per head `h`, `softmax(Q Kᵀ/√k) V`, with `causalSoftmax` on the
score block when `causal` and `softmax` on each row otherwise. Built from the kernels of
`Arch.attnWeights` / `Arch.attnWeightsCausal` and `Arch.matmul`, so that
`Formal.Arch.attnCore_eq_sdpa` and `Formal.Arch.attnCoreCausal_eq_sdpa` hold by unfolding. -/
def sdpa {heads seq k : Nat} (causal : Bool) (q kk v : Fin heads → Fin seq → Fin k → α) :
    Fin heads → Fin seq → Fin k → α :=
  fun h =>
    Kernel.matmul (α := α) (m := seq) (k := seq) (post := [k])
      (cond causal
        (Kernel.causalSoftmax (α := α) (n := seq) (Kernel.attnScores (α := α) (q h) (kk h)))
        (fun i => Kernel.softmax (α := α) (n := seq) (Kernel.attnScores (α := α) (q h) (kk h) i)))
      (v h)

end Kernel

end Formal
