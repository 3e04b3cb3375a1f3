import Formal.Fam.Preserves

/-!
# Uniqueness in the universal property of `Fam C`

Let `K : Coproducts.{w} D` be chosen coproducts and `F : C ⥤ D` a functor. `Formal/Fam/Universal.lean`
builds the extension `Fam.extend K F : Fam C ⥤ D` with `embed ⋙ extend K F ≅ F`, and
`Formal/Fam/Preserves.lean` proves that it preserves coproducts. This file proves that it is the only
such functor up to natural isomorphism.

* `Fam.embedIsCoproduct`: every family `A = (I, X)` is the coproduct, in `Fam C`, of the one-element
  families `embed.obj (X i)`, with injections `Fam.embedι A i` (reindexing `⋆ ↦ i`, identity
  component). This is the key lemma.
* `Fam.PreservesDecomposition G`: the hypothesis on `G : Fam C ⥤ D` actually used, that `G` sends
  each of these decompositions to a coproduct cocone in `D`. `Fam.PreservesCoproducts G` (the image of
  every `Type w`-indexed coproduct cocone of `Fam C` is a coproduct cocone) implies it
  (`Fam.PreservesCoproducts.toPreservesDecomposition`), and `extend K F` satisfies it
  (`Fam.extendPreservesCoproducts`).
* `Fam.extendUniqueOfDecomposition`, `Fam.extendUnique`: **uniqueness**. If `G` preserves the
  decompositions (respectively all coproducts) and `e : embed ⋙ G ≅ F`, then `G ≅ extend K F` as
  functors. The component at `A` (`Fam.extendUniqueIsoApp`) compares the two coproducts
  `G A = ∐ᵢ G (embed (X i))` and `extend K F A = ∐ᵢ F (X i)` summand by summand along
  `e (X i)`; naturality is checked on each summand (`Fam.extendUniqueIsoApp_naturality`).

General lemmas: `IsCoproduct.isoOfComponents` (coproducts of componentwise isomorphic families are
isomorphic) and `NatIso.ofComponents` (a natural isomorphism from isomorphic components, natural in the
forward direction).

Sources: the free coproduct completion as the home of "sums of layers" (Villani & McBurney §3–4,
mixtures of experts and multi-head layers).
-/

namespace Formal.CategoryTheory

universe w v₁ v₂ u₁ u₂

/-! ## General lemmas: coproducts of isomorphic families, natural isomorphisms from components -/

section General

variable {C : Type u₁} [Category.{v₁} C]

/-- Auxiliary: if `a i ≫ b i = 𝟙` for every `i`, the copairing of `a i ≫ κ i` followed by the
copairing of `b i ≫ ι i` is the identity on each summand. -/
theorem IsCoproduct.desc_comp_desc_ι {I : Type w} {X Y : I → C} {P Q : C}
    {ι : (i : I) → (X i ⟶ P)} {κ : (i : I) → (Y i ⟶ Q)} (h : IsCoproduct ι)
    (k : IsCoproduct κ) (a : (i : I) → (X i ⟶ Y i)) (b : (i : I) → (Y i ⟶ X i))
    (hab : ∀ i, a i ≫ b i = 𝟙 (X i)) (i : I) :
    ι i ≫ (h.desc (fun j => a j ≫ κ j) ≫ k.desc (fun j => b j ≫ ι j)) = ι i ≫ 𝟙 P :=
  (Category.assoc (ι i) (h.desc (fun j => a j ≫ κ j)) (k.desc (fun j => b j ≫ ι j))).symm.trans
    ((comp_congr_right (h.fac (fun j => a j ≫ κ j) i) (k.desc (fun j => b j ≫ ι j))).trans
      ((Category.assoc (a i) (κ i) (k.desc (fun j => b j ≫ ι j))).trans
        ((comp_congr_left (a i) (k.fac (fun j => b j ≫ ι j) i)).trans
          ((Category.assoc (a i) (b i) (ι i)).symm.trans
            ((comp_congr_right (hab i) (ι i)).trans
              ((Category.id_comp (ι i)).trans (Category.comp_id (ι i)).symm))))))

