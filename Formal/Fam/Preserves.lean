import Formal.Fam.Universal

/-!
# The extension `Fam C ⥤ D` preserves coproducts

Let `K : Coproducts.{w} D` be chosen coproducts and `F : C ⥤ D` a functor. `Fam.extend K F`
(`Formal/Fam/Universal.lean`) sends the coproducts of `Fam C` to coproducts of `D`:

* `Fam.extendSigmaIsCoproduct`: for `A : J → Fam C`, the images
  `extend (A j) ⟶ extend (∐ⱼ A j)` of the injections into the dependent sum `sigmaObj A` form a
  coproduct cocone in `D`. The copairing of `g j : extend (A j) ⟶ W` is the copairing, over the
  summands `⟨j, i⟩` of `∐_{⟨j, i⟩} F (A j).X i`, of `ι i ≫ g j` (`Fam.sigmaExtendDesc`);
* `Fam.extendIsCoproduct`: more generally, the image of *any* coproduct cocone of `Fam C` (indexed by
  a type in `Type w`) is a coproduct cocone in `D`. The proof transports the first result along the
  image of the comparison isomorphism `sigmaObj A ≅ P`.

General lemmas used for the transport: `IsCoproduct.uniqueUpToIso` (two coproducts of one family are
isomorphic), `IsCoproduct.ofIso` (a cocone isomorphic to a coproduct cocone is one) and
`Functor.mapIso` (functors preserve isomorphisms).

The *uniqueness* half of the universal property, that every coproduct-preserving
`G : Fam C ⥤ D` with `embed ⋙ G ≅ F` is naturally isomorphic to `extend K F`, is in
`Formal/Fam/Unique.lean`.

Sources: the free coproduct completion as the home of "sums of layers" (Villani & McBurney §3–4,
mixtures of experts and multi-head layers).
-/

namespace Formal.CategoryTheory

universe w v₁ v₂ u₁ u₂

/-! ## General lemmas: coproducts up to isomorphism, functors on isomorphisms -/

section General

variable {C : Type u₁} [Category.{v₁} C]

