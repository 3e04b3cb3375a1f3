import Formal.Category.Limits

/-!
# Cartesian closed categories

`CartesianClosed C`: a terminal object, chosen binary products, and for all `Y Z` an exponential
`exp Y Z` (the internal hom `Z^Y`) with evaluation `eval Y Z : exp Y Z × Y ⟶ Z` and currying
`curry : (X × Y ⟶ Z) → (X ⟶ exp Y Z)`, subject to
* β: `(curry f × 𝟙) ≫ eval = f`, and
* η: `curry ((g × 𝟙) ≫ eval) = g`.

The exponential transpose is a bijection (`curry_uncurry`, `uncurry_curry`, `curry_injective`,
`curry_surjective`). Sources: Villani & McBurney §4 use the internal hom of a cartesian closed
category to express input-dependent weights (attention as evaluation); Belfiore & Bennequin §2 use
the closed structure of a topos.
-/

namespace Formal.CategoryTheory

universe v u

/-- For chosen products `P = X × Y` and `P' = X' × Y`, the map `g × 𝟙 : X × Y ⟶ X' × Y`. -/
def BinaryProduct.mapFst {C : Type u} [Category.{v} C] {X X' Y : C} (P : BinaryProduct X Y)
    (P' : BinaryProduct X' Y) (g : X ⟶ X') : P.pt ⟶ P'.pt :=
  P'.isProduct.lift (P.fst ≫ g) P.snd

/-- First component of `g × 𝟙`. -/
theorem BinaryProduct.mapFst_fst {C : Type u} [Category.{v} C] {X X' Y : C}
    (P : BinaryProduct X Y) (P' : BinaryProduct X' Y) (g : X ⟶ X') :
    BinaryProduct.mapFst P P' g ≫ P'.fst = P.fst ≫ g :=
  P'.isProduct.lift_fst _ _

/-- Second component of `g × 𝟙`. -/
theorem BinaryProduct.mapFst_snd {C : Type u} [Category.{v} C] {X X' Y : C}
    (P : BinaryProduct X Y) (P' : BinaryProduct X' Y) (g : X ⟶ X') :
    BinaryProduct.mapFst P P' g ≫ P'.snd = P.snd :=
  P'.isProduct.lift_snd _ _

/-- A cartesian closed category, with chosen terminal object, products and exponentials. -/
structure CartesianClosed (C : Type u) [Category.{v} C] where
  /-- The terminal object. -/
  terminal : Terminal C
  /-- Binary products. -/
  prod : (X Y : C) → BinaryProduct X Y
  /-- The exponential `exp Y Z`, the object of maps from `Y` to `Z`. -/
  exp : C → C → C
  /-- Evaluation. -/
  eval : (Y Z : C) → ((prod (exp Y Z) Y).pt ⟶ Z)
  /-- Currying (the exponential transpose). -/
  curry : {X Y Z : C} → ((prod X Y).pt ⟶ Z) → (X ⟶ exp Y Z)
  /-- β: evaluating a curried map gives it back. -/
  beta : ∀ {X Y Z : C} (f : (prod X Y).pt ⟶ Z),
    BinaryProduct.mapFst (prod X Y) (prod (exp Y Z) Y) (curry f) ≫ eval Y Z = f
  /-- η: currying the evaluation of `g` gives `g` back. -/
  eta : ∀ {X Y Z : C} (g : X ⟶ exp Y Z),
    curry (BinaryProduct.mapFst (prod X Y) (prod (exp Y Z) Y) g ≫ eval Y Z) = g

namespace CartesianClosed

variable {C : Type u} [Category.{v} C] (K : CartesianClosed C)

/-- Uncurrying: the inverse transpose `g ↦ (g × 𝟙) ≫ eval`. -/
def uncurry {X Y Z : C} (g : X ⟶ K.exp Y Z) : (K.prod X Y).pt ⟶ Z :=
  BinaryProduct.mapFst (K.prod X Y) (K.prod (K.exp Y Z) Y) g ≫ K.eval Y Z

/-- `uncurry` after `curry` is the identity (β). -/
theorem uncurry_curry {X Y Z : C} (f : (K.prod X Y).pt ⟶ Z) : K.uncurry (K.curry f) = f :=
  K.beta f

/-- `curry` after `uncurry` is the identity (η). -/
theorem curry_uncurry {X Y Z : C} (g : X ⟶ K.exp Y Z) : K.curry (K.uncurry g) = g :=
  K.eta g

/-- The exponential transpose is injective. -/
theorem curry_injective {X Y Z : C} {f f' : (K.prod X Y).pt ⟶ Z}
    (e : K.curry f = K.curry f') : f = f' := by
  rw [← K.uncurry_curry f, ← K.uncurry_curry f', e]

/-- The exponential transpose is surjective. -/
theorem curry_surjective {X Y Z : C} (g : X ⟶ K.exp Y Z) :
    ∃ f : (K.prod X Y).pt ⟶ Z, K.curry f = g :=
  ⟨K.uncurry g, K.curry_uncurry g⟩

/-- `curry f` is the unique `g` with `(g × 𝟙) ≫ eval = f`: the universal property of the
exponential. -/
theorem curry_unique {X Y Z : C} (f : (K.prod X Y).pt ⟶ Z) (g : X ⟶ K.exp Y Z)
    (e : K.uncurry g = f) : g = K.curry f := by
  rw [← e, K.curry_uncurry]

end CartesianClosed

end Formal.CategoryTheory