/-- Coproducts of componentwise isomorphic families are isomorphic: if `ι` is a coproduct of `X` on
`P`, `κ` a coproduct of `Y` on `Q` and `e i : X i ≅ Y i`, then `P ≅ Q`, the forward map being the
copairing of `e i ≫ κ i`. -/
def IsCoproduct.isoOfComponents {I : Type w} {X Y : I → C} {P Q : C}
    {ι : (i : I) → (X i ⟶ P)} {κ : (i : I) → (Y i ⟶ Q)} (h : IsCoproduct ι)
    (k : IsCoproduct κ) (e : (i : I) → Iso (X i) (Y i)) : Iso P Q where
  hom := h.desc (fun i => (e i).hom ≫ κ i)
  inv := k.desc (fun i => (e i).inv ≫ ι i)
  hom_inv_id := h.hom_ext fun i =>
    h.desc_comp_desc_ι k (fun j => (e j).hom) (fun j => (e j).inv) (fun j => (e j).hom_inv_id) i
  inv_hom_id := k.hom_ext fun i =>
    k.desc_comp_desc_ι h (fun j => (e j).inv) (fun j => (e j).hom) (fun j => (e j).inv_hom_id) i

/-- The comparison isomorphism of `IsCoproduct.isoOfComponents` on the summand `i`. -/
theorem IsCoproduct.ι_isoOfComponents_hom {I : Type w} {X Y : I → C} {P Q : C}
    {ι : (i : I) → (X i ⟶ P)} {κ : (i : I) → (Y i ⟶ Q)} (h : IsCoproduct ι)
    (k : IsCoproduct κ) (e : (i : I) → Iso (X i) (Y i)) (i : I) :
    ι i ≫ (h.isoOfComponents k e).hom = (e i).hom ≫ κ i :=
  h.fac (fun j => (e j).hom ≫ κ j) i

