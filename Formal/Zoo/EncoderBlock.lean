import Formal.Zoo.Attention

/-!
# Zoo: the pre-norm transformer encoder block

The transformer block of Villani & McBurney §4, in its pre-norm form: two residual joins (the forks
of Belfiore & Bennequin §1.2), around attention and around a ReLU feed-forward network, each
preceded by a layer norm (`eps = 1e-5`, PyTorch's default).
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- Pre-norm transformer encoder block: `x + attention(LN₁ x)`, then `y + FF(LN₂ y)` with
`FF = Linear(d_model, d_ff) → ReLU → Linear(d_ff, d_model)`.

PyTorch: `torch.nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=0.0, batch_first=True, norm_first=True)`

Example: `seq=5 d_model=8 heads=2 d_ff=16` -/
def encoderBlock {seq : Nat} (d_model heads d_ff : Nat) (h_pos : 0 < heads)
    (h_dvd : heads ∣ d_model) : Arch (.tensor [seq, d_model]) (.tensor [seq, d_model]) :=
  Arch.residual [seq, d_model]
      (Arch.layerNorm [seq] d_model (.rat 1 100000) ≫
        attention (seq := seq) d_model heads h_pos h_dvd) ≫
    Arch.residual [seq, d_model]
      (Arch.layerNorm [seq] d_model (.rat 1 100000) ≫
        Arch.linear [seq] d_model d_ff ≫ Arch.relu [seq, d_ff] ≫ Arch.linear [seq] d_ff d_model)

end Formal.Zoo
