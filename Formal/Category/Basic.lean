/-!
# Categories, isomorphisms, monomorphisms and epimorphisms

A category bundles its hom types, identities and composition with the three laws, in the shape of
Mathlib's `CategoryTheory.Category`: composition is written `f ≫ g` in *diagrammatic* order
(first `f`, then `g`), hom types `X ⟶ Y`, identities `𝟙 X`.

The notations are `scoped` to `Formal.CategoryTheory`, so they never clash with the layer syntax's
own scoped `≫` in `Formal.Arch`; users write `open scoped Formal.CategoryTheory`.

Sources: this is the ambient language of both papers (Belfiore & Bennequin §1–2, Villani &
McBurney §2): networks, sites and toposes are all described in categorical terms.
-/

namespace Formal.CategoryTheory

universe v u

/-- A category on the objects `obj`, with hom types in `Type v`: identities, composition in
diagrammatic order, and the unit and associativity laws. -/
class Category (obj : Type u) : Type (max u (v + 1)) where
  /-- The morphisms from `X` to `Y`. -/
  Hom : obj → obj → Type v
  /-- The identity morphism of `X`. -/
  id : (X : obj) → Hom X X
  /-- Composition in diagrammatic order: `comp f g` is "first `f`, then `g`". -/
  comp : {X Y Z : obj} → Hom X Y → Hom Y Z → Hom X Z
  /-- Left unit law. -/
  id_comp : ∀ {X Y : obj} (f : Hom X Y), comp (id X) f = f
  /-- Right unit law. -/
  comp_id : ∀ {X Y : obj} (f : Hom X Y), comp f (id Y) = f
  /-- Associativity. -/
  assoc : ∀ {W X Y Z : obj} (f : Hom W X) (g : Hom X Y) (h : Hom Y Z),
    comp (comp f g) h = comp f (comp g h)

/-- Morphisms `X ⟶ Y`. -/
scoped infixr:10 " ⟶ " => Category.Hom
/-- Composition in diagrammatic order. -/
scoped infixr:80 " ≫ " => Category.comp
/-- The identity morphism `𝟙 X`. -/
scoped notation "𝟙" => Category.id

section
variable {C : Type u} [Category.{v} C]

/-- Whiskering an equation on the left. -/
theorem comp_congr_left {X Y Z : C} (f : X ⟶ Y) {g h : Y ⟶ Z} (e : g = h) : f ≫ g = f ≫ h :=
  congrArg (fun k => f ≫ k) e

/-- Whiskering an equation on the right. -/
theorem comp_congr_right {X Y Z : C} {f g : X ⟶ Y} (e : f = g) (h : Y ⟶ Z) : f ≫ h = g ≫ h :=
  congrArg (fun k => k ≫ h) e

end

/-- An isomorphism between `X` and `Y`: a morphism with a two-sided inverse. -/
structure Iso {C : Type u} [Category.{v} C] (X Y : C) where
  /-- The forward morphism. -/
  hom : X ⟶ Y
  /-- The inverse morphism. -/
  inv : Y ⟶ X
  /-- `hom` then `inv` is the identity of `X`. -/
  hom_inv_id : hom ≫ inv = 𝟙 X
  /-- `inv` then `hom` is the identity of `Y`. -/
  inv_hom_id : inv ≫ hom = 𝟙 Y

/-- `X ≅ Y`: isomorphic objects (the isomorphism is data). -/
scoped infixr:10 " ≅ " => Iso

namespace Iso

variable {C : Type u} [Category.{v} C]

/-- The identity isomorphism. -/
def refl (X : C) : Iso X X where
  hom := 𝟙 X
  inv := 𝟙 X
  hom_inv_id := Category.id_comp (𝟙 X)
  inv_hom_id := Category.id_comp (𝟙 X)

/-- The inverse isomorphism. -/
def symm {X Y : C} (i : Iso X Y) : Iso Y X where
  hom := i.inv
  inv := i.hom
  hom_inv_id := i.inv_hom_id
  inv_hom_id := i.hom_inv_id

/-- Composite of isomorphisms. -/
def trans {X Y Z : C} (i : Iso X Y) (j : Iso Y Z) : Iso X Z where
  hom := i.hom ≫ j.hom
  inv := j.inv ≫ i.inv
  hom_inv_id := by
    rw [Category.assoc, ← Category.assoc j.hom j.inv i.inv, j.hom_inv_id, Category.id_comp,
      i.hom_inv_id]
  inv_hom_id := by
    rw [Category.assoc, ← Category.assoc i.inv i.hom j.hom, i.inv_hom_id, Category.id_comp,
      j.inv_hom_id]

end Iso

/-- A monomorphism: left-cancellable, `g ≫ f = h ≫ f → g = h`. -/
structure Mono {C : Type u} [Category.{v} C] {X Y : C} (f : X ⟶ Y) : Prop where
  /-- Left cancellation. -/
  cancel : ∀ {Z : C} (g h : Z ⟶ X), g ≫ f = h ≫ f → g = h

/-- An epimorphism: right-cancellable, `f ≫ g = f ≫ h → g = h`. -/
structure Epi {C : Type u} [Category.{v} C] {X Y : C} (f : X ⟶ Y) : Prop where
  /-- Right cancellation. -/
  cancel : ∀ {Z : C} (g h : Y ⟶ Z), f ≫ g = f ≫ h → g = h

section MonoEpi

variable {C : Type u} [Category.{v} C]

/-- The forward map of an isomorphism is a monomorphism. -/
theorem Iso.mono_hom {X Y : C} (i : Iso X Y) : Mono i.hom :=
  ⟨fun g h e => by
    rw [← Category.comp_id g, ← Category.comp_id h, ← i.hom_inv_id, ← Category.assoc,
      ← Category.assoc, e]⟩

/-- The forward map of an isomorphism is an epimorphism. -/
theorem Iso.epi_hom {X Y : C} (i : Iso X Y) : Epi i.hom :=
  ⟨fun g h e => by
    rw [← Category.id_comp g, ← Category.id_comp h, ← i.inv_hom_id, Category.assoc,
      Category.assoc, e]⟩

/-- Identities are monomorphisms. -/
theorem mono_id (X : C) : Mono (𝟙 X) :=
  ⟨fun g h e => by
    rw [← Category.comp_id g, ← Category.comp_id h]
    exact e⟩

/-- A composite of monomorphisms is a monomorphism. -/
theorem mono_comp {X Y Z : C} {f : X ⟶ Y} {g : Y ⟶ Z} (hf : Mono f) (hg : Mono g) :
    Mono (f ≫ g) :=
  ⟨fun a b e => by
    apply hf.cancel a b
    apply hg.cancel (a ≫ f) (b ≫ f)
    rw [Category.assoc, Category.assoc]
    exact e⟩

/-- A composite of epimorphisms is an epimorphism. -/
theorem epi_comp {X Y Z : C} {f : X ⟶ Y} {g : Y ⟶ Z} (hf : Epi f) (hg : Epi g) :
    Epi (f ≫ g) :=
  ⟨fun a b e => by
    apply hg.cancel a b
    apply hf.cancel (g ≫ a) (g ≫ b)
    rw [← Category.assoc, ← Category.assoc]
    exact e⟩

end MonoEpi

end Formal.CategoryTheory
