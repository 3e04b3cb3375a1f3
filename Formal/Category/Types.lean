import Formal.Category.Limits

/-!
# `Type u` is a category with finite limits and colimits

`Type u` with functions as morphisms (`typeCategory`), and the concrete universal constructions:
`PUnit` is terminal, `PEmpty` initial, `Prod` is the binary product, `Sum` the binary coproduct, the
subtype `{p : X × Y // f p.1 = g p.2}` the pullback, `{x // f x = g x}` the equalizer, and the
quotient `Quot` by `a ~ b ↔ ∃ x, f x = a ∧ g x = b` the coequalizer. Together: `typeFiniteLimits`
and `typeFiniteCoproducts`. Also the elementary facts about functions used later: monomorphisms are
injective (`Types.mono_injective`) and injective maps are monomorphisms.

Sources: `Set`/`Type` is the base topos of both papers (Belfiore & Bennequin §2, Villani &
McBurney §2: presheaves are `Type`-valued).
-/

namespace Formal.CategoryTheory

universe u

/-- Types and functions form a category; composition is `fun x => g (f x)`. -/
instance typeCategory : Category.{u} (Type u) where
  Hom := fun X Y => X → Y
  id := fun _ x => x
  comp := fun f g x => g (f x)
  id_comp := fun _ => rfl
  comp_id := fun _ => rfl
  assoc := fun _ _ _ => rfl

namespace Types

/-- Composition applied to a point. -/
theorem comp_apply {X Y Z : Type u} (f : X ⟶ Y) (g : Y ⟶ Z) (x : X) : (f ≫ g) x = g (f x) :=
  rfl

/-- Equal morphisms agree on every point. -/
theorem congr_hom {X Y : Type u} {f g : X ⟶ Y} (h : f = g) (x : X) : f x = g x :=
  congrFun h x

/-- Morphisms of types agreeing on every point are equal. -/
theorem hom_ext {X Y : Type u} {f g : X ⟶ Y} (h : ∀ x, f x = g x) : f = g :=
  funext h

/-- Any two elements of `PUnit` are equal. -/
theorem punit_eq (a b : PUnit.{u + 1}) : a = b := by
  cases a
  cases b
  rfl

/-- Pairs with equal components are equal. -/
theorem prod_ext {α β : Type u} {p q : α × β} (h₁ : p.1 = q.1) (h₂ : p.2 = q.2) : p = q := by
  cases p with
  | mk a b =>
    cases q with
    | mk c d =>
      have e₁ : a = c := h₁
      have e₂ : b = d := h₂
      subst e₁
      subst e₂
      rfl

/-- Elements of a subtype with equal values are equal. -/
theorem subtype_ext {α : Type u} {p : α → Prop} {a b : Subtype p} (h : a.val = b.val) :
    a = b := by
  cases a with
  | mk x hx =>
    cases b with
    | mk y hy =>
      have e : x = y := h
      subst e
      rfl

/-- A monomorphism of types is injective. -/
theorem mono_injective {X Y : Type u} {m : X ⟶ Y} (hm : Mono m) {a b : X} (e : m a = m b) :
    a = b :=
  congrFun (hm.cancel (Z := PUnit.{u + 1}) (fun _ => a) (fun _ => b) (funext fun _ => e))
    PUnit.unit

/-- An injective function is a monomorphism. -/
theorem mono_of_injective {X Y : Type u} {m : X ⟶ Y} (hm : ∀ a b, m a = m b → a = b) :
    Mono m :=
  ⟨fun g h e => funext fun z => hm (g z) (h z) (congrFun e z)⟩

/-! ## Terminal and initial objects -/

/-- `PUnit` is terminal. -/
def terminalIsTerminal : IsTerminal (PUnit.{u + 1} : Type u) where
  lift := fun _ _ => PUnit.unit
  uniq := fun f => funext fun x => punit_eq (f x) PUnit.unit

