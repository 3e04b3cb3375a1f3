import Formal.PL.Fragment
import Formal.Network.Derived
import Formal.Zoo.GLU
import Formal.Zoo.HyperLinear

/-!
# Witness lines: the layers outside the PL fragment are not PL

Villani & McBurney (arXiv 2403.18415v2, §4, claim C2) say a transformer is not piecewise linear.
For each Zoo layer outside the PL fragment this file exhibits weights and a line along which one
output coordinate is `t ↦ t * t`, which is not PL (`Formal.PL.sq_not_pl`):

* the product atom `Arch.mul` along the diagonal `t ↦ (t, t)` (`mul_witness`, `mulVec_witness`);
  it is the last factor of the gated linear unit `Zoo.glu` (`glu_eq`). The GLU gate is a sigmoid,
  about which no law is assumed, so the witness is its product atom, not the whole GLU;
* the hyper-linear layer `Zoo.hyperLinear 1 1` with `W(x) = x` along `t ↦ t`
  (`hyperLinear_witness`);
* linear (un-normalised) self-attention `(Q Kᵀ) V` with `Q = K = x`, `V = 1`, along `t ↦ t`
  (`linearAttention_witness`).

The equations of the form `eval ... = expression` are definitional unfoldings of `Arch.eval`; the
final simplification to `t * t` uses the ordered-field laws.
-/

namespace Formal.Attention

open Formal.PL

universe u

/-- Linear self-attention without softmax, `x ↦ (Q Kᵀ) V` with `Q, K, V` affine in `x`: the
`choose, then evaluate` pattern with no transcendental function. -/
def linearAttention (seq d k : Nat) : Arch (.tensor [seq, d]) (.tensor [seq, k]) :=
  Arch.comp (Arch.fan3 (Arch.linear [seq] d k) (Arch.linear [seq] d k) (Arch.linear [seq] d k))
    (Arch.comp
      (Arch.par
        (Arch.comp (Arch.par (Arch.id (.tensor [seq, k])) (Arch.transpose [] seq k []))
          (Arch.matmul [] seq k [seq]))
        (Arch.id (.tensor [seq, k])))
      (Arch.matmul [] seq seq [k]))

variable {α : Type u} [Scalar α] [Transcendental α]

/-- A pair of scalars. -/
def pairS (a b : α) : Shape.denote α (.prod (.tensor []) (.tensor [])) := (a, b)

/-- A scalar output. -/
def scalarS (y : Shape.denote α (.tensor [])) : α := y

/-- The vector `(t)`. -/
def vec1 (t : α) : Shape.denote α (.tensor [1]) := fun _ => t

/-- The vector `(t, ..., t)`. -/
def vecConst (n : Nat) (t : α) : Shape.denote α (.tensor [n]) := fun _ => t

/-- The `1 × 1` matrix `(t)`. -/
def mat11 (t : α) : Shape.denote α (.tensor [1, 1]) := fun _ _ => t

/-- The only entry of a vector of length one. -/
def out1 (y : Shape.denote α (.tensor [1])) : α := y ⟨0, by decide⟩

/-- The only entry of a `1 × 1` matrix. -/
def out11 (y : Shape.denote α (.tensor [1, 1])) : α := y ⟨0, by decide⟩ ⟨0, by decide⟩

/-! ## The product atom (and GLU) -/

/-- `Arch.mul []` along the diagonal is the square (definitionally). -/
theorem mul_line (t : α) :
    scalarS (Arch.eval (Arch.mul []) PUnit.unit (pairS t t)) = t * t :=
  rfl

/-! ## Weights of the witnesses

Entries are written `(Scalar.one : α)`: the expected type of an entry is `Tensor α []`, and an
unannotated `Scalar.one` would be elaborated at that type, where no `Scalar` instance is found
(instance search does not unfold `Tensor`). -/

/-- The weight generator `A = 1`, `a = 0`: the computed weight matrix is `W(x) = x`. -/
def hyperW : Tensor α [1 * 1, 1] := fun _ _ => (Scalar.one : α)

/-- Zero bias. -/
def hyperB : Tensor α [1 * 1] := fun _ => (Scalar.zero : α)

/-- Weights of `Zoo.hyperLinear 1 1` with `W(x) = x`. -/
def hyperParams : Arch.Params α (Zoo.hyperLinear 1 1) :=
  (PUnit.unit, ((((hyperW, hyperB), PUnit.unit), PUnit.unit), PUnit.unit))

/-- Identity projection weight. -/
def oneW : Tensor α [1, 1] := fun _ _ => (Scalar.one : α)

/-- Zero projection weight. -/
def zeroW : Tensor α [1, 1] := fun _ _ => (Scalar.zero : α)

/-- Zero bias. -/
def zeroB : Tensor α [1] := fun _ => (Scalar.zero : α)

/-- Unit bias. -/
def oneB : Tensor α [1] := fun _ => (Scalar.one : α)

