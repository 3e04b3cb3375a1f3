import Formal.Network.Arch

/-!
# Derived layers

Combinators built from the primitives of `Arch`, used by the Zoo: the residual connection, the
three-way fan-out of queries, keys and values, and the head split and merge of multi-head attention.
They are ordinary definitions; the Python bridge expands them when it reads a Zoo layer.

Sources: residual joins are the "forks" of Belfiore & Bennequin §1.2; the head plumbing follows
`torch.nn.MultiheadAttention`.
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

end Formal.Arch
