import Formal.Network.Arch

/-!
# Derived layers

Combinators built from the primitives of `Arch`, used by the Zoo: the residual connection, the
three-way fan-out of queries, keys and values, the head split and merge of multi-head attention,
and the parts of a LLaMA decoder layer (SiLU, causal attention, the SwiGLU feed-forward network,
grouped-query attention with rotary embeddings, the decoder layer itself).
They are ordinary definitions; the Python bridge expands them when it reads a Zoo layer.

Sources: residual joins are the "forks" of Belfiore & Bennequin §1.2; the head plumbing follows
`torch.nn.MultiheadAttention`; the LLaMA parts follow `transformers`' `LlamaMLP`, `LlamaAttention`
and `LlamaDecoderLayer` (Touvron et al. 2023; SwiGLU: Shazeer 2020; RoPE: Su et al. 2021;
grouped-query attention: Ainslie et al. 2023).
-/

namespace Formal.Arch

open scoped Formal.Arch

/-- `x ↦ x + f x`: a residual connection around `f` (ResNets, transformer blocks). -/
def residual (s : List Nat) (f : Arch (.tensor s) (.tensor s)) : Arch (.tensor s) (.tensor s) :=
  Arch.copy (.tensor s) ≫ (Arch.id (.tensor s) ⊗ f) ≫ Arch.add s

/-- `x ↦ ((f x, g x), h x)`: three branches on one input (queries, keys, values). -/
def fan3 {s a b c : Shape} (f : Arch s a) (g : Arch s b) (h : Arch s c) :
    Arch s (.prod (.prod a b) c) :=
  Arch.copy s ≫ ((Arch.copy s ≫ (f ⊗ g)) ⊗ h)

/-- `[seq, heads * k] → [heads, seq, k]`: cut the feature axis into heads, heads first. -/
def splitHeads (seq heads k : Nat) : Arch (.tensor [seq, heads * k]) (.tensor [heads, seq, k]) :=
  Arch.splitLast [seq] heads k ≫ Arch.transpose [] seq heads [k]

/-- `[heads, seq, k] → [seq, heads * k]`: concatenate the heads again (inverse of `splitHeads`). -/
def mergeHeads (seq heads k : Nat) : Arch (.tensor [heads, seq, k]) (.tensor [seq, heads * k]) :=
  Arch.transpose [] heads seq [k] ≫ Arch.mergeLast [seq] heads k

/-- Scaled dot-product attention weights on heads, `(Q, K) ↦ softmax(Q Kᵀ / √k)`, per head. -/
def attnWeights (seq heads k : Nat) :
    Arch (.prod (.tensor [heads, seq, k]) (.tensor [heads, seq, k])) (.tensor [heads, seq, seq]) :=
  (Arch.id (.tensor [heads, seq, k]) ⊗ Arch.transpose [heads] seq k []) ≫
    Arch.matmul [heads] seq k [seq] ≫
    Arch.scale (.invSqrt k) [heads, seq, seq] ≫
    Arch.softmax [heads, seq] seq

