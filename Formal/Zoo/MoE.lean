import Formal.Network.Arch

/-!
# Zoo: the top-1 mixture of experts

A hard-routed mixture of linear experts (Switch-style top-1 routing without the gate scaling): a
linear router picks the first arg-max expert, which alone is applied. Categorically it is a copairing
out of a coproduct: `route` tags the input with a branch, `copair` runs that branch. It is
piecewise linear but discontinuous (Villani & McBurney's claim C1, `Formal/PL`).
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- Top-1 mixture of `experts` linear experts `ℝ^d → ℝ^d`, routed by the arg-max of a linear router.

PyTorch: none (reference: `pybridge.laws.references.moe`)

Example: `d=4 experts=3` -/
def moe (d experts : Nat) (h_pos : 0 < experts) : Arch (.tensor [d]) (.tensor [d]) :=
  Arch.copy (.tensor [d]) ≫
    (Arch.linear [] d experts ⊗ Arch.id (.tensor [d])) ≫
    Arch.route experts h_pos (.tensor [d]) ≫
    Arch.copair experts (Arch.linear [] d d)

end Formal.Zoo
