import Formal.Category.Basic

/-!
# Universal properties as structures

Each limit or colimit is stated unbundled, as a structure on a given cone (or cocone) carrying the
universal map (`lift` or `desc`), its factorisation laws and its uniqueness (`uniq`), and bundled, as
a structure with the vertex, the cone and the proof. No existence is assumed anywhere: a category
*has* a limit when one is supplied as data (`FiniteLimits`, `FiniteCoproducts`, `Coproducts`).

* terminal and initial objects: `IsTerminal`, `IsInitial`;
* binary products and coproducts: `IsBinaryProduct`, `IsBinaryCoproduct`;
* pullbacks: `IsPullback` (the square commutes and is universal);
* equalizers and coequalizers: `IsEqualizer`, `IsCoequalizer`;
* small coproducts: `IsCoproduct` for a family indexed by `I : Type w`;
* finite limits: `FiniteLimits` (terminal object, binary products, pullbacks, equalizers; these
  generate all finite limits, a standard fact that is not formalised here).

Each comes with a `hom_ext` lemma (maps into a limit, or out of a colimit, are determined by their
components). Sources: the finite limits and colimits that Belfiore & Bennequin §2 and Villani &
McBurney §2 use to define (pre)toposes.
-/

namespace Formal.CategoryTheory

universe w v u

/-- `T` is terminal: one map from every object, and any two maps into `T` agree. -/
structure IsTerminal {C : Type u} [Category.{v} C] (T : C) where
  /-- The unique map into `T`. -/
  lift : (X : C) → (X ⟶ T)
  /-- Uniqueness. -/
  uniq : ∀ {X : C} (f : X ⟶ T), f = lift X

/-- `I` is initial: one map to every object, and any two maps out of `I` agree. -/
structure IsInitial {C : Type u} [Category.{v} C] (I : C) where
  /-- The unique map out of `I`. -/
  desc : (X : C) → (I ⟶ X)
  /-- Uniqueness. -/
  uniq : ∀ {X : C} (f : I ⟶ X), f = desc X

/-- `(fst, snd)` is a product cone: `P` is a product of `X` and `Y`. -/
structure IsBinaryProduct {C : Type u} [Category.{v} C] {P X Y : C} (fst : P ⟶ X)
    (snd : P ⟶ Y) where
  /-- The pairing `⟨f, g⟩`. -/
  lift : {W : C} → (W ⟶ X) → (W ⟶ Y) → (W ⟶ P)
  /-- First component of the pairing. -/
  lift_fst : ∀ {W : C} (f : W ⟶ X) (g : W ⟶ Y), lift f g ≫ fst = f
  /-- Second component of the pairing. -/
  lift_snd : ∀ {W : C} (f : W ⟶ X) (g : W ⟶ Y), lift f g ≫ snd = g
  /-- Uniqueness of the pairing. -/
  uniq : ∀ {W : C} (f : W ⟶ X) (g : W ⟶ Y) (m : W ⟶ P), m ≫ fst = f → m ≫ snd = g →
    m = lift f g

/-- `(inl, inr)` is a coproduct cocone: `P` is a coproduct of `X` and `Y`. -/
structure IsBinaryCoproduct {C : Type u} [Category.{v} C] {P X Y : C} (inl : X ⟶ P)
    (inr : Y ⟶ P) where
  /-- The copairing `[f, g]`. -/
  desc : {W : C} → (X ⟶ W) → (Y ⟶ W) → (P ⟶ W)
  /-- The copairing on the left summand. -/
  inl_desc : ∀ {W : C} (f : X ⟶ W) (g : Y ⟶ W), inl ≫ desc f g = f
  /-- The copairing on the right summand. -/
  inr_desc : ∀ {W : C} (f : X ⟶ W) (g : Y ⟶ W), inr ≫ desc f g = g
  /-- Uniqueness of the copairing. -/
  uniq : ∀ {W : C} (f : X ⟶ W) (g : Y ⟶ W) (m : P ⟶ W), inl ≫ m = f → inr ≫ m = g →
    m = desc f g

