import Formal.Para.Basic
import Formal.Category.Closed

/-!
# `choose` / `eval`: input-dependent parameters

Villani & McBurney §4 (claim VM.C3) read a transformer layer as a map whose parameters are chosen
from the input: attention is `eval ∘ ⟨choose, id⟩`, where `choose` computes the weights from the
input and `eval` applies them. Two formal versions:

* In `Type u`, for a parametrised map `φ : Para X Y` and a parameter choice `c : X → φ.P`, the map
  with input-dependent parameters `x ↦ φ.map (c x, x)` factors as `choose c : X → φ.P × X`
  (`x ↦ (c x, x)`) followed by `eval = φ.map` (`Para.withChoice_eq`); given `choose c`, any other
  map `g : φ.P × X → Y` through which it factors agrees with `φ.map` on all the values that
  `choose c` takes (`Para.factor_unique`).
* In a cartesian closed category `K`, for `h : X × X ⟶ Y` (parameters read from one copy of the
  input, applied to the other), `chooseMap h = ⟨curry h, 𝟙⟩ : X ⟶ Y^X × X` and
  `diag ≫ h = chooseMap h ≫ eval` (`CartesianClosed.choose_eval`); the chosen weights are unique:
  `curry h` is the only `c : X ⟶ Y^X` whose uncurrying is `h` (`CartesianClosed.choose_unique`).
  Uniqueness is for a fixed `h`, not for a given map: every
  `f : X ⟶ Y` factors as `⟨curry (snd ≫ f), 𝟙⟩ ≫ eval` through its constant name
  (`CartesianClosed.factors_through_name`), and also as `⟨curry (fst ≫ f), 𝟙⟩ ≫ eval`
  (`CartesianClosed.factors_through_fst`).

Sources: Villani & McBurney §4 (attention as `eval ∘ ⟨choose, id⟩`, claim VM.C3).
-/

namespace Formal.CategoryTheory

universe v u

namespace Para

/-- `choose c : X → P × X`, `x ↦ (c x, x)`. -/
def choose {X P : Type u} (c : X → P) : X → P × X := fun x => (c x, x)

/-- The map with input-dependent parameters: `x ↦ φ (c x, x)`. -/
def withChoice {X Y : Type u} (φ : Para X Y) (c : X → φ.P) : X → Y := fun x => φ.map (c x, x)

/-- **VM.C3 (in `Type`)**: a map with input-dependent parameters factors as `choose` followed by
`eval`. -/
theorem withChoice_eq {X Y : Type u} (φ : Para X Y) (c : X → φ.P) :
    withChoice φ c = fun x => φ.map (choose c x) :=
  rfl

/-- Uniqueness given `choose`: any `g` with `g ∘ choose c = withChoice φ c` agrees with `φ.map` on
every value of `choose c`. -/
theorem factor_unique {X Y : Type u} (φ : Para X Y) (c : X → φ.P) (g : φ.P × X → Y)
    (hg : (fun x => g (choose c x)) = withChoice φ c) (x : X) :
    g (choose c x) = φ.map (choose c x) :=
  congrFun hg x

end Para

namespace CartesianClosed

variable {C : Type u} [Category.{v} C] (K : CartesianClosed C)

/-- The diagonal `X ⟶ X × X`. -/
def diag (X : C) : X ⟶ (K.prod X X).pt := (K.prod X X).isProduct.lift (𝟙 X) (𝟙 X)

/-- `choose h = ⟨curry h, 𝟙⟩ : X ⟶ Y^X × X`. -/
def chooseMap {X Y : C} (h : (K.prod X X).pt ⟶ Y) : X ⟶ (K.prod (K.exp X Y) X).pt :=
  (K.prod (K.exp X Y) X).isProduct.lift (K.curry h) (𝟙 X)

theorem diag_fst (X : C) : K.diag X ≫ (K.prod X X).fst = 𝟙 X :=
  (K.prod X X).isProduct.lift_fst _ _

theorem diag_snd (X : C) : K.diag X ≫ (K.prod X X).snd = 𝟙 X :=
  (K.prod X X).isProduct.lift_snd _ _

theorem chooseMap_fst {X Y : C} (h : (K.prod X X).pt ⟶ Y) :
    K.chooseMap h ≫ (K.prod (K.exp X Y) X).fst = K.curry h :=
  (K.prod (K.exp X Y) X).isProduct.lift_fst _ _

