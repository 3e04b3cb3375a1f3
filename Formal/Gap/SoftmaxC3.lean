import Formal.Gap.LineAffine
import Formal.PL.Softmax

/-!
# VM.C3 for softmax attention

Villani & McBurney (arXiv 2403.18415v2, §4, claim C3) place the transformer in a topos completion
of a category of piecewise-linear maps. `Formal/Gap/LineAffine.lean` refutes this in the
locally-affine category `LACat` for every map with a line witness (`no_morphism_computes`,
`no_product_morphism_computes`) and instantiates it for linear attention and the product atom. This
file instantiates it for the Zoo's softmax attention, using the line along which
`Formal/PL/Softmax.lean` (VM.C2) shows that attention is not `LocallyAffine`.

* `flatIdx`, `flatRow`, `flatCol`: the row-major index table between `Fin 2 × Fin 2` (token, feature)
  and `Fin 4`, written out case by case: `(0,0) ↦ 0`, `(0,1) ↦ 1`, `(1,0) ↦ 2`, `(1,1) ↦ 3`
  (the order of `torch.flatten` on a `2 × 2` tensor).
* `unflatten22 y`: the `2 × 2` input with entry `(s, f)` equal to `y (flatIdx s f)`;
  `flatten22 z`: the vector with entry `k` equal to `z (flatRow k) (flatCol k)`.
* `softmaxAttentionMap : (Fin 4 → α) → (Fin 4 → α)`: the Zoo's multi-head self-attention
  `Zoo.attention 2 2` (sequence length 2, `d_model = 2`, two heads) at the weights
  `Softmax.attnParams` of `Formal/PL/Softmax.lean`, conjugated by the flattening:
  `flatten22 ∘ eval ∘ unflatten22`. All four output coordinates are kept.
* `unflatten22_line`: for the flat base `softmaxFlatBase` and direction `softmaxFlatDir` (the entries
  of `Softmax.baseE` and `Softmax.dirE` read through `flatRow`, `flatCol`), unflattening the line
  `lineV softmaxFlatBase softmaxFlatDir t` gives the line `lineS (.tensor [2, 2]) lineBase lineDir t`
  of `Formal/PL/Softmax.lean` (by `funext` and a case split over the two `Fin 2` indices, each case
  by `rfl`).
* `softmaxAttention_not_locallyAffine` (**VM.C3**): along that line, output coordinate `0` (token 0,
  feature 0) is the function of `attention_not_locallyAffine` (`softmaxAttentionMap_line`), so it is
  not `LocallyAffine`; `softmaxAttention_lineWitness`: `softmaxAttentionMap` has a `LineWitness`.
* `no_morphism_computes_softmaxAttention` (**VM.C3**): under a fully faithful `F` out of `LACat`, no
  morphism `F(α⁴) ⟶ F(α⁴)` computes `softmaxAttentionMap`;
  `no_product_morphism_computes_softmaxAttention` (**VM.C3**): no morphism
  `F(α²) × F(α²) ⟶ F(α⁴)` does after the product comparison (by the definitions of `projFst`,
  `projSnd` and `flatIdx`, the first factor holds flat coordinates `0, 1`, token 0, and the second
  `2, 3`, token 1; not stated as a lemma).

The scalars are those of `attention_not_locallyAffine`: `OrderedFieldLaws`, `ExpLaws`, `SqrtLaws`
and `NatCastLaws` (an ordered field with an exponential and a square root; no instance is given).
-/

namespace Formal.Gap

open Formal.CategoryTheory
open Formal.PL

universe u v₂ u₂

/-! ## Row-major flattening of `2 × 2` -/

/-- The flat index of entry `(s, f)` of a `2 × 2` tensor, row-major:
`(0,0) ↦ 0`, `(0,1) ↦ 1`, `(1,0) ↦ 2`, `(1,1) ↦ 3`. -/
def flatIdx : Fin 2 → Fin 2 → Fin 4
  | ⟨0, _⟩, ⟨0, _⟩ => ⟨0, by decide⟩
  | ⟨0, _⟩, ⟨_ + 1, _⟩ => ⟨1, by decide⟩
  | ⟨_ + 1, _⟩, ⟨0, _⟩ => ⟨2, by decide⟩
  | ⟨_ + 1, _⟩, ⟨_ + 1, _⟩ => ⟨3, by decide⟩

