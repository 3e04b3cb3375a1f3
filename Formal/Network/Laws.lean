import Formal.Network.Arch

/-!
# Composition laws of the layer semantics

`Arch` is syntax, so `(f ≫ g) ≫ h` and `f ≫ (g ≫ h)` are different terms with differently nested
parameter types. Their meanings agree up to the canonical reparametrisation
`((p, q), r) ↦ (p, (q, r))`, and the identity layer is a unit up to dropping its trivial parameter:
the laws of the `Para` bicategory (Gavranović et al.; `Formal/Para`). Parallel composition `⊗` is
functorial in the same sense: it preserves identities (`eval_par_id`) and satisfies the interchange
law (`eval_par_comp`), each up to regrouping or dropping parameters. All are proved by unfolding
`eval` (pointwise, by `rfl`: `eval` is structurally recursive, so its equations are definitional;
`eval_par_id` also uses the definitional eta rule of pairs). These are the laws that make "a network
is a composite of layers" (Belfiore & Bennequin §1.1; Villani & McBurney §3) independent of how the
composite is bracketed.
-/

namespace Formal.Arch

open scoped Formal.Arch

universe u

variable {α : Type u} [Scalar α] [Transcendental α]

/-- `eval` of a composite is the composite of the `eval`s. -/
theorem eval_comp {a b c : Shape} (f : Arch a b) (g : Arch b c) (p : Params α f) (q : Params α g) :
    eval (f ≫ g) ((p, q) : Params α (f ≫ g)) = fun x => eval g q (eval f p x) :=
  funext fun _ => rfl

/-- Associativity of composition, up to the reparametrisation `((p, q), r) ↦ (p, (q, r))`. -/
theorem eval_comp_assoc {a b c d : Shape} (f : Arch a b) (g : Arch b c) (h : Arch c d)
    (p : Params α f) (q : Params α g) (r : Params α h) :
    eval ((f ≫ g) ≫ h) (((p, q), r) : Params α ((f ≫ g) ≫ h)) =
      eval (f ≫ (g ≫ h)) ((p, (q, r)) : Params α (f ≫ (g ≫ h))) :=
  funext fun _ => rfl

/-- The identity is a left unit. -/
theorem eval_id_comp {a b : Shape} (f : Arch a b) (p : Params α f) :
    eval (Arch.id a ≫ f) ((PUnit.unit, p) : Params α (Arch.id a ≫ f)) = eval f p :=
  funext fun _ => rfl

/-- The identity is a right unit. -/
theorem eval_comp_id {a b : Shape} (f : Arch a b) (p : Params α f) :
    eval (f ≫ Arch.id b) ((p, PUnit.unit) : Params α (f ≫ Arch.id b)) = eval f p :=
  funext fun _ => rfl

/-- The interchange law: `(f ⊗ g) ≫ (f' ⊗ g')` means `(f ≫ f') ⊗ (g ≫ g')`, up to the
reparametrisation that regroups the four weight sets. With `eval_par_id` this is functoriality of
`⊗` in the semantics (up to reparametrisation). -/
theorem eval_par_comp {a b c a' b' c' : Shape} (f : Arch a b) (f' : Arch b c) (g : Arch a' b')
    (g' : Arch b' c') (p : Params α f) (p' : Params α f') (q : Params α g) (q' : Params α g') :
    eval ((f ⊗ g) ≫ (f' ⊗ g')) (((p, q), (p', q')) : Params α ((f ⊗ g) ≫ (f' ⊗ g'))) =
      eval ((f ≫ f') ⊗ (g ≫ g')) (((p, p'), (q, q')) : Params α ((f ≫ f') ⊗ (g ≫ g'))) :=
  funext fun _ => rfl

/-- Parallel composition preserves identities: `id ⊗ id` means the identity of the product, up to
dropping the two trivial parameters. `α` is passed explicitly: no argument on either side mentions
it (both parameters are `PUnit.unit`). -/
theorem eval_par_id (a c : Shape) :
    eval (α := α) (Arch.id a ⊗ Arch.id c) (PUnit.unit, PUnit.unit) =
      eval (α := α) (Arch.id (.prod a c)) PUnit.unit :=
  funext fun _ => rfl

end Formal.Arch
