import Formal.Network.Arch

/-!
# Zoo: the multilayer perceptron

The two-layer perceptron, the network of Belfiore & Bennequin §1.1 in its simplest form and the
prototype of the piecewise-linear networks of Villani & McBurney §3.
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- Two-layer perceptron on vectors: `Linear(d_in, d_hidden) → ReLU → Linear(d_hidden, d_out)`.

PyTorch: `torch.nn.Sequential(torch.nn.Linear(d_in, d_hidden), torch.nn.ReLU(), torch.nn.Linear(d_hidden, d_out))`

Example: `d_in=4 d_hidden=16 d_out=3` -/
def mlp (d_in d_hidden d_out : Nat) : Arch (.tensor [d_in]) (.tensor [d_out]) :=
  Arch.linear [] d_in d_hidden ≫ Arch.relu [d_hidden] ≫ Arch.linear [] d_hidden d_out

end Formal.Zoo
