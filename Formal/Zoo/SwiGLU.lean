import Formal.Network.Derived

/-!
# Zoo: the SwiGLU feed-forward network

The feed-forward network of LLaMA (`LlamaMLP`; Shazeer 2020, "GLU variants improve transformer"):
a SiLU-gated linear unit followed by a down projection. Its gate multiplies two computed branches,
which takes it out of the piecewise-linear fragment (as the GLU of `Formal/Zoo/GLU.lean`).
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- SwiGLU feed-forward network on a sequence of `d`-vectors, hidden width `d_ff`:
`down(silu(gate x) ⊙ up x)`, the three projections affine.

Reference: `pybridge.references.hf:llama_mlp`

Example: `seq=5 d=8 d_ff=16` -/
def swiglu {seq : Nat} (d d_ff : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.llamaMLP seq d d_ff

end Formal.Zoo
