import Formal.Category.Functor
import Formal.Category.Limits

/-!
# `Fam C`: the free coproduct completion

An object of `Fam C` is a family of objects of `C` indexed by a type `I : Type w`; a morphism
`(I, X) ⟶ (J, Y)` is a reindexing map `f : I → J` with a family of morphisms `X i ⟶ Y (f i)`.

* `Fam.category`: `Fam C` is a category (identity reindexing, composite reindexing, componentwise
  composition); `Fam.Hom.ext` is its extensionality principle (reindexing maps equal, components
  heterogeneously equal).
* `Fam.embed`: `C` embeds as the one-element families, and the embedding is fully faithful
  (`Fam.embedFullyFaithful`).
* `Fam.sigmaIsCoproduct`, `Fam.famCoproducts`: `Fam C` has all coproducts indexed by `Type w`,
  given by the dependent sum of the index types.

Sources: Villani & McBurney §3–4 describe layers with several parallel branches (mixtures of experts,
heads) as morphisms between families; the free coproduct completion is the standard setting for
such "sums of architectures" (and Belfiore & Bennequin §3 use families of layers over a site).
-/

namespace Formal.CategoryTheory

universe w v u

/-- A family of objects of `C` indexed by a type in `Type w`. -/
structure Fam (C : Type u) : Type (max u (w + 1)) where
  /-- The index type. -/
  I : Type w
  /-- The objects. -/
  X : I → C

namespace Fam

variable {C : Type u} [Category.{v} C]

/-- A morphism of families: a reindexing map and a family of morphisms. -/
structure Hom (A B : Fam.{w} C) where
  /-- The reindexing map. -/
  f : A.I → B.I
  /-- The components. -/
  φ : (i : A.I) → (A.X i ⟶ B.X (f i))

/-- Morphisms with the same reindexing map and equal components are equal. -/
theorem Hom.mk_congr {A B : Fam.{w} C} (f : A.I → B.I)
    {φ ψ : (i : A.I) → (A.X i ⟶ B.X (f i))} (h : ∀ i, φ i = ψ i) :
    (Hom.mk (A := A) (B := B) f φ) = Hom.mk f ψ :=
  congrArg (Hom.mk (A := A) (B := B) f) (funext h)

/-- Extensionality: equal reindexing maps and heterogeneously equal components. -/
theorem Hom.ext {A B : Fam.{w} C} {α β : Hom A B} (hf : α.f = β.f)
    (hφ : ∀ i, HEq (α.φ i) (β.φ i)) : α = β := by
  cases α with
  | mk f φ =>
    cases β with
    | mk g ψ =>
      have e : f = g := hf
      subst e
      have e' : φ = ψ := funext fun i => eq_of_heq (hφ i)
      subst e'
      rfl

/-- Equal morphisms have heterogeneously equal components. -/
theorem Hom.congr_φ {A B : Fam.{w} C} {α β : Hom A B} (h : α = β) (i : A.I) :
    HEq (α.φ i) (β.φ i) := by
  subst h
  exact HEq.rfl

/-- Equal morphisms have equal reindexing maps. -/
theorem Hom.congr_f {A B : Fam.{w} C} {α β : Hom A B} (h : α = β) (i : A.I) : α.f i = β.f i :=
  congrFun (congrArg Hom.f h) i

/-- The identity morphism of a family. -/
def id (A : Fam.{w} C) : Hom A A := ⟨fun i => i, fun i => 𝟙 (A.X i)⟩

/-- Composition: reindex, then compose componentwise. -/
def comp {A B D : Fam.{w} C} (α : Hom A B) (β : Hom B D) : Hom A D :=
  ⟨fun i => β.f (α.f i), fun i => α.φ i ≫ β.φ (α.f i)⟩

theorem id_comp' {A B : Fam.{w} C} (α : Hom A B) : Fam.comp (Fam.id A) α = α := by
  cases α with
  | mk f φ => exact Hom.mk_congr f (fun i => Category.id_comp (φ i))

theorem comp_id' {A B : Fam.{w} C} (α : Hom A B) : Fam.comp α (Fam.id B) = α := by
  cases α with
  | mk f φ => exact Hom.mk_congr f (fun i => Category.comp_id (φ i))