theorem chooseMap_snd {X Y : C} (h : (K.prod X X).pt ⟶ Y) :
    K.chooseMap h ≫ (K.prod (K.exp X Y) X).snd = 𝟙 X :=
  (K.prod (K.exp X Y) X).isProduct.lift_snd _ _

/-- The diagonal followed by `curry h × 𝟙` is `⟨curry h, 𝟙⟩`. -/
theorem diag_mapFst {X Y : C} (h : (K.prod X X).pt ⟶ Y) :
    K.diag X ≫ BinaryProduct.mapFst (K.prod X X) (K.prod (K.exp X Y) X) (K.curry h) =
      K.chooseMap h :=
  (K.prod (K.exp X Y) X).isProduct.hom_ext
    (by
      rw [Category.assoc, BinaryProduct.mapFst_fst, ← Category.assoc, diag_fst,
        Category.id_comp, chooseMap_fst])
    (by
      rw [Category.assoc, BinaryProduct.mapFst_snd, diag_snd, chooseMap_snd])

/-- **VM.C3 (cartesian closed)**: a map `h : X × X ⟶ Y` with parameters read from the input,
restricted to the diagonal, factors as `choose` followed by `eval`:
`diag ≫ h = ⟨curry h, 𝟙⟩ ≫ eval`. -/
theorem choose_eval {X Y : C} (h : (K.prod X X).pt ⟶ Y) :
    K.diag X ≫ h = K.chooseMap h ≫ K.eval X Y :=
  calc K.diag X ≫ h = K.diag X ≫ K.uncurry (K.curry h) :=
        comp_congr_left (K.diag X) (K.uncurry_curry h).symm
    _ = (K.diag X ≫ BinaryProduct.mapFst (K.prod X X) (K.prod (K.exp X Y) X) (K.curry h)) ≫
          K.eval X Y :=
        (Category.assoc (K.diag X)
          (BinaryProduct.mapFst (K.prod X X) (K.prod (K.exp X Y) X) (K.curry h))
          (K.eval X Y)).symm
    _ = K.chooseMap h ≫ K.eval X Y := comp_congr_right (K.diag_mapFst h) (K.eval X Y)

/-- Uniqueness of the chosen weights: `curry h` is the only `c : X ⟶ Y^X` with
`(c × 𝟙) ≫ eval = h`. -/
theorem choose_unique {X Y : C} (h : (K.prod X X).pt ⟶ Y) (c : X ⟶ K.exp X Y)
    (e : K.uncurry c = h) : c = K.curry h :=
  K.curry_unique h c e

/-- **VM.C3.factorisation (every map factors through its name).** For every `f : X ⟶ Y`,
`f = ⟨curry (snd ≫ f), 𝟙⟩ ≫ eval`: `choose_eval` with `h := snd ≫ f`, whose chosen weights
`curry (snd ≫ f)` (the name of `f`) ignore the input. So the factorisation `⟨choose, 𝟙⟩ ≫ eval`
exists for every map and does not single out any class of maps. -/
theorem factors_through_name {X Y : C} (f : X ⟶ Y) :
    f = K.chooseMap ((K.prod X X).snd ≫ f) ≫ K.eval X Y :=
  (Category.id_comp f).symm.trans
    ((comp_congr_right (K.diag_snd X).symm f).trans
      ((Category.assoc (K.diag X) (K.prod X X).snd f).trans
        (K.choose_eval ((K.prod X X).snd ≫ f))))

/-- **VM.C3.factorisation.** The same map also factors through the other projection:
`f = ⟨curry (fst ≫ f), 𝟙⟩ ≫ eval`. With `factors_through_name`, a map has (at least) these two
factorisations through `choose`; this theorem does not prove that they differ
(`Formal.Attention.name_ne_fst_in_types` shows that they do for the identity of `Bool` in `Type`). -/
theorem factors_through_fst {X Y : C} (f : X ⟶ Y) :
    f = K.chooseMap ((K.prod X X).fst ≫ f) ≫ K.eval X Y :=
  (Category.id_comp f).symm.trans
    ((comp_congr_right (K.diag_fst X).symm f).trans
      ((Category.assoc (K.diag X) (K.prod X X).fst f).trans
        (K.choose_eval ((K.prod X X).fst ≫ f))))

end CartesianClosed

end Formal.CategoryTheory
