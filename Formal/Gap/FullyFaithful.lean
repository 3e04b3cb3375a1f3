import Formal.Category.Functor
import Formal.PL.Fragment

/-!
# Fully faithful functors add no maps: the refutation of VM.C3 as stated

Villani & McBurney (arXiv 2403.18415v2, §4, claim C3) place the transformer in a topos completion
of the category of piecewise-linear maps: the completion is supposed to contain the new,
"higher-order" maps that transformers compute. But a completion that embeds the original category
*fully faithfully* adds no morphisms between the images of old objects:

* `ff_no_new_maps`: for a fully faithful functor `F : C ⥤ D`, every `g : F X ⟶ F Y` is `F.map f`
  for exactly one `f : X ⟶ Y`;
* `plCategory` (called `PLCat` in the text; no declaration has that name): the category on
  `PLObj α`, whose objects are the dimensions `n` (standing for `αⁿ`) and whose morphisms (`PLHom`)
  are the maps denoted by terms of the PL fragment (`Formal.PL.IsPL`);
* `pl_completion_adds_no_maps`: any fully faithful completion `F` of `PLCat` has no morphism
  `F(αᵐ) ⟶ F(αⁿ)` other than the images of PL maps;
* `ff_completion_no_mul`: in particular no morphism `F(α²) ⟶ F(α¹)` of the completion comes from
  the product `(x₀, x₁) ↦ x₀ x₁` (by `Formal.PL.mul_not_pl`).

