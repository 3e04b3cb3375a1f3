import Formal.Network.Derived

/-!
# Zoo: multi-head self-attention

Self-attention as in `torch.nn.MultiheadAttention` (Vaswani et al.), the layer whose input-dependent
weights are the subject of Villani & McBurney §4. The sequence length `seq` is implicit: it is read
off the input, and the PyTorch realisation accepts any sequence length.
-/

namespace Formal.Zoo

open scoped Formal.Arch

set_option linter.unusedVariables false in
/-- Multi-head self-attention on a sequence of `d_model`-vectors, `heads` heads of width
`d_model / heads`, with input and output projections and scores scaled by `1/√(d_model / heads)`.
The hypotheses are those of the PyTorch counterpart (at least one head, heads divide the width).

PyTorch: `torch.nn.MultiheadAttention(d_model, heads, batch_first=True)`

Example: `seq=5 d_model=8 heads=2` -/
def attention {seq : Nat} (d_model heads : Nat) (h_pos : 0 < heads) (h_dvd : heads ∣ d_model) :
    Arch (.tensor [seq, d_model]) (.tensor [seq, d_model]) :=
  Arch.selfAttention seq d_model heads (d_model / heads)

end Formal.Zoo