/-- The row (token) of a flat index: `0, 1 ↦ 0` and `2, 3 ↦ 1`. -/
def flatRow : Fin 4 → Fin 2
  | ⟨0, _⟩ => ⟨0, by decide⟩
  | ⟨1, _⟩ => ⟨0, by decide⟩
  | ⟨2, _⟩ => ⟨1, by decide⟩
  | ⟨_ + 3, _⟩ => ⟨1, by decide⟩

/-- The column (feature) of a flat index: `0, 2 ↦ 0` and `1, 3 ↦ 1`. -/
def flatCol : Fin 4 → Fin 2
  | ⟨0, _⟩ => ⟨0, by decide⟩
  | ⟨1, _⟩ => ⟨1, by decide⟩
  | ⟨2, _⟩ => ⟨0, by decide⟩
  | ⟨_ + 3, _⟩ => ⟨1, by decide⟩

/-- The flat index `0`: token 0, feature 0. -/
def flat00 : Fin 4 := ⟨0, by decide⟩

section Defs

variable {α : Type u} [Scalar α]

/-- A flat vector `y : α⁴` as a `2 × 2` input: entry `(s, f)` is `y (flatIdx s f)`. -/
def unflatten22 (y : Fin 4 → α) : Fin 2 → Fin 2 → α := fun s f => y (flatIdx s f)

/-- A `2 × 2` value as a flat vector of `α⁴`: entry `k` is `z (flatRow k) (flatCol k)`. -/
def flatten22 (z : Shape.denote α (.tensor [2, 2])) : Fin 4 → α :=
  fun k => z (flatRow k) (flatCol k)

/-- The base point `Softmax.baseE` of the VM.C2 line, flattened: `(0, 1, 0, 0)`. -/
def softmaxFlatBase : Fin 4 → α := fun k => Softmax.baseE (flatRow k) (flatCol k)

/-- The direction `Softmax.dirE` of the VM.C2 line, flattened: `(1, 0, 0, 0)`. -/
def softmaxFlatDir : Fin 4 → α := fun k => Softmax.dirE (flatRow k) (flatCol k)

