import Formal.Site.Poset
import Formal.Site.Heyting

/-!
# Down-sets, sieves and their Heyting algebra

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3, §2.2): on the poset `X` of a network, the subobject
classifier `Ω` of the presheaf topos sends a layer `x` to the set of sieves on `x`, that is, the
down-sets of `↓x = {y | y ≤ x}`; each `Ω(x)` is a Heyting algebra, and restriction along `y ≤ x`
is `S ↦ S ∩ ↓y`.

Here, for any poset `α` (finite or not: finiteness is never used by these proofs):

* `IsDownSet` and `Sieve x` (a down-closed predicate contained in `↓x`);
* the operations `inf`, `sup`, `himp` (`S ⇒ T = {y ≤ x | ∀ z ≤ y, z ∈ S → z ∈ T}`), `compl`,
  `bot`, `top` and the instance `HeytingAlgebra (Sieve x)` (claim `BB.Omega.Heyting`);
* restriction `restrict h : Sieve x → Sieve y` for `h : y ≤ x`, and the proofs that it preserves
  `∧`, `∨`, `⇒`, `¬`, `⊥`, `⊤` (claim `BB.Omega.restriction`). Preservation of `⇒` is the one that
  uses that sieves are down-closed and that `⇒` quantifies over all `z ≤ y`.

Membership is a `Prop`-valued predicate; equality of sieves is proved with `funext` and `propext`
(`Sieve.ext`).
-/

namespace Formal.Site

universe u

variable {α : Type u} [Poset α]

/-- A down-set: a predicate closed under going down. -/
def IsDownSet (S : α → Prop) : Prop := ∀ {a b : α}, b ≤ a → S a → S b

/-- A sieve on `x`: a down-set of `↓x`, i.e. a down-closed predicate all of whose members are
`≤ x`. -/
structure Sieve (x : α) where
  /-- Membership. -/
  mem : α → Prop
  /-- Down-closed. -/
  down : ∀ {a b : α}, b ≤ a → mem a → mem b
  /-- Contained in `↓x`. -/
  le_of_mem : ∀ {a : α}, mem a → a ≤ x

namespace Sieve

variable {x y z : α}

/-- The underlying predicate of a sieve is a down-set. -/
theorem isDownSet (S : Sieve x) : IsDownSet S.mem := by
  intro a b h m
  exact S.down h m

/-- Two sieves with the same members are equal. -/
theorem ext {S T : Sieve x} (h : ∀ a : α, S.mem a ↔ T.mem a) : S = T := by
  cases S with
  | mk m₁ d₁ l₁ =>
    cases T with
    | mk m₂ d₂ l₂ =>
      have hm : m₁ = m₂ := funext (fun a => propext (h a))
      subst hm
      rfl

/-! ## The Heyting operations on `Sieve x` -/

/-- Inclusion of sieves. -/
def le (S T : Sieve x) : Prop := ∀ a : α, S.mem a → T.mem a

/-- Intersection (∧). -/
def inf (S T : Sieve x) : Sieve x where
  mem := fun a => S.mem a ∧ T.mem a
  down := fun h m => And.intro (S.down h (And.left m)) (T.down h (And.right m))
  le_of_mem := fun m => S.le_of_mem (And.left m)

/-- Union (∨). -/
def sup (S T : Sieve x) : Sieve x where
  mem := fun a => S.mem a ∨ T.mem a
  down := fun h m => Or.elim m (fun hs => Or.inl (S.down h hs)) (fun ht => Or.inr (T.down h ht))
  le_of_mem := fun m => Or.elim m (fun hs => S.le_of_mem hs) (fun ht => T.le_of_mem ht)

/-- Heyting implication (⇒): `y ∈ S ⇒ T` iff `y ≤ x` and every `z ≤ y` in `S` is in `T`. -/
def himp (S T : Sieve x) : Sieve x where
  mem := fun a => a ≤ x ∧ ∀ b : α, b ≤ a → S.mem b → T.mem b
  down := fun h m =>
    And.intro (Poset.le_trans h (And.left m))
      (fun c hc hs => (And.right m) c (Poset.le_trans hc h) hs)
  le_of_mem := fun m => And.left m