/-- Weights of `linearAttention 1 1 1`: `Q = K = x`, `V = 1`. -/
def linParams : Arch.Params α (linearAttention 1 1 1) :=
  ((PUnit.unit, ((PUnit.unit, ((oneW, zeroB), (oneW, zeroB))), (zeroW, oneB))),
    ((((PUnit.unit, PUnit.unit), PUnit.unit), PUnit.unit), PUnit.unit))

variable [OrderedFieldLaws α]

/-- **VM.C2.** The product atom is not PL along the diagonal line `t ↦ (t, t)`. -/
theorem mul_witness :
    ¬ LocallyAffine (fun t : α => scalarS (Arch.eval (Arch.mul []) PUnit.unit (pairS t t))) :=
  sq_not_pl

/-- **VM.C2.** The entrywise product on vectors of length `n + 1` is not PL along the diagonal
line `t ↦ ((t, ..., t), (t, ..., t))`, in its first coordinate. -/
theorem mulVec_witness (n : Nat) :
    ¬ LocallyAffine (fun t : α =>
      coord0 (Arch.eval (Arch.mul [n + 1]) PUnit.unit
        (((vecConst (n + 1) t, vecConst (n + 1) t) :
          Shape.denote α (.prod (.tensor [n + 1]) (.tensor [n + 1])))))) :=
  sq_not_pl

/-- The gated linear unit ends with the product atom `Arch.mul [d_out]`. -/
theorem glu_eq (d_in d_out : Nat) :
    Zoo.glu d_in d_out =
      Arch.comp (Arch.copy (.tensor [d_in]))
        (Arch.comp
          (Arch.par (Arch.linear [] d_in d_out)
            (Arch.comp (Arch.linear [] d_in d_out) (Arch.sigmoid [d_out])))
          (Arch.mul [d_out])) :=
  rfl

/-! ## The hyper-linear layer -/

/-- Along `t ↦ (t)`, `Zoo.hyperLinear 1 1` with `W(x) = x` computes `t ↦ t²`. -/
theorem hyperLinear_line (t : α) :
    out1 (Arch.eval (Zoo.hyperLinear 1 1) hyperParams (vec1 t)) = t * t := by
  -- `eval` unfolded: the `1 × 1` weight `W(x) = 0 + 1 * t + 0` (one-term `Scalar.sum` plus bias),
  -- then the one-term product `0 + W(x) * t` of `Kernel.matmul` / `Tensor.lincomb`.
  show (Scalar.zero : α) + (((Scalar.zero : α) + (Scalar.one : α) * t) + (Scalar.zero : α)) * t =
    t * t
  rw [OrderedFieldLaws.one_mul t, OrderedFieldLaws.zero_add t, PL.add_zero t,
    OrderedFieldLaws.zero_add (t * t)]

/-- **VM.C2.** The hyper-linear layer is not PL: along the line `t ↦ (t)` it is `t ↦ t²`. -/
theorem hyperLinear_witness :
    ¬ LocallyAffine (fun t : α => out1 (Arch.eval (Zoo.hyperLinear 1 1) hyperParams (vec1 t))) :=
  fun h => sq_not_pl (Eq.subst (motive := fun g => LocallyAffine g)
    (funext hyperLinear_line) h)

/-! ## Linear attention -/

/-- Along `t ↦ (t)`, linear attention with `Q = K = x` and `V = 1` computes `t ↦ t²`. -/
theorem linearAttention_line (t : α) :
    out11 (Arch.eval (linearAttention 1 1 1) linParams (mat11 t)) = t * t := by
  -- `eval` unfolded: `Q = K = 0 + 1 * t + 0`, `V = 0 + 0 * t + 1` (the three `linear` layers),
  -- `S = 0 + Q * K` (first `matmul`, against the transposed keys), output `0 + S * V`.
  show (Scalar.zero : α) +
      ((Scalar.zero : α) + (((Scalar.zero : α) + (Scalar.one : α) * t) + (Scalar.zero : α)) *
        (((Scalar.zero : α) + (Scalar.one : α) * t) + (Scalar.zero : α))) *
      (((Scalar.zero : α) + (Scalar.zero : α) * t) + (Scalar.one : α)) = t * t
  rw [OrderedFieldLaws.one_mul t, PL.zero_mul t, OrderedFieldLaws.zero_add t, PL.add_zero t,
    PL.add_zero (Scalar.zero : α), OrderedFieldLaws.zero_add (Scalar.one : α),
    PL.mul_one ((Scalar.zero : α) + t * t), OrderedFieldLaws.zero_add (t * t),
    OrderedFieldLaws.zero_add (t * t)]

/-- **VM.C2.** Linear self-attention (no softmax) is not PL: along `t ↦ (t)` it is `t ↦ t²`. -/
theorem linearAttention_witness :
    ¬ LocallyAffine (fun t : α => out11 (Arch.eval (linearAttention 1 1 1) linParams (mat11 t))) :=
  fun h => sq_not_pl (Eq.subst (motive := fun g => LocallyAffine g)
    (funext linearAttention_line) h)

end Formal.Attention