/-- The commuting square `fst ≫ f = snd ≫ g` is a pullback of `f` and `g`. -/
structure IsPullback {C : Type u} [Category.{v} C] {P X Y Z : C} (fst : P ⟶ X) (snd : P ⟶ Y)
    (f : X ⟶ Z) (g : Y ⟶ Z) where
  /-- The square commutes. -/
  condition : fst ≫ f = snd ≫ g
  /-- The induced map from another commuting square. -/
  lift : {W : C} → (h : W ⟶ X) → (k : W ⟶ Y) → h ≫ f = k ≫ g → (W ⟶ P)
  /-- First component. -/
  lift_fst : ∀ {W : C} (h : W ⟶ X) (k : W ⟶ Y) (w : h ≫ f = k ≫ g), lift h k w ≫ fst = h
  /-- Second component. -/
  lift_snd : ∀ {W : C} (h : W ⟶ X) (k : W ⟶ Y) (w : h ≫ f = k ≫ g), lift h k w ≫ snd = k
  /-- Uniqueness. -/
  uniq : ∀ {W : C} (h : W ⟶ X) (k : W ⟶ Y) (w : h ≫ f = k ≫ g) (m : W ⟶ P),
    m ≫ fst = h → m ≫ snd = k → m = lift h k w

/-- `ι` is an equalizer of `f` and `g`. -/
structure IsEqualizer {C : Type u} [Category.{v} C] {E X Y : C} (ι : E ⟶ X) (f g : X ⟶ Y) where
  /-- `ι` equalizes. -/
  condition : ι ≫ f = ι ≫ g
  /-- The induced map from an equalizing map. -/
  lift : {W : C} → (h : W ⟶ X) → h ≫ f = h ≫ g → (W ⟶ E)
  /-- Factorisation. -/
  fac : ∀ {W : C} (h : W ⟶ X) (w : h ≫ f = h ≫ g), lift h w ≫ ι = h
  /-- Uniqueness. -/
  uniq : ∀ {W : C} (h : W ⟶ X) (w : h ≫ f = h ≫ g) (m : W ⟶ E), m ≫ ι = h → m = lift h w

/-- `π` is a coequalizer of `f` and `g`. -/
structure IsCoequalizer {C : Type u} [Category.{v} C] {X Y Q : C} (f g : X ⟶ Y) (π : Y ⟶ Q) where
  /-- `π` coequalizes. -/
  condition : f ≫ π = g ≫ π
  /-- The induced map from a coequalizing map. -/
  desc : {W : C} → (h : Y ⟶ W) → f ≫ h = g ≫ h → (Q ⟶ W)
  /-- Factorisation. -/
  fac : ∀ {W : C} (h : Y ⟶ W) (w : f ≫ h = g ≫ h), π ≫ desc h w = h
  /-- Uniqueness. -/
  uniq : ∀ {W : C} (h : Y ⟶ W) (w : f ≫ h = g ≫ h) (m : Q ⟶ W), π ≫ m = h → m = desc h w

/-- `ι` is a coproduct cocone on the family `X` indexed by `I : Type w`. -/
structure IsCoproduct {C : Type u} [Category.{v} C] {I : Type w} {X : I → C} {P : C}
    (ι : (i : I) → (X i ⟶ P)) where
  /-- The induced map out of the coproduct. -/
  desc : {W : C} → ((i : I) → (X i ⟶ W)) → (P ⟶ W)
  /-- Factorisation. -/
  fac : ∀ {W : C} (f : (i : I) → (X i ⟶ W)) (i : I), ι i ≫ desc f = f i
  /-- Uniqueness. -/
  uniq : ∀ {W : C} (f : (i : I) → (X i ⟶ W)) (m : P ⟶ W), (∀ i, ι i ≫ m = f i) → m = desc f

/-! ## Bundled limits -/

/-- A chosen terminal object. -/
structure Terminal (C : Type u) [Category.{v} C] where
  /-- The object. -/
  pt : C
  /-- It is terminal. -/
  isTerminal : IsTerminal pt

/-- A chosen initial object. -/
structure Initial (C : Type u) [Category.{v} C] where
  /-- The object. -/
  pt : C
  /-- It is initial. -/
  isInitial : IsInitial pt

/-- A chosen product of `X` and `Y`. -/
structure BinaryProduct {C : Type u} [Category.{v} C] (X Y : C) where
  /-- The product object. -/
  pt : C
  /-- First projection. -/
  fst : pt ⟶ X
  /-- Second projection. -/
  snd : pt ⟶ Y
  /-- The projections form a product cone. -/
  isProduct : IsBinaryProduct fst snd

/-- A chosen coproduct of `X` and `Y`. -/
structure BinaryCoproduct {C : Type u} [Category.{v} C] (X Y : C) where
  /-- The coproduct object. -/
  pt : C
  /-- Left injection. -/
  inl : X ⟶ pt
  /-- Right injection. -/
  inr : Y ⟶ pt
  /-- The injections form a coproduct cocone. -/
  isCoproduct : IsBinaryCoproduct inl inr