/-- Unflattening the flat line `t ↦ softmaxFlatBase + softmaxFlatDir * t` gives the line
`lineS (.tensor [2, 2]) lineBase lineDir t` of `Formal/PL/Softmax.lean`: entrywise, by a case split
over the two `Fin 2` indices, each case by `rfl` (both sides reduce to the same sum). -/
theorem unflatten22_line (t : α) :
    @Eq (Fin 2 → Fin 2 → α) (unflatten22 (lineV softmaxFlatBase softmaxFlatDir t))
      (lineS (α := α) (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t) := by
  funext s f
  match s, f with
  | ⟨0, _⟩, ⟨0, _⟩ => rfl
  | ⟨0, _⟩, ⟨_ + 1, _⟩ => rfl
  | ⟨_ + 1, _⟩, ⟨0, _⟩ => rfl
  | ⟨_ + 1, _⟩, ⟨_ + 1, _⟩ => rfl

/-- Flat coordinate `0` of a flattened `2 × 2` value is its entry `(0, 0)` (`Softmax.out00`), by
unfolding: `flatRow flat00` and `flatCol flat00` reduce to index `0`. -/
theorem flatten22_flat00 (z : Shape.denote α (.tensor [2, 2])) :
    flatten22 z flat00 = Softmax.out00 z :=
  rfl

variable [Transcendental α]

/-- **Softmax attention as a map `α⁴ → α⁴`.** The Zoo's multi-head self-attention
`Zoo.attention 2 2` (`torch.nn.MultiheadAttention(2, 2)`, sequence length 2) at the weights
`Softmax.attnParams`, on row-major flattened inputs and outputs:
`flatten22 ∘ eval ∘ unflatten22`. -/
def softmaxAttentionMap (y : Fin 4 → α) : Fin 4 → α :=
  flatten22 (α := α)
    (Arch.eval (α := α) (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
      Softmax.attnParams (unflatten22 (α := α) y))

/-- Along the flat line `t ↦ softmaxFlatBase + softmaxFlatDir * t`, output coordinate `0` of
`softmaxAttentionMap` is the coordinate `(0, 0)` of the Zoo attention along the line
`lineS (.tensor [2, 2]) lineBase lineDir t` of VM.C2 (`flatten22_flat00`, then `unflatten22_line`
under `out00 ∘ eval`). -/
theorem softmaxAttentionMap_line (t : α) :
    softmaxAttentionMap (lineV softmaxFlatBase softmaxFlatDir t) flat00 =
      Softmax.out00 (Arch.eval (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
        Softmax.attnParams (lineS (.tensor [2, 2]) Softmax.lineBase Softmax.lineDir t)) := by
  have e1 : softmaxAttentionMap (lineV softmaxFlatBase softmaxFlatDir t) flat00 =
      Softmax.out00 (α := α)
        (Arch.eval (α := α) (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
          Softmax.attnParams (unflatten22 (α := α) (lineV softmaxFlatBase softmaxFlatDir t))) :=
    flatten22_flat00 _
  have e2 := congrArg
    (fun y : Fin 2 → Fin 2 → α => Softmax.out00 (α := α)
      (Arch.eval (α := α) (Zoo.attention (seq := 2) 2 2 (by decide) (Nat.dvd_refl 2))
        Softmax.attnParams y))
    (unflatten22_line (α := α) t)
  exact e1.trans e2

end Defs

/-! ## The instance of VM.C3 -/

section Instances

variable {α : Type u} [Scalar α] [Transcendental α] [OrderedFieldLaws α] [ExpLaws α] [SqrtLaws α]
  [NatCastLaws α]
variable {D : Type u₂} [Category.{v₂} D]

/-- **VM.C3 (the witness line).** Along the flat line through `softmaxFlatBase` with direction
`softmaxFlatDir`, output coordinate `flat00` (token 0, feature 0) of `softmaxAttentionMap` is not
`LocallyAffine`: by `softmaxAttentionMap_line` it is the function of `attention_not_locallyAffine`
(the logistic `exp (c t) / (exp (c t) + 1)`, `c = 1/√1`). -/
theorem softmaxAttention_not_locallyAffine :
    ¬ LocallyAffine (fun t : α =>
      softmaxAttentionMap (lineV softmaxFlatBase softmaxFlatDir t) flat00) :=
  fun hla => attention_not_locallyAffine (α := α)
    (Eq.subst (motive := fun k => LocallyAffine k) (funext softmaxAttentionMap_line) hla)

/-- **VM.C3 (softmax attention has a line witness)**: the line and coordinate of
`softmaxAttention_not_locallyAffine`. -/
theorem softmaxAttention_lineWitness : LineWitness (softmaxAttentionMap (α := α)) :=
  ⟨softmaxFlatBase, softmaxFlatDir, flat00, softmaxAttention_not_locallyAffine⟩

/-- **VM.C3 (softmax attention).** Under a fully faithful `F` out of `LACat`, no morphism
`F(α⁴) ⟶ F(α⁴)` computes the Zoo's softmax attention `softmaxAttentionMap`
(`Zoo.attention 2 2` at `Softmax.attnParams`, flattened row-major). -/
theorem no_morphism_computes_softmaxAttention {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F)
    (g : Category.Hom (F.obj (LAObj.mk 4)) (F.obj (LAObj.mk 4))) :
    ¬ Computes hF g softmaxAttentionMap :=
  no_morphism_computes hF softmaxAttention_lineWitness g

/-- **VM.C3 (softmax attention, on a product).** Under a fully faithful `F` out of `LACat`, no
morphism `F(α²) × F(α²) ⟶ F(α⁴)` computes `softmaxAttentionMap` via the product comparison (by
the definitions of `projFst`, `projSnd` and `flatIdx`, the first factor holds flat coordinates
`0, 1`, token 0, and the second `2, 3`, token 1). -/
theorem no_product_morphism_computes_softmaxAttention {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) (K : ChosenProducts D)
    (g : Category.Hom (K.prod (F.obj (LAObj.mk 2)) (F.obj (LAObj.mk 2))).pt (F.obj (LAObj.mk 4))) :
    ¬ ComputesOnProduct hF K g (softmaxAttentionMap : (Fin (2 + 2) → α) → (Fin 4 → α)) :=
  no_product_morphism_computes (a := 2) (b := 2) hF K softmaxAttention_lineWitness g

end Instances

end Formal.Gap
