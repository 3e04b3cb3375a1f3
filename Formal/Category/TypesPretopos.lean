import Formal.Category.Types
import Formal.Category.Pretopos

/-!
# `Type u` is a pretopos

Proved directly, from the concrete constructions of `Formal/Category/Types.lean`:

* `Types.typeExtensive`: coproduct injections are injective, `X ⊕ Y` is disjoint (the pullback of
  `inl` and `inr` is empty) and stable (for `f : Z → X ⊕ Y`, `Z` is the coproduct of the
  preimages of the two summands);
* `Types.typeRegular`: every function factors through its image as a surjection (a regular
  epimorphism: the coequalizer of its kernel pair, built with `Classical.choose`) followed by an
  injection; regular epimorphisms are surjective (`Types.surjective_of_epi`, using `ULift Prop`
  valued test maps and `propext`), and surjections are stable under pullback;
* `Types.typeExact`: an internal equivalence relation `r₁ r₂ : R ⟶ X` is the kernel pair of the
  quotient map `X → Quot (a ~ b ↔ ∃ ρ, r₁ ρ = a ∧ r₂ ρ = b)`; effectiveness uses that quotients by
  an equivalence relation are effective (`Types.quot_exact`, proved from `Quot.lift` and `propext`);
* `Types.typePretopos`.

Sources: the pretopos structure of `Set` underlies the logical reading of both papers
(Belfiore & Bennequin §2; Villani & McBurney §2).
-/

namespace Formal.CategoryTheory

universe u

namespace Types

noncomputable section

/-! ## Extensivity -/

/-- Injections into a sum are monomorphisms. -/
theorem sumInl_mono (X Y : Type u) : Mono (sumInl X Y) :=
  mono_of_injective fun _ _ e => sum_inl_injective e

/-- Injections into a sum are monomorphisms. -/
theorem sumInr_mono (X Y : Type u) : Mono (sumInr X Y) :=
  mono_of_injective fun _ _ e => sum_inr_injective e

/-- The pullback of the two injections is empty, hence initial. -/
def sumDisjoint (X Y : Type u) : IsInitial (pullbackObj (sumInl X Y) (sumInr X Y)) where
  desc := fun _ p => False.elim (sum_inl_ne_inr p.property)
  uniq := fun _ => funext fun (p : pullbackObj (sumInl X Y) (sumInr X Y)) =>
    False.elim (sum_inl_ne_inr p.property)

/-- The copairing on the two preimages, by cases on the summand of `f z`. -/
def splitDesc {X Y Z W : Type u} (f : Z ⟶ (X ⊕ Y : Type u))
    (a : pullbackObj f (sumInl X Y) ⟶ W) (b : pullbackObj f (sumInr X Y) ⟶ W) (z : Z) :
    (s : X ⊕ Y) → f z = s → W
  | Sum.inl x, e => a ⟨(z, x), e⟩
  | Sum.inr y, e => b ⟨(z, y), e⟩