/-- A chosen pullback of `f` and `g`. -/
structure Pullback {C : Type u} [Category.{v} C] {X Y Z : C} (f : X ⟶ Z) (g : Y ⟶ Z) where
  /-- The pullback object. -/
  pt : C
  /-- First projection. -/
  fst : pt ⟶ X
  /-- Second projection. -/
  snd : pt ⟶ Y
  /-- The square is a pullback. -/
  isPullback : IsPullback fst snd f g

/-- A chosen equalizer of `f` and `g`. -/
structure Equalizer {C : Type u} [Category.{v} C] {X Y : C} (f g : X ⟶ Y) where
  /-- The equalizer object. -/
  pt : C
  /-- The inclusion. -/
  ι : pt ⟶ X
  /-- It is an equalizer. -/
  isEqualizer : IsEqualizer ι f g

/-- A chosen coequalizer of `f` and `g`. -/
structure Coequalizer {C : Type u} [Category.{v} C] {X Y : C} (f g : X ⟶ Y) where
  /-- The coequalizer object. -/
  pt : C
  /-- The projection. -/
  π : Y ⟶ pt
  /-- It is a coequalizer. -/
  isCoequalizer : IsCoequalizer f g π

/-- A chosen coproduct of a family indexed by `I : Type w`. -/
structure Coproduct {C : Type u} [Category.{v} C] {I : Type w} (X : I → C) where
  /-- The coproduct object. -/
  pt : C
  /-- The injections. -/
  ι : (i : I) → (X i ⟶ pt)
  /-- They form a coproduct cocone. -/
  isCoproduct : IsCoproduct ι

/-- Chosen finite limits: a terminal object, binary products, pullbacks and equalizers. -/
structure FiniteLimits (C : Type u) [Category.{v} C] where
  /-- The terminal object. -/
  terminal : Terminal C
  /-- Binary products. -/
  prod : (X Y : C) → BinaryProduct X Y
  /-- Pullbacks. -/
  pullback : {X Y Z : C} → (f : X ⟶ Z) → (g : Y ⟶ Z) → Pullback f g
  /-- Equalizers. -/
  equalizer : {X Y : C} → (f g : X ⟶ Y) → Equalizer f g

/-- Chosen finite coproducts: an initial object and binary coproducts. -/
structure FiniteCoproducts (C : Type u) [Category.{v} C] where
  /-- The initial object. -/
  initial : Initial C
  /-- Binary coproducts. -/
  coprod : (X Y : C) → BinaryCoproduct X Y

/-- Chosen coproducts of all families indexed by types in `Type w`. -/
structure Coproducts (C : Type u) [Category.{v} C] where
  /-- The coproduct of `X : I → C`. -/
  coproduct : (I : Type w) → (X : I → C) → Coproduct X

/-! ## Extensionality: maps into limits and out of colimits are determined by components -/

section Ext

variable {C : Type u} [Category.{v} C]

/-- Any two maps into a terminal object agree. -/
theorem IsTerminal.hom_ext {T : C} (t : IsTerminal T) {X : C} (f g : X ⟶ T) : f = g :=
  (t.uniq f).trans (t.uniq g).symm

/-- Any two maps out of an initial object agree. -/
theorem IsInitial.hom_ext {I : C} (t : IsInitial I) {X : C} (f g : I ⟶ X) : f = g :=
  (t.uniq f).trans (t.uniq g).symm