/-- Multi-head self-attention with input and output projections, inner width `heads * k`:
project to queries, keys and values, split heads, weight the values by `attnWeights`, merge heads,
project back. The weights `softmax(Q Kᵀ/√k)` are computed from the input: this is the
"choose, then evaluate" pattern of Villani & McBurney §4. -/
def selfAttention (seq d heads k : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.fan3
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k)
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k)
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k) ≫
    (Arch.attnWeights seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
    Arch.matmul [heads] seq seq [k] ≫
    Arch.mergeHeads seq heads k ≫
    Arch.linear [seq] (heads * k) d

/-- `x ↦ x · σ(x)`, entrywise: the SiLU (swish) activation, `nn.SiLU`. -/
def silu (s : List Nat) : Arch (.tensor s) (.tensor s) :=
  Arch.copy (.tensor s) ≫ (Arch.id (.tensor s) ⊗ Arch.sigmoid s) ≫ Arch.mul s

/-- Causal attention weights on heads, `(Q, K) ↦ causalSoftmax(Q Kᵀ / √k)`, per head: as
`attnWeights`, with `causalSoftmax` on each `[seq, seq]` block in place of the row softmax. -/
def attnWeightsCausal (seq heads k : Nat) :
    Arch (.prod (.tensor [heads, seq, k]) (.tensor [heads, seq, k])) (.tensor [heads, seq, seq]) :=
  (Arch.id (.tensor [heads, seq, k]) ⊗ Arch.transpose [heads] seq k []) ≫
    Arch.matmul [heads] seq k [seq] ≫
    Arch.scale (.invSqrt k) [heads, seq, seq] ≫
    Arch.causalSoftmax [heads] seq

/-- Causal multi-head self-attention (a decoder's masked attention, GPT-2's `GPT2Attention`): as
`selfAttention`, with `attnWeightsCausal`, so position `i` attends to positions `j ≤ i` only. -/
def causalSelfAttention (seq d heads k : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.fan3
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k)
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k)
      (Arch.linear [seq] d (heads * k) ≫ Arch.splitHeads seq heads k) ≫
    (Arch.attnWeightsCausal seq heads k ⊗ Arch.id (.tensor [heads, seq, k])) ≫
    Arch.matmul [heads] seq seq [k] ≫
    Arch.mergeHeads seq heads k ≫
    Arch.linear [seq] (heads * k) d

/-- The SwiGLU feed-forward network of LLaMA (`LlamaMLP`): `down(silu(gate x) ⊙ up x)`, the three
projections affine (leaf order: gate, up, down). -/
def llamaMLP (seq d f : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.copy (.tensor [seq, d]) ≫
    ((Arch.linear [seq] d f ≫ Arch.silu [seq, f]) ⊗ Arch.linear [seq] d f) ≫
    Arch.mul [seq, f] ≫
    Arch.linear [seq] f d

/-- Grouped-query attention with rotary embeddings and the causal mask (`LlamaAttention`):
`kvHeads * groups` query heads share `kvHeads` key/value heads, each used by `groups` consecutive
query heads (`repeatInterleave`, `transformers`' `repeat_kv`); queries and keys are rotated by
`rope` with base `base` before the scores (leaf order: q, k, v, o projections). -/
def gqaAttention (seq d kvHeads groups k base : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.fan3
      (Arch.linear [seq] d ((kvHeads * groups) * k) ≫ Arch.splitHeads seq (kvHeads * groups) k ≫
        Arch.rope [kvHeads * groups] seq k base)
      (Arch.linear [seq] d (kvHeads * k) ≫ Arch.splitHeads seq kvHeads k ≫
        Arch.rope [kvHeads] seq k base ≫ Arch.repeatInterleave [] kvHeads groups [seq, k])
      (Arch.linear [seq] d (kvHeads * k) ≫ Arch.splitHeads seq kvHeads k ≫
        Arch.repeatInterleave [] kvHeads groups [seq, k]) ≫
    (Arch.attnWeightsCausal seq (kvHeads * groups) k ⊗ Arch.id (.tensor [kvHeads * groups, seq, k])) ≫
    Arch.matmul [kvHeads * groups] seq seq [k] ≫
    Arch.mergeHeads seq (kvHeads * groups) k ≫
    Arch.linear [seq] ((kvHeads * groups) * k) d

/-- The LLaMA decoder layer (`LlamaDecoderLayer`): `x + attn(rmsNorm x)`, then `y + mlp(rmsNorm y)`,
with grouped-query attention and the SwiGLU network (leaf order: input norm, q, k, v, o,
post-attention norm, gate, up, down). -/
def llamaDecoder (seq d kvHeads groups k f base : Nat) (eps : Const) :
    Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.residual [seq, d] (Arch.rmsNorm [seq] d eps ≫ Arch.gqaAttention seq d kvHeads groups k base) ≫
    Arch.residual [seq, d] (Arch.rmsNorm [seq] d eps ≫ Arch.llamaMLP seq d f)

end Formal.Arch
