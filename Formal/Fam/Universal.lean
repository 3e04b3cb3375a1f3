import Formal.Fam.Basic

/-!
# The universal property of `Fam C` (extension along the embedding)

Given chosen coproducts `K : Coproducts.{w} D` in a category `D` and a functor `F : C ⥤ D`,
`Fam.extend K F : Fam C ⥤ D` sends a family `(I, X)` to the coproduct `∐ᵢ F (X i)` and a morphism
`(f, φ)` to the copairing of `F (φ i) ≫ ι (f i)`. What is proved here:

* `Fam.extend` is a functor (`extendMap_id`, `extendMap_comp`);
* it extends `F` along the embedding up to natural isomorphism: `Fam.extendEmbedIso K F` is a
  natural isomorphism `embed ⋙ extend K F ≅ F` (components: the copairing `∐_{PUnit} F X ⟶ F X` of
  the identity and the injection back).

That `extend K F` preserves coproducts is proved in `Formal/Fam/Preserves.lean`, and that it is
unique up to isomorphism among coproduct-preserving extensions in `Formal/Fam/Unique.lean`.

Sources: the free coproduct completion as the home of "sums of layers" (Villani & McBurney §3–4,
mixtures of experts and multi-head layers).
-/

namespace Formal.CategoryTheory

universe w v₁ v₂ u₁ u₂

namespace Fam

