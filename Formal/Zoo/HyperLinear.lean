import Formal.Network.Arch

/-!
# Zoo: the hyper-linear layer

A linear layer whose weight matrix is itself computed from the input by another linear map
(a one-layer hypernetwork, Ha et al.): one weight set per sample. It is the smallest layer with
input-dependent weights, the "choose, then evaluate" pattern that Villani & McBurney attribute to
attention, without any softmax.
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- `x ↦ W(x) x` with `W(x) = reshape(A x + a) ∈ ℝ^{d_out × d_in}`.

PyTorch: none (reference: `pybridge.laws.references.hyper_linear`)

Example: `d_in=4 d_out=3` -/
def hyperLinear (d_in d_out : Nat) : Arch (.tensor [d_in]) (.tensor [d_out]) :=
  Arch.copy (.tensor [d_in]) ≫
    ((Arch.linear [] d_in (d_out * d_in) ≫ Arch.splitLast [] d_out d_in) ⊗
      Arch.id (.tensor [d_in])) ≫
    Arch.matmul [] d_out d_in []

end Formal.Zoo