/-- `PEmpty` is initial. -/
def initialIsInitial : IsInitial (PEmpty.{u + 1} : Type u) where
  desc := fun _ (e : PEmpty.{u + 1}) => nomatch e
  uniq := fun _ => funext fun (e : PEmpty.{u + 1}) => nomatch e

/-! ## Binary products and coproducts -/

/-- First projection of `X × Y`. -/
def prodFst (X Y : Type u) : (X × Y : Type u) ⟶ X := fun p => p.1

/-- Second projection of `X × Y`. -/
def prodSnd (X Y : Type u) : (X × Y : Type u) ⟶ Y := fun p => p.2

/-- `X × Y` is a product. -/
def prodIsProduct (X Y : Type u) : IsBinaryProduct (prodFst X Y) (prodSnd X Y) where
  lift := fun f g w => (f w, g w)
  lift_fst := fun _ _ => rfl
  lift_snd := fun _ _ => rfl
  uniq := fun _ _ m h₁ h₂ => funext fun w => prod_ext (congrFun h₁ w) (congrFun h₂ w)

/-- Left injection into `X ⊕ Y`. -/
def sumInl (X Y : Type u) : X ⟶ (X ⊕ Y : Type u) := fun x => Sum.inl x

/-- Right injection into `X ⊕ Y`. -/
def sumInr (X Y : Type u) : Y ⟶ (X ⊕ Y : Type u) := fun y => Sum.inr y

/-- Copairing out of `X ⊕ Y`. -/
def sumDesc {X Y W : Type u} (f : X ⟶ W) (g : Y ⟶ W) : (X ⊕ Y : Type u) ⟶ W := fun s =>
  match s with
  | Sum.inl x => f x
  | Sum.inr y => g y

/-- `X ⊕ Y` is a coproduct. -/
def sumIsCoproduct (X Y : Type u) : IsBinaryCoproduct (sumInl X Y) (sumInr X Y) where
  desc := fun f g => sumDesc f g
  inl_desc := fun _ _ => rfl
  inr_desc := fun _ _ => rfl
  uniq := fun _ _ m h₁ h₂ => funext fun (s : X ⊕ Y) =>
    match s with
    | Sum.inl x => congrFun h₁ x
    | Sum.inr y => congrFun h₂ y

/-- `Sum.inl` is injective. -/
theorem sum_inl_injective {α β : Type u} {a b : α} (h : (Sum.inl a : α ⊕ β) = Sum.inl b) :
    a = b :=
  Sum.inl.inj h

/-- `Sum.inr` is injective. -/
theorem sum_inr_injective {α β : Type u} {a b : β} (h : (Sum.inr a : α ⊕ β) = Sum.inr b) :
    a = b :=
  Sum.inr.inj h

/-- The two injections never meet. -/
theorem sum_inl_ne_inr {α β : Type u} {a : α} {b : β} (h : (Sum.inl a : α ⊕ β) = Sum.inr b) :
    False := by
  cases h

/-! ## Pullbacks, equalizers, coequalizers -/

