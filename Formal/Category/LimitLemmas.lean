import Formal.Category.Limits

/-!
# General lemmas on limits

* Limits are unique up to a unique isomorphism: any two terminal objects, initial objects, binary
  products and pullbacks of the same cospan are isomorphic (`IsTerminal.uniqueUpToIso`, ...). For
  products and pullbacks the comparison isomorphism commutes with the projections
  (`uniqueUpToIso_hom_fst`, `uniqueUpToIso_hom_snd`), and in all four cases it is the only morphism
  that does (`uniqueUpToIso_hom_unique`; for terminal and initial objects the cone is empty, so it is
  the only morphism at all).
* Pullback pasting (`IsPullback.paste`): if the right square and the left square are pullbacks, so
  is the outer rectangle.
* Monomorphisms are stable under pullback (`IsPullback.mono_snd`).

Sources: standard category theory, used throughout both papers (e.g. the pullback-stability of
monomorphisms behind the subobject classifier, Belfiore & Bennequin §2, Villani & McBurney §2).
-/

namespace Formal.CategoryTheory

universe v u

variable {C : Type u} [Category.{v} C]

/-- Two terminal objects are isomorphic. -/
def IsTerminal.uniqueUpToIso {T T' : C} (t : IsTerminal T) (t' : IsTerminal T') : Iso T T' where
  hom := t'.lift T
  inv := t.lift T'
  hom_inv_id := t.hom_ext _ _
  inv_hom_id := t'.hom_ext _ _

/-- The comparison map between two terminal objects is the only morphism between them. -/
theorem IsTerminal.uniqueUpToIso_hom_unique {T T' : C} (t : IsTerminal T) (t' : IsTerminal T')
    (m : T ⟶ T') : m = (t.uniqueUpToIso t').hom :=
  t'.uniq m

/-- Two initial objects are isomorphic. -/
def IsInitial.uniqueUpToIso {I I' : C} (t : IsInitial I) (t' : IsInitial I') : Iso I I' where
  hom := t.desc I'
  inv := t'.desc I
  hom_inv_id := t.hom_ext _ _
  inv_hom_id := t'.hom_ext _ _

/-- The comparison map between two initial objects is the only morphism between them. -/
theorem IsInitial.uniqueUpToIso_hom_unique {I I' : C} (t : IsInitial I) (t' : IsInitial I')
    (m : I ⟶ I') : m = (t.uniqueUpToIso t').hom :=
  t.uniq m

/-- Two products of `X` and `Y` are isomorphic. -/
def IsBinaryProduct.uniqueUpToIso {P P' X Y : C} {fst : P ⟶ X} {snd : P ⟶ Y} {fst' : P' ⟶ X}
    {snd' : P' ⟶ Y} (h : IsBinaryProduct fst snd) (h' : IsBinaryProduct fst' snd') :
    Iso P P' where
  hom := h'.lift fst snd
  inv := h.lift fst' snd'
  hom_inv_id := h.hom_ext
    (by rw [Category.assoc, h.lift_fst, h'.lift_fst, Category.id_comp])
    (by rw [Category.assoc, h.lift_snd, h'.lift_snd, Category.id_comp])
  inv_hom_id := h'.hom_ext
    (by rw [Category.assoc, h'.lift_fst, h.lift_fst, Category.id_comp])
    (by rw [Category.assoc, h'.lift_snd, h.lift_snd, Category.id_comp])

/-- The comparison isomorphism between two products commutes with the first projections. -/
theorem IsBinaryProduct.uniqueUpToIso_hom_fst {P P' X Y : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} (h : IsBinaryProduct fst snd)
    (h' : IsBinaryProduct fst' snd') : (h.uniqueUpToIso h').hom ≫ fst' = fst :=
  h'.lift_fst fst snd

/-- The comparison isomorphism between two products commutes with the second projections. -/
theorem IsBinaryProduct.uniqueUpToIso_hom_snd {P P' X Y : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} (h : IsBinaryProduct fst snd)
    (h' : IsBinaryProduct fst' snd') : (h.uniqueUpToIso h').hom ≫ snd' = snd :=
  h'.lift_snd fst snd

/-- The comparison isomorphism between two products is the only morphism that commutes with both
projections. -/
theorem IsBinaryProduct.uniqueUpToIso_hom_unique {P P' X Y : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} (h : IsBinaryProduct fst snd)
    (h' : IsBinaryProduct fst' snd') (m : P ⟶ P') (e₁ : m ≫ fst' = fst) (e₂ : m ≫ snd' = snd) :
    m = (h.uniqueUpToIso h').hom :=
  h'.uniq fst snd m e₁ e₂

/-- Two pullbacks of the same cospan are isomorphic. -/
def IsPullback.uniqueUpToIso {P P' X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y} {fst' : P' ⟶ X}
    {snd' : P' ⟶ Y} {f : X ⟶ Z} {g : Y ⟶ Z} (h : IsPullback fst snd f g)
    (h' : IsPullback fst' snd' f g) : Iso P P' where
  hom := h'.lift fst snd h.condition
  inv := h.lift fst' snd' h'.condition
  hom_inv_id := h.hom_ext
    (by rw [Category.assoc, h.lift_fst, h'.lift_fst, Category.id_comp])
    (by rw [Category.assoc, h.lift_snd, h'.lift_snd, Category.id_comp])
  inv_hom_id := h'.hom_ext
    (by rw [Category.assoc, h'.lift_fst, h.lift_fst, Category.id_comp])
    (by rw [Category.assoc, h'.lift_snd, h.lift_snd, Category.id_comp])

/-- The comparison isomorphism between two pullbacks commutes with the first projections. -/
theorem IsPullback.uniqueUpToIso_hom_fst {P P' X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} {f : X ⟶ Z} {g : Y ⟶ Z} (h : IsPullback fst snd f g)
    (h' : IsPullback fst' snd' f g) : (h.uniqueUpToIso h').hom ≫ fst' = fst :=
  h'.lift_fst fst snd h.condition

/-- The comparison isomorphism between two pullbacks commutes with the second projections. -/
theorem IsPullback.uniqueUpToIso_hom_snd {P P' X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} {f : X ⟶ Z} {g : Y ⟶ Z} (h : IsPullback fst snd f g)
    (h' : IsPullback fst' snd' f g) : (h.uniqueUpToIso h').hom ≫ snd' = snd :=
  h'.lift_snd fst snd h.condition

/-- The comparison isomorphism between two pullbacks is the only morphism that commutes with both
projections. -/
theorem IsPullback.uniqueUpToIso_hom_unique {P P' X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    {fst' : P' ⟶ X} {snd' : P' ⟶ Y} {f : X ⟶ Z} {g : Y ⟶ Z} (h : IsPullback fst snd f g)
    (h' : IsPullback fst' snd' f g) (m : P ⟶ P') (e₁ : m ≫ fst' = fst) (e₂ : m ≫ snd' = snd) :
    m = (h.uniqueUpToIso h').hom :=
  h'.uniq fst snd h.condition m e₁ e₂

/-- **Pullback pasting.** In the diagram
```
P₁ --a--> P₂ --b--> X
|p₁       |p₂       |f
A  --g--> B  --k--> Z
```
if the right square (`b`, `p₂`, `f`, `k`) and the left square (`a`, `p₁`, `p₂`, `g`) are pullbacks,
then the outer rectangle (`a ≫ b`, `p₁`, `f`, `g ≫ k`) is a pullback. -/
def IsPullback.paste {P₁ P₂ A B X Z : C} {a : P₁ ⟶ P₂} {b : P₂ ⟶ X} {p₁ : P₁ ⟶ A}
    {p₂ : P₂ ⟶ B} {f : X ⟶ Z} {g : A ⟶ B} {k : B ⟶ Z} (right : IsPullback b p₂ f k)
    (left : IsPullback a p₁ p₂ g) : IsPullback (a ≫ b) p₁ f (g ≫ k) where
  condition := by
    rw [Category.assoc, right.condition, ← Category.assoc, left.condition, Category.assoc]
  lift := fun h y w =>
    left.lift (right.lift h (y ≫ g) (w.trans (Category.assoc y g k).symm)) y
      (right.lift_snd h (y ≫ g) (w.trans (Category.assoc y g k).symm))
  lift_fst := fun h y w => by
    rw [← Category.assoc, left.lift_fst, right.lift_fst]
  lift_snd := fun h y w => left.lift_snd _ _ _
  uniq := fun h y w m e₁ e₂ => by
    apply left.uniq _ y _ m _ e₂
    apply right.uniq h (y ≫ g) _ (m ≫ a)
    · rw [Category.assoc]
      exact e₁
    · rw [Category.assoc, left.condition, ← Category.assoc, e₂]

/-- **Monomorphisms are stable under pullback**: in a pullback square of `f` along `g`, if `f` is
a monomorphism then so is the projection `snd`. -/
theorem IsPullback.mono_snd {P X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y} {f : X ⟶ Z} {g : Y ⟶ Z}
    (h : IsPullback fst snd f g) (hf : Mono f) : Mono snd :=
  ⟨fun u v e => by
    apply h.hom_ext _ e
    apply hf.cancel
    rw [Category.assoc, Category.assoc, h.condition, ← Category.assoc, ← Category.assoc, e]⟩

end Formal.CategoryTheory
