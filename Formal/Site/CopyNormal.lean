import Formal.Site.Fork

/-!
# A thinness criterion for sites with copy nodes, checked on the residual block

The Python side (`pybridge/site/`) builds the site `C` of a network in the orientation of
Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3): arrows *reverse* the data flow (`v → u` when `v`
reads `u`), and at every join `a` (two or more inputs `a′ᵢ`) the reversed edges of `a` are replaced
by the fork: tines `a′ᵢ → A★`, `A★ → A` and the handle `a → A`. Its normal form inserts an identity
copy node on every edge into a join; the Python check finds that site thin on every test model.
`Formal/Site/Fork.lean` works in data-flow direction with a tree unfolding (the graph of a different
network); this file gives a thinness criterion for sites of the Python shape, in the site
orientation, and checks it on one hand-written site.

Why the copy-normalised site should be thin (the informal argument; it is not formalised, see
"Not proved" below). Call the copy nodes *tips*. In the copy-normalised site
(i) a vertex that is not a tip has at most one outgoing arrow (an input has none, a layer with one
input has its reversed edge, a join `a` only its handle `a → A`, `A★ → A`, `A` none); (ii) a tip is
read only by its join, whose reversed edges are replaced by the fork, so no arrow ends at a tip, and
a tip has exactly two arrows: to the tensor `u` it copies and its tine to `A★`; (iii) from `A★` only
`A★` and `A` are reached, and from `u` neither: only tips point to `A★`, and `A` is reached only
from `A★` or by the handle from the join `a`, which is a descendant of `u` in the data flow, not an
ancestor (acyclicity). So the two branches out of a tip reach disjoint sets, and below each branch
paths are unique by (i).

Proved here:

* `thin_of_tips`: the abstract lemma. Let `tip : V → Bool` mark some vertices. If every non-tip has
  at most one successor and that successor is not a tip (`chainOk`), and every tip has exactly two
  successors `a`, `b`, both non-tips, whose reachable sets are disjoint (`Separated`), then the
  graph is thin (`Thin`, with the `pathCount` of `Fork.lean`). No acyclicity is needed for that
  conclusion; but `Thin` alone does not rule out non-empty loops, so the two sites below are also
  proved acyclic in `Formal/Site/Acyclic.lean`.
* `separated_of_closed`: disjointness follows from two forward-closed Boolean predicates
  (`ForwardClosed`) that separate `a` from `b`; this makes the hypotheses checkable by evaluation.
* On the residual block `y = x + f(x)` of `Formal/Site/Residual.lean`, written as a site in the
  Python orientation: the raw site `CopyNormal.rawSite` has two paths from `f` to `A★`
  (`rawSite_two_paths`, `rawSite_not_thin`; it is acyclic: `rawSite_acyclic_not_thin`), and the
  copy-normalised site `CopyNormal.copySite` is thin (`copySite_thin`), by `thin_of_tips`, and
  acyclic (`copySite_thin_acyclic`).

Not proved: that the copy-normalised site of *every* data-flow DAG satisfies the hypotheses of
`thin_of_tips` (points (i)–(iii) above); the two sites below are written out by hand, not computed
from a data-flow graph.
-/

namespace Formal.Site

universe u

variable {V : Type u}

/-! ## Boolean helpers -/

/-- Every element of the list satisfies `p`. -/
def allB (p : V → Bool) : List V → Bool
  | [] => true
  | w :: ws => p w && allB p ws

/-- A successor list of a non-tip: empty, or a single successor that is not a tip. -/
def chainOk (tip : V → Bool) : List V → Bool
  | [] => true
  | [w] => !(tip w)
  | _ :: _ :: _ => false

theorem band_left {a b : Bool} (h : (a && b) = true) : a = true := by
  cases a
  · exact absurd h (by decide : ¬(false = true))
  · rfl

theorem band_right {a b : Bool} (h : (a && b) = true) : b = true := by
  cases a
  · exact absurd h (by decide : ¬(false = true))
  · exact h

theorem bool_eq_false_of_not {b : Bool} (h : (!b) = true) : b = false := by
  cases b
  · rfl
  · exact absurd h (by decide : ¬(false = true))

/-- Two vertices told apart by a Boolean predicate are distinct. -/
theorem ne_of_side {P : V → Bool} {u v : V} (hu : P u = true) (hv : P v = false) : ¬ u = v := by
  intro h
  subst h
  exact absurd (Eq.trans hu.symm hv) (by decide)

