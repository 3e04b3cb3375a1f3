/-!
# Scalars

Core Lean has no real numbers, so the semantics of layers (`Formal.Arch.eval`) is written over an
abstract scalar type. This file declares the operations that the semantics uses, split in two classes:

* `Scalar α`: the ordered-field operations (`+`, `*`, negation, inverse, the embedding of `Nat`, and a
  decidable strict order). ReLU, arg-max routing, means and scalings need nothing more. Core's `Rat` is
  an instance (below), so every statement proved for an arbitrary `Scalar` holds over the rationals.
* `Transcendental α`: `exp` and `sqrt`, used by softmax, sigmoid, layer and RMS norm and the `1/√d`
  scaling of attention, and `log`, `sin`, `cos`, used by the rotary position embedding (`Arch.rope`).
  The laws of `exp`, `sqrt` (and those of `ofNat`) are hypothesis classes in `Formal/PL/ExpLaws.lean`
  (`ExpLaws`, `SqrtLaws`, `NatCastLaws`), taken by the proofs about softmax
  (`Formal/PL/Softmax.lean`); no law of `log`, `sin` or `cos` is stated (no proof uses one). No `Rat`
  instance of `Transcendental` exists.

Laws (associativity, distributivity, order compatibility, ...) are *not* fields of `Scalar`: the
proofs that need them take them as an explicit hypothesis class (see `Formal/PL/`), so each theorem
states exactly the algebra it uses. Floats never appear in a statement or a proof; the PyTorch side
realises `α` as `float32` or `float64`.
-/

namespace Formal

universe u

/-- The ordered-field operations on a scalar type. `inv 0` is unconstrained here; concrete instances
follow the field convention `0⁻¹ = 0`. -/
class Scalar (α : Type u) extends Add α, Mul α, Neg α, LT α where
  /-- Additive unit. -/
  zero : α
  /-- Multiplicative unit. -/
  one : α
  /-- Multiplicative inverse. -/
  inv : α → α
  /-- The image of a natural number (for means `1/n` and scalings `1/√n`). -/
  ofNat : Nat → α
  /-- The strict order is decidable: ReLU and arg-max branch on it. -/
  decLt : ∀ a b : α, Decidable (a < b)

/-- The transcendental operations of the layers: `exp` and `sqrt` (softmax, sigmoid, layer and RMS
norm, the attention scaling) and `log`, `sin`, `cos` (the rotary position embedding, whose angles are
`p · base^(-2f/k) = p · exp (-(2f/k) · log base)`). The laws of `exp` and `sqrt` are the hypothesis
classes `Formal.PL.ExpLaws` and `Formal.PL.SqrtLaws`, not fields; no law of `log`, `sin` or `cos` is
stated anywhere (no proof needs one). -/
class Transcendental (α : Type u) where
  /-- The exponential. -/
  exp : α → α
  /-- The (non-negative) square root. -/
  sqrt : α → α
  /-- The natural logarithm (applied only to `ofNat base`, the rotary base of `Arch.rope`;
  `10000` in the Zoo). -/
  log : α → α
  /-- The sine. -/
  sin : α → α
  /-- The cosine. -/
  cos : α → α

namespace Scalar

variable {α : Type u} [Scalar α]

instance decidableLt (a b : α) : Decidable (a < b) := Scalar.decLt a b

/-- Subtraction, `a - b = a + (-b)`. -/
def sub (a b : α) : α := a + -b

/-- Division, `a / b = a * b⁻¹`. -/
def div (a b : α) : α := a * Scalar.inv b

/-- The image of an integer. -/
def ofInt : Int → α
  | .ofNat n => (Scalar.ofNat n : α)
  | .negSucc n => -(Scalar.ofNat (n + 1) : α)

/-- `∑_{i < n} f i`, summed left to right: `((f 0 + f 1) + ...) + f (n-1)`, starting from `0`. -/
def sum : (n : Nat) → (Fin n → α) → α
  | 0, _ => (Scalar.zero : α)
  | n + 1, f => sum n (fun i => f (Fin.castSucc i)) + f (Fin.last n)

/-- The rectifier `max 0 x`, written as a branch on the decidable order. -/
def relu (x : α) : α := if (Scalar.zero : α) < x then x else Scalar.zero

end Scalar

/-- Core's rationals carry the ordered-field operations (`Rat` is in core's `Init.Data.Rat`;
`Rat.inv 0 = 0`). -/
instance : Scalar Rat where
  add := fun a b => a + b
  mul := fun a b => a * b
  neg := fun a => -a
  lt := fun a b => a < b
  zero := 0
  one := 1
  inv := Rat.inv
  ofNat := fun n => NatCast.natCast n
  decLt := fun a b => inferInstanceAs (Decidable (a < b))

end Formal
