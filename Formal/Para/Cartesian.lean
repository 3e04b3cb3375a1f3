import Formal.Category.ChosenProducts

/-!
# `Para` in a cartesian category

Here `C` has chosen finite products `K : ChosenProducts C`. A parametrised map `X ⟶ Y` is a
parameter object `P` with a map `P × X ⟶ Y` (`CartPara K X Y`).

* The identity `CartPara.id K X` has the terminal object as its parameter, and its map is the
  second projection `1 × X ⟶ X`.
* Composition follows Cruttwell, Gavranović, Ghani, Wilson & Zanasi (*Categorical foundations of
  gradient-based learning*, 2022, the `Para` construction): the composite of `(P, f) : X ⟶ Y` and
  `(Q, g) : Y ⟶ Z` has parameter `Q × P`, the *later* layer's parameter on the left, and map
  `(Q × P) × X ≅ Q × (P × X) ⟶ Q × Y ⟶ Z`, i.e. `((q, p), x) ↦ g (q, f (p, x))`. It is built
  directly as a pairing of projections (`ChosenProducts.compMap`).
* Reparametrisation along `r : P' ⟶ P` is `(r × 𝟙) ≫ f` (`CartPara.reparam`). A 2-cell
  `CartPara.Reparam f g` is an isomorphism `r : f.P ≅ g.P` with `(r × 𝟙) ≫ g.map = f.map`.

The laws hold as equations of parametrised maps, up to the canonical isomorphisms of
`Formal/Category/ChosenProducts.lean`:

* `CartPara.comp_assoc`: `comp (comp f g) h = reparam (comp f (comp g h)) (assocIso h.P g.P f.P).hom`;
* `CartPara.id_comp`: `comp (id X) f = reparam f (rightUnitor f.P).hom`;
* `CartPara.comp_id`: `comp f (id Y) = reparam f (leftUnitor f.P).hom`;

and as 2-cells `assocReparam`, `leftUnitReparam`, `rightUnitReparam`. The map-level equations
(`ChosenProducts.compMap_assoc`, `compMap_id_left`, `compMap_id_right`) come from the universal
property of the products, tested on generalised elements (`ChosenProducts.ext2`, `ext3`).

Relation to `Formal/Para/Basic.lean`: that file is the same construction in `Type u`, with the
opposite order of parameters (`f.P × g.P`, first layer first), where the laws hold by computation.
`Type u` with its cartesian products is one instance of `ChosenProducts`
(`FiniteLimits.toChosenProducts` applied to `Types.typeFiniteLimits`). This file does not state the
comparison between the two.

Sources: Villani & McBurney §3 (layers as parametrised morphisms, the `Para` construction of
Gavranović et al.); Belfiore & Bennequin §1.1 (weights as parameters of the layer maps).
-/

namespace Formal.CategoryTheory

universe v u

namespace ChosenProducts

variable {C : Type u} [Category.{v} C] (K : ChosenProducts C)

/-- The composite of `f : P × X ⟶ Y` and `g : Q × Y ⟶ Z`, a map `(Q × P) × X ⟶ Z`:
`((q, p), x) ↦ g (q, f (p, x))`. -/
def compMap {P Q X Y Z : C} (f : (K.prod P X).pt ⟶ Y) (g : (K.prod Q Y).pt ⟶ Z) :
    (K.prod (K.prod Q P).pt X).pt ⟶ Z :=
  K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).fst)
      (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
          (K.prod (K.prod Q P).pt X).snd ≫ f) ≫
    g