/-- Two coproducts of the same family are isomorphic: the comparison map is the copairing of the
other injections. -/
def IsCoproduct.uniqueUpToIso {I : Type w} {X : I → C} {P P' : C} {ι : (i : I) → (X i ⟶ P)}
    {ι' : (i : I) → (X i ⟶ P')} (h : IsCoproduct ι) (h' : IsCoproduct ι') : Iso P P' where
  hom := h.desc ι'
  inv := h'.desc ι
  hom_inv_id := h.hom_ext fun i =>
    (Category.assoc (ι i) (h.desc ι') (h'.desc ι)).symm.trans
      ((comp_congr_right (h.fac ι' i) (h'.desc ι)).trans
        ((h'.fac ι i).trans (Category.comp_id (ι i)).symm))
  inv_hom_id := h'.hom_ext fun i =>
    (Category.assoc (ι' i) (h'.desc ι) (h.desc ι')).symm.trans
      ((comp_congr_right (h'.fac ι i) (h.desc ι')).trans
        ((h.fac ι' i).trans (Category.comp_id (ι' i)).symm))

/-- The comparison isomorphism commutes with the injections. -/
theorem IsCoproduct.ι_uniqueUpToIso_hom {I : Type w} {X : I → C} {P P' : C}
    {ι : (i : I) → (X i ⟶ P)} {ι' : (i : I) → (X i ⟶ P')} (h : IsCoproduct ι)
    (h' : IsCoproduct ι') (i : I) : ι i ≫ (h.uniqueUpToIso h').hom = ι' i :=
  h.fac ι' i

/-- A cocone isomorphic to a coproduct cocone is a coproduct cocone: if `ι` is a coproduct on `P`,
`e : P ≅ P'` and `ι i ≫ e.hom = ι' i` for all `i`, then `ι'` is a coproduct on `P'`. -/
def IsCoproduct.ofIso {I : Type w} {X : I → C} {P P' : C} {ι : (i : I) → (X i ⟶ P)}
    (h : IsCoproduct ι) (e : Iso P P') (ι' : (i : I) → (X i ⟶ P'))
    (hw : ∀ i, ι i ≫ e.hom = ι' i) : IsCoproduct ι' where
  desc := fun f => e.inv ≫ h.desc f
  fac := fun f i =>
    (comp_congr_right (hw i).symm (e.inv ≫ h.desc f)).trans
      ((Category.assoc (ι i) e.hom (e.inv ≫ h.desc f)).trans
        ((comp_congr_left (ι i) (Category.assoc e.hom e.inv (h.desc f)).symm).trans
          ((comp_congr_left (ι i) (comp_congr_right e.hom_inv_id (h.desc f))).trans
            ((comp_congr_left (ι i) (Category.id_comp (h.desc f))).trans (h.fac f i)))))
  uniq := fun f m hm => by
    have k : e.hom ≫ m = h.desc f :=
      h.uniq f (e.hom ≫ m) fun i =>
        (Category.assoc (ι i) e.hom m).symm.trans ((comp_congr_right (hw i) m).trans (hm i))
    exact (Category.id_comp m).symm.trans
      ((comp_congr_right e.inv_hom_id.symm m).trans
        ((Category.assoc e.inv e.hom m).trans (comp_congr_left e.inv k)))

end General

/-- A functor sends isomorphisms to isomorphisms. -/
def Functor.mapIso {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    (G : Functor C D) {X Y : C} (e : Iso X Y) : Iso (G.obj X) (G.obj Y) where
  hom := G.map e.hom
  inv := G.map e.inv
  hom_inv_id :=
    (G.map_comp e.hom e.inv).symm.trans
      ((congrArg (fun (k : X ⟶ X) => G.map k) e.hom_inv_id).trans (G.map_id X))
  inv_hom_id :=
    (G.map_comp e.inv e.hom).symm.trans
      ((congrArg (fun (k : Y ⟶ Y) => G.map k) e.inv_hom_id).trans (G.map_id Y))

/-! ## `extend K F` preserves coproducts -/

namespace Fam

variable {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
  (K : Coproducts.{w} D) (F : Functor C D)

/-- The image of the `j`-th injection into the dependent sum, on the summand `i` of `extend (A j)`,
is the injection of the summand `⟨j, i⟩` of `extend (∐ A)`. -/
theorem extendMap_sigmaι_ι {J : Type w} (A : J → Fam.{w} C) (j : J) (i : (A j).I) :
    (cop K F (A j)).ι i ≫ extendMap K F (sigmaι A j) = (cop K F (sigmaObj A)).ι ⟨j, i⟩ :=
  (extendMap_ι K F (sigmaι A j) i).trans
    ((comp_congr_right (F.map_id ((A j).X i)) ((cop K F (sigmaObj A)).ι ⟨j, i⟩)).trans
      (Category.id_comp ((cop K F (sigmaObj A)).ι ⟨j, i⟩)))

/-- The copairing out of `extend (∐ A)`: on the summand `⟨j, i⟩`, the injection `ι i` of
`extend (A j)` followed by `g j`. -/
def sigmaExtendDesc {J : Type w} (A : J → Fam.{w} C) {W : D}
    (g : (j : J) → (extendObj K F (A j) ⟶ W)) : extendObj K F (sigmaObj A) ⟶ W :=
  (cop K F (sigmaObj A)).isCoproduct.desc
    (fun (p : (j : J) × (A j).I) => (cop K F (A p.1)).ι p.2 ≫ g p.1)

/-- Factorisation of `sigmaExtendDesc` through the images of the injections. -/
theorem sigmaExtendDesc_fac {J : Type w} (A : J → Fam.{w} C) {W : D}
    (g : (j : J) → (extendObj K F (A j) ⟶ W)) (j : J) :
    extendMap K F (sigmaι A j) ≫ sigmaExtendDesc K F A g = g j :=
  (cop K F (A j)).isCoproduct.hom_ext fun i =>
    (Category.assoc ((cop K F (A j)).ι i) (extendMap K F (sigmaι A j))
        (sigmaExtendDesc K F A g)).symm.trans
      ((comp_congr_right (extendMap_sigmaι_ι K F A j i) (sigmaExtendDesc K F A g)).trans
        ((cop K F (sigmaObj A)).isCoproduct.fac
          (fun (p : (j : J) × (A j).I) => (cop K F (A p.1)).ι p.2 ≫ g p.1) ⟨j, i⟩))

/-- Uniqueness of `sigmaExtendDesc`. -/
theorem sigmaExtendDesc_uniq {J : Type w} (A : J → Fam.{w} C) {W : D}
    (g : (j : J) → (extendObj K F (A j) ⟶ W)) (m : extendObj K F (sigmaObj A) ⟶ W)
    (h : ∀ j, extendMap K F (sigmaι A j) ≫ m = g j) : m = sigmaExtendDesc K F A g :=
  (cop K F (sigmaObj A)).isCoproduct.uniq
    (fun (p : (j : J) × (A j).I) => (cop K F (A p.1)).ι p.2 ≫ g p.1) m
    (fun (p : (j : J) × (A j).I) =>
      match p with
      | ⟨j, i⟩ =>
        (comp_congr_right (extendMap_sigmaι_ι K F A j i).symm m).trans
          ((Category.assoc ((cop K F (A j)).ι i) (extendMap K F (sigmaι A j)) m).trans
            (comp_congr_left ((cop K F (A j)).ι i) (h j))))

/-- **`extend K F` preserves the dependent-sum coproducts of `Fam C`**: the images of the
injections `A j ⟶ sigmaObj A` form a coproduct cocone in `D`. -/
def extendSigmaIsCoproduct {J : Type w} (A : J → Fam.{w} C) :
    IsCoproduct (C := D) (X := fun j => (extend K F).obj (A j))
      (P := (extend K F).obj (sigmaObj A)) (fun j => (extend K F).map (sigmaι A j)) where
  desc := fun g => sigmaExtendDesc K F A g
  fac := fun g j => sigmaExtendDesc_fac K F A g j
  uniq := fun g m h => sigmaExtendDesc_uniq K F A g m h

/-- **`extend K F` preserves all coproducts of `Fam C`** indexed by types in `Type w`: the image of
any coproduct cocone `ι j : A j ⟶ P` is a coproduct cocone in `D`. -/
def extendIsCoproduct {J : Type w} {A : J → Fam.{w} C} {P : Fam.{w} C}
    {ι : (j : J) → (A j ⟶ P)} (h : IsCoproduct (C := Fam.{w} C) (X := A) (P := P) ι) :
    IsCoproduct (C := D) (X := fun j => (extend K F).obj (A j)) (P := (extend K F).obj P)
      (fun j => (extend K F).map (ι j)) :=
  IsCoproduct.ofIso (extendSigmaIsCoproduct K F A)
    ((extend K F).mapIso ((sigmaIsCoproduct A).uniqueUpToIso h))
    (fun j => (extend K F).map (ι j))
    (fun j =>
      ((extend K F).map_comp (sigmaι A j) ((sigmaIsCoproduct A).uniqueUpToIso h).hom).symm.trans
        (congrArg (fun (k : A j ⟶ P) => (extend K F).map k)
          ((sigmaIsCoproduct A).ι_uniqueUpToIso_hom h j)))

end Fam

end Formal.CategoryTheory
