import Formal.Site.Sieve
import Formal.Site.Presheaf

/-!
# The subobject classifier `Ω` as a presheaf of Heyting algebras

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.3 and §2.2): in the topos of presheaves on the poset
`X` of a network, the subobject classifier is `Ω(x) = {sieves on x}`, with restriction
`S ↦ S ∩ ↓y` along `y ≤ x`, and the truth value `true : 1 → Ω` picks the maximal sieve.

Here:

* `Omega α : Presheaf α` with `Ω(x) = Sieve x` and `map = Sieve.restrict`; the functor laws are
  `Sieve.restrict_refl` and `Sieve.restrict_restrict` (claim `BB.Omega.presheaf`);
* `Omega.truth : PSh.Hom (terminal α) (Omega α)`, the maximal sieve, natural by
  `Sieve.restrict_top`;
* `Omega.heyting_natural`: each `Ω(x)` is a Heyting algebra (`Sieve.heytingAlgebra`) and every
  restriction map preserves `∧`, `∨`, `⇒`, `¬`, `⊥`, `⊤`, so `Ω` is a presheaf of Heyting algebras
  (claims `BB.Omega.Heyting`, `BB.Omega.restriction`).

That `Ω` *classifies* subobjects (the universal property) is not proved here.
-/

namespace Formal.Site

universe u

/-- `BB.Omega.presheaf`: the presheaf `Ω` of sieves, `Ω(x) = Sieve x`, restriction `S ↦ S ∩ ↓y`. -/
def Omega (α : Type u) [Poset α] : Presheaf.{u, u} α where
  obj := fun x => Sieve x
  map := fun h S => Sieve.restrict h S
  map_id := fun _ S => Sieve.restrict_refl S
  map_comp := fun hyx hzy S => Sieve.restrict_restrict hyx hzy S

namespace Omega

variable {α : Type u} [Poset α]

/-- `BB.Omega.presheaf` (identity law, stated on `Ω`). -/
theorem map_id' (x : α) (S : Sieve x) : (Omega α).map (Poset.le_refl x) S = S :=
  (Omega α).map_id x S

/-- `BB.Omega.presheaf` (composition law, stated on `Ω`). -/
theorem map_comp' {x y z : α} (hyx : y ≤ x) (hzy : z ≤ y) (S : Sieve x) :
    (Omega α).map hzy ((Omega α).map hyx S) = (Omega α).map (Poset.le_trans hzy hyx) S :=
  (Omega α).map_comp hyx hzy S

/-- The truth value `true : 1 → Ω` (named `truth`): the maximal sieve at every point. -/
def truth : PSh.Hom (PSh.terminal.{u, u} α) (Omega α) where
  app := fun x _ => (Sieve.top : Sieve x)
  naturality := fun h _ => (Sieve.restrict_top h).symm

/-- `BB.Omega.Heyting` and `BB.Omega.restriction` together: every `Ω(x)` is a Heyting algebra and
every restriction map `Ω(x) → Ω(y)` preserves `∧`, `∨`, `⇒`, `¬`, `⊥` and `⊤`. -/
theorem heyting_natural {x y : α} (h : y ≤ x) (S T : Sieve x) :
    (Omega α).map h (Sieve.inf S T) = Sieve.inf ((Omega α).map h S) ((Omega α).map h T) ∧
    (Omega α).map h (Sieve.sup S T) = Sieve.sup ((Omega α).map h S) ((Omega α).map h T) ∧
    (Omega α).map h (Sieve.himp S T) = Sieve.himp ((Omega α).map h S) ((Omega α).map h T) ∧
    (Omega α).map h (Sieve.compl S) = Sieve.compl ((Omega α).map h S) ∧
    (Omega α).map h (Sieve.bot : Sieve x) = (Sieve.bot : Sieve y) ∧
    (Omega α).map h (Sieve.top : Sieve x) = (Sieve.top : Sieve y) :=
  And.intro (Sieve.restrict_inf h S T)
    (And.intro (Sieve.restrict_sup h S T)
      (And.intro (Sieve.restrict_himp h S T)
        (And.intro (Sieve.restrict_compl h S)
          (And.intro (Sieve.restrict_bot h) (Sieve.restrict_top h)))))

end Omega

end Formal.Site
