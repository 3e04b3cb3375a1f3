import Formal.Category.Closed
import Formal.Category.Pretopos

/-!
# Subobject classifiers and elementary toposes

`SubobjectClassifier T` (relative to a terminal object `T`): an object `Ω` with a truth map
`truth : T ⟶ Ω` such that every monomorphism `m : U ⟶ X` has a classifying map
`classify m : X ⟶ Ω` making the square `m ≫ classify m = (U ⟶ T) ≫ truth` a pullback, and
`classify m` is the only map with this property.

`ElementaryTopos C`: finite limits, cartesian closed, and a subobject classifier for the chosen
terminal object.

Sources: Belfiore & Bennequin §2 (the topos of a network and its classifier `Ω` of "theories"),
Villani & McBurney §2 (transformers live in a topos; `Ω` as the object of truth values).
-/

namespace Formal.CategoryTheory

universe v u

/-- A subobject classifier relative to the terminal object `T`. -/
structure SubobjectClassifier {C : Type u} [Category.{v} C] {T : C} (hT : IsTerminal T) where
  /-- The object of truth values. -/
  Ω : C
  /-- The generic subobject `true : T ⟶ Ω`. -/
  truth : T ⟶ Ω
  /-- The characteristic map of a monomorphism. -/
  classify : {U X : C} → (m : U ⟶ X) → Mono m → (X ⟶ Ω)
  /-- Every monomorphism is the pullback of `truth` along its characteristic map. -/
  isPullback : {U X : C} → (m : U ⟶ X) → (hm : Mono m) →
    IsPullback m (hT.lift U) (classify m hm) truth
  /-- The characteristic map is the only map with that property. -/
  uniq : ∀ {U X : C} (m : U ⟶ X) (hm : Mono m) (χ : X ⟶ Ω),
    IsPullback m (hT.lift U) χ truth → χ = classify m hm

/-- An elementary topos: finite limits, cartesian closed, with a subobject classifier. -/
structure ElementaryTopos (C : Type u) [Category.{v} C] where
  /-- Chosen finite limits. -/
  limits : FiniteLimits C
  /-- Cartesian closed structure. -/
  closed : CartesianClosed C
  /-- The subobject classifier, for the chosen terminal object. -/
  classifier : SubobjectClassifier limits.terminal.isTerminal

end Formal.CategoryTheory
