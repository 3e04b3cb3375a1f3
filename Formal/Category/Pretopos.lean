import Formal.Category.Limits

/-!
# Extensive, regular and exact categories; pretoposes

* `Extensive C`: finite limits and finite coproducts, with coproducts *disjoint* (injections are
  monomorphisms and the pullback of the two injections is initial) and *stable under pullback* (the
  pullbacks of the injections along any `f : Z ⟶ X ⊔ Y` exhibit `Z` as their coproduct).
* `RegularEpi e`: `e` is the coequalizer of some parallel pair.
* `Regular C`: finite limits, every morphism factors as a regular epimorphism followed by a
  monomorphism, and regular epimorphisms are stable under pullback.
* `EquivRel L X`: an internal equivalence relation on `X` (a jointly monic pair `r₁ r₂ : R ⟶ X`,
  reflexive, symmetric and transitive, transitivity stated on the chosen pullback of `r₂` and `r₁`);
  `EquivRel.Effective`: it is the kernel pair of its coequalizer.
* `Exact C`: regular, and every internal equivalence relation is effective.
* `Pretopos C`: extensive and exact.

All existence is data (chosen limits, factorisations and quotients). The two components of a
`Pretopos` may choose different finite limits; limits are unique up to isomorphism
(`Formal/Category/LimitLemmas.lean`), so this is no restriction.

Sources: Belfiore & Bennequin §2 and Villani & McBurney §2 work in (pre)toposes; the definitions are
the standard ones (Johnstone, *Sketches of an Elephant*, A1.4, A2.1; Mathlib's
`CategoryTheory.Extensive` for extensivity).
-/

namespace Formal.CategoryTheory

universe v u

/-- An extensive category: finite limits, finite coproducts, disjoint and pullback-stable
coproducts. -/
structure Extensive (C : Type u) [Category.{v} C] where
  /-- Chosen finite limits. -/
  limits : FiniteLimits C
  /-- Chosen finite coproducts. -/
  coproducts : FiniteCoproducts C
  /-- Left injections are monomorphisms. -/
  inl_mono : ∀ (X Y : C), Mono (coproducts.coprod X Y).inl
  /-- Right injections are monomorphisms. -/
  inr_mono : ∀ (X Y : C), Mono (coproducts.coprod X Y).inr
  /-- Disjointness: the pullback of the two injections is initial. -/
  disjoint : (X Y : C) →
    IsInitial (limits.pullback (coproducts.coprod X Y).inl (coproducts.coprod X Y).inr).pt
  /-- Stability: pulling the two injections back along `f : Z ⟶ X ⊔ Y` splits `Z` as a
  coproduct. -/
  stable : {X Y Z : C} → (f : Z ⟶ (coproducts.coprod X Y).pt) →
    IsBinaryCoproduct (limits.pullback f (coproducts.coprod X Y).inl).fst
      (limits.pullback f (coproducts.coprod X Y).inr).fst

/-- A regular epimorphism: the coequalizer of some parallel pair. -/
structure RegularEpi {C : Type u} [Category.{v} C] {X Y : C} (e : X ⟶ Y) where
  /-- The source of the pair. -/
  W : C
  /-- The first map of the pair. -/
  left : W ⟶ X
  /-- The second map of the pair. -/
  right : W ⟶ X
  /-- `e` coequalizes them universally. -/
  isCoequalizer : IsCoequalizer left right e

/-- A regular epimorphism is an epimorphism. -/
theorem RegularEpi.epi {C : Type u} [Category.{v} C] {X Y : C} {e : X ⟶ Y} (h : RegularEpi e) :
    Epi e :=
  h.isCoequalizer.epi

/-- A regular category: finite limits, (regular epi, mono) factorisations, and regular epis stable
under pullback. -/
structure Regular (C : Type u) [Category.{v} C] where
  /-- Chosen finite limits. -/
  limits : FiniteLimits C
  /-- The image of `f`. -/
  image : {X Y : C} → (X ⟶ Y) → C
  /-- The regular epimorphic part of `f`. -/
  factorEpi : {X Y : C} → (f : X ⟶ Y) → (X ⟶ image f)
  /-- The monomorphic part of `f`. -/
  factorMono : {X Y : C} → (f : X ⟶ Y) → (image f ⟶ Y)
  /-- The factorisation. -/
  fac : ∀ {X Y : C} (f : X ⟶ Y), factorEpi f ≫ factorMono f = f
  /-- The first part is a regular epimorphism. -/
  factorEpi_regular : {X Y : C} → (f : X ⟶ Y) → RegularEpi (factorEpi f)
  /-- The second part is a monomorphism. -/
  factorMono_mono : ∀ {X Y : C} (f : X ⟶ Y), Mono (factorMono f)
  /-- Regular epimorphisms are stable under pullback. -/
  pullback_regularEpi : {X Y Z : C} → (e : X ⟶ Y) → (g : Z ⟶ Y) → RegularEpi e →
    RegularEpi (limits.pullback e g).snd

/-- An internal equivalence relation on `X`, relative to chosen finite limits `L`. -/
structure EquivRel {C : Type u} [Category.{v} C] (L : FiniteLimits C) (X : C) where
  /-- The object of related pairs. -/
  R : C
  /-- First component. -/
  r₁ : R ⟶ X
  /-- Second component. -/
  r₂ : R ⟶ X
  /-- `(r₁, r₂)` is jointly monic: `R` is a relation. -/
  jointlyMono : ∀ {W : C} (a b : W ⟶ R), a ≫ r₁ = b ≫ r₁ → a ≫ r₂ = b ≫ r₂ → a = b
  /-- Reflexivity. -/
  refl : X ⟶ R
  refl_r₁ : refl ≫ r₁ = 𝟙 X
  refl_r₂ : refl ≫ r₂ = 𝟙 X
  /-- Symmetry. -/
  symm : R ⟶ R
  symm_r₁ : symm ≫ r₁ = r₂
  symm_r₂ : symm ≫ r₂ = r₁
  /-- Transitivity, on the object of composable pairs (the pullback of `r₂` and `r₁`). -/
  trans : (L.pullback r₂ r₁).pt ⟶ R
  trans_r₁ : trans ≫ r₁ = (L.pullback r₂ r₁).fst ≫ r₁
  trans_r₂ : trans ≫ r₂ = (L.pullback r₂ r₁).snd ≫ r₂

/-- An internal equivalence relation is effective: it has a coequalizer of which it is the kernel
pair. -/
structure EquivRel.Effective {C : Type u} [Category.{v} C] {L : FiniteLimits C} {X : C}
    (E : EquivRel L X) where
  /-- The quotient object. -/
  Q : C
  /-- The quotient map. -/
  π : X ⟶ Q
  /-- `π` is the coequalizer of `r₁` and `r₂`. -/
  isCoequalizer : IsCoequalizer E.r₁ E.r₂ π
  /-- `(r₁, r₂)` is the kernel pair of `π`. -/
  isKernelPair : IsPullback E.r₁ E.r₂ π π

/-- An exact (Barr-exact) category: regular, with every internal equivalence relation effective. -/
structure Exact (C : Type u) [Category.{v} C] where
  /-- The regular structure. -/
  regular : Regular C
  /-- Effectiveness of equivalence relations. -/
  effective : {X : C} → (E : EquivRel regular.limits X) → E.Effective

/-- A pretopos: an extensive and exact category. -/
structure Pretopos (C : Type u) [Category.{v} C] where
  /-- Extensivity. -/
  extensive : Extensive C
  /-- Exactness. -/
  exact : Exact C

end Formal.CategoryTheory