/-- Maps into a product agree when their components do. -/
theorem IsBinaryProduct.hom_ext {P X Y : C} {fst : P ⟶ X} {snd : P ⟶ Y}
    (h : IsBinaryProduct fst snd) {W : C} {m m' : W ⟶ P} (e₁ : m ≫ fst = m' ≫ fst)
    (e₂ : m ≫ snd = m' ≫ snd) : m = m' :=
  (h.uniq (m ≫ fst) (m ≫ snd) m rfl rfl).trans
    (h.uniq (m ≫ fst) (m ≫ snd) m' e₁.symm e₂.symm).symm

/-- Maps out of a coproduct agree when their components do. -/
theorem IsBinaryCoproduct.hom_ext {P X Y : C} {inl : X ⟶ P} {inr : Y ⟶ P}
    (h : IsBinaryCoproduct inl inr) {W : C} {m m' : P ⟶ W} (e₁ : inl ≫ m = inl ≫ m')
    (e₂ : inr ≫ m = inr ≫ m') : m = m' :=
  (h.uniq (inl ≫ m) (inr ≫ m) m rfl rfl).trans
    (h.uniq (inl ≫ m) (inr ≫ m) m' e₁.symm e₂.symm).symm

/-- Any map into the vertex of a pullback square gives a commuting square. -/
theorem IsPullback.cone_condition {P X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y} {f : X ⟶ Z}
    {g : Y ⟶ Z} (h : IsPullback fst snd f g) {W : C} (m : W ⟶ P) :
    (m ≫ fst) ≫ f = (m ≫ snd) ≫ g := by
  rw [Category.assoc, Category.assoc, h.condition]

/-- Maps into a pullback agree when their components do. -/
theorem IsPullback.hom_ext {P X Y Z : C} {fst : P ⟶ X} {snd : P ⟶ Y} {f : X ⟶ Z}
    {g : Y ⟶ Z} (h : IsPullback fst snd f g) {W : C} {m m' : W ⟶ P}
    (e₁ : m ≫ fst = m' ≫ fst) (e₂ : m ≫ snd = m' ≫ snd) : m = m' :=
  (h.uniq (m ≫ fst) (m ≫ snd) (h.cone_condition m) m rfl rfl).trans
    (h.uniq (m ≫ fst) (m ≫ snd) (h.cone_condition m) m' e₁.symm e₂.symm).symm

/-- Any map into an equalizer equalizes after composing with the inclusion. -/
theorem IsEqualizer.cone_condition {E X Y : C} {ι : E ⟶ X} {f g : X ⟶ Y}
    (h : IsEqualizer ι f g) {W : C} (m : W ⟶ E) : (m ≫ ι) ≫ f = (m ≫ ι) ≫ g := by
  rw [Category.assoc, Category.assoc, h.condition]

/-- Maps into an equalizer agree when they agree after the inclusion. -/
theorem IsEqualizer.hom_ext {E X Y : C} {ι : E ⟶ X} {f g : X ⟶ Y} (h : IsEqualizer ι f g)
    {W : C} {m m' : W ⟶ E} (e : m ≫ ι = m' ≫ ι) : m = m' :=
  (h.uniq (m ≫ ι) (h.cone_condition m) m rfl).trans
    (h.uniq (m ≫ ι) (h.cone_condition m) m' e.symm).symm

/-- The inclusion of an equalizer is a monomorphism. -/
theorem IsEqualizer.mono {E X Y : C} {ι : E ⟶ X} {f g : X ⟶ Y} (h : IsEqualizer ι f g) :
    Mono ι :=
  ⟨fun _ _ e => h.hom_ext e⟩

/-- Any map out of a coequalizer gives a coequalizing map. -/
theorem IsCoequalizer.cocone_condition {X Y Q : C} {f g : X ⟶ Y} {π : Y ⟶ Q}
    (h : IsCoequalizer f g π) {W : C} (m : Q ⟶ W) : f ≫ (π ≫ m) = g ≫ (π ≫ m) := by
  rw [← Category.assoc, ← Category.assoc, h.condition]

/-- Maps out of a coequalizer agree when they agree after the projection. -/
theorem IsCoequalizer.hom_ext {X Y Q : C} {f g : X ⟶ Y} {π : Y ⟶ Q} (h : IsCoequalizer f g π)
    {W : C} {m m' : Q ⟶ W} (e : π ≫ m = π ≫ m') : m = m' :=
  (h.uniq (π ≫ m) (h.cocone_condition m) m rfl).trans
    (h.uniq (π ≫ m) (h.cocone_condition m) m' e.symm).symm

/-- The projection of a coequalizer is an epimorphism. -/
theorem IsCoequalizer.epi {X Y Q : C} {f g : X ⟶ Y} {π : Y ⟶ Q} (h : IsCoequalizer f g π) :
    Epi π :=
  ⟨fun _ _ e => h.hom_ext e⟩

/-- Maps out of a coproduct agree when their components do. -/
theorem IsCoproduct.hom_ext {I : Type w} {X : I → C} {P : C} {ι : (i : I) → (X i ⟶ P)}
    (h : IsCoproduct ι) {W : C} {m m' : P ⟶ W} (e : ∀ i, ι i ≫ m = ι i ≫ m') : m = m' :=
  (h.uniq (fun i => ι i ≫ m) m (fun _ => rfl)).trans
    (h.uniq (fun i => ι i ≫ m) m' (fun i => (e i).symm)).symm

end Ext

end Formal.CategoryTheory