`PLCat` holds only the continuous maps of the PL fragment. The refutation in the larger category of
all maps that are locally affine along lines (which, by an argument not formalised, contains the
semilinear maps of the paper's pretopos) is `Formal/Gap/LineAffine.lean`.

Categories, functors and fully faithful functors are those of `Formal/Category`
(`Formal.CategoryTheory.Functor.FullyFaithful` carries the inverse on hom types).
-/

namespace Formal.Gap

open Formal.CategoryTheory
open Formal.PL

universe u v₁ v₂ u₁ u₂

/-- **VM.C3 (refutation, general form).** A fully faithful functor adds no morphisms between the
images of objects: every `g : F X ⟶ F Y` is the image of exactly one `f : X ⟶ Y`. -/
theorem ff_no_new_maps {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D]
    (F : CategoryTheory.Functor C D) (hF : CategoryTheory.Functor.FullyFaithful F) {X Y : C}
    (g : Category.Hom (F.obj X) (F.obj Y)) :
    ∃ f : Category.Hom X Y, F.map f = g ∧ ∀ f' : Category.Hom X Y, F.map f' = g → f' = f :=
  ⟨hF.preimage g, hF.map_preimage g, fun f' hf' =>
    (hF.preimage_map f').symm.trans (congrArg (fun k => hF.preimage k) hf')⟩

/-! ## The category of PL maps -/

/-- Objects of the PL category: a dimension `n`, standing for `αⁿ`. -/
structure PLObj (α : Type u) where
  /-- The dimension. -/
  dim : Nat

variable {α : Type u} [Scalar α] [Transcendental α]

variable (α) in
/-- PL maps `αᵐ → αⁿ`: the maps denoted by some term of the PL fragment with some weights. -/
def PLHom (m n : Nat) : Type u :=
  { f : (Fin m → α) → (Fin n → α) //
    ∃ (a : Arch (.tensor [m]) (.tensor [n])) (p : Arch.Params α a),
      IsPL a ∧ ∀ x : Fin m → α, @Eq (Fin n → α) (Arch.eval a p x) (f x) }

/-- Extensionality: PL maps with the same underlying function are equal. -/
theorem PLHom.ext {m n : Nat} (f g : PLHom α m n) (h : Subtype.val f = Subtype.val g) : f = g := by
  cases f with
  | mk fv fp =>
    cases g with
    | mk gv gp =>
      -- `h` mentions `Subtype.val ⟨fv, fp⟩`; restate it on the components, then substitute.
      have e : fv = gv := h
      subst e
      rfl

/-- The identity PL map (the layer `Arch.id`). -/
def PLHom.ident (n : Nat) : PLHom α n n :=
  Subtype.mk (fun x => x)
    (Exists.intro (Arch.id (.tensor [n]))
      (Exists.intro PUnit.unit (And.intro (IsPL.id _) (fun _ => rfl))))

/-- The composite of PL maps (the layer `Arch.comp`). -/
def PLHom.comp {l m n : Nat} (f : PLHom α l m) (g : PLHom α m n) : PLHom α l n :=
  Subtype.mk (fun x => Subtype.val g (Subtype.val f x))
    (Exists.elim (Subtype.property f) (fun a ha => Exists.elim ha (fun p hp =>
      Exists.elim (Subtype.property g) (fun b hb => Exists.elim hb (fun q hq =>
        Exists.intro (Arch.comp a b)
          (Exists.intro ((p, q) : Arch.Params α (Arch.comp a b))
            (And.intro (IsPL.comp (And.left hp) (And.left hq))
              (fun x => (And.right hq (Arch.eval a p x)).trans
                (congrArg (Subtype.val g) (And.right hp x))))))))))

variable (α) in
/-- The category of PL maps between the spaces `αⁿ`. (Hom types live in `Type u`; the objects
`PLObj α` live in `Type`, since a structure's universe is that of its fields.) -/
instance plCategory : Category.{u} (PLObj α) where
  Hom X Y := PLHom α X.dim Y.dim
  id X := PLHom.ident X.dim
  comp f g := PLHom.comp f g
  id_comp f := PLHom.ext _ _ rfl
  comp_id f := PLHom.ext _ _ rfl
  assoc f g h := PLHom.ext _ _ rfl

/-- **VM.C3 (refutation).** A fully faithful completion of the PL category adds no maps
`αᵐ → αⁿ`: every morphism `F(αᵐ) ⟶ F(αⁿ)` is the image of exactly one PL map. -/
theorem pl_completion_adds_no_maps {D : Type u₂} [Category.{v₂} D]
    (F : CategoryTheory.Functor (PLObj α) D) (hF : CategoryTheory.Functor.FullyFaithful F) (m n : Nat)
    (g : Category.Hom (F.obj (PLObj.mk m)) (F.obj (PLObj.mk n))) :
    ∃ f : Category.Hom (PLObj.mk (α := α) m) (PLObj.mk n),
      F.map f = g ∧ ∀ f' : Category.Hom (PLObj.mk (α := α) m) (PLObj.mk n), F.map f' = g → f' = f :=
  ff_no_new_maps F hF g

/-- **VM.C3 (refutation, the product).** In a fully faithful completion of the PL category, every
morphism `F(α²) ⟶ F(α¹)` is the image of a PL map, and that PL map is not the product
`(x₀, x₁) ↦ x₀ x₁`: the completion contains no new map realising the product between the images of
Euclidean spaces. -/
theorem ff_completion_no_mul [OrderedFieldLaws α] {D : Type u₂} [Category.{v₂} D]
    (F : CategoryTheory.Functor (PLObj α) D) (hF : CategoryTheory.Functor.FullyFaithful F)
    (g : Category.Hom (F.obj (PLObj.mk 2)) (F.obj (PLObj.mk 1))) :
    ∃ f : Category.Hom (PLObj.mk (α := α) 2) (PLObj.mk 1),
      F.map f = g ∧
        ¬ ∀ x : Fin 2 → α, Subtype.val f x ⟨0, Nat.succ_pos 0⟩ = x ⟨0, by decide⟩ * x ⟨1, by decide⟩ :=
  Exists.elim (ff_no_new_maps F hF g) (fun f hf =>
    Exists.intro f (And.intro (And.left hf) (fun hmul =>
      Exists.elim (Subtype.property f) (fun a ha => Exists.elim ha (fun p hp =>
        mul_not_pl (n := 0) a (And.left hp) p (fun x =>
          (congrArg (fun y : Fin 1 → α => y ⟨0, Nat.succ_pos 0⟩) (And.right hp x)).trans
            (hmul x)))))))

end Formal.Gap