/-- `compMap` on generalised elements: `⟨⟨q, p⟩, x⟩ ≫ compMap f g = ⟨q, ⟨p, x⟩ ≫ f⟩ ≫ g`. -/
theorem lift_compMap {T P Q X Y Z : C} (f : (K.prod P X).pt ⟶ Y) (g : (K.prod Q Y).pt ⟶ Z)
    (q : T ⟶ Q) (p : T ⟶ P) (x : T ⟶ X) :
    K.lift (K.lift q p) x ≫ K.compMap f g = K.lift q (K.lift p x ≫ f) ≫ g := by
  have hq : K.lift (K.lift q p) x ≫
      ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).fst) = q :=
    (Category.assoc (K.lift (K.lift q p) x) (K.prod (K.prod Q P).pt X).fst
        (K.prod Q P).fst).symm.trans
      ((comp_congr_right (K.lift_fst (K.lift q p) x) (K.prod Q P).fst).trans (K.lift_fst q p))
  have hp : K.lift (K.lift q p) x ≫
      ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd) = p :=
    (Category.assoc (K.lift (K.lift q p) x) (K.prod (K.prod Q P).pt X).fst
        (K.prod Q P).snd).symm.trans
      ((comp_congr_right (K.lift_fst (K.lift q p) x) (K.prod Q P).snd).trans (K.lift_snd q p))
  have hpx : K.lift (K.lift q p) x ≫
      (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
        (K.prod (K.prod Q P).pt X).snd ≫ f) = K.lift p x ≫ f :=
    (Category.assoc (K.lift (K.lift q p) x)
        (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
          (K.prod (K.prod Q P).pt X).snd) f).symm.trans
      (comp_congr_right
        ((K.comp_lift (K.lift (K.lift q p) x)
            ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
            (K.prod (K.prod Q P).pt X).snd).trans
          (K.lift_congr hp (K.lift_snd (K.lift q p) x))) f)
  exact (Category.assoc (K.lift (K.lift q p) x)
      (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).fst)
        (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
          (K.prod (K.prod Q P).pt X).snd ≫ f)) g).symm.trans
    (comp_congr_right
      ((K.comp_lift (K.lift (K.lift q p) x)
          ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).fst)
          (K.lift ((K.prod (K.prod Q P).pt X).fst ≫ (K.prod Q P).snd)
            (K.prod (K.prod Q P).pt X).snd ≫ f)).trans
        (K.lift_congr hq hpx)) g)

/-- Associativity of `compMap` up to the associator: for `f : P × W ⟶ X`, `g : Q × X ⟶ Y`,
`h : R × Y ⟶ Z`, the two composites `(R × (Q × P)) × W ⟶ Z` and `((R × Q) × P) × W ⟶ Z` agree
after `assocHom × 𝟙`. -/
theorem compMap_assoc {P Q R W X Y Z : C} (f : (K.prod P W).pt ⟶ X) (g : (K.prod Q X).pt ⟶ Y)
    (h : (K.prod R Y).pt ⟶ Z) :
    K.compMap (K.compMap f g) h =
      BinaryProduct.mapFst (K.prod (K.prod R (K.prod Q P).pt).pt W)
          (K.prod (K.prod (K.prod R Q).pt P).pt W) (K.assocHom R Q P) ≫
        K.compMap f (K.compMap g h) := by
  apply K.ext3
  intro T r q p x
  have lhs : K.lift (K.lift r (K.lift q p)) x ≫ K.compMap (K.compMap f g) h =
      K.lift r (K.lift q (K.lift p x ≫ f) ≫ g) ≫ h :=
    (K.lift_compMap (K.compMap f g) h r (K.lift q p) x).trans
      (comp_congr_right (K.lift_congr rfl (K.lift_compMap f g q p x)) h)
  have rhs : K.lift (K.lift r (K.lift q p)) x ≫
      (BinaryProduct.mapFst (K.prod (K.prod R (K.prod Q P).pt).pt W)
          (K.prod (K.prod (K.prod R Q).pt P).pt W) (K.assocHom R Q P) ≫
        K.compMap f (K.compMap g h)) =
      K.lift r (K.lift q (K.lift p x ≫ f) ≫ g) ≫ h :=
    (Category.assoc (K.lift (K.lift r (K.lift q p)) x)
        (BinaryProduct.mapFst (K.prod (K.prod R (K.prod Q P).pt).pt W)
          (K.prod (K.prod (K.prod R Q).pt P).pt W) (K.assocHom R Q P))
        (K.compMap f (K.compMap g h))).symm.trans
      ((comp_congr_right
          ((K.lift_mapFst (K.lift r (K.lift q p)) x (K.assocHom R Q P)).trans
            (K.lift_congr (K.lift_assocHom r q p) rfl))
          (K.compMap f (K.compMap g h))).trans
        ((K.lift_compMap f (K.compMap g h) (K.lift r q) p x).trans
          (K.lift_compMap g h r q (K.lift p x ≫ f))))
  exact lhs.trans rhs.symm