theorem assoc' {A B D E : Fam.{w} C} (α : Hom A B) (β : Hom B D) (γ : Hom D E) :
    Fam.comp (Fam.comp α β) γ = Fam.comp α (Fam.comp β γ) := by
  cases α with
  | mk f φ =>
    cases β with
    | mk g ψ =>
      cases γ with
      | mk h χ =>
        exact Hom.mk_congr (fun i => h (g (f i)))
          (fun i => Category.assoc (φ i) (ψ (f i)) (χ (g (f i))))

/-- `Fam C` is a category. -/
instance category : Category.{max w v} (Fam.{w} C) where
  Hom := Fam.Hom
  id := Fam.id
  comp := Fam.comp
  id_comp := Fam.id_comp'
  comp_id := Fam.comp_id'
  assoc := Fam.assoc'

/-! ## The embedding of `C` -/

/-- Any two elements of `PUnit` are equal. -/
theorem punit_eq (a b : PUnit.{w + 1}) : a = b := by
  cases a
  cases b
  rfl

/-- `C` embeds in `Fam C` as the one-element families. -/
def embed : Functor C (Fam.{w} C) where
  obj := fun X => ⟨PUnit.{w + 1}, fun _ => X⟩
  map := fun g => ⟨fun i => i, fun _ => g⟩
  map_id := fun _ => rfl
  map_comp := fun _ _ => rfl

/-- The embedding is fully faithful. -/
def embedFullyFaithful : Functor.FullyFaithful (embed.{w} (C := C)) where
  preimage := fun α => Hom.φ α PUnit.unit
  map_preimage := fun α => Hom.ext (funext fun i => punit_eq i (Hom.f α i))
    (fun i => by
      cases i
      exact HEq.rfl)
  preimage_map := fun _ => rfl

/-! ## Coproducts -/

/-- The coproduct of a family of families: the dependent sum of the index types. -/
def sigmaObj {J : Type w} (A : J → Fam.{w} C) : Fam.{w} C :=
  ⟨(j : J) × (A j).I, fun p => (A p.1).X p.2⟩

/-- The injection of the `j`-th family. -/
def sigmaι {J : Type w} (A : J → Fam.{w} C) (j : J) : Hom (A j) (sigmaObj A) :=
  ⟨fun i => ⟨j, i⟩, fun i => 𝟙 ((A j).X i)⟩

/-- The copairing out of the coproduct. -/
def sigmaDesc {J : Type w} (A : J → Fam.{w} C) {B : Fam.{w} C} (α : (j : J) → Hom (A j) B) :
    Hom (sigmaObj A) B :=
  ⟨fun (p : (j : J) × (A j).I) => (α p.1).f p.2, fun (p : (j : J) × (A j).I) => (α p.1).φ p.2⟩

theorem sigma_fac {J : Type w} (A : J → Fam.{w} C) {B : Fam.{w} C} (α : (j : J) → Hom (A j) B)
    (j : J) : Fam.comp (sigmaι A j) (sigmaDesc A α) = α j :=
  Hom.ext rfl (fun i => heq_of_eq (Category.id_comp ((α j).φ i)))

theorem sigma_uniq {J : Type w} (A : J → Fam.{w} C) {B : Fam.{w} C} (α : (j : J) → Hom (A j) B)
    (m : Hom (sigmaObj A) B) (h : ∀ j, Fam.comp (sigmaι A j) m = α j) : m = sigmaDesc A α :=
  Hom.ext
    (funext fun (p : (j : J) × (A j).I) =>
      match p with
      | ⟨j, i⟩ => Hom.congr_f (h j) i)
    (fun (p : (j : J) × (A j).I) =>
      match p with
      | ⟨j, i⟩ =>
        HEq.trans (heq_of_eq (Category.id_comp (Hom.φ m ⟨j, i⟩)).symm) (Hom.congr_φ (h j) i))

/-- The dependent sum is a coproduct in `Fam C`. -/
def sigmaIsCoproduct {J : Type w} (A : J → Fam.{w} C) :
    IsCoproduct (C := Fam.{w} C) (X := A) (P := sigmaObj A) (fun j => sigmaι A j) where
  desc := fun α => sigmaDesc A α
  fac := fun α j => sigma_fac A α j
  uniq := fun α m h => sigma_uniq A α m h

/-- `Fam C` has all coproducts indexed by types in `Type w`. -/
def famCoproducts : Coproducts.{w} (Fam.{w} C) where
  coproduct := fun _ A => ⟨sigmaObj A, fun j => sigmaι A j, sigmaIsCoproduct A⟩

end Fam

end Formal.CategoryTheory
