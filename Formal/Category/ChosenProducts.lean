import Formal.Category.Closed

/-!
# Chosen finite products

`ChosenProducts C` is a chosen terminal object together with a chosen product `K.prod X Y` of every
pair of objects. It is the least structure in which parametrised maps `P × X ⟶ Y` compose
(`Formal/Para/Cartesian.lean`). Every `FiniteLimits C` and every `CartesianClosed C` gives one
(`FiniteLimits.toChosenProducts`, `CartesianClosed.toChosenProducts`).

Everything below is proved from the universal property of the chosen products alone:

* the pairing `K.lift f g` with `lift_fst`, `lift_snd`, `hom_ext`, `comp_lift`, `lift_congr`,
  `lift_comp_fst_snd`, `lift_fst_snd`, and `lift_mapFst` (a pairing followed by `r × 𝟙`);
* identities of nested products, taken apart into projections (`decomp2`, `decomp3`). From them
  follow extensionality principles for maps *out of* `(A × B) × X` and `(A × (B × E)) × X`: two such
  maps are equal when they agree on all pairings of generalised elements (`ext2`, `ext3`);
* the canonical isomorphisms `assocIso : A × (B × E) ≅ (A × B) × E`, `leftUnitor : 1 × A ≅ A` and
  `rightUnitor : A × 1 ≅ A`, and how `assocHom` and `assocInv` act on pairings (`lift_assocHom`,
  `lift_assocInv`).

Sources: standard category theory. Cartesian categories are the setting of the `Para` construction,
which Villani & McBurney §3 use for layers with weights.
-/

namespace Formal.CategoryTheory

universe v u

/-- Chosen finite products: a terminal object and a product of every pair of objects. -/
structure ChosenProducts (C : Type u) [Category.{v} C] where
  /-- The terminal object. -/
  terminal : Terminal C
  /-- The chosen product of `X` and `Y`. -/
  prod : (X Y : C) → BinaryProduct X Y

/-- Chosen finite limits give chosen finite products. -/
def FiniteLimits.toChosenProducts {C : Type u} [Category.{v} C] (L : FiniteLimits C) :
    ChosenProducts C :=
  ⟨L.terminal, L.prod⟩

/-- A cartesian closed structure gives chosen finite products. -/
def CartesianClosed.toChosenProducts {C : Type u} [Category.{v} C] (L : CartesianClosed C) :
    ChosenProducts C :=
  ⟨L.terminal, L.prod⟩

namespace ChosenProducts

variable {C : Type u} [Category.{v} C] (K : ChosenProducts C)

/-! ## Pairing -/

/-- The pairing `⟨f, g⟩ : W ⟶ X × Y` into the chosen product. -/
def lift {W X Y : C} (f : W ⟶ X) (g : W ⟶ Y) : W ⟶ (K.prod X Y).pt :=
  (K.prod X Y).isProduct.lift f g

/-- First component of a pairing. -/
theorem lift_fst {W X Y : C} (f : W ⟶ X) (g : W ⟶ Y) : K.lift f g ≫ (K.prod X Y).fst = f :=
  (K.prod X Y).isProduct.lift_fst f g

/-- Second component of a pairing. -/
theorem lift_snd {W X Y : C} (f : W ⟶ X) (g : W ⟶ Y) : K.lift f g ≫ (K.prod X Y).snd = g :=
  (K.prod X Y).isProduct.lift_snd f g

