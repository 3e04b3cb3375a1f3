import Formal.Network.Arch

/-!
# Zoo: RMS normalisation

Root-mean-square layer normalisation (Zhang & Sennrich 2019), the normalisation of LLaMA
(`LlamaRMSNorm`) and T5: each vector is divided by the root of its mean square (plus `eps`) and
scaled by a learnt vector; no centring, no shift.
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- RMS normalisation over the feature axis of a sequence of `d`-vectors, `eps = 1e-6`:
`xᵢ / √(mean x² + eps) · γᵢ`.

Reference: `pybridge.references.hf:llama_rms_norm`

Example: `seq=5 d=8` -/
def rmsNorm {seq : Nat} (d : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, d]) :=
  Arch.rmsNorm [seq] d (.rat 1 1000000)

end Formal.Zoo