/-- The pullback of `f` and `g`: pairs that agree in `Z`. -/
abbrev pullbackObj {X Y Z : Type u} (f : X ⟶ Z) (g : Y ⟶ Z) : Type u :=
  {p : X × Y // f p.1 = g p.2}

/-- First projection of the pullback. -/
def pullbackFst {X Y Z : Type u} (f : X ⟶ Z) (g : Y ⟶ Z) : pullbackObj f g ⟶ X :=
  fun p => p.val.1

/-- Second projection of the pullback. -/
def pullbackSnd {X Y Z : Type u} (f : X ⟶ Z) (g : Y ⟶ Z) : pullbackObj f g ⟶ Y :=
  fun p => p.val.2

/-- The induced map into the pullback. -/
def pullbackLift {X Y Z W : Type u} (f : X ⟶ Z) (g : Y ⟶ Z) (h : W ⟶ X) (k : W ⟶ Y)
    (w : h ≫ f = k ≫ g) : W ⟶ pullbackObj f g :=
  fun x => ⟨(h x, k x), congrFun w x⟩

/-- The subtype of agreeing pairs is a pullback. -/
def pullbackIsPullback {X Y Z : Type u} (f : X ⟶ Z) (g : Y ⟶ Z) :
    IsPullback (pullbackFst f g) (pullbackSnd f g) f g where
  condition := funext fun p => p.property
  lift := fun h k w => pullbackLift f g h k w
  lift_fst := fun _ _ _ => rfl
  lift_snd := fun _ _ _ => rfl
  uniq := fun _ _ _ m h₁ h₂ => funext fun x =>
    subtype_ext (prod_ext (congrFun h₁ x) (congrFun h₂ x))

/-- The equalizer of `f` and `g`: the points where they agree. -/
abbrev equalizerObj {X Y : Type u} (f g : X ⟶ Y) : Type u := {x : X // f x = g x}

/-- The inclusion of the equalizer. -/
def equalizerι {X Y : Type u} (f g : X ⟶ Y) : equalizerObj f g ⟶ X := fun x => x.val

/-- The subtype of agreeing points is an equalizer. -/
def equalizerIsEqualizer {X Y : Type u} (f g : X ⟶ Y) :
    IsEqualizer (equalizerι f g) f g where
  condition := funext fun x => x.property
  lift := fun h w x => ⟨h x, congrFun w x⟩
  fac := fun _ _ => rfl
  uniq := fun _ _ m e => funext fun x => subtype_ext (congrFun e x)

/-- The relation generated by a parallel pair: `a ~ b` when `a = f x` and `b = g x`. -/
abbrev coeqRel {X Y : Type u} (f g : X ⟶ Y) (a b : Y) : Prop :=
  ∃ x, f x = a ∧ g x = b

/-- The quotient map onto the coequalizer. -/
def coequalizerπ {X Y : Type u} (f g : X ⟶ Y) : Y ⟶ Quot (coeqRel f g) :=
  fun y => Quot.mk (coeqRel f g) y

/-- The induced map out of the coequalizer. -/
def coequalizerDesc {X Y W : Type u} (f g : X ⟶ Y) (h : Y ⟶ W) (w : f ≫ h = g ≫ h) :
    Quot (coeqRel f g) ⟶ W :=
  fun q => @Quot.lift Y (coeqRel f g) W h (fun (a b : Y) (hab : coeqRel f g a b) =>
    match hab with
    | ⟨x, ha, hb⟩ => by
      subst ha
      subst hb
      exact congrFun w x) q

/-- The quotient by the generated relation is a coequalizer. -/
def coequalizerIsCoequalizer {X Y : Type u} (f g : X ⟶ Y) :
    IsCoequalizer f g (coequalizerπ f g) where
  condition := funext fun x => Quot.sound ⟨x, rfl, rfl⟩
  desc := fun h w => coequalizerDesc f g h w
  fac := fun _ _ => rfl
  uniq := fun h w m e => funext fun q =>
    @Quot.ind Y (coeqRel f g) (fun q => m q = coequalizerDesc f g h w q)
      (fun y => congrFun e y) q

/-! ## Chosen finite limits and coproducts -/

/-- The chosen finite limits of `Type u`. -/
def typeFiniteLimits : FiniteLimits (Type u) where
  terminal := ⟨PUnit.{u + 1}, terminalIsTerminal⟩
  prod := fun X Y => ⟨X × Y, prodFst X Y, prodSnd X Y, prodIsProduct X Y⟩
  pullback := fun f g => ⟨pullbackObj f g, pullbackFst f g, pullbackSnd f g,
    pullbackIsPullback f g⟩
  equalizer := fun f g => ⟨equalizerObj f g, equalizerι f g, equalizerIsEqualizer f g⟩

/-- The chosen finite coproducts of `Type u`. -/
def typeFiniteCoproducts : FiniteCoproducts (Type u) where
  initial := ⟨PEmpty.{u + 1}, initialIsInitial⟩
  coprod := fun X Y => ⟨X ⊕ Y, sumInl X Y, sumInr X Y, sumIsCoproduct X Y⟩

end Types

end Formal.CategoryTheory
