import Formal.Site.Fork
import Formal.Site.Poset

/-!
# A residual block: the raw fork graph is not thin; its tree unfolding is

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3, Prop. 1.1(i)) claim that the category generated
by the fork graph of a network is a poset. This file checks the claim, by computation, on the
smallest network with a skip connection, the residual block `y = x + f(x)`, with the data-flow
fork graph of `Formal/Site/Fork.lean` (not B&B's site itself: see that file's docstring, and
`Formal/Site/CopyNormal.lean` for the site in B&B's orientation):

* data-flow graph `raw`: `0 = x` (input), `1 = f` (residual branch), `2 = +` (the join), with edges
  `0 → 1`, `1 → 2`, `0 → 2`;
* in `fork raw` the join `2` gets its fork point `2★`, and there are two distinct paths
  `0 → 2★` (directly, and through `f`): the fork graph is not thin (`raw_fork_not_thin`), so
  Prop. 1.1(i) fails for networks with fan-out (it is also acyclic:
  `raw_fork_acyclic_not_thin` in `Formal/Site/Acyclic.lean`);
* the tree unfolding `normalized = normalize raw` has the four vertices `[0,1,2]`, `[0,2]`, `[1,2]`,
  `[2]`: the input `x` becomes two vertices with no common source, so `normalized` is the graph of
  a different network, `(a, b) ↦ f(a) + b`, which is the residual block only once `a = b = x` is
  imposed from outside. Its fork graph is thin (`normalized_fork_thin`, an instance of the general
  `normalize_fork_thin`), and its four layers, ordered by the paths of that fork graph, are the
  finite poset `ResX` of `Formal/Site/Poset.lean` (`normalized_verts_resX`,
  `normalized_fork_verts`, `normalized_order_resX`; for every bound on the path length from 6 on:
  `normalized_order_resX_stable` in `Formal/Site/Acyclic.lean`);
* restoring the shared source (a vertex `[0]` for `x`, feeding both copies: `normalizedShared`)
  brings the second path back: `normalizedShared_fork_not_thin`. So in the data-flow fork graph
  thinness is bought by the unfolding; with the shared input kept, thinness holds in the site's
  own orientation (`Formal/Site/CopyNormal.lean`, `copySite_thin`).

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

/-- `BB.Prop1.1.i` refuted as stated: the data-flow fork graph of the residual block is not thin
(two paths from the input to `2★`). -/
theorem raw_fork_not_thin : ¬ Thin (fork raw) := by
  intro h
  have h3 : pathCount (fork raw) 3 (ForkV.node 0) (ForkV.star 2) ≤ 1 :=
    h 3 (ForkV.node 0) (ForkV.star 2)
  have h21 : (2 : Nat) ≤ 1 := Nat.le_trans (Nat.le_of_eq raw_two_paths.symm) h3
  exact absurd h21 (by decide)

/-- The tree unfolding (`normalize`) of the residual block: the input becomes two vertices, one per
use, with no common source. -/
def normalized : Graph (List Nat) := normalize raw

/-- Its vertices: `[0,1,2]` (the input along the branch `f`), `[0,2]` (the input along the skip
edge), `[1,2]` (`f`) and `[2]` (the addition). -/
theorem normalized_verts : normalized.verts = [[0, 1, 2], [0, 2], [1, 2], [2]] := by
  decide

/-- The addition is still a join in the tree unfolding. -/
theorem normalized_isJoin : isJoin normalized [2] = true := by
  decide

/-- In the tree unfolding each of the two input vertices reaches the addition by exactly one path
(of at most 4 edges). -/
theorem normalized_unique_paths :
    pathCount (fork normalized) 4 (ForkV.node [0, 2]) (ForkV.node [2]) = 1 ∧
    pathCount (fork normalized) 4 (ForkV.node [0, 1, 2]) (ForkV.node [2]) = 1 := by
  decide

/-- The fork graph of the tree unfolding of the residual block is thin. -/
theorem normalized_fork_thin : Thin (fork normalized) :=
  normalize_fork_thin raw

/-! ## The layers of the tree unfolding form `ResX` -/

/-- The vertex of `normalized` that each element of `ResX` names. -/
def resLayer : ResX → List Nat
  | ResX.inMain => [0, 1, 2]
  | ResX.inSkip => [0, 2]
  | ResX.branch => [1, 2]
  | ResX.join => [2]

/-- The vertices of `normalized` are the images under `resLayer` of the four elements of `ResX`,
listed as in `instFinPosetResX`. -/
theorem normalized_verts_resX :
    normalized.verts = mapL resLayer [ResX.inMain, ResX.inSkip, ResX.branch, ResX.join] :=
  normalized_verts

/-- The fork graph of `normalized` has the four layers and one fork point, `[2]★`. -/
theorem normalized_fork_verts :
    (fork normalized).verts =
      [ForkV.node [0, 1, 2], ForkV.node [0, 2], ForkV.node [1, 2], ForkV.node [2],
        ForkV.star [2]] := by
  decide

/-- The order of `ResX` is the path order of the fork graph of `normalized` on its layers: for
`a b : ResX`, there is a path of at most 6 edges from `resLayer b` to `resLayer a` exactly when
`ResX.leB a b` (data flows from `b` to `a`, or `a = b`). Every bound `6 + k` gives the same answer:
`Residual.normalized_order_resX_stable` in `Formal/Site/Acyclic.lean`. -/
theorem normalized_order_resX (a b : ResX) :
    Nat.ble 1
        (pathCount (fork normalized) 6 (ForkV.node (resLayer b)) (ForkV.node (resLayer a))) =
      ResX.leB a b := by
  cases a <;> cases b <;> decide

/-! ## With the shared source restored, the second path is back -/

/-- The tree unfolding with the shared input restored: the vertex `[0]` (the input `x` itself)
feeds its two copies `[0, 1, 2]` and `[0, 2]`. This is the residual block again, with an explicit
identity copy on each use of `x`. -/
def normalizedShared : Graph (List Nat) where
  verts := [0] :: normalized.verts
  succ := fun p => if p = [0] then [[0, 1, 2], [0, 2]] else normalized.succ p

/-- Two paths from the shared input to the fork point `[2]★` of the addition: through each copy. -/
theorem normalizedShared_two_paths :
    pathCount (fork normalizedShared) 4 (ForkV.node [0]) (ForkV.star [2]) = 2 := by
  decide

/-- With the shared source, the data-flow fork graph is not thin again. -/
theorem normalizedShared_fork_not_thin : ¬ Thin (fork normalizedShared) := by
  intro h
  have h4 : pathCount (fork normalizedShared) 4 (ForkV.node [0]) (ForkV.star [2]) ≤ 1 :=
    h 4 (ForkV.node [0]) (ForkV.star [2])
  have h21 : (2 : Nat) ≤ 1 := Nat.le_trans (Nat.le_of_eq normalizedShared_two_paths.symm) h4
  exact absurd h21 (by decide)

end Residual

end Formal.Site
