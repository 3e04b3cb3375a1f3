import Formal.Category.Basic

/-!
# Functors, natural transformations, fully faithful functors

`Functor C D` bundles the object and morphism maps with the two functor laws (`map_id`,
`map_comp`); `NatTrans F G` bundles components with naturality; `NatIso F G` is a pair of mutually
inverse natural transformations, given componentwise. `FullyFaithful F` carries the inverse of `F` on
hom types (as in Mathlib's `Functor.FullyFaithful`).

Sources: functors and natural transformations are the morphisms of the papers' diagrams, e.g. the
presheaves and stacks of Belfiore & Bennequin §1–3 and the embeddings of Villani & McBurney §4.
-/

namespace Formal.CategoryTheory

universe v₁ v₂ v₃ u₁ u₂ u₃

/-- A functor from `C` to `D`. -/
structure Functor (C : Type u₁) [Category.{v₁} C] (D : Type u₂) [Category.{v₂} D] where
  /-- The action on objects. -/
  obj : C → D
  /-- The action on morphisms. -/
  map : {X Y : C} → (X ⟶ Y) → (obj X ⟶ obj Y)
  /-- Identities are preserved. -/
  map_id : ∀ (X : C), map (𝟙 X) = 𝟙 (obj X)
  /-- Composites are preserved. -/
  map_comp : ∀ {X Y Z : C} (f : X ⟶ Y) (g : Y ⟶ Z), map (f ≫ g) = map f ≫ map g

namespace Functor

/-- The identity functor. -/
def id (C : Type u₁) [Category.{v₁} C] : Functor C C where
  obj := fun X => X
  map := fun f => f
  map_id := fun _ => rfl
  map_comp := fun _ _ => rfl

/-- The composite functor, first `F` then `G`. -/
def comp {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D] {E : Type u₃}
    [Category.{v₃} E] (F : Functor C D) (G : Functor D E) : Functor C E where
  obj := fun X => G.obj (F.obj X)
  map := fun f => G.map (F.map f)
  map_id := fun X => by
    show G.map (F.map (𝟙 X)) = 𝟙 (G.obj (F.obj X))
    rw [F.map_id, G.map_id]
  map_comp := fun f g => by
    show G.map (F.map (f ≫ g)) = G.map (F.map f) ≫ G.map (F.map g)
    rw [F.map_comp, G.map_comp]

/-- A fully faithful functor: `F.map` is a bijection on each hom type, with chosen inverse
`preimage`. -/
structure FullyFaithful {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    (F : Functor C D) where
  /-- The inverse of `F.map`. -/
  preimage : {X Y : C} → (F.obj X ⟶ F.obj Y) → (X ⟶ Y)
  /-- `F.map` after `preimage` is the identity. -/
  map_preimage : ∀ {X Y : C} (f : F.obj X ⟶ F.obj Y), F.map (preimage f) = f
  /-- `preimage` after `F.map` is the identity. -/
  preimage_map : ∀ {X Y : C} (f : X ⟶ Y), preimage (F.map f) = f

/-- A fully faithful functor is injective on morphisms (faithfulness). -/
theorem FullyFaithful.map_injective {C : Type u₁} [Category.{v₁} C] {D : Type u₂}
    [Category.{v₂} D] {F : Functor C D} (h : FullyFaithful F) {X Y : C} {f g : X ⟶ Y}
    (e : F.map f = F.map g) : f = g := by
  rw [← h.preimage_map f, ← h.preimage_map g, e]

end Functor

/-- A natural transformation `F ⟹ G`. -/
structure NatTrans {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    (F G : Functor C D) where
  /-- The component at `X`. -/
  app : (X : C) → (F.obj X ⟶ G.obj X)
  /-- Naturality. -/
  naturality : ∀ {X Y : C} (f : X ⟶ Y), F.map f ≫ app Y = app X ≫ G.map f

namespace NatTrans

variable {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]

/-- The identity natural transformation. -/
def id (F : Functor C D) : NatTrans F F where
  app := fun X => 𝟙 (F.obj X)
  naturality := fun f => by
    rw [Category.comp_id, Category.id_comp]

/-- Vertical composite of natural transformations. -/
def vcomp {F G H : Functor C D} (α : NatTrans F G) (β : NatTrans G H) : NatTrans F H where
  app := fun X => α.app X ≫ β.app X
  naturality := fun f => by
    rw [← Category.assoc, α.naturality f, Category.assoc, β.naturality f, Category.assoc]

end NatTrans

/-- A natural isomorphism: natural transformations both ways, inverse componentwise. -/
structure NatIso {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    (F G : Functor C D) where
  /-- The forward transformation. -/
  hom : NatTrans F G
  /-- The inverse transformation. -/
  inv : NatTrans G F
  /-- Componentwise, `hom` then `inv` is the identity. -/
  hom_inv_id : ∀ (X : C), hom.app X ≫ inv.app X = 𝟙 (F.obj X)
  /-- Componentwise, `inv` then `hom` is the identity. -/
  inv_hom_id : ∀ (X : C), inv.app X ≫ hom.app X = 𝟙 (G.obj X)

/-- The component of a natural isomorphism at `X`, as an isomorphism. -/
def NatIso.app {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    {F G : Functor C D} (α : NatIso F G) (X : C) : Iso (F.obj X) (G.obj X) where
  hom := α.hom.app X
  inv := α.inv.app X
  hom_inv_id := α.hom_inv_id X
  inv_hom_id := α.inv_hom_id X

end Formal.CategoryTheory