/-- If a square commutes with the forward maps of two isomorphisms, it commutes with their
inverses: `f ≫ j.hom = i.hom ≫ g` gives `g ≫ j.inv = i.inv ≫ f`. -/
theorem Iso.inv_comp_of_comp_hom {X X' Y Y' : C} (i : Iso X Y) (j : Iso X' Y') (f : X ⟶ X')
    (g : Y ⟶ Y') (h : f ≫ j.hom = i.hom ≫ g) : g ≫ j.inv = i.inv ≫ f :=
  (Category.id_comp (g ≫ j.inv)).symm.trans
    ((comp_congr_right i.inv_hom_id.symm (g ≫ j.inv)).trans
      ((Category.assoc i.inv i.hom (g ≫ j.inv)).trans
        (comp_congr_left i.inv
          ((Category.assoc i.hom g j.inv).symm.trans
            ((comp_congr_right h.symm j.inv).trans
              ((Category.assoc f j.hom j.inv).trans
                ((comp_congr_left f j.hom_inv_id).trans (Category.comp_id f))))))))

end General

/-- A natural isomorphism from isomorphic components whose forward maps are natural (the inverses
are then natural by `Iso.inv_comp_of_comp_hom`). -/
def NatIso.ofComponents {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    {F G : Functor C D} (iso : (X : C) → Iso (F.obj X) (G.obj X))
    (nat : ∀ {X Y : C} (f : X ⟶ Y), F.map f ≫ (iso Y).hom = (iso X).hom ≫ G.map f) :
    NatIso F G where
  hom :=
    { app := fun X => (iso X).hom
      naturality := fun f => nat f }
  inv :=
    { app := fun X => (iso X).inv
      naturality := fun {X Y} f =>
        Iso.inv_comp_of_comp_hom (iso X) (iso Y) (F.map f) (G.map f) (nat f) }
  hom_inv_id := fun X => (iso X).hom_inv_id
  inv_hom_id := fun X => (iso X).inv_hom_id

namespace Fam

/-! ## Every family is the coproduct of its one-element subfamilies -/

section Decomposition

variable {C : Type u₁} [Category.{v₁} C]

/-- The injection of the one-element family `embed.obj (A.X i)` into `A`: reindexing `⋆ ↦ i`,
component the identity of `A.X i`. -/
def embedι (A : Fam.{w} C) (i : A.I) : Hom (embed.obj (A.X i)) A :=
  ⟨fun _ => i, fun _ => 𝟙 (A.X i)⟩

/-- The copairing out of `A`: on the index `i`, the reindexing and the component of `α i` at `⋆`. -/
def embedDesc (A : Fam.{w} C) {B : Fam.{w} C} (α : (i : A.I) → Hom (embed.obj (A.X i)) B) :
    Hom A B :=
  ⟨fun i => (α i).f PUnit.unit, fun i => (α i).φ PUnit.unit⟩

/-- Factorisation of `embedDesc` through the injections. -/
theorem embedι_embedDesc (A : Fam.{w} C) {B : Fam.{w} C}
    (α : (i : A.I) → Hom (embed.obj (A.X i)) B) (i : A.I) :
    Fam.comp (embedι A i) (embedDesc A α) = α i :=
  Hom.ext (funext fun p => congrArg (Hom.f (α i)) (punit_eq PUnit.unit p))
    (fun p => by
      cases p
      exact heq_of_eq (Category.id_comp (Hom.φ (α i) PUnit.unit)))

/-- Uniqueness of `embedDesc`. -/
theorem embedDesc_uniq (A : Fam.{w} C) {B : Fam.{w} C}
    (α : (i : A.I) → Hom (embed.obj (A.X i)) B) (m : Hom A B)
    (h : ∀ i, Fam.comp (embedι A i) m = α i) : m = embedDesc A α :=
  Hom.ext (funext fun i => Hom.congr_f (h i) PUnit.unit)
    (fun i =>
      HEq.trans (heq_of_eq (Category.id_comp (Hom.φ m i)).symm) (Hom.congr_φ (h i) PUnit.unit))

/-- **Every family is the coproduct of its members**: `A = (I, X)` is the coproduct in `Fam C` of
the one-element families `embed.obj (X i)`, `i : I`, with injections `embedι A i`. -/
def embedIsCoproduct (A : Fam.{w} C) :
    IsCoproduct (C := Fam.{w} C) (X := fun i => embed.obj (A.X i)) (P := A)
      (fun i => embedι A i) where
  desc := fun α => embedDesc A α
  fac := fun α i => embedι_embedDesc A α i
  uniq := fun α m h => embedDesc_uniq A α m h

/-- An injection followed by a morphism `α : A ⟶ B` is the image of the component `α.φ i` followed
by the injection of the summand `α.f i` of `B`. -/
theorem embedι_comp {A B : Fam.{w} C} (α : Hom A B) (i : A.I) :
    Fam.comp (embedι A i) α = Fam.comp (embed.map (α.φ i)) (embedι B (α.f i)) :=
  Hom.ext rfl
    (fun _ => heq_of_eq ((Category.id_comp (α.φ i)).trans (Category.comp_id (α.φ i)).symm))

end Decomposition

/-! ## Coproduct-preserving functors out of `Fam C` -/

section Preservation

variable {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]

/-- `G : Fam C ⥤ D` preserves the decomposition of every family into its members: the images
`G (embed (A.X i)) ⟶ G A` of the injections `embedι A i` form a coproduct cocone in `D`. This is the
hypothesis of the uniqueness theorem; it follows from `PreservesCoproducts`. -/
structure PreservesDecomposition (G : Functor (Fam.{w} C) D) where
  /-- The image of the decomposition of `A` is a coproduct cocone. -/
  isCoproduct : (A : Fam.{w} C) →
    IsCoproduct (C := D) (X := fun i => G.obj (embed.obj (A.X i))) (P := G.obj A)
      (fun i => G.map (embedι A i))

/-- `G : Fam C ⥤ D` preserves coproducts indexed by types in `Type w`: the image of every coproduct
cocone of `Fam C` is a coproduct cocone in `D`. -/
structure PreservesCoproducts (G : Functor (Fam.{w} C) D) where
  /-- The image of a coproduct cocone is a coproduct cocone. -/
  isCoproduct : ∀ {J : Type w} {A : J → Fam.{w} C} {P : Fam.{w} C} {ι : (j : J) → (A j ⟶ P)},
    IsCoproduct (C := Fam.{w} C) (X := A) (P := P) ι →
      IsCoproduct (C := D) (X := fun j => G.obj (A j)) (P := G.obj P) (fun j => G.map (ι j))

/-- A coproduct-preserving functor preserves the decompositions (`embedIsCoproduct`). -/
def PreservesCoproducts.toPreservesDecomposition {G : Functor (Fam.{w} C) D}
    (hG : PreservesCoproducts G) : PreservesDecomposition G where
  isCoproduct := fun A => hG.isCoproduct (embedIsCoproduct A)

/-- The extension `extend K F` preserves coproducts (`extendIsCoproduct`). -/
def extendPreservesCoproducts (K : Coproducts.{w} D) (F : Functor C D) :
    PreservesCoproducts (extend K F) where
  isCoproduct := fun h => extendIsCoproduct K F h

end Preservation

/-! ## Uniqueness of the extension -/

section Uniqueness

variable {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]

/-- The component at `A` of the comparison `G ≅ extend K F`: both sides are coproducts over `A.I`,
of `G (embed (A.X i))` and of `F (A.X i)`, and these are isomorphic through `e (A.X i)`. -/
def extendUniqueIsoApp (K : Coproducts.{w} D) (F : Functor C D) {G : Functor (Fam.{w} C) D}
    (hG : PreservesDecomposition G) (e : NatIso (Functor.comp embed G) F) (A : Fam.{w} C) :
    Iso (G.obj A) (extendObj K F A) :=
  IsCoproduct.isoOfComponents (hG.isCoproduct A) (cop K F A).isCoproduct
    (fun i => e.app (A.X i))

/-- The comparison on the summand `i`: `e (A.X i)` followed by the injection `ι i`. -/
theorem extendUniqueIsoApp_hom_ι (K : Coproducts.{w} D) (F : Functor C D)
    {G : Functor (Fam.{w} C) D} (hG : PreservesDecomposition G)
    (e : NatIso (Functor.comp embed G) F) (A : Fam.{w} C) (i : A.I) :
    G.map (embedι A i) ≫ (extendUniqueIsoApp K F hG e A).hom =
      e.hom.app (A.X i) ≫ (cop K F A).ι i :=
  IsCoproduct.ι_isoOfComponents_hom (hG.isCoproduct A) (cop K F A).isCoproduct
    (fun i => e.app (A.X i)) i

/-- Naturality on the summand `i`, first side: `G α` then the comparison at `B`. -/
theorem extendUniqueIsoApp_naturality_left (K : Coproducts.{w} D) (F : Functor C D)
    {G : Functor (Fam.{w} C) D} (hG : PreservesDecomposition G)
    (e : NatIso (Functor.comp embed G) F) {A B : Fam.{w} C} (α : Hom A B) (i : A.I) :
    G.map (embedι A i) ≫ (G.map α ≫ (extendUniqueIsoApp K F hG e B).hom) =
      e.hom.app (A.X i) ≫ (F.map (α.φ i) ≫ (cop K F B).ι (α.f i)) :=
  (Category.assoc (G.map (embedι A i)) (G.map α) (extendUniqueIsoApp K F hG e B).hom).symm.trans
    ((comp_congr_right (G.map_comp (embedι A i) α).symm (extendUniqueIsoApp K F hG e B).hom).trans
      ((comp_congr_right
          (congrArg (fun (k : embed.obj (A.X i) ⟶ B) => G.map k) (embedι_comp α i))
          (extendUniqueIsoApp K F hG e B).hom).trans
        ((comp_congr_right (G.map_comp (embed.map (α.φ i)) (embedι B (α.f i)))
            (extendUniqueIsoApp K F hG e B).hom).trans
          ((Category.assoc (G.map (embed.map (α.φ i))) (G.map (embedι B (α.f i)))
              (extendUniqueIsoApp K F hG e B).hom).trans
            ((comp_congr_left (G.map (embed.map (α.φ i)))
                (extendUniqueIsoApp_hom_ι K F hG e B (α.f i))).trans
              ((Category.assoc (G.map (embed.map (α.φ i))) (e.hom.app (B.X (α.f i)))
                  ((cop K F B).ι (α.f i))).symm.trans
                ((comp_congr_right (e.hom.naturality (α.φ i)) ((cop K F B).ι (α.f i))).trans
                  (Category.assoc (e.hom.app (A.X i)) (F.map (α.φ i))
                    ((cop K F B).ι (α.f i))))))))))

/-- Naturality on the summand `i`, second side: the comparison at `A` then `extend K F α`. -/
theorem extendUniqueIsoApp_naturality_right (K : Coproducts.{w} D) (F : Functor C D)
    {G : Functor (Fam.{w} C) D} (hG : PreservesDecomposition G)
    (e : NatIso (Functor.comp embed G) F) {A B : Fam.{w} C} (α : Hom A B) (i : A.I) :
    G.map (embedι A i) ≫ ((extendUniqueIsoApp K F hG e A).hom ≫ extendMap K F α) =
      e.hom.app (A.X i) ≫ (F.map (α.φ i) ≫ (cop K F B).ι (α.f i)) :=
  (Category.assoc (G.map (embedι A i)) (extendUniqueIsoApp K F hG e A).hom
      (extendMap K F α)).symm.trans
    ((comp_congr_right (extendUniqueIsoApp_hom_ι K F hG e A i) (extendMap K F α)).trans
      ((Category.assoc (e.hom.app (A.X i)) ((cop K F A).ι i) (extendMap K F α)).trans
        (comp_congr_left (e.hom.app (A.X i)) (extendMap_ι K F α i))))

/-- Naturality of the comparison `G ≅ extend K F`, checked on the summands of `G A`. -/
theorem extendUniqueIsoApp_naturality (K : Coproducts.{w} D) (F : Functor C D)
    {G : Functor (Fam.{w} C) D} (hG : PreservesDecomposition G)
    (e : NatIso (Functor.comp embed G) F) {A B : Fam.{w} C} (α : Hom A B) :
    G.map α ≫ (extendUniqueIsoApp K F hG e B).hom =
      (extendUniqueIsoApp K F hG e A).hom ≫ extendMap K F α :=
  (hG.isCoproduct A).hom_ext fun i =>
    (extendUniqueIsoApp_naturality_left K F hG e α i).trans
      (extendUniqueIsoApp_naturality_right K F hG e α i).symm

/-- **Universal property of `Fam C`, uniqueness** (from the decompositions): a functor
`G : Fam C ⥤ D` that sends the decomposition of every family into its members to a coproduct, with
`embed ⋙ G ≅ F`, is naturally isomorphic to `extend K F`. -/
def extendUniqueOfDecomposition (K : Coproducts.{w} D) (F : Functor C D)
    {G : Functor (Fam.{w} C) D} (hG : PreservesDecomposition G)
    (e : NatIso (Functor.comp embed G) F) : NatIso G (extend K F) :=
  NatIso.ofComponents (F := G) (G := extend K F) (fun A => extendUniqueIsoApp K F hG e A)
    (fun α => extendUniqueIsoApp_naturality K F hG e α)

/-- **Universal property of `Fam C`, uniqueness**: every coproduct-preserving `G : Fam C ⥤ D` with
`embed ⋙ G ≅ F` is naturally isomorphic to `extend K F`. -/
def extendUnique (K : Coproducts.{w} D) (F : Functor C D) {G : Functor (Fam.{w} C) D}
    (hG : PreservesCoproducts G) (e : NatIso (Functor.comp embed G) F) : NatIso G (extend K F) :=
  extendUniqueOfDecomposition K F hG.toPreservesDecomposition e

end Uniqueness

end Fam

end Formal.CategoryTheory
