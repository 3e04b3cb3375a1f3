import Formal.Network.Arch

/-!
# Zoo: rotary position embedding

The rotary position embedding of RoFormer (Su et al. 2021) in the "rotate half" convention of
`transformers` (`LlamaRotaryEmbedding` with `apply_rotary_pos_emb`), base `10000`: on each head, the
feature pairs `(i, i + head_dim/2)` of position `p` are rotated by the angle `p · 10000^(-2i/head_dim)`.
-/

namespace Formal.Zoo

open scoped Formal.Arch

set_option linter.unusedVariables false in
/-- Rotary position embedding of `heads` heads of width `head_dim` (even), base `10000`, the
position being the index on the sequence axis.

Reference: `pybridge.references.hf:llama_rotary`

Example: `seq=5 heads=2 head_dim=4` -/
def rotary {seq : Nat} (heads head_dim : Nat) (h_even : 2 ∣ head_dim) :
    Arch (.tensor [heads, seq, head_dim]) (.tensor [heads, seq, head_dim]) :=
  Arch.rope [heads] seq head_dim 10000

end Formal.Zoo
