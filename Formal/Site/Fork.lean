/-!
# Graphs of networks, the fork construction, normalisation and thinness

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.2–1.3) build the site of a network from its data-flow
graph: at every join `A` (a layer with several inputs `a′, a″, …`) a *fork* is inserted, a new
vertex `A★` with tines `a′ → A★`, `a″ → A★` and handle `A★ → A`; the site is the category generated
by the resulting graph (with arrows reversed, which changes no count of paths), and Prop. 1.1(i)
says that this category is a poset, i.e. thin: between two vertices there is at most one arrow.

The formal model here:

* `Graph V`: a finite directed graph, given by a list of vertices and a successor list per vertex
  (data-flow direction);
* `pathCount g n u v`: the number of directed paths from `u` to `v` with at most `n` edges (a path
  stops on reaching `v`; the empty path counts when `u = v`); for a DAG and `n ≥ #vertices` this
  is the number of arrows `u → v` in the free category on `g`;
* `Thin g`: `pathCount g n u v ≤ 1` for all `n`, `u`, `v`;
* `fork g : Graph (ForkV V)`: vertices `node a` (the layers) and `star A` (the fork points); an
  edge `a → A` into a join `A` becomes `a → star A`, and `star A → node A` is added;
* `normalize g : Graph (List V)`: the *unfolding* of `g` along its maximal paths. A vertex is a
  maximal path `v :: rest` read as "the copy of layer `v` whose output is used along `rest`", and
  its only successor is `rest`. A layer whose output feeds `k` consumers becomes `k` identity copies
  (for the residual block `x ↦ x + f(x)`, the input `x` becomes `[x, f, +]` and `[x, +]`). This is
  the repair of Prop. 1.1(i) used by the library: copy nodes make every fan-out explicit.

Proved:

* `forest_thin`: if every vertex has at most one successor (`Forest g`), `g` is thin (no acyclicity
  needed);
* `fork_forest`: the fork construction preserves `Forest`; hence `fork_thin_of_forest`
  (Prop. 1.1(i) for networks without fan-out);
* `normalize_forest` and `normalize_fork_thin`: the fork site of the normal form is thin, for every
  graph (claim `BB.Prop1.1.i`, repaired form).

Not proved: that `normalize` preserves the function computed by the network (each copy computes
the same value as the layer it copies, which is a statement about semantics, not graphs), and that
the listed vertices of `normalize g` exhaust the maximal paths when `g` has cycles (the fuel
`g.verts.length` suffices for DAGs). The failure of thinness on the raw site of a residual block is
`Formal/Site/Residual.lean`.
-/

namespace Formal.Site

universe u

/-! ## List helpers (own definitions, so that every reduction used below is visible here) -/

/-- `sumOver f [w₁, …, wₖ] = f w₁ + … + f wₖ`. -/
def sumOver {A : Type u} (f : A → Nat) : List A → Nat
  | [] => 0
  | w :: ws => f w + sumOver f ws

/-- `map`, by structural recursion. -/
def mapL {A B : Type u} (f : A → B) : List A → List B
  | [] => []
  | a :: as => f a :: mapL f as

/-- `flatMap`, by structural recursion. -/
def concatMapL {A B : Type u} (f : A → List B) : List A → List B
  | [] => []
  | a :: as => f a ++ concatMapL f as

/-- Number of occurrences of `b`. -/
def countOcc {A : Type u} [DecidableEq A] (b : A) : List A → Nat
  | [] => 0
  | w :: ws => (if w = b then 1 else 0) + countOcc b ws

/-- Boolean membership. -/
def memB {A : Type u} [DecidableEq A] (b : A) : List A → Bool
  | [] => false
  | w :: ws => decide (w = b) || memB b ws

theorem length_mapL {A B : Type u} (f : A → B) : ∀ l : List A, (mapL f l).length = l.length
  | [] => rfl
  | a :: as => by
    show (mapL f as).length + 1 = as.length + 1
    rw [length_mapL f as]

/-- A sum of terms each `≤ 1` is at most the number of terms. -/
theorem sumOver_le_length {A : Type u} (f : A → Nat) (hf : ∀ w : A, f w ≤ 1) :
    ∀ l : List A, sumOver f l ≤ l.length
  | [] => Nat.le_refl 0
  | w :: ws =>
    Nat.le_trans (Nat.add_le_add (hf w) (sumOver_le_length f hf ws))
      (Nat.le_of_eq (Nat.add_comm 1 ws.length))

theorem length_cond_le {A : Type u} (c : Bool) (a : A) : (cond c [a] []).length ≤ 1 := by
  cases c
  · exact Nat.zero_le 1
  · exact Nat.le_refl 1

/-! ## Graphs, path counts, thinness -/

/-- A finite directed graph in data-flow direction: its vertices and, for each vertex, the list of
its successors (one entry per edge). -/
structure Graph (V : Type u) where
  /-- The vertices. -/
  verts : List V
  /-- The successors of a vertex (the layers that consume its output). -/
  succ : V → List V

variable {V : Type u}

/-- The number of paths from `u` to `v` with at most `n` edges, stopping on reaching `v`. -/
def pathCount [DecidableEq V] (g : Graph V) : Nat → V → V → Nat
  | 0, u, v => if u = v then 1 else 0
  | n + 1, u, v => if u = v then 1 else sumOver (fun w => pathCount g n w v) (g.succ u)

/-- Every vertex has at most one successor: each layer's output is used once. -/
def Forest (g : Graph V) : Prop := ∀ v : V, (g.succ v).length ≤ 1