/-! ## Sums over successor lists -/

theorem sumOver_chainOk (tip : V → Bool) (f : V → Nat) (hf : ∀ w : V, tip w = false → f w ≤ 1) :
    ∀ l : List V, chainOk tip l = true → sumOver f l ≤ 1
  | [], _ => Nat.zero_le 1
  | [w], h => by
    have h1 : f w ≤ 1 := hf w (bool_eq_false_of_not (b := tip w) h)
    have h2 : f w + sumOver f [] ≤ 1 + 0 := Nat.add_le_add h1 (Nat.le_refl 0)
    show f w + sumOver f [] ≤ 1
    exact Nat.le_trans h2 (by decide)
  | _ :: _ :: _, h => absurd h (by decide : ¬(false = true))

theorem sumOver_eq_zero (P : V → Bool) (f : V → Nat) (hf : ∀ w : V, P w = true → f w = 0) :
    ∀ l : List V, allB P l = true → sumOver f l = 0
  | [], _ => rfl
  | w :: ws, h => by
    have h1 : f w = 0 := hf w (band_left (a := P w) (b := allB P ws) h)
    have h2 : sumOver f ws = 0 :=
      sumOver_eq_zero P f hf ws (band_right (a := P w) (b := allB P ws) h)
    have h3 : f w + sumOver f ws = 0 + 0 := by rw [h1, h2]
    exact Eq.trans h3 (Nat.add_zero 0)

/-! ## Path counts from a vertex with no tip below it -/

theorem pathCount_zero_le [DecidableEq V] (g : Graph V) (u v : V) : pathCount g 0 u v ≤ 1 := by
  show (if u = v then 1 else 0) ≤ 1
  by_cases h : u = v
  · exact Nat.le_of_eq (if_pos h)
  · exact Nat.le_trans (Nat.le_of_eq (if_neg h)) (Nat.zero_le 1)

/-- From a non-tip, paths are unique when every non-tip has at most one successor, never a tip. -/
theorem tipFree_le [DecidableEq V] (g : Graph V) (tip : V → Bool)
    (hout : ∀ u : V, tip u = false → chainOk tip (g.succ u) = true) :
    ∀ (n : Nat) (u v : V), tip u = false → pathCount g n u v ≤ 1 := by
  intro n
  induction n with
  | zero =>
    intro u v _
    exact pathCount_zero_le g u v
  | succ n ih =>
    intro u v hu
    show (if u = v then 1 else sumOver (fun w => pathCount g n w v) (g.succ u)) ≤ 1
    by_cases h : u = v
    · exact Nat.le_of_eq (if_pos h)
    · exact Nat.le_trans (Nat.le_of_eq (if_neg h))
        (sumOver_chainOk tip (fun w => pathCount g n w v) (fun w hw => ih w v hw) (g.succ u)
          (hout u hu))

/-! ## Separated branches and the abstract thinness lemma -/

/-- The vertices reachable from `a` and from `b` are disjoint: for every length bound and target,
one of the two path counts vanishes. -/
def Separated [DecidableEq V] (g : Graph V) (a b : V) : Prop :=
  ∀ (n : Nat) (v : V), pathCount g n a v = 0 ∨ pathCount g n b v = 0

/-- A Boolean predicate closed under taking successors. -/
def ForwardClosed (g : Graph V) (P : V → Bool) : Prop :=
  ∀ u : V, P u = true → allB P (g.succ u) = true

/-- No path leaves a forward-closed predicate. -/
theorem pathCount_eq_zero_of_closed [DecidableEq V] (g : Graph V) (P : V → Bool)
    (hP : ForwardClosed g P) :
    ∀ (n : Nat) (u v : V), P u = true → P v = false → pathCount g n u v = 0 := by
  intro n
  induction n with
  | zero =>
    intro u v hu hv
    show (if u = v then 1 else 0) = 0
    exact if_neg (ne_of_side (P := P) hu hv)
  | succ n ih =>
    intro u v hu hv
    show (if u = v then 1 else sumOver (fun w => pathCount g n w v) (g.succ u)) = 0
    exact Eq.trans (if_neg (ne_of_side (P := P) hu hv))
      (sumOver_eq_zero P (fun w => pathCount g n w v) (fun w hw => ih w v hw hv) (g.succ u)
        (hP u hu))