variable {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
  (K : Coproducts.{w} D) (F : Functor C D)

/-- The chosen coproduct `∐ᵢ F (A.X i)`. -/
def cop (A : Fam.{w} C) : Coproduct (fun i => F.obj (A.X i)) :=
  K.coproduct A.I (fun i => F.obj (A.X i))

/-- The extension on objects. -/
def extendObj (A : Fam.{w} C) : D := (cop K F A).pt

/-- The extension on morphisms: the copairing of `F (φ i) ≫ ι (f i)`. -/
def extendMap {A B : Fam.{w} C} (α : Hom A B) : extendObj K F A ⟶ extendObj K F B :=
  (cop K F A).isCoproduct.desc (fun i => F.map (α.φ i) ≫ (cop K F B).ι (α.f i))

theorem extendMap_ι {A B : Fam.{w} C} (α : Hom A B) (i : A.I) :
    (cop K F A).ι i ≫ extendMap K F α = F.map (α.φ i) ≫ (cop K F B).ι (α.f i) :=
  (cop K F A).isCoproduct.fac _ i

theorem extendMap_id_ι (A : Fam.{w} C) (i : A.I) :
    (cop K F A).ι i ≫ extendMap K F (Fam.id A) = F.map (𝟙 (A.X i)) ≫ (cop K F A).ι i :=
  extendMap_ι K F (Fam.id A) i

theorem extendMap_comp_ι {A B E : Fam.{w} C} (α : Hom A B) (β : Hom B E) (i : A.I) :
    (cop K F A).ι i ≫ extendMap K F (Fam.comp α β) =
      F.map (α.φ i ≫ β.φ (α.f i)) ≫ (cop K F E).ι (β.f (α.f i)) :=
  extendMap_ι K F (Fam.comp α β) i

theorem extendMap_id (A : Fam.{w} C) : extendMap K F (Fam.id A) = 𝟙 (extendObj K F A) :=
  (cop K F A).isCoproduct.hom_ext fun i =>
    (extendMap_id_ι K F A i).trans
      ((comp_congr_right (F.map_id (A.X i)) ((cop K F A).ι i)).trans
        ((Category.id_comp ((cop K F A).ι i)).trans
          (Category.comp_id ((cop K F A).ι i)).symm))

theorem extendMap_comp {A B E : Fam.{w} C} (α : Hom A B) (β : Hom B E) :
    extendMap K F (Fam.comp α β) = extendMap K F α ≫ extendMap K F β :=
  (cop K F A).isCoproduct.hom_ext fun i =>
    (extendMap_comp_ι K F α β i).trans
      ((comp_congr_right (F.map_comp (α.φ i) (β.φ (α.f i))) ((cop K F E).ι (β.f (α.f i)))).trans
        ((Category.assoc (F.map (α.φ i)) (F.map (β.φ (α.f i))) ((cop K F E).ι (β.f (α.f i)))).trans
          ((comp_congr_left (F.map (α.φ i)) (extendMap_ι K F β (α.f i)).symm).trans
            ((Category.assoc (F.map (α.φ i)) ((cop K F B).ι (α.f i)) (extendMap K F β)).symm.trans
              ((comp_congr_right (extendMap_ι K F α i).symm (extendMap K F β)).trans
                (Category.assoc ((cop K F A).ι i) (extendMap K F α) (extendMap K F β)))))))

/-- The extension of `F` to `Fam C`. -/
def extend : Functor (Fam.{w} C) D where
  obj := fun A => extendObj K F A
  map := fun α => extendMap K F α
  map_id := fun A => extendMap_id K F A
  map_comp := fun α β => extendMap_comp K F α β

/-- The component `∐_{PUnit} F X ⟶ F X`: the copairing of the identity. -/
def unitHom (X : C) : extendObj K F (embed.obj X) ⟶ F.obj X :=
  (cop K F (embed.obj X)).isCoproduct.desc (fun _ => 𝟙 (F.obj X))

theorem unitHom_ι (X : C) (i : PUnit.{w + 1}) :
    (cop K F (embed.obj X)).ι i ≫ unitHom K F X = 𝟙 (F.obj X) :=
  (cop K F (embed.obj X)).isCoproduct.fac _ i

theorem extendMap_embed_ι {X Y : C} (g : X ⟶ Y) (i : PUnit.{w + 1}) :
    (cop K F (embed.obj X)).ι i ≫ extendMap K F (embed.map g) =
      F.map g ≫ (cop K F (embed.obj Y)).ι i :=
  extendMap_ι K F (embed.map g) i

theorem unitHom_naturality {X Y : C} (g : X ⟶ Y) :
    extendMap K F (embed.map g) ≫ unitHom K F Y = unitHom K F X ≫ F.map g :=
  (cop K F (embed.obj X)).isCoproduct.hom_ext fun i =>
    (Category.assoc ((cop K F (embed.obj X)).ι i) (extendMap K F (embed.map g))
        (unitHom K F Y)).symm.trans
      ((comp_congr_right (extendMap_embed_ι K F g i) (unitHom K F Y)).trans
        ((Category.assoc (F.map g) ((cop K F (embed.obj Y)).ι i) (unitHom K F Y)).trans
          ((comp_congr_left (F.map g) (unitHom_ι K F Y i)).trans
            ((Category.comp_id (F.map g)).trans
              ((Category.id_comp (F.map g)).symm.trans
                ((comp_congr_right (unitHom_ι K F X i).symm (F.map g)).trans
                  (Category.assoc ((cop K F (embed.obj X)).ι i) (unitHom K F X) (F.map g))))))))

theorem unitHom_inv (X : C) :
    unitHom K F X ≫ (cop K F (embed.obj X)).ι PUnit.unit = 𝟙 (extendObj K F (embed.obj X)) :=
  (cop K F (embed.obj X)).isCoproduct.hom_ext fun i => by
    cases i
    exact (Category.assoc ((cop K F (embed.obj X)).ι PUnit.unit) (unitHom K F X)
        ((cop K F (embed.obj X)).ι PUnit.unit)).symm.trans
      ((comp_congr_right (unitHom_ι K F X PUnit.unit) ((cop K F (embed.obj X)).ι PUnit.unit)).trans
        ((Category.id_comp ((cop K F (embed.obj X)).ι PUnit.unit)).trans
          (Category.comp_id ((cop K F (embed.obj X)).ι PUnit.unit)).symm))

/-- **Universal property of `Fam C`** (extension part): `F` factors through the embedding
`C ⥤ Fam C` up to the natural isomorphism `embed ⋙ extend K F ≅ F`. -/
def extendEmbedIso : NatIso (Functor.comp embed.{w} (extend K F)) F where
  hom :=
    { app := fun X => unitHom K F X
      naturality := fun g => unitHom_naturality K F g }
  inv :=
    { app := fun X => (cop K F (embed.obj X)).ι PUnit.unit
      naturality := fun g => (extendMap_embed_ι K F g PUnit.unit).symm }
  hom_inv_id := fun X => unitHom_inv K F X
  inv_hom_id := fun X => unitHom_ι K F X PUnit.unit

end Fam

end Formal.CategoryTheory
