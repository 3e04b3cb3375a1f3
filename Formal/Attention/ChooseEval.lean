import Formal.Network.Derived
import Formal.Zoo.MLP
import Formal.Category.TypesTopos

/-!
# Attention as "evaluate after choosing": `attention_eq_eval_choose` and why it separates nothing

Villani & McBurney (arXiv 2403.18415v2, §4, claim C3) read attention as `eval ∘ ⟨choose, id⟩`: from
the input `x` the layer *chooses* a map (the attention weights `softmax(Q Kᵀ/√k)` applied to the
values), then *evaluates* it at the input. This file states that reading for the library's
multi-head self-attention and proves it by unfolding (`attention_eq_eval_choose`).

It then proves the point that defeats the reading as a separation criterion: in `Type` (the
cartesian closed category of the semantics) **every** map `f : X → Y` factors as
`eval ∘ ⟨choose, id⟩`, with `choose x = f` (the curried `f ∘ snd`): `every_map_factors_eval`. So the
factorisation by itself cannot distinguish transformers from piecewise-linear networks; the MLP
factors the same way (`mlp_factors_eval`).

The statements here are for `Type`, where the semantics lives. The cartesian closed form is in
`Formal/Para/ChooseEval.lean`: in any cartesian closed category, `h : X × X ⟶ Y` restricted to the
diagonal is `⟨curry h, 𝟙⟩ ≫ eval` (`Formal.CategoryTheory.CartesianClosed.choose_eval`), with the
chosen weights unique once `h` is fixed (`Formal.CategoryTheory.CartesianClosed.choose_unique`). The
factorisation of a given map is not unique: `name_ne_fst_in_types` exhibits, in `Type`, two
factorisations of the identity of `Bool` with different chosen weights.
-/

namespace Formal.Attention

universe u

/-- Evaluation `Y^X × X → Y`. -/
def evalMap {X Y : Type u} (q : (X → Y) × X) : Y := q.1 q.2

/-- Pairing `⟨f, g⟩ : X → A × B`. -/
def pairing {X A B : Type u} (f : X → A) (g : X → B) : X → A × B := fun x => (f x, g x)

/-- **VM.C3 (the factorisation is universal).** In `Type`, every map factors through evaluation:
`f = eval ∘ ⟨choose, id⟩` with `choose x = f`. -/
theorem every_map_factors_eval {X Y : Type u} (f : X → Y) :
    ∃ c : X → (X → Y), f = evalMap ∘ pairing c (fun x => x) :=
  ⟨fun _ => f, rfl⟩

variable {α : Type u} [Scalar α] [Transcendental α]

/-- The map that self-attention chooses at input `x`: the attention weights `A(x)` computed from
the queries and keys of `x`, applied (together with the output projection) to the values of an
input `y`. -/
def attnChoose (seq d heads k : Nat) (p : Arch.Params α (Arch.selfAttention seq d heads k))
    (x : Shape.denote α (.tensor [seq, d])) :
    Shape.denote α (.tensor [seq, d]) → Shape.denote α (.tensor [seq, d]) := fun y =>
  Arch.eval
    (Arch.comp (Arch.matmul [heads] seq seq [k])
      (Arch.comp (Arch.mergeHeads seq heads k) (Arch.linear [seq] (heads * k) d)))
    (Prod.snd (Prod.snd p))
    (Arch.eval (Arch.attnWeights seq heads k) (Prod.fst (Prod.fst (Prod.snd p)))
        (Prod.fst (Arch.eval
          (Arch.fan3
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k))
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k))
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k)))
          (Prod.fst p) x)),
      Prod.snd (Arch.eval
          (Arch.fan3
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k))
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k))
            (Arch.comp (Arch.linear [seq] d (heads * k)) (Arch.splitHeads seq heads k)))
          (Prod.fst p) y))

/-- **VM.C3 (the factorisation holds).** Multi-head self-attention is evaluation after choosing:
`attention(x) = eval (choose x, x)`, where `choose x` applies the weights computed from `x`. -/
theorem attention_eq_eval_choose (seq d heads k : Nat)
    (p : Arch.Params α (Arch.selfAttention seq d heads k)) (x : Shape.denote α (.tensor [seq, d])) :
    Arch.eval (Arch.selfAttention seq d heads k) p x =
      (evalMap ∘ pairing (attnChoose seq d heads k p) (fun z => z)) x :=
  rfl

/-- The factorisation separates nothing: a two-layer perceptron, a piecewise-linear network, is
also `eval ∘ ⟨choose, id⟩` (by `every_map_factors_eval`). -/
theorem mlp_factors_eval (d_in d_hidden d_out : Nat)
    (p : Arch.Params α (Zoo.mlp d_in d_hidden d_out)) :
    ∃ c : Shape.denote α (.tensor [d_in]) →
        (Shape.denote α (.tensor [d_in]) → Shape.denote α (.tensor [d_out])),
      Arch.eval (Zoo.mlp d_in d_hidden d_out) p = evalMap ∘ pairing c (fun x => x) :=
  every_map_factors_eval (Arch.eval (Zoo.mlp d_in d_hidden d_out) p)

/-- **VM.C3.factorisation (the factorisation of a given map is not unique).** In `Type` (the
cartesian closed structure `Types.typeCartesianClosed`), the identity of `Bool` factors as `⟨curry h, 𝟙⟩ ≫ eval` both with
`h = snd ≫ 𝟙` (its constant name, `CartesianClosed.factors_through_name`) and with `h = fst ≫ 𝟙`
(`CartesianClosed.factors_through_fst`), and the two chosen weights differ: at `true`, the first is
the identity of `Bool` (value `false` at `false`), the second the constant `true`. -/
theorem name_ne_fst_in_types :
    CategoryTheory.Types.typeCartesianClosed.curry
        (CategoryTheory.Category.comp (CategoryTheory.Types.typeCartesianClosed.prod Bool Bool).snd
          (CategoryTheory.Category.id Bool)) ≠
      CategoryTheory.Types.typeCartesianClosed.curry
        (CategoryTheory.Category.comp (CategoryTheory.Types.typeCartesianClosed.prod Bool Bool).fst
          (CategoryTheory.Category.id Bool)) := by
  intro e
  have h : false = true := congrFun (congrFun e true) false
  exact absurd h (by decide : ¬ (false = true))

end Formal.Attention
