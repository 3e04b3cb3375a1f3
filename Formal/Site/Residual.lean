import Formal.Site.Fork

/-!
# A residual block: the raw fork site is not thin; its normal form is

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3, Prop. 1.1(i)) claim that the category generated
by the fork graph of a network is a poset. This file checks the claim, by computation, on the
smallest network with a skip connection, the residual block `y = x + f(x)`:

* data-flow graph `raw`: `0 = x` (input), `1 = f` (residual branch), `2 = +` (the join), with edges
  `0 → 1`, `1 → 2`, `0 → 2`;
* in `fork raw` the join `2` gets its fork point `2★`, and there are two distinct paths
  `0 → 2★` (directly, and through `f`): the raw site is not thin (`raw_fork_not_thin`), so
  Prop. 1.1(i) is refuted as stated for networks with fan-out;
* the normal form `normalized = normalize raw` has the four layers `[0,1,2]`, `[0,2]`, `[1,2]`,
  `[2]` (two identity copies of the input), and its fork site is thin (`normalized_fork_thin`, an
  instance of the general `normalize_fork_thin`). Its layers form the finite poset `ResX` of
  `Formal/Site/Poset.lean`.

All the concrete facts are decided by evaluation (`decide`) on these small graphs.
-/

namespace Formal.Site

namespace Residual

/-- The data-flow graph of the residual block `y = x + f(x)`: `0 = x`, `1 = f`, `2 = +`. -/
def raw : Graph Nat where
  verts := [0, 1, 2]
  succ := fun v => if v = 0 then [1, 2] else if v = 1 then [2] else []

/-- The addition is a join (two incoming edges). -/
theorem raw_isJoin : isJoin raw 2 = true := by decide

/-- The input feeds two layers, so the raw graph is not a forest. -/
theorem raw_not_forest : ¬ Forest raw := by
  intro h
  have h0 : (raw.succ 0).length ≤ 1 := h 0
  exact absurd h0 (by decide)

/-- Two distinct paths from the input to the fork point `2★` of the join: directly, and through
the residual branch `f`. -/
theorem raw_two_distinct_paths :
    isPathFrom (fork raw) (ForkV.node 0) [ForkV.star 2] = true ∧
    isPathFrom (fork raw) (ForkV.node 0) [ForkV.node 1, ForkV.star 2] = true ∧
    ([ForkV.star 2] : List (ForkV Nat)) ≠ [ForkV.node 1, ForkV.star 2] := by
  decide

/-- The path counter agrees: exactly two paths from the input to `2★`. -/
theorem raw_two_paths : pathCount (fork raw) 3 (ForkV.node 0) (ForkV.star 2) = 2 := by
  decide

/-- `BB.Prop1.1.i` refuted as stated: the fork site of the residual block is not thin (the category
it generates is not a poset). -/
theorem raw_fork_not_thin : ¬ Thin (fork raw) := by
  intro h
  have h3 : pathCount (fork raw) 3 (ForkV.node 0) (ForkV.star 2) ≤ 1 :=
    h 3 (ForkV.node 0) (ForkV.star 2)
  have h21 : (2 : Nat) ≤ 1 := Nat.le_trans (Nat.le_of_eq raw_two_paths.symm) h3
  exact absurd h21 (by decide)

/-- The normal form of the residual block: the input is split into two identity copies. -/
def normalized : Graph (List Nat) := normalize raw

/-- Its layers: `[0,1,2]` (input copy feeding `f`), `[0,2]` (input copy on the skip edge),
`[1,2]` (`f`) and `[2]` (the addition). -/
theorem normalized_verts : normalized.verts = [[0, 1, 2], [0, 2], [1, 2], [2]] := by
  decide

/-- The addition is still a join in the normal form. -/
theorem normalized_isJoin : isJoin normalized [2] = true := by
  decide

/-- In the normal form each input copy reaches the addition by exactly one path. -/
theorem normalized_unique_paths :
    pathCount (fork normalized) 4 (ForkV.node [0, 2]) (ForkV.node [2]) = 1 ∧
    pathCount (fork normalized) 4 (ForkV.node [0, 1, 2]) (ForkV.node [2]) = 1 := by
  decide

/-- `BB.Prop1.1.i` (repaired form) on the residual block: the fork site of the normal form is thin. -/
theorem normalized_fork_thin : Thin (fork normalized) :=
  normalize_fork_thin raw

end Residual

end Formal.Site
