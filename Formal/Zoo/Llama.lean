import Formal.Network.Derived

/-!
# Zoo: the LLaMA decoder layer

The decoder layer of LLaMA (`LlamaDecoderLayer`, Touvron et al. 2023): two residual joins (the forks
of Belfiore & Bennequin §1.2), around causal grouped-query attention with rotary embeddings and
around the SwiGLU feed-forward network, each preceded by an RMS norm (`eps = 1e-6`).
-/

namespace Formal.Zoo

open scoped Formal.Arch

set_option linter.unusedVariables false in
/-- LLaMA decoder layer: `y = x + gqa(rmsNorm₁ x)`, then `y + swiglu(rmsNorm₂ y)`, with `heads` query
heads, `kv_heads` key/value heads of width `head_dim`, rotary base `10000`, hidden width `d_ff`,
`eps = 1e-6`. The hypotheses are those of the counterpart.

Reference: `pybridge.references.hf:llama_decoder_layer`

Example: `seq=5 d_model=8 heads=4 kv_heads=2 head_dim=2 d_ff=16` -/
def llamaDecoderLayer {seq : Nat} (d_model heads kv_heads head_dim d_ff : Nat) (h_kv : 0 < kv_heads)
    (h_grp : kv_heads ∣ heads) (h_even : 2 ∣ head_dim) :
    Arch (.tensor [seq, d_model]) (.tensor [seq, d_model]) :=
  Arch.llamaDecoder seq d_model kv_heads (heads / kv_heads) head_dim d_ff 10000 (.rat 1 1000000)

end Formal.Zoo