/-- Two disjoint forward-closed predicates, one holding at `a` and one at `b`, separate them. -/
theorem separated_of_closed [DecidableEq V] (g : Graph V) (P Q : V → Bool)
    (hP : ForwardClosed g P) (hQ : ForwardClosed g Q) (a b : V) (ha : P a = true)
    (hb : Q b = true) (hPQ : ∀ v : V, P v = true → Q v = false) : Separated g a b := by
  intro n v
  cases hv : P v with
  | true => exact Or.inr (pathCount_eq_zero_of_closed g Q hQ n b v hb (hPQ v hv))
  | false => exact Or.inl (pathCount_eq_zero_of_closed g P hP n a v ha hv)

/-- The abstract thinness lemma for sites with tips: if every non-tip has at most one successor,
never a tip, and every tip has exactly two successors, both non-tips, with disjoint reachable
sets, then the graph is thin. -/
theorem thin_of_tips [DecidableEq V] (g : Graph V) (tip : V → Bool)
    (hout : ∀ u : V, tip u = false → chainOk tip (g.succ u) = true)
    (htip : ∀ t : V, tip t = true →
      ∃ a b : V, g.succ t = [a, b] ∧ tip a = false ∧ tip b = false ∧ Separated g a b) :
    Thin g := by
  intro n u v
  cases hu : tip u with
  | false => exact tipFree_le g tip hout n u v hu
  | true =>
    cases n with
    | zero => exact pathCount_zero_le g u v
    | succ n =>
      obtain ⟨a, b, hs, ha, hb, hab⟩ := htip u hu
      show (if u = v then 1 else sumOver (fun w => pathCount g n w v) (g.succ u)) ≤ 1
      by_cases h : u = v
      · exact Nat.le_of_eq (if_pos h)
      · have hsum : sumOver (fun w => pathCount g n w v) [a, b] ≤ 1 := by
          show pathCount g n a v + (pathCount g n b v + 0) ≤ 1
          cases hab n v with
          | inl h0 =>
            exact Nat.le_trans
              (Nat.add_le_add (Nat.le_of_eq h0)
                (Nat.add_le_add (tipFree_le g tip hout n b v hb) (Nat.le_refl 0)))
              (by decide)
          | inr h0 =>
            exact Nat.le_trans
              (Nat.add_le_add (tipFree_le g tip hout n a v ha)
                (Nat.add_le_add (Nat.le_of_eq h0) (Nat.le_refl 0)))
              (by decide)
        have hsucc : sumOver (fun w => pathCount g n w v) (g.succ u) =
            sumOver (fun w => pathCount g n w v) [a, b] :=
          congrArg (sumOver (fun w => pathCount g n w v)) hs
        exact Nat.le_trans (Nat.le_of_eq (if_neg h))
          (Nat.le_trans (Nat.le_of_eq hsucc) hsum)

/-! ## The residual block `y = x + f(x)` as a site, raw and copy-normalised -/

namespace CopyNormal

/-- Objects of the raw site of the residual block: the input `x`, the branch `f`, the join `add`,
and the join's fork objects `tang` (`A★`) and `obj` (`A`). -/
inductive RawV where
  | x | f | add | tang | obj
  deriving DecidableEq

/-- The raw site, in the Python orientation: `f → x` (reversed edge: `f` reads `x`), the tines
`x → A★` and `f → A★` (both inputs of the join), `A★ → A` and the handle `add → A`; the join's own
reversed edges `add → f`, `add → x` are replaced by the fork. -/
def rawSite : Graph RawV where
  verts := [RawV.x, RawV.f, RawV.add, RawV.tang, RawV.obj]
  succ := fun
    | RawV.x => [RawV.tang]
    | RawV.f => [RawV.x, RawV.tang]
    | RawV.add => [RawV.obj]
    | RawV.tang => [RawV.obj]
    | RawV.obj => []

/-- Two paths from `f` to `A★`: the tine, and `f → x → A★`. -/
theorem rawSite_two_paths : pathCount rawSite 2 RawV.f RawV.tang = 2 := by
  decide

/-- The raw site of the residual block is not thin (Prop. 1.1(i) fails, site orientation). -/
theorem rawSite_not_thin : ¬ Thin rawSite := by
  intro h
  have h2 : pathCount rawSite 2 RawV.f RawV.tang ≤ 1 := h 2 RawV.f RawV.tang
  have h21 : (2 : Nat) ≤ 1 := Nat.le_trans (Nat.le_of_eq rawSite_two_paths.symm) h2
  exact absurd h21 (by decide)