/-- Left unitality of `compMap`: composing after the identity (`1 × X ⟶ X`, the second
projection) is reparametrising along the right unitor `P × 1 ⟶ P`. -/
theorem compMap_id_left {P X Y : C} (f : (K.prod P X).pt ⟶ Y) :
    K.compMap (K.prod K.terminal.pt X).snd f =
      BinaryProduct.mapFst (K.prod (K.prod P K.terminal.pt).pt X) (K.prod P X)
          (K.prod P K.terminal.pt).fst ≫ f := by
  apply K.ext2
  intro T a u x
  have lhs : K.lift (K.lift a u) x ≫ K.compMap (K.prod K.terminal.pt X).snd f =
      K.lift a x ≫ f :=
    (K.lift_compMap (K.prod K.terminal.pt X).snd f a u x).trans
      (comp_congr_right (K.lift_congr rfl (K.lift_snd u x)) f)
  have rhs : K.lift (K.lift a u) x ≫
      (BinaryProduct.mapFst (K.prod (K.prod P K.terminal.pt).pt X) (K.prod P X)
          (K.prod P K.terminal.pt).fst ≫ f) = K.lift a x ≫ f :=
    (Category.assoc (K.lift (K.lift a u) x)
        (BinaryProduct.mapFst (K.prod (K.prod P K.terminal.pt).pt X) (K.prod P X)
          (K.prod P K.terminal.pt).fst) f).symm.trans
      (comp_congr_right
        ((K.lift_mapFst (K.lift a u) x (K.prod P K.terminal.pt).fst).trans
          (K.lift_congr (K.lift_fst a u) rfl)) f)
  exact lhs.trans rhs.symm

/-- Right unitality of `compMap`: composing before the identity (`1 × Y ⟶ Y`, the second
projection) is reparametrising along the left unitor `1 × P ⟶ P`. -/
theorem compMap_id_right {P X Y : C} (f : (K.prod P X).pt ⟶ Y) :
    K.compMap f (K.prod K.terminal.pt Y).snd =
      BinaryProduct.mapFst (K.prod (K.prod K.terminal.pt P).pt X) (K.prod P X)
          (K.prod K.terminal.pt P).snd ≫ f := by
  apply K.ext2
  intro T u a x
  have lhs : K.lift (K.lift u a) x ≫ K.compMap f (K.prod K.terminal.pt Y).snd =
      K.lift a x ≫ f :=
    (K.lift_compMap f (K.prod K.terminal.pt Y).snd u a x).trans
      (K.lift_snd u (K.lift a x ≫ f))
  have rhs : K.lift (K.lift u a) x ≫
      (BinaryProduct.mapFst (K.prod (K.prod K.terminal.pt P).pt X) (K.prod P X)
          (K.prod K.terminal.pt P).snd ≫ f) = K.lift a x ≫ f :=
    (Category.assoc (K.lift (K.lift u a) x)
        (BinaryProduct.mapFst (K.prod (K.prod K.terminal.pt P).pt X) (K.prod P X)
          (K.prod K.terminal.pt P).snd) f).symm.trans
      (comp_congr_right
        ((K.lift_mapFst (K.lift u a) x (K.prod K.terminal.pt P).snd).trans
          (K.lift_congr (K.lift_snd u a) rfl)) f)
  exact lhs.trans rhs.symm

end ChosenProducts

/-- A parametrised map `X ⟶ Y` in a category with chosen products `K`: a parameter object `P` and
a map `P × X ⟶ Y`. -/
structure CartPara {C : Type u} [Category.{v} C] (K : ChosenProducts C) (X Y : C) where
  /-- The parameter object. -/
  P : C
  /-- The map `P × X ⟶ Y`. -/
  map : (K.prod P X).pt ⟶ Y

namespace CartPara

variable {C : Type u} [Category.{v} C]

/-- The identity: the terminal object as parameter, the second projection `1 × X ⟶ X` as map. -/
def id (K : ChosenProducts C) (X : C) : CartPara K X X :=
  ⟨K.terminal.pt, (K.prod K.terminal.pt X).snd⟩

/-- Composition, first `f` then `g`: parameter `g.P × f.P`, map `((q, p), x) ↦ g (q, f (p, x))`. -/
def comp {K : ChosenProducts C} {X Y Z : C} (f : CartPara K X Y) (g : CartPara K Y Z) :
    CartPara K X Z :=
  ⟨(K.prod g.P f.P).pt, K.compMap f.map g.map⟩