/-- Thinness of the path category: at most one path between any two vertices. -/
def Thin [DecidableEq V] (g : Graph V) : Prop := ∀ (n : Nat) (u v : V), pathCount g n u v ≤ 1

/-- Key lemma: a graph in which every vertex has at most one successor has unique paths. -/
theorem forest_thin [DecidableEq V] (g : Graph V) (hg : Forest g) : Thin g := by
  intro n
  induction n with
  | zero =>
    intro u v
    show (if u = v then 1 else 0) ≤ 1
    by_cases h : u = v
    · exact Nat.le_of_eq (if_pos h)
    · exact Nat.le_trans (Nat.le_of_eq (if_neg h)) (Nat.zero_le 1)
  | succ n ih =>
    intro u v
    show (if u = v then 1 else sumOver (fun w => pathCount g n w v) (g.succ u)) ≤ 1
    by_cases h : u = v
    · exact Nat.le_of_eq (if_pos h)
    · exact Nat.le_trans (Nat.le_of_eq (if_neg h))
        (Nat.le_trans
          (sumOver_le_length (fun w => pathCount g n w v) (fun w => ih w v) (g.succ u)) (hg u))

/-- The explicit path `u = u₀ → u₁ → … → uₖ` given as `u` and `[u₁, …, uₖ]` is a path of `g`. -/
def isPathFrom [DecidableEq V] (g : Graph V) : V → List V → Bool
  | _, [] => true
  | a, b :: rest => memB b (g.succ a) && isPathFrom g b rest

/-! ## The fork construction -/

/-- Vertices of the fork graph: the layers `node a` and the fork points `star A`. -/
inductive ForkV (V : Type u) where
  /-- A layer of the network. -/
  | node : V → ForkV V
  /-- The fork point `A★` of a join `A`. -/
  | star : V → ForkV V
  deriving DecidableEq

/-- In-degree: the number of edges into `b`. -/
def inDeg [DecidableEq V] (g : Graph V) (b : V) : Nat :=
  sumOver (fun a => countOcc b (g.succ a)) g.verts

/-- A join: a layer with at least two incoming edges. -/
def isJoin [DecidableEq V] (g : Graph V) (b : V) : Bool := Nat.ble 2 (inDeg g b)

/-- Where an edge into `b` lands in the fork graph: `star b` if `b` is a join, else `node b`. -/
def forkTarget [DecidableEq V] (g : Graph V) (b : V) : ForkV V :=
  cond (isJoin g b) (ForkV.star b) (ForkV.node b)

/-- The fork construction: tines `a → A★` replace the edges `a → A` into a join `A`, and the
handle `A★ → A` is added. -/
def fork [DecidableEq V] (g : Graph V) : Graph (ForkV V) where
  verts := mapL ForkV.node g.verts ++ mapL ForkV.star (g.verts.filter (isJoin g))
  succ := fun
    | ForkV.node a => mapL (forkTarget g) (g.succ a)
    | ForkV.star b => cond (isJoin g b) [ForkV.node b] []

/-- The fork construction preserves `Forest`: a layer keeps its number of outgoing edges, and a
fork point has the single handle edge. -/
theorem fork_forest [DecidableEq V] (g : Graph V) (hg : Forest g) : Forest (fork g) := by
  intro p
  cases p with
  | node a =>
    show (mapL (forkTarget g) (g.succ a)).length ≤ 1
    exact Nat.le_trans (Nat.le_of_eq (length_mapL (forkTarget g) (g.succ a))) (hg a)
  | star b =>
    show (cond (isJoin g b) [ForkV.node b] []).length ≤ 1
    exact length_cond_le (isJoin g b) (ForkV.node b)

/-- `BB.Prop1.1.i` for networks without fan-out: if every layer's output is used by at most one
layer, the fork site is thin (a poset). -/
theorem fork_thin_of_forest [DecidableEq V] (g : Graph V) (hg : Forest g) : Thin (fork g) :=
  forest_thin (fork g) (fork_forest g hg)

/-! ## Normalisation: identity copies along maximal paths -/

/-- The maximal paths leaving `v`, following at most `n` edges. -/
def pathsFrom (g : Graph V) : Nat → V → List (List V)
  | 0, v => [[v]]
  | n + 1, v =>
    match g.succ v with
    | [] => [[v]]
    | w :: ws => concatMapL (fun w' => mapL (List.cons v) (pathsFrom g n w')) (w :: ws)

/-- The normal form: one vertex per maximal path `v :: rest` (the copy of `v` used along `rest`),
whose only successor is `rest`. -/
def normalize (g : Graph V) : Graph (List V) where
  verts := concatMapL (pathsFrom g g.verts.length) g.verts
  succ := fun
    | _ :: w :: rest => [w :: rest]
    | _ => []

/-- In the normal form every vertex has at most one successor. -/
theorem normalize_forest (g : Graph V) : Forest (normalize g) := by
  intro p
  match p with
  | [] => exact Nat.zero_le 1
  | [_] => exact Nat.zero_le 1
  | _ :: _ :: _ => exact Nat.le_refl 1

/-- `BB.Prop1.1.i` (repaired form): after normalisation, the fork site of any network is thin,
i.e. the category it generates is a poset. -/
theorem normalize_fork_thin [DecidableEq V] (g : Graph V) : Thin (fork (normalize g)) :=
  fork_thin_of_forest (normalize g) (normalize_forest g)

end Formal.Site
