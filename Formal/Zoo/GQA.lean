import Formal.Network.Derived

/-!
# Zoo: grouped-query attention

The attention of LLaMA (`LlamaAttention`; grouped-query attention, Ainslie et al. 2023): `heads`
query heads share `kv_heads` key/value heads, queries and keys are rotated by the rotary position
embedding (base `10000`), and the attention is causal.
-/

namespace Formal.Zoo

open scoped Formal.Arch

set_option linter.unusedVariables false in
/-- Causal grouped-query attention on a sequence of `d_model`-vectors: `heads` query heads and
`kv_heads` key/value heads of width `head_dim`, each key/value head serving `heads / kv_heads`
consecutive query heads, rotary embeddings on queries and keys, affine projections. The hypotheses
are those of the counterpart (at least one key/value head, `kv_heads` divides `heads`, even head width).

Reference: `pybridge.references.hf:llama_attention`

Example: `seq=5 d_model=8 heads=4 kv_heads=2 head_dim=2` -/
def gqa {seq : Nat} (d_model heads kv_heads head_dim : Nat) (h_kv : 0 < kv_heads)
    (h_grp : kv_heads ∣ heads) (h_even : 2 ∣ head_dim) :
    Arch (.tensor [seq, d_model]) (.tensor [seq, d_model]) :=
  Arch.gqaAttention seq d_model kv_heads (heads / kv_heads) head_dim 10000

end Formal.Zoo