/-- The empty sieve (⊥). -/
def bot : Sieve x where
  mem := fun _ => False
  down := fun _ m => m
  le_of_mem := fun m => False.elim m

/-- The maximal sieve `↓x` (⊤). -/
def top : Sieve x where
  mem := fun a => a ≤ x
  down := fun h m => Poset.le_trans h m
  le_of_mem := fun m => m

/-- Pseudo-complement (¬): `¬S = S ⇒ ⊥`. -/
def compl (S : Sieve x) : Sieve x := himp S bot

/-! ## The Heyting algebra laws -/

theorem le_himp_iff (R S T : Sieve x) : le R (himp S T) ↔ le (inf R S) T := by
  constructor
  · intro h a m
    have hm : R.mem a ∧ S.mem a := m
    have hi : a ≤ x ∧ ∀ b : α, b ≤ a → S.mem b → T.mem b := h a hm.1
    exact hi.2 a (Poset.le_refl a) hm.2
  · intro h a m
    have hR : R.mem a := m
    show a ≤ x ∧ ∀ b : α, b ≤ a → S.mem b → T.mem b
    exact And.intro (R.le_of_mem hR)
      (fun b hb hs => h b (show R.mem b ∧ S.mem b from And.intro (R.down hb hR) hs))

/-- `BB.Omega.Heyting`: the sieves on `x` (the down-sets of `↓x`) form a Heyting algebra, with
implication `S ⇒ T = {y ≤ x | ∀ z ≤ y, z ∈ S → z ∈ T}` and negation `S ⇒ ⊥`. -/
instance heytingAlgebra (x : α) : HeytingAlgebra (Sieve x) where
  le := le
  inf := inf
  sup := sup
  himp := himp
  compl := compl
  bot := bot
  top := top
  le_refl := fun _ _ m => m
  le_trans := fun h₁ h₂ a m => h₂ a (h₁ a m)
  le_antisymm := fun h₁ h₂ => ext (fun a => Iff.intro (h₁ a) (h₂ a))
  inf_le_left := fun _ _ _ m => And.left m
  inf_le_right := fun _ _ _ m => And.right m
  le_inf := fun h₁ h₂ a m => And.intro (h₁ a m) (h₂ a m)
  le_sup_left := fun _ _ _ m => Or.inl m
  le_sup_right := fun _ _ _ m => Or.inr m
  sup_le := fun h₁ h₂ a m => Or.elim m (h₁ a) (h₂ a)
  bot_le := fun _ _ m => False.elim m
  le_top := fun S _ m => S.le_of_mem m
  le_himp_iff := le_himp_iff
  compl_eq := fun _ => rfl

/-! ## Restriction along `y ≤ x` -/

/-- Restriction of a sieve on `x` to `y ≤ x`: `S ↦ S ∩ ↓y`. -/
def restrict (_h : y ≤ x) (S : Sieve x) : Sieve y where
  mem := fun a => S.mem a ∧ a ≤ y
  down := fun h m => And.intro (S.down h (And.left m)) (Poset.le_trans h (And.right m))
  le_of_mem := fun m => And.right m

/-- `BB.Omega.restriction` (∧): restriction preserves intersections. -/
theorem restrict_inf (h : y ≤ x) (S T : Sieve x) :
    restrict h (inf S T) = inf (restrict h S) (restrict h T) := by
  refine ext (fun a => ?_)
  show ((S.mem a ∧ T.mem a) ∧ a ≤ y) ↔ ((S.mem a ∧ a ≤ y) ∧ (T.mem a ∧ a ≤ y))
  constructor
  · intro m
    exact And.intro (And.intro m.1.1 m.2) (And.intro m.1.2 m.2)
  · intro m
    exact And.intro (And.intro m.1.1 m.2.1) m.1.2

