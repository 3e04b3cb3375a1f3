import Formal.Category.Types
import Formal.Category.Topos

/-!
# `Type u` is an elementary topos

* `Types.typeCartesianClosed`: the exponential of `Y` and `Z` is the function type `Y → Z`,
  evaluation is application and currying is `fun x y => f (x, y)`; β and η hold by `rfl`.
* `Types.typeSubobjectClassifier`: the subobject classifier is `Ω = ULift.{u} Prop` with truth map
  `fun _ => ULift.up True`; a monomorphism `m : U ⟶ X` (an injection, `Types.mono_injective`) is
  classified by `x ↦ ULift.up (∃ a, m a = x)`. The `ULift` is forced by universes: `Prop : Type`,
  so `Prop` itself is an object of `Type u` only for `u = 0`; for `u = 0` the classifier is `Prop`
  up to the trivial wrapper `ULift.{0}`. The proofs use `propext` and `Classical.choose`.
* `Types.typeTopos`: `Type u` is an elementary topos.

Sources: `Set` as the base topos (Belfiore & Bennequin §2: `Ω` as the object of truth values;
Villani & McBurney §2).
-/

namespace Formal.CategoryTheory

universe u

namespace Types

noncomputable section

/-! ## Cartesian closed -/

/-- Evaluation `(Y → Z) × Y → Z`. -/
def evalMap (Y Z : Type u) : ((Y → Z) × Y : Type u) ⟶ Z := fun p => p.1 p.2

/-- Currying. -/
def curryMap {X Y Z : Type u} (f : (X × Y : Type u) ⟶ Z) : X ⟶ (Y → Z : Type u) :=
  fun x y => f (x, y)

/-- `Type u` is cartesian closed. -/
def typeCartesianClosed : CartesianClosed (Type u) where
  terminal := typeFiniteLimits.terminal
  prod := typeFiniteLimits.prod
  exp := fun Y Z => (Y → Z : Type u)
  eval := fun Y Z => evalMap Y Z
  curry := fun {X Y Z} f => curryMap (X := X) (Y := Y) (Z := Z) f
  beta := fun _ => rfl
  eta := fun _ => rfl

/-! ## The subobject classifier -/

/-- The truth map `PUnit → ULift Prop`. -/
def truthMap : (PUnit.{u + 1} : Type u) ⟶ ULift.{u} Prop := fun _ => ULift.up True

/-- The characteristic map of `m`: `x ↦ (∃ a, m a = x)`. -/
def classifyMap {U X : Type u} (m : U ⟶ X) : X ⟶ ULift.{u} Prop :=
  fun x => ULift.up (∃ a, m a = x)

/-- A lifted proposition whose content is `b` is `ULift.up b`. -/
theorem ulift_eq_up (a : ULift.{u} Prop) {b : Prop} (h : a.down = b) : a = ULift.up b := by
  cases a with
  | up p =>
    have e : p = b := h
    subst e
    rfl

/-- From `χ x = true` extract a proof. -/
theorem of_eq_up_true {c : ULift.{u} Prop} (h : c = ULift.up True) : c.down :=
  cast (congrArg ULift.down h).symm trivial

/-- The point of `U` chosen over a point of `X` whose classifying value is true. -/
def classifyLift {U X W : Type u} (m : U ⟶ X) (h : W ⟶ X) (k : W ⟶ (PUnit.{u + 1} : Type u))
    (w : h ≫ classifyMap m = k ≫ truthMap) : W ⟶ U :=
  fun x => Classical.choose (of_eq_up_true (congrFun w x))

theorem classifyLift_fac {U X W : Type u} (m : U ⟶ X) (h : W ⟶ X)
    (k : W ⟶ (PUnit.{u + 1} : Type u)) (w : h ≫ classifyMap m = k ≫ truthMap) :
    classifyLift m h k w ≫ m = h :=
  funext fun x => Classical.choose_spec (of_eq_up_true (congrFun w x))

/-- A monomorphism is the pullback of `truthMap` along its characteristic map. -/
def classifyIsPullback {U X : Type u} (m : U ⟶ X) (hm : Mono m) :
    IsPullback m (terminalIsTerminal.lift U) (classifyMap m) truthMap where
  condition := funext fun a =>
    congrArg ULift.up (propext ⟨fun _ => trivial, fun _ => ⟨a, rfl⟩⟩)
  lift := fun h k w => classifyLift m h k w
  lift_fst := fun h k w => classifyLift_fac m h k w
  lift_snd := fun _ _ _ => funext fun _ => punit_eq _ _
  uniq := fun h k w m' e₁ _ => funext fun x =>
    mono_injective hm ((congrFun e₁ x).trans (congrFun (classifyLift_fac m h k w) x).symm)

/-- Any `χ` making `m` a pullback of `truthMap` is the characteristic map. -/
theorem classify_uniq {U X : Type u} (m : U ⟶ X) (χ : X ⟶ ULift.{u} Prop)
    (P : IsPullback m (terminalIsTerminal.lift U) χ truthMap) : χ = classifyMap m := by
  apply funext
  intro x
  apply ulift_eq_up
  apply propext
  constructor
  · intro hx
    have hχ : χ x = ULift.up True := ulift_eq_up (χ x) (propext ⟨fun _ => trivial, fun _ => hx⟩)
    have w : ((show (PUnit.{u + 1} : Type u) ⟶ X from fun _ => x) ≫ χ) =
        (terminalIsTerminal.lift (PUnit.{u + 1} : Type u) ≫ truthMap) :=
      funext fun _ => hχ
    exact ⟨P.lift _ _ w PUnit.unit, congrFun (P.lift_fst _ _ w) PUnit.unit⟩
  · intro hx
    match hx with
    | ⟨a, ha⟩ =>
      subst ha
      exact of_eq_up_true (congrFun P.condition a)

/-- `ULift Prop` with `fun _ => ULift.up True` is a subobject classifier in `Type u`. -/
def typeSubobjectClassifier : SubobjectClassifier (terminalIsTerminal.{u}) where
  Ω := ULift.{u} Prop
  truth := truthMap
  classify := fun m _ => classifyMap m
  isPullback := fun m hm => classifyIsPullback m hm
  uniq := fun m _ χ P => classify_uniq m χ P

/-- **`Type u` is an elementary topos**, with `Ω = ULift Prop` and truth `fun _ => True`. -/
def typeTopos : ElementaryTopos (Type u) where
  limits := typeFiniteLimits
  closed := typeCartesianClosed
  classifier := typeSubobjectClassifier

end

end Types

end Formal.CategoryTheory