theorem splitDesc_inl {X Y Z W : Type u} (f : Z ⟶ (X ⊕ Y : Type u))
    (a : pullbackObj f (sumInl X Y) ⟶ W) (b : pullbackObj f (sumInr X Y) ⟶ W) (z : Z) (x : X)
    (e : f z = Sum.inl x) (s : X ⊕ Y) (e' : f z = s) (hs : s = Sum.inl x) :
    splitDesc f a b z s e' = a ⟨(z, x), e⟩ := by
  subst hs
  rfl

theorem splitDesc_inr {X Y Z W : Type u} (f : Z ⟶ (X ⊕ Y : Type u))
    (a : pullbackObj f (sumInl X Y) ⟶ W) (b : pullbackObj f (sumInr X Y) ⟶ W) (z : Z) (y : Y)
    (e : f z = Sum.inr y) (s : X ⊕ Y) (e' : f z = s) (hs : s = Sum.inr y) :
    splitDesc f a b z s e' = b ⟨(z, y), e⟩ := by
  subst hs
  rfl

theorem splitDesc_uniq {X Y Z W : Type u} (f : Z ⟶ (X ⊕ Y : Type u))
    (a : pullbackObj f (sumInl X Y) ⟶ W) (b : pullbackObj f (sumInr X Y) ⟶ W) (m : Z ⟶ W)
    (h₁ : pullbackFst f (sumInl X Y) ≫ m = a) (h₂ : pullbackFst f (sumInr X Y) ≫ m = b)
    (z : Z) : (s : X ⊕ Y) → (e : f z = s) → m z = splitDesc f a b z s e
  | Sum.inl x, e => congrFun h₁ ⟨(z, x), e⟩
  | Sum.inr y, e => congrFun h₂ ⟨(z, y), e⟩

/-- Stability: `Z` is the coproduct of the preimages of the two summands. -/
def sumStable {X Y Z : Type u} (f : Z ⟶ (X ⊕ Y : Type u)) :
    IsBinaryCoproduct (pullbackFst f (sumInl X Y)) (pullbackFst f (sumInr X Y)) where
  desc := fun a b z => splitDesc f a b z (f z) rfl
  inl_desc := fun a b => funext fun p =>
    match p with
    | ⟨(z, x), e⟩ => splitDesc_inl f a b z x e (f z) rfl e
  inr_desc := fun a b => funext fun p =>
    match p with
    | ⟨(z, y), e⟩ => splitDesc_inr f a b z y e (f z) rfl e
  uniq := fun a b m h₁ h₂ => funext fun z => splitDesc_uniq f a b m h₁ h₂ z (f z) rfl

/-- `Type u` is extensive. -/
def typeExtensive : Extensive (Type u) where
  limits := typeFiniteLimits
  coproducts := typeFiniteCoproducts
  inl_mono := fun X Y => sumInl_mono X Y
  inr_mono := fun X Y => sumInr_mono X Y
  disjoint := fun X Y => sumDisjoint X Y
  stable := fun {X Y Z} f => sumStable (X := X) (Y := Y) (Z := Z) f

/-! ## Regularity -/

/-- An epimorphism of types is surjective (tested against maps into `ULift Prop`). -/
theorem surjective_of_epi {X Y : Type u} {e : X ⟶ Y} (he : Epi e) : ∀ y, ∃ x, e x = y := by
  intro y
  have h : ((fun _ => ULift.up True) : Y ⟶ ULift.{u} Prop) =
      (fun y' => ULift.up (∃ x, e x = y')) :=
    he.cancel _ _ (funext fun x =>
      congrArg ULift.up (propext ⟨fun _ => ⟨x, rfl⟩, fun _ => trivial⟩))
  exact cast (congrArg ULift.down (congrFun h y)) trivial

/-- A surjection is the coequalizer of its kernel pair: a regular epimorphism. -/
def regularEpiOfSurjective {X Y : Type u} (e : X ⟶ Y) (hs : ∀ y, ∃ x, e x = y) :
    RegularEpi e where
  W := pullbackObj e e
  left := pullbackFst e e
  right := pullbackSnd e e
  isCoequalizer :=
    { condition := (pullbackIsPullback e e).condition
      desc := fun h _ y => h (Classical.choose (hs y))
      fac := fun h w => funext fun x =>
        congrFun w ⟨(Classical.choose (hs (e x)), x), Classical.choose_spec (hs (e x))⟩
      uniq := fun h _ m hm => funext fun y =>
        (congrArg m (Classical.choose_spec (hs y)).symm).trans
          (congrFun hm (Classical.choose (hs y))) }

/-- The image of `f`. -/
abbrev imageObj {X Y : Type u} (f : X ⟶ Y) : Type u := {y : Y // ∃ x, f x = y}

/-- The corestriction of `f` to its image. -/
def imageEpi {X Y : Type u} (f : X ⟶ Y) : X ⟶ imageObj f := fun x => ⟨f x, x, rfl⟩

/-- The inclusion of the image. -/
def imageMono {X Y : Type u} (f : X ⟶ Y) : imageObj f ⟶ Y := fun y => y.val

theorem imageEpi_surjective {X Y : Type u} (f : X ⟶ Y) : ∀ q, ∃ x, imageEpi f x = q :=
  fun q =>
    match q with
    | ⟨_, x, hx⟩ => ⟨x, subtype_ext hx⟩

theorem imageMono_mono {X Y : Type u} (f : X ⟶ Y) : Mono (imageMono f) :=
  mono_of_injective fun _ _ e => subtype_ext e

/-- Surjections are stable under pullback. -/
theorem pullbackSnd_surjective {X Y Z : Type u} (e : X ⟶ Y) (g : Z ⟶ Y)
    (hs : ∀ y, ∃ x, e x = y) : ∀ z, ∃ p, pullbackSnd e g p = z :=
  fun z =>
    match hs (g z) with
    | ⟨x, hx⟩ => ⟨⟨(x, z), hx⟩, rfl⟩

/-- `Type u` is regular. -/
def typeRegular : Regular (Type u) where
  limits := typeFiniteLimits
  image := fun f => imageObj f
  factorEpi := fun f => imageEpi f
  factorMono := fun f => imageMono f
  fac := fun _ => rfl
  factorEpi_regular := fun f => regularEpiOfSurjective (imageEpi f) (imageEpi_surjective f)
  factorMono_mono := fun f => imageMono_mono f
  pullback_regularEpi := fun e g he =>
    regularEpiOfSurjective (pullbackSnd e g)
      (pullbackSnd_surjective e g (surjective_of_epi he.epi))

/-! ## Exactness -/

/-- Quotients by an equivalence relation are effective. -/
theorem quot_exact {α : Type u} (r : α → α → Prop) (hrefl : ∀ a, r a a)
    (hsymm : ∀ {a b}, r a b → r b a) (htrans : ∀ {a b c}, r a b → r b c → r a c) {a b : α}
    (h : Quot.mk r a = Quot.mk r b) : r a b :=
  cast (congrArg (@Quot.lift α r Prop (fun c => r a c) (fun c d hcd =>
      propext ⟨fun hac => htrans hac hcd, fun had => htrans had (hsymm hcd)⟩)) h)
    (hrefl a)

section Effective

variable {X : Type u} (E : EquivRel typeFiniteLimits X)

theorem rel_refl (a : X) : coeqRel E.r₁ E.r₂ a a :=
  ⟨E.refl a, congrFun E.refl_r₁ a, congrFun E.refl_r₂ a⟩

theorem rel_symm {a b : X} (h : coeqRel E.r₁ E.r₂ a b) : coeqRel E.r₁ E.r₂ b a :=
  match h with
  | ⟨ρ, h₁, h₂⟩ => ⟨E.symm ρ, (congrFun E.symm_r₁ ρ).trans h₂, (congrFun E.symm_r₂ ρ).trans h₁⟩

theorem rel_trans_aux (ρ σ : E.R) (w : E.r₂ ρ = E.r₁ σ) :
    coeqRel E.r₁ E.r₂ (E.r₁ ρ) (E.r₂ σ) :=
  ⟨E.trans (⟨(ρ, σ), w⟩ : pullbackObj E.r₂ E.r₁),
    congrFun E.trans_r₁ (⟨(ρ, σ), w⟩ : pullbackObj E.r₂ E.r₁),
    congrFun E.trans_r₂ (⟨(ρ, σ), w⟩ : pullbackObj E.r₂ E.r₁)⟩

theorem rel_trans {a b c : X} (h : coeqRel E.r₁ E.r₂ a b) (k : coeqRel E.r₁ E.r₂ b c) :
    coeqRel E.r₁ E.r₂ a c :=
  match h, k with
  | ⟨ρ, h₁, h₂⟩, ⟨σ, k₁, k₂⟩ => by
    subst h₁
    subst k₂
    exact rel_trans_aux E ρ σ (h₂.trans k₁.symm)

theorem rel_of_eq {a b : X} (h : coequalizerπ E.r₁ E.r₂ a = coequalizerπ E.r₁ E.r₂ b) :
    coeqRel E.r₁ E.r₂ a b :=
  quot_exact (coeqRel E.r₁ E.r₂) (rel_refl E) (rel_symm E) (rel_trans E) h

/-- The map into the relation induced by a pair identified by the quotient map. -/
def kernelLift {W : Type u} (h k : W ⟶ X)
    (w : h ≫ coequalizerπ E.r₁ E.r₂ = k ≫ coequalizerπ E.r₁ E.r₂) : W ⟶ E.R :=
  fun x => Classical.choose (rel_of_eq E (congrFun w x))

theorem kernelLift_r₁ {W : Type u} (h k : W ⟶ X)
    (w : h ≫ coequalizerπ E.r₁ E.r₂ = k ≫ coequalizerπ E.r₁ E.r₂) :
    kernelLift E h k w ≫ E.r₁ = h :=
  funext fun x => (Classical.choose_spec (rel_of_eq E (congrFun w x))).1

theorem kernelLift_r₂ {W : Type u} (h k : W ⟶ X)
    (w : h ≫ coequalizerπ E.r₁ E.r₂ = k ≫ coequalizerπ E.r₁ E.r₂) :
    kernelLift E h k w ≫ E.r₂ = k :=
  funext fun x => (Classical.choose_spec (rel_of_eq E (congrFun w x))).2

/-- Every internal equivalence relation in `Type u` is effective. -/
def typeEffective : E.Effective where
  Q := Quot (coeqRel E.r₁ E.r₂)
  π := coequalizerπ E.r₁ E.r₂
  isCoequalizer := coequalizerIsCoequalizer E.r₁ E.r₂
  isKernelPair :=
    { condition := (coequalizerIsCoequalizer E.r₁ E.r₂).condition
      lift := fun h k w => kernelLift E h k w
      lift_fst := fun h k w => kernelLift_r₁ E h k w
      lift_snd := fun h k w => kernelLift_r₂ E h k w
      uniq := fun h k w m e₁ e₂ =>
        E.jointlyMono m (kernelLift E h k w) (e₁.trans (kernelLift_r₁ E h k w).symm)
          (e₂.trans (kernelLift_r₂ E h k w).symm) }

end Effective

/-- `Type u` is exact. -/
def typeExact : Exact (Type u) where
  regular := typeRegular
  effective := fun E => typeEffective E

/-- **`Type u` is a pretopos.** -/
def typePretopos : Pretopos (Type u) where
  extensive := typeExtensive
  exact := typeExact

end

end Types

end Formal.CategoryTheory