/-- Maps into the chosen product are equal when their components are. -/
theorem hom_ext {W X Y : C} {m m' : W ⟶ (K.prod X Y).pt}
    (e₁ : m ≫ (K.prod X Y).fst = m' ≫ (K.prod X Y).fst)
    (e₂ : m ≫ (K.prod X Y).snd = m' ≫ (K.prod X Y).snd) : m = m' :=
  (K.prod X Y).isProduct.hom_ext e₁ e₂

/-- Pairing respects equality of the components. -/
theorem lift_congr {W X Y : C} {f f' : W ⟶ X} {g g' : W ⟶ Y} (e₁ : f = f') (e₂ : g = g') :
    K.lift f g = K.lift f' g' :=
  (congrArg (fun (k : W ⟶ X) => K.lift k g) e₁).trans
    (congrArg (fun (k : W ⟶ Y) => K.lift f' k) e₂)

/-- Precomposition with a pairing: `t ≫ ⟨f, g⟩ = ⟨t ≫ f, t ≫ g⟩`. -/
theorem comp_lift {T W X Y : C} (t : T ⟶ W) (f : W ⟶ X) (g : W ⟶ Y) :
    t ≫ K.lift f g = K.lift (t ≫ f) (t ≫ g) :=
  K.hom_ext
    ((Category.assoc t (K.lift f g) (K.prod X Y).fst).trans
      ((comp_congr_left t (K.lift_fst f g)).trans (K.lift_fst (t ≫ f) (t ≫ g)).symm))
    ((Category.assoc t (K.lift f g) (K.prod X Y).snd).trans
      ((comp_congr_left t (K.lift_snd f g)).trans (K.lift_snd (t ≫ f) (t ≫ g)).symm))

/-- A map into a product is the pairing of its components. -/
theorem lift_comp_fst_snd {T X Y : C} (t : T ⟶ (K.prod X Y).pt) :
    K.lift (t ≫ (K.prod X Y).fst) (t ≫ (K.prod X Y).snd) = t :=
  K.hom_ext (K.lift_fst (t ≫ (K.prod X Y).fst) (t ≫ (K.prod X Y).snd))
    (K.lift_snd (t ≫ (K.prod X Y).fst) (t ≫ (K.prod X Y).snd))

/-- The pairing of the two projections is the identity. -/
theorem lift_fst_snd (X Y : C) :
    K.lift (K.prod X Y).fst (K.prod X Y).snd = 𝟙 ((K.prod X Y).pt) :=
  K.hom_ext
    ((K.lift_fst (K.prod X Y).fst (K.prod X Y).snd).trans
      (Category.id_comp (K.prod X Y).fst).symm)
    ((K.lift_snd (K.prod X Y).fst (K.prod X Y).snd).trans
      (Category.id_comp (K.prod X Y).snd).symm)

/-- A pairing followed by `r × 𝟙`: `⟨a, x⟩ ≫ (r × 𝟙) = ⟨a ≫ r, x⟩`. -/
theorem lift_mapFst {T A A' X : C} (a : T ⟶ A) (x : T ⟶ X) (r : A ⟶ A') :
    K.lift a x ≫ BinaryProduct.mapFst (K.prod A X) (K.prod A' X) r = K.lift (a ≫ r) x :=
  K.hom_ext
    ((Category.assoc (K.lift a x) (BinaryProduct.mapFst (K.prod A X) (K.prod A' X) r)
        (K.prod A' X).fst).trans
      ((comp_congr_left (K.lift a x) (BinaryProduct.mapFst_fst (K.prod A X) (K.prod A' X) r)).trans
        ((Category.assoc (K.lift a x) (K.prod A X).fst r).symm.trans
          ((comp_congr_right (K.lift_fst a x) r).trans (K.lift_fst (a ≫ r) x).symm))))
    ((Category.assoc (K.lift a x) (BinaryProduct.mapFst (K.prod A X) (K.prod A' X) r)
        (K.prod A' X).snd).trans
      ((comp_congr_left (K.lift a x) (BinaryProduct.mapFst_snd (K.prod A X) (K.prod A' X) r)).trans
        ((K.lift_snd a x).trans (K.lift_snd (a ≫ r) x).symm)))

/-! ## Nested products: identities taken apart, and extensionality out of them -/

/-- The identity of `(A × B) × X`, taken apart into its three projections. -/
theorem decomp2 (A B X : C) :
    K.lift
        (K.lift ((K.prod (K.prod A B).pt X).fst ≫ (K.prod A B).fst)
          ((K.prod (K.prod A B).pt X).fst ≫ (K.prod A B).snd))
        (K.prod (K.prod A B).pt X).snd =
      𝟙 ((K.prod (K.prod A B).pt X).pt) :=
  (K.lift_congr (K.lift_comp_fst_snd (K.prod (K.prod A B).pt X).fst) rfl).trans
    (K.lift_fst_snd (K.prod A B).pt X)

/-- The identity of `(A × (B × E)) × X`, taken apart into its four projections. -/
theorem decomp3 (A B E X : C) :
    K.lift
        (K.lift ((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).fst)
          (K.lift
            (((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).snd) ≫
              (K.prod B E).fst)
            (((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).snd) ≫
              (K.prod B E).snd)))
        (K.prod (K.prod A (K.prod B E).pt).pt X).snd =
      𝟙 ((K.prod (K.prod A (K.prod B E).pt).pt X).pt) :=
  (K.lift_congr
      ((K.lift_congr rfl
          (K.lift_comp_fst_snd
            ((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).snd))).trans
        (K.lift_comp_fst_snd (K.prod (K.prod A (K.prod B E).pt).pt X).fst))
      rfl).trans
    (K.lift_fst_snd (K.prod A (K.prod B E).pt).pt X)

/-- Maps out of `(A × B) × X` are equal when they agree on all pairings `⟨⟨a, b⟩, x⟩` of
generalised elements. -/
theorem ext2 {A B X Z : C} {m₁ m₂ : (K.prod (K.prod A B).pt X).pt ⟶ Z}
    (h : ∀ (T : C) (a : T ⟶ A) (b : T ⟶ B) (x : T ⟶ X),
      K.lift (K.lift a b) x ≫ m₁ = K.lift (K.lift a b) x ≫ m₂) : m₁ = m₂ :=
  (Category.id_comp m₁).symm.trans
    ((comp_congr_right (K.decomp2 A B X).symm m₁).trans
      ((h (K.prod (K.prod A B).pt X).pt
          ((K.prod (K.prod A B).pt X).fst ≫ (K.prod A B).fst)
          ((K.prod (K.prod A B).pt X).fst ≫ (K.prod A B).snd)
          (K.prod (K.prod A B).pt X).snd).trans
        ((comp_congr_right (K.decomp2 A B X) m₂).trans (Category.id_comp m₂))))

/-- Maps out of `(A × (B × E)) × X` are equal when they agree on all pairings
`⟨⟨a, ⟨b, e⟩⟩, x⟩` of generalised elements. -/
theorem ext3 {A B E X Z : C} {m₁ m₂ : (K.prod (K.prod A (K.prod B E).pt).pt X).pt ⟶ Z}
    (h : ∀ (T : C) (a : T ⟶ A) (b : T ⟶ B) (e : T ⟶ E) (x : T ⟶ X),
      K.lift (K.lift a (K.lift b e)) x ≫ m₁ = K.lift (K.lift a (K.lift b e)) x ≫ m₂) :
    m₁ = m₂ :=
  (Category.id_comp m₁).symm.trans
    ((comp_congr_right (K.decomp3 A B E X).symm m₁).trans
      ((h (K.prod (K.prod A (K.prod B E).pt).pt X).pt
          ((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).fst)
          (((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).snd) ≫
            (K.prod B E).fst)
          (((K.prod (K.prod A (K.prod B E).pt).pt X).fst ≫ (K.prod A (K.prod B E).pt).snd) ≫
            (K.prod B E).snd)
          (K.prod (K.prod A (K.prod B E).pt).pt X).snd).trans
        ((comp_congr_right (K.decomp3 A B E X) m₂).trans (Category.id_comp m₂))))

/-! ## The canonical isomorphisms -/

/-- The associator `A × (B × E) ⟶ (A × B) × E`, `(a, (b, e)) ↦ ((a, b), e)`. -/
def assocHom (A B E : C) : (K.prod A (K.prod B E).pt).pt ⟶ (K.prod (K.prod A B).pt E).pt :=
  K.lift
    (K.lift (K.prod A (K.prod B E).pt).fst
      ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst))
    ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).snd)

/-- The inverse associator `(A × B) × E ⟶ A × (B × E)`, `((a, b), e) ↦ (a, (b, e))`. -/
def assocInv (A B E : C) : (K.prod (K.prod A B).pt E).pt ⟶ (K.prod A (K.prod B E).pt).pt :=
  K.lift ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).fst)
    (K.lift ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd) (K.prod (K.prod A B).pt E).snd)

/-- The associator on pairings: `⟨a, ⟨b, e⟩⟩ ≫ assocHom = ⟨⟨a, b⟩, e⟩`. -/
theorem lift_assocHom {T A B E : C} (a : T ⟶ A) (b : T ⟶ B) (e : T ⟶ E) :
    K.lift a (K.lift b e) ≫ K.assocHom A B E = K.lift (K.lift a b) e := by
  have hb : K.lift a (K.lift b e) ≫ ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst) = b :=
    (Category.assoc (K.lift a (K.lift b e)) (K.prod A (K.prod B E).pt).snd
        (K.prod B E).fst).symm.trans
      ((comp_congr_right (K.lift_snd a (K.lift b e)) (K.prod B E).fst).trans (K.lift_fst b e))
  have he : K.lift a (K.lift b e) ≫ ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).snd) = e :=
    (Category.assoc (K.lift a (K.lift b e)) (K.prod A (K.prod B E).pt).snd
        (K.prod B E).snd).symm.trans
      ((comp_congr_right (K.lift_snd a (K.lift b e)) (K.prod B E).snd).trans (K.lift_snd b e))
  have hab : K.lift a (K.lift b e) ≫
      K.lift (K.prod A (K.prod B E).pt).fst ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst) =
        K.lift a b :=
    (K.comp_lift (K.lift a (K.lift b e)) (K.prod A (K.prod B E).pt).fst
        ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst)).trans
      (K.lift_congr (K.lift_fst a (K.lift b e)) hb)
  exact (K.comp_lift (K.lift a (K.lift b e))
      (K.lift (K.prod A (K.prod B E).pt).fst ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst))
      ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).snd)).trans
    (K.lift_congr hab he)

/-- The inverse associator on pairings: `⟨⟨a, b⟩, e⟩ ≫ assocInv = ⟨a, ⟨b, e⟩⟩`. -/
theorem lift_assocInv {T A B E : C} (a : T ⟶ A) (b : T ⟶ B) (e : T ⟶ E) :
    K.lift (K.lift a b) e ≫ K.assocInv A B E = K.lift a (K.lift b e) := by
  have ha : K.lift (K.lift a b) e ≫ ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).fst) = a :=
    (Category.assoc (K.lift (K.lift a b) e) (K.prod (K.prod A B).pt E).fst
        (K.prod A B).fst).symm.trans
      ((comp_congr_right (K.lift_fst (K.lift a b) e) (K.prod A B).fst).trans (K.lift_fst a b))
  have hb : K.lift (K.lift a b) e ≫ ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd) = b :=
    (Category.assoc (K.lift (K.lift a b) e) (K.prod (K.prod A B).pt E).fst
        (K.prod A B).snd).symm.trans
      ((comp_congr_right (K.lift_fst (K.lift a b) e) (K.prod A B).snd).trans (K.lift_snd a b))
  have hbe : K.lift (K.lift a b) e ≫
      K.lift ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd) (K.prod (K.prod A B).pt E).snd =
        K.lift b e :=
    (K.comp_lift (K.lift (K.lift a b) e) ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd)
        (K.prod (K.prod A B).pt E).snd).trans
      (K.lift_congr hb (K.lift_snd (K.lift a b) e))
  exact (K.comp_lift (K.lift (K.lift a b) e) ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).fst)
      (K.lift ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd)
        (K.prod (K.prod A B).pt E).snd)).trans
    (K.lift_congr ha hbe)