/-- Reparametrisation of `f` along `r : P' ⟶ f.P`: parameter `P'`, map `(r × 𝟙) ≫ f.map`. -/
def reparam {K : ChosenProducts C} {X Y : C} (f : CartPara K X Y) {P' : C} (r : P' ⟶ f.P) :
    CartPara K X Y :=
  ⟨P', BinaryProduct.mapFst (K.prod P' X) (K.prod f.P X) r ≫ f.map⟩

/-- Parametrised maps with the same parameter and equal maps are equal. -/
theorem mk_congr {K : ChosenProducts C} {X Y : C} (P : C) {m m' : (K.prod P X).pt ⟶ Y}
    (e : m = m') : (⟨P, m⟩ : CartPara K X Y) = (⟨P, m'⟩ : CartPara K X Y) :=
  congrArg (fun (k : (K.prod P X).pt ⟶ Y) => (⟨P, k⟩ : CartPara K X Y)) e

/-- **Associativity up to the associator**: `(f ; g) ; h` is `f ; (g ; h)` reparametrised along
`h.P × (g.P × f.P) ≅ (h.P × g.P) × f.P`. -/
theorem comp_assoc {K : ChosenProducts C} {W X Y Z : C} (f : CartPara K W X) (g : CartPara K X Y)
    (h : CartPara K Y Z) :
    comp (comp f g) h = reparam (comp f (comp g h)) (K.assocIso h.P g.P f.P).hom :=
  mk_congr (K.prod h.P (K.prod g.P f.P).pt).pt (K.compMap_assoc f.map g.map h.map)

/-- **Left unitality up to the unitor**: `id ; f` is `f` reparametrised along `f.P × 1 ≅ f.P`. -/
theorem id_comp {K : ChosenProducts C} {X Y : C} (f : CartPara K X Y) :
    comp (CartPara.id K X) f = reparam f (K.rightUnitor f.P).hom :=
  mk_congr (K.prod f.P K.terminal.pt).pt (K.compMap_id_left f.map)

/-- **Right unitality up to the unitor**: `f ; id` is `f` reparametrised along `1 × f.P ≅ f.P`. -/
theorem comp_id {K : ChosenProducts C} {X Y : C} (f : CartPara K X Y) :
    comp f (CartPara.id K Y) = reparam f (K.leftUnitor f.P).hom :=
  mk_congr (K.prod K.terminal.pt f.P).pt (K.compMap_id_right f.map)

/-- A reparametrisation 2-cell `f ⇒ g`: an isomorphism of parameter objects `r : f.P ≅ g.P` with
`(r × 𝟙) ≫ g.map = f.map`. -/
structure Reparam {K : ChosenProducts C} {X Y : C} (f g : CartPara K X Y) where
  /-- The isomorphism of parameter objects. -/
  iso : Iso f.P g.P
  /-- The maps agree along it. -/
  map_eq : BinaryProduct.mapFst (K.prod f.P X) (K.prod g.P X) iso.hom ≫ g.map = f.map

/-- **Associativity as a 2-cell**: `(f ; g) ; h ⇒ f ; (g ; h)` along the associator. -/
def assocReparam {K : ChosenProducts C} {W X Y Z : C} (f : CartPara K W X) (g : CartPara K X Y)
    (h : CartPara K Y Z) : Reparam (comp (comp f g) h) (comp f (comp g h)) where
  iso := K.assocIso h.P g.P f.P
  map_eq := (K.compMap_assoc f.map g.map h.map).symm

/-- **Left unitality as a 2-cell**: `id ; f ⇒ f` along the right unitor of the parameter. -/
def leftUnitReparam {K : ChosenProducts C} {X Y : C} (f : CartPara K X Y) :
    Reparam (comp (CartPara.id K X) f) f where
  iso := K.rightUnitor f.P
  map_eq := (K.compMap_id_left f.map).symm

/-- **Right unitality as a 2-cell**: `f ; id ⇒ f` along the left unitor of the parameter. -/
def rightUnitReparam {K : ChosenProducts C} {X Y : C} (f : CartPara K X Y) :
    Reparam (comp f (CartPara.id K Y)) f where
  iso := K.leftUnitor f.P
  map_eq := (K.compMap_id_right f.map).symm

end CartPara

end Formal.CategoryTheory
