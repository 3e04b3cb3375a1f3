import Formal.Category.Types

/-!
# `Para`: parametrised maps

A parametrised map from `X` to `Y` is a parameter type `P` with a map `P × X → Y` (the semantics of
a layer with weights `P`, as `Arch.eval` in `Formal/Network`). Composition pairs the parameters,
first layer first: `(P, f) ; (Q, g) = (P × Q, ((p, q), x) ↦ g (q, f (p, x)))`; the identity has the
trivial parameter `PUnit`.

Composition is associative and unital only *up to reparametrisation*: a `Para.Reparam f g` is an
isomorphism of parameter types that transports `f.map` to `g.map`. Proved here, concretely in
`Type u` (where every law holds by computation):

* `Para.assocReparam`: `(f ; g) ; h ≅ f ; (g ; h)` via `((p, q), r) ↦ (p, (q, r))`;
* `Para.leftUnitReparam`: `id ; f ≅ f` via `(⋆, p) ↦ p`;
* `Para.rightUnitReparam`: `f ; id ≅ f` via `(p, ⋆) ↦ p`;
* `Para.comp_map_assoc`, `Para.id_comp_map`, `Para.comp_id_map`: the pointwise equations.

The same laws in an arbitrary category with chosen finite products, up to reparametrisation along
the associator and unitors of the products, are in `Formal/Para/Cartesian.lean`.

Sources: Villani & McBurney §3 (layers as parametrised morphisms, the `Para` construction of
Gavranović et al.); Belfiore & Bennequin §1.1 (weights as parameters of the layer maps).
-/

namespace Formal.CategoryTheory

universe u

/-- A parametrised map `X → Y` in `Type u`: parameters `P` and a map `P × X → Y`. -/
structure Para (X Y : Type u) where
  /-- The parameter type. -/
  P : Type u
  /-- The map. -/
  map : P × X → Y

namespace Para

/-- The identity, with the trivial parameter. -/
def id (X : Type u) : Para X X := ⟨PUnit.{u + 1}, fun z => z.2⟩

/-- Composition, first `f` then `g`; the parameter of the composite is `f.P × g.P`. -/
def comp {X Y Z : Type u} (f : Para X Y) (g : Para Y Z) : Para X Z :=
  ⟨f.P × g.P, fun z => g.map (z.1.2, f.map (z.1.1, z.2))⟩

/-- A reparametrisation `f ⇒ g`: an isomorphism of parameter types transporting `f.map` to
`g.map`. -/
structure Reparam {X Y : Type u} (f g : Para X Y) where
  /-- Forward map on parameters. -/
  toFun : f.P → g.P
  /-- Inverse map on parameters. -/
  invFun : g.P → f.P
  /-- `invFun` after `toFun` is the identity. -/
  left_inv : ∀ p, invFun (toFun p) = p
  /-- `toFun` after `invFun` is the identity. -/
  right_inv : ∀ q, toFun (invFun q) = q
  /-- The maps agree along the reparametrisation. -/
  map_eq : ∀ p x, g.map (toFun p, x) = f.map (p, x)

/-- Any two elements of `PUnit` are equal. -/
theorem punit_eq (a b : PUnit.{u + 1}) : a = b := by
  cases a
  cases b
  rfl

/-- Pointwise associativity: `((f ; g) ; h)` at `((p, q), r)` is `(f ; (g ; h))` at
`(p, (q, r))`. -/
theorem comp_map_assoc {W X Y Z : Type u} (f : Para W X) (g : Para X Y) (h : Para Y Z)
    (p : f.P) (q : g.P) (r : h.P) (x : W) :
    (comp (comp f g) h).map (((p, q), r), x) = (comp f (comp g h)).map ((p, (q, r)), x) :=
  rfl

/-- Pointwise left unitality. -/
theorem id_comp_map {X Y : Type u} (f : Para X Y) (p : f.P) (x : X) :
    (comp (id X) f).map ((PUnit.unit, p), x) = f.map (p, x) :=
  rfl

/-- Pointwise right unitality. -/
theorem comp_id_map {X Y : Type u} (f : Para X Y) (p : f.P) (x : X) :
    (comp f (id Y)).map ((p, PUnit.unit), x) = f.map (p, x) :=
  rfl

/-- **Associativity up to reparametrisation**: `((p, q), r) ↦ (p, (q, r))`. -/
def assocReparam {W X Y Z : Type u} (f : Para W X) (g : Para X Y) (h : Para Y Z) :
    Reparam (comp (comp f g) h) (comp f (comp g h)) where
  toFun := fun (t : (f.P × g.P) × h.P) => (t.1.1, (t.1.2, t.2))
  invFun := fun (t : f.P × (g.P × h.P)) => ((t.1, t.2.1), t.2.2)
  left_inv := fun _ => Types.prod_ext (Types.prod_ext rfl rfl) rfl
  right_inv := fun _ => Types.prod_ext rfl (Types.prod_ext rfl rfl)
  map_eq := fun _ _ => rfl

/-- **Left unitality up to reparametrisation**: `(⋆, p) ↦ p`. -/
def leftUnitReparam {X Y : Type u} (f : Para X Y) : Reparam (comp (id X) f) f where
  toFun := fun (t : PUnit.{u + 1} × f.P) => t.2
  invFun := fun (p : f.P) => (PUnit.unit, p)
  left_inv := fun t => Types.prod_ext (punit_eq _ _) rfl
  right_inv := fun _ => rfl
  map_eq := fun _ _ => rfl

/-- **Right unitality up to reparametrisation**: `(p, ⋆) ↦ p`. -/
def rightUnitReparam {X Y : Type u} (f : Para X Y) : Reparam (comp f (id Y)) f where
  toFun := fun (t : f.P × PUnit.{u + 1}) => t.1
  invFun := fun (p : f.P) => (p, PUnit.unit)
  left_inv := fun t => Types.prod_ext rfl (punit_eq _ _)
  right_inv := fun _ => rfl
  map_eq := fun _ _ => rfl

end Para

end Formal.CategoryTheory