/-- The associator isomorphism `A × (B × E) ≅ (A × B) × E`, built from the universal property of
the chosen products. -/
def assocIso (A B E : C) : Iso (K.prod A (K.prod B E).pt).pt (K.prod (K.prod A B).pt E).pt where
  hom := K.assocHom A B E
  inv := K.assocInv A B E
  hom_inv_id :=
    (K.lift_assocInv (K.prod A (K.prod B E).pt).fst
        ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).fst)
        ((K.prod A (K.prod B E).pt).snd ≫ (K.prod B E).snd)).trans
      ((K.lift_congr rfl (K.lift_comp_fst_snd (K.prod A (K.prod B E).pt).snd)).trans
        (K.lift_fst_snd A (K.prod B E).pt))
  inv_hom_id :=
    (K.lift_assocHom ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).fst)
        ((K.prod (K.prod A B).pt E).fst ≫ (K.prod A B).snd)
        (K.prod (K.prod A B).pt E).snd).trans
      (K.decomp2 A B E)

/-- The right unitor `A × 1 ≅ A`: the first projection, with inverse `⟨𝟙, !⟩`. -/
def rightUnitor (A : C) : Iso (K.prod A K.terminal.pt).pt A where
  hom := (K.prod A K.terminal.pt).fst
  inv := K.lift (𝟙 A) (K.terminal.isTerminal.lift A)
  hom_inv_id :=
    (K.comp_lift (K.prod A K.terminal.pt).fst (𝟙 A) (K.terminal.isTerminal.lift A)).trans
      ((K.lift_congr (Category.comp_id (K.prod A K.terminal.pt).fst)
          (K.terminal.isTerminal.hom_ext
            ((K.prod A K.terminal.pt).fst ≫ K.terminal.isTerminal.lift A)
            (K.prod A K.terminal.pt).snd)).trans
        (K.lift_fst_snd A K.terminal.pt))
  inv_hom_id := K.lift_fst (𝟙 A) (K.terminal.isTerminal.lift A)

/-- The left unitor `1 × A ≅ A`: the second projection, with inverse `⟨!, 𝟙⟩`. -/
def leftUnitor (A : C) : Iso (K.prod K.terminal.pt A).pt A where
  hom := (K.prod K.terminal.pt A).snd
  inv := K.lift (K.terminal.isTerminal.lift A) (𝟙 A)
  hom_inv_id :=
    (K.comp_lift (K.prod K.terminal.pt A).snd (K.terminal.isTerminal.lift A) (𝟙 A)).trans
      ((K.lift_congr
          (K.terminal.isTerminal.hom_ext
            ((K.prod K.terminal.pt A).snd ≫ K.terminal.isTerminal.lift A)
            (K.prod K.terminal.pt A).fst)
          (Category.comp_id (K.prod K.terminal.pt A).snd)).trans
        (K.lift_fst_snd K.terminal.pt A))
  inv_hom_id := K.lift_snd (K.terminal.isTerminal.lift A) (𝟙 A)

end ChosenProducts

end Formal.CategoryTheory
