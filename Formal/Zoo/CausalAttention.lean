import Formal.Network.Derived

/-!
# Zoo: causal multi-head self-attention

The masked self-attention of a decoder (GPT-2's `GPT2Attention`): as `Formal.Zoo.attention`, but
position `i` attends to positions `j ≤ i` only (`Arch.causalSoftmax`). The sequence length `seq` is
implicit: it is read off the input.
-/

namespace Formal.Zoo

open scoped Formal.Arch

set_option linter.unusedVariables false in
/-- Causal multi-head self-attention on a sequence of `d_model`-vectors, `heads` heads of width
`d_model / heads`, with affine input and output projections and scores scaled by
`1/√(d_model / heads)`. The hypotheses are those of the counterpart (at least one head, heads
divide the width).

Reference: `pybridge.references.hf:gpt2_attention`

Example: `seq=5 d_model=8 heads=2` -/
def causalAttention {seq : Nat} (d_model heads : Nat) (h_pos : 0 < heads) (h_dvd : heads ∣ d_model) :
    Arch (.tensor [seq, d_model]) (.tensor [seq, d_model]) :=
  Arch.causalSelfAttention seq d_model heads (d_model / heads)

end Formal.Zoo
