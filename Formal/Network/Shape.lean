import Formal.Network.Tensor

/-!
# Shapes: the objects of the layer syntax

A `Shape` is a tensor shape (a list of dimensions), a product of two shapes (a layer with two inputs
or outputs, e.g. the queries and keys of attention), or a coproduct of `k` copies of a shape (a value
tagged with one of `k` branches: the output of a hard router, the input of a mixture of experts).
`Shape.denote α` interprets a shape as a type of values over the scalars `α`.

Source: the objects of the category of layers in Villani & McBurney §3 (products of Euclidean
spaces) and the coproduct completion they appeal to (§4); Belfiore & Bennequin's layers `X_L`.
-/

namespace Formal

universe u

/-- Objects of the layer syntax. -/
inductive Shape where
  /-- A tensor of the given shape (a list of dimensions). -/
  | tensor (dims : List Nat)
  /-- A pair of values. -/
  | prod (a b : Shape)
  /-- A value of `a` tagged with one of `k` branches: the coproduct of `k` copies of `a`. -/
  | coprod (k : Nat) (a : Shape)
  deriving Repr, DecidableEq

/-- The values of a shape over the scalars `α`. -/
def Shape.denote (α : Type u) : Shape → Type u
  | .tensor dims => Tensor α dims
  | .prod a b => Shape.denote α a × Shape.denote α b
  | .coprod k a => Fin k × Shape.denote α a

end Formal