/-- Objects of the copy-normalised site: as in `RawV`, plus the copy nodes `cf` (copy of `f`) and
`cx` (copy of `x`) on the two edges into the join. -/
inductive CopyV where
  | x | f | cf | cx | add | tang | obj
  deriving DecidableEq

/-- The copy-normalised site: reversed edges `f → x`, `cf → f`, `cx → x`; tines `cf → A★`,
`cx → A★`; `A★ → A` and the handle `add → A` (the join's reversed edges `add → cf`, `add → cx` are
replaced by the fork). -/
def copySite : Graph CopyV where
  verts := [CopyV.x, CopyV.f, CopyV.cf, CopyV.cx, CopyV.add, CopyV.tang, CopyV.obj]
  succ := fun
    | CopyV.x => []
    | CopyV.f => [CopyV.x]
    | CopyV.cf => [CopyV.f, CopyV.tang]
    | CopyV.cx => [CopyV.x, CopyV.tang]
    | CopyV.add => [CopyV.obj]
    | CopyV.tang => [CopyV.obj]
    | CopyV.obj => []

/-- The tips: the two copy nodes. -/
def copyTip : CopyV → Bool
  | CopyV.cf => true
  | CopyV.cx => true
  | _ => false

/-- The part of the site below the copied tensors: `x` and `f`. -/
def mainSide : CopyV → Bool
  | CopyV.x => true
  | CopyV.f => true
  | _ => false

/-- The fork objects `A★` and `A`. -/
def forkSide : CopyV → Bool
  | CopyV.tang => true
  | CopyV.obj => true
  | _ => false

theorem copySite_out :
    ∀ u : CopyV, copyTip u = false → chainOk copyTip (copySite.succ u) = true := by
  intro u
  cases u <;> decide

theorem mainSide_closed : ForwardClosed copySite mainSide := by
  intro u
  cases u <;> decide

theorem forkSide_closed : ForwardClosed copySite forkSide := by
  intro u
  cases u <;> decide

theorem main_fork_disjoint : ∀ v : CopyV, mainSide v = true → forkSide v = false := by
  intro v
  cases v <;> decide

theorem cf_separated : Separated copySite CopyV.f CopyV.tang :=
  separated_of_closed copySite mainSide forkSide mainSide_closed forkSide_closed CopyV.f CopyV.tang
    rfl rfl main_fork_disjoint

theorem cx_separated : Separated copySite CopyV.x CopyV.tang :=
  separated_of_closed copySite mainSide forkSide mainSide_closed forkSide_closed CopyV.x CopyV.tang
    rfl rfl main_fork_disjoint

theorem copySite_tips : ∀ t : CopyV, copyTip t = true →
    ∃ a b : CopyV, copySite.succ t = [a, b] ∧ copyTip a = false ∧ copyTip b = false ∧
      Separated copySite a b := by
  intro t ht
  cases t with
  | x => exact absurd ht (by decide)
  | f => exact absurd ht (by decide)
  | cf => exact ⟨CopyV.f, CopyV.tang, rfl, rfl, rfl, cf_separated⟩
  | cx => exact ⟨CopyV.x, CopyV.tang, rfl, rfl, rfl, cx_separated⟩
  | add => exact absurd ht (by decide)
  | tang => exact absurd ht (by decide)
  | obj => exact absurd ht (by decide)

/-- The copy-normalised site of the residual block is thin (at most one path between any two
vertices), by `thin_of_tips`. `Thin` does not exclude non-empty loops, so this alone does not make
the site a poset; acyclicity is `copySite_thin_acyclic` in `Formal/Site/Acyclic.lean`. -/
theorem copySite_thin : Thin copySite :=
  thin_of_tips copySite copyTip copySite_out copySite_tips

/-- Spot checks by evaluation: each copy node reaches `A` and the input by exactly one path. -/
theorem copySite_unique_paths :
    pathCount copySite 7 CopyV.cf CopyV.obj = 1 ∧ pathCount copySite 7 CopyV.cf CopyV.x = 1 ∧
    pathCount copySite 7 CopyV.cx CopyV.obj = 1 := by
  decide

end CopyNormal

end Formal.Site
