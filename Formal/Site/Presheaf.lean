import Formal.Site.Poset

/-!
# Presheaves on a poset and their morphisms

Belfiore & Bennequin (arXiv 2106.14587 v3, §1.2–1.3, Prop. 1.1): the topos of a network is the
category of presheaves on the poset `X` of its layers; activities and weights are presheaves
(functors `Xᵒᵖ → Set`) and the dynamics are natural transformations between them.

Here a presheaf on a poset `α` is a family `obj : α → Type v` with restriction maps
`map : y ≤ x → obj x → obj y` satisfying the functor laws (`map_id`, `map_comp`; the proofs of `≤`
are propositions, so the laws need no coherence data). Morphisms are natural transformations
(`PSh.Hom`), with identities `PSh.id` and composition `PSh.comp` in diagrammatic order (first `f`,
then `g`), and the category laws `PSh.id_comp`, `PSh.comp_id`, `PSh.assoc` (claim `BB.PSh.category`).
The bundled `Formal.CategoryTheory.Category` instance is in `Formal/Site/PresheafCategory.lean`.
-/

namespace Formal.Site

universe u v

/-- A presheaf on the poset `α` (a functor `αᵒᵖ → Type v`). -/
structure Presheaf (α : Type u) [Poset α] where
  /-- The value at each point. -/
  obj : α → Type v
  /-- Restriction along `y ≤ x`. -/
  map : ∀ {x y : α}, y ≤ x → obj x → obj y
  /-- Restriction along `x ≤ x` is the identity. -/
  map_id : ∀ (x : α) (s : obj x), map (Poset.le_refl x) s = s
  /-- Restricting twice is restricting along the composite. -/
  map_comp : ∀ {x y z : α} (hyx : y ≤ x) (hzy : z ≤ y) (s : obj x),
    map hzy (map hyx s) = map (Poset.le_trans hzy hyx) s

namespace PSh

variable {α : Type u} [Poset α]

/-- A morphism of presheaves: a natural transformation. -/
structure Hom (P Q : Presheaf.{u, v} α) where
  /-- The component at each point. -/
  app : ∀ x : α, P.obj x → Q.obj x
  /-- Naturality: components commute with restriction. -/
  naturality : ∀ {x y : α} (h : y ≤ x) (s : P.obj x), app y (P.map h s) = Q.map h (app x s)

/-- Two natural transformations with the same components are equal. -/
theorem Hom.ext {P Q : Presheaf.{u, v} α} {f g : Hom P Q}
    (h : ∀ (x : α) (s : P.obj x), f.app x s = g.app x s) : f = g := by
  cases f with
  | mk fa fn =>
    cases g with
    | mk ga gn =>
      have e : fa = ga := funext (fun x => funext (fun s => h x s))
      subst e
      rfl

/-- The identity natural transformation. -/
def id (P : Presheaf.{u, v} α) : Hom P P where
  app := fun _ s => s
  naturality := fun _ _ => rfl

/-- Composition of natural transformations, in diagrammatic order: first `f`, then `g`. -/
def comp {P Q R : Presheaf.{u, v} α} (f : Hom P Q) (g : Hom Q R) : Hom P R where
  app := fun x s => g.app x (f.app x s)
  naturality := by
    intro x y h s
    show g.app y (f.app y (P.map h s)) = R.map h (g.app x (f.app x s))
    rw [f.naturality h s, g.naturality h (f.app x s)]

/-- `BB.PSh.category` (left unit law). -/
theorem id_comp {P Q : Presheaf.{u, v} α} (f : Hom P Q) : comp (PSh.id P) f = f :=
  Hom.ext (fun _ _ => rfl)

/-- `BB.PSh.category` (right unit law). -/
theorem comp_id {P Q : Presheaf.{u, v} α} (f : Hom P Q) : comp f (PSh.id Q) = f :=
  Hom.ext (fun _ _ => rfl)

/-- `BB.PSh.category` (associativity). -/
theorem assoc {P Q R S : Presheaf.{u, v} α} (f : Hom P Q) (g : Hom Q R) (h : Hom R S) :
    comp (comp f g) h = comp f (comp g h) :=
  Hom.ext (fun _ _ => rfl)

/-- The terminal presheaf: a point everywhere. -/
def terminal (α : Type u) [Poset α] : Presheaf.{u, v} α where
  obj := fun _ => PUnit.{v + 1}
  map := fun _ s => s
  map_id := fun _ _ => rfl
  map_comp := fun _ _ _ => rfl

/-- The unique morphism into the terminal presheaf. -/
def toTerminal (P : Presheaf.{u, v} α) : Hom P (terminal.{u, v} α) where
  app := fun _ _ => PUnit.unit
  naturality := fun _ _ => rfl

/-- Uniqueness of the morphism into the terminal presheaf. -/
theorem toTerminal_unique {P : Presheaf.{u, v} α} (f : Hom P (terminal.{u, v} α)) :
    f = toTerminal P :=
  Hom.ext (fun x s => PUnit.subsingleton (f.app x s) ((toTerminal P).app x s))

end PSh

end Formal.Site
