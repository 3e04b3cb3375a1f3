import Formal.Network.Arch

/-!
# Zoo: the gated linear unit

A gated linear unit (Dauphin et al.): a linear value branch multiplied entrywise by a sigmoid gate
computed from the same input. The product of two computed branches takes it out of the
piecewise-linear fragment (Villani & McBurney's claim C2, `Formal/PL`).
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- Gated linear unit: `(W₁ x + b₁) ⊙ σ(W₂ x + b₂)`.

PyTorch: `torch.nn.Sequential(torch.nn.Linear(d_in, 2 * d_out), torch.nn.GLU(dim=-1))`

Example: `d_in=6 d_out=4` -/
def glu (d_in d_out : Nat) : Arch (.tensor [d_in]) (.tensor [d_out]) :=
  Arch.copy (.tensor [d_in]) ≫
    (Arch.linear [] d_in d_out ⊗ (Arch.linear [] d_in d_out ≫ Arch.sigmoid [d_out])) ≫
    Arch.mul [d_out]

end Formal.Zoo