/-- `BB.Omega.restriction` (∨): restriction preserves unions. -/
theorem restrict_sup (h : y ≤ x) (S T : Sieve x) :
    restrict h (sup S T) = sup (restrict h S) (restrict h T) := by
  refine ext (fun a => ?_)
  show ((S.mem a ∨ T.mem a) ∧ a ≤ y) ↔ ((S.mem a ∧ a ≤ y) ∨ (T.mem a ∧ a ≤ y))
  constructor
  · intro m
    exact Or.elim m.1 (fun hs => Or.inl (And.intro hs m.2)) (fun ht => Or.inr (And.intro ht m.2))
  · intro m
    exact Or.elim m (fun hs => And.intro (Or.inl hs.1) hs.2) (fun ht => And.intro (Or.inr ht.1) ht.2)

/-- `BB.Omega.restriction` (⇒): restriction preserves Heyting implication. The direction `⇐` uses
that `S ⇒ T` on `x` quantifies over all `z ≤ y'` for `y' ≤ y`, all of which are `≤ y`. -/
theorem restrict_himp (h : y ≤ x) (S T : Sieve x) :
    restrict h (himp S T) = himp (restrict h S) (restrict h T) := by
  refine ext (fun a => ?_)
  show ((a ≤ x ∧ ∀ b : α, b ≤ a → S.mem b → T.mem b) ∧ a ≤ y) ↔
    (a ≤ y ∧ ∀ b : α, b ≤ a → (S.mem b ∧ b ≤ y) → (T.mem b ∧ b ≤ y))
  constructor
  · intro m
    exact And.intro m.2 (fun b hb hs => And.intro (m.1.2 b hb hs.1) hs.2)
  · intro m
    exact And.intro
      (And.intro (Poset.le_trans m.1 h)
        (fun b hb hs => (m.2 b hb (And.intro hs (Poset.le_trans hb m.1))).1))
      m.1

/-- `BB.Omega.restriction` (⊥): restriction preserves the empty sieve. -/
theorem restrict_bot (h : y ≤ x) : restrict h (bot : Sieve x) = bot := by
  refine ext (fun a => ?_)
  show (False ∧ a ≤ y) ↔ False
  exact Iff.intro (fun m => m.1) (fun m => False.elim m)

/-- `BB.Omega.restriction` (⊤): restriction sends the maximal sieve to the maximal sieve. -/
theorem restrict_top (h : y ≤ x) : restrict h (top : Sieve x) = top := by
  refine ext (fun a => ?_)
  show (a ≤ x ∧ a ≤ y) ↔ a ≤ y
  exact Iff.intro (fun m => m.2) (fun m => And.intro (Poset.le_trans m h) m)

/-- `BB.Omega.restriction` (¬): restriction preserves the pseudo-complement. -/
theorem restrict_compl (h : y ≤ x) (S : Sieve x) :
    restrict h (compl S) = compl (restrict h S) := by
  show restrict h (himp S bot) = himp (restrict h S) bot
  rw [restrict_himp h S bot, restrict_bot h]

/-- Restriction along `x ≤ x` is the identity. -/
theorem restrict_refl (S : Sieve x) : restrict (Poset.le_refl x) S = S := by
  refine ext (fun a => ?_)
  show (S.mem a ∧ a ≤ x) ↔ S.mem a
  exact Iff.intro (fun m => m.1) (fun m => And.intro m (S.le_of_mem m))

/-- Restricting twice is restricting along the composite. -/
theorem restrict_restrict (hyx : y ≤ x) (hzy : z ≤ y) (S : Sieve x) :
    restrict hzy (restrict hyx S) = restrict (Poset.le_trans hzy hyx) S := by
  refine ext (fun a => ?_)
  show ((S.mem a ∧ a ≤ y) ∧ a ≤ z) ↔ (S.mem a ∧ a ≤ z)
  exact Iff.intro (fun m => And.intro m.1.1 m.2)
    (fun m => And.intro (And.intro m.1 (Poset.le_trans m.2 hzy)) m.2)

/-- Restriction is monotone. -/
theorem restrict_mono (h : y ≤ x) {S T : Sieve x} (hST : le S T) :
    le (restrict h S) (restrict h T) :=
  fun a m => And.intro (hST a (And.left m)) (And.right m)

end Sieve

end Formal.Site
