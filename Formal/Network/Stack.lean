import Formal.Network.Arch

/-!
# Two linear layers on one input as one stacked linear layer (the fused gated linear unit)

The gated linear unit (`Formal.Zoo.glu`) is the term
`copy ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n]`: a value branch and a gate
branch, two `linear` layers reading the same input. PyTorch's `Linear(m, 2 * n)` followed by
`GLU(dim=-1)` computes both with one matrix product: its weight is the value weight's rows stacked
above the gate weight's rows (`torch.cat((W, W'))`), and `glu` multiplies the first half of the
result by the sigmoid of the second half.

This file states that both compute the same map (issue 13), over any `Scalar` and `Transcendental`
operations, with no law assumed:

* `Kernel.stack x y` puts the rows of `x` above the rows of `y`; `stack_castAdd` and
  `stack_natAdd` read the two blocks back;
* the affine map with stacked weights and biases gives the first affine map on the first block
  (`affine_stack_castAdd`) and the second on the second block (`affine_stack_natAdd`): each output
  entry is computed from its own weight row and bias entry only;
* `Kernel.glu` is `torch.nn.functional.glu` on a vector of `n + n` entries, and
  `Arch.glu_stacked` states that the gated-linear-unit term with weights `(W, b)` and `(W', b')`
  evaluates, entry by entry, to `Kernel.glu` of the affine map with weights `stack W W'` and bias
  `stack b b'`.

The straight-line emitter (`pybridge/torch/straight.py`) uses `Arch.glu_stacked` to realise that term
as `F.glu(F.linear(x, W_stacked, b_stacked), -1)`, with the two weight sets stored as one stacked
`[2n, m]` weight and `[2n]` bias. The statement is exact; the realisation is lax, since one matrix
product of width `2n` may sum in another order than two of width `n`.
-/

namespace Formal.Kernel

universe u

/-- `a ≤ i < a + b` gives `i - a < b`. -/
theorem stack_sub_lt {a b i : Nat} (h : ¬ i < a) (hi : i < a + b) : i - a < b :=
  Nat.sub_lt_left_of_lt_add ((Nat.lt_or_ge i a).resolve_left h) hi

/-- The rows of `x` (`a` of them) above the rows of `y` (`b` of them), as `torch.cat((x, y))` along
the first axis: two weights `[n, m]` and `[n', m]` stack to `[n + n', m]`, two biases to `[n + n']`. -/
def stack {β : Type u} {a b : Nat} (x : Fin a → β) (y : Fin b → β) : Fin (a + b) → β := fun i =>
  if h : i.val < a then x ⟨i.val, h⟩ else y ⟨i.val - a, stack_sub_lt h i.isLt⟩

/-- The first `a` rows of a stack are the rows of `x`. -/
theorem stack_castAdd {β : Type u} {a b : Nat} (x : Fin a → β) (y : Fin b → β) (i : Fin a) :
    stack x y (Fin.castAdd b i) = x i :=
  dif_pos i.isLt

/-- The last `b` rows of a stack are the rows of `y`. -/
theorem stack_natAdd {β : Type u} {a b : Nat} (x : Fin a → β) (y : Fin b → β) (j : Fin b) :
    stack x y (Fin.natAdd a j) = y j := by
  have hn : ¬ (Fin.natAdd a j).val < a :=
    fun h => Nat.lt_irrefl a (Nat.lt_of_le_of_lt (Nat.le_add_right a j.val) h)
  have e1 : stack x y (Fin.natAdd a j) =
      y ⟨(Fin.natAdd a j).val - a, stack_sub_lt hn (Fin.natAdd a j).isLt⟩ :=
    dif_neg hn
  have e2 : (⟨(Fin.natAdd a j).val - a, stack_sub_lt hn (Fin.natAdd a j).isLt⟩ : Fin b) = j :=
    Fin.eq_of_val_eq (@Nat.add_sub_cancel_left a j.val)
  exact e1.trans (congrArg y e2)

variable {α : Type u} [Scalar α] [Transcendental α]

/-- The affine map with stacked weights and biases, on the first block of its outputs, is the first
affine map. -/
theorem affine_stack_castAdd {m n n' : Nat} (W : Fin n → Fin m → α) (b : Fin n → α)
    (W' : Fin n' → Fin m → α) (b' : Fin n' → α) (x : Fin m → α) (i : Fin n) :
    affine (α := α) (stack W W') (stack b b') x (Fin.castAdd n' i) = affine (α := α) W b x i := by
  show Scalar.sum (α := α) m (fun j => stack W W' (Fin.castAdd n' i) j * x j) +
      stack b b' (Fin.castAdd n' i) = Scalar.sum (α := α) m (fun j => W i j * x j) + b i
  rw [stack_castAdd W W' i, stack_castAdd b b' i]

/-- The affine map with stacked weights and biases, on the second block of its outputs, is the second
affine map. -/
theorem affine_stack_natAdd {m n n' : Nat} (W : Fin n → Fin m → α) (b : Fin n → α)
    (W' : Fin n' → Fin m → α) (b' : Fin n' → α) (x : Fin m → α) (i : Fin n') :
    affine (α := α) (stack W W') (stack b b') x (Fin.natAdd n i) = affine (α := α) W' b' x i := by
  show Scalar.sum (α := α) m (fun j => stack W W' (Fin.natAdd n i) j * x j) +
      stack b b' (Fin.natAdd n i) = Scalar.sum (α := α) m (fun j => W' i j * x j) + b' i
  rw [stack_natAdd W W' i, stack_natAdd b b' i]

/-- The gated linear unit of a vector of `n + n` entries, as `torch.nn.functional.glu(v, dim=-1)`:
entry `i` of the first half times the sigmoid of entry `i` of the second half. -/
def glu {n : Nat} (v : Fin (n + n) → α) : Fin n → α :=
  fun i => v (Fin.castAdd n i) * Kernel.sigmoid (α := α) (v (Fin.natAdd n i))

/-- `glu` of the affine map with stacked weights `stack W W'` and bias `stack b b'` is, entry by
entry, the first affine map times the sigmoid of the second. -/
theorem glu_affine_stack {m n : Nat} (W W' : Fin n → Fin m → α) (b b' : Fin n → α) (x : Fin m → α)
    (i : Fin n) :
    glu (α := α) (affine (α := α) (stack W W') (stack b b') x) i =
      affine (α := α) W b x i * Kernel.sigmoid (α := α) (affine (α := α) W' b' x i) := by
  show affine (α := α) (stack W W') (stack b b') x (Fin.castAdd n i) *
      Kernel.sigmoid (α := α) (affine (α := α) (stack W W') (stack b b') x (Fin.natAdd n i)) = _
  rw [affine_stack_castAdd W b W' b' x i, affine_stack_natAdd W b W' b' x i]

end Formal.Kernel

namespace Formal.Arch

open scoped Formal.Arch

universe u

variable {α : Type u} [Scalar α] [Transcendental α]

/-- The gated linear unit as one stacked linear layer: the term
`copy ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n]` (`Formal.Zoo.glu m n`) with
value weights `(W, b)` and gate weights `(W', b')` gives at every input `x` and output entry `i`
the value of `Kernel.glu` on the affine map with the stacked weight `Kernel.stack W W'` and bias
`Kernel.stack b b'`: `torch.nn.functional.glu(F.linear(x, torch.cat((W, W')), torch.cat((b, b'))))`.

Why it holds: `eval` of the term unfolds (by `rfl`, as in `Formal/Network/Laws.lean`) to
`affine W b x i * sigmoid (affine W' b' x i)` (`mapPre` over `[]` is the kernel itself, `map` and
`zipWith` over `[n]` act entry by entry), which is `Kernel.glu_affine_stack` read right to left. -/
theorem glu_stacked (m n : Nat) (W W' : Fin n → Fin m → α) (b b' : Fin n → α)
    (x : Shape.denote α (.tensor [m])) (i : Fin n) :
    eval (Arch.copy (.tensor [m]) ≫
        (Arch.linear [] m n ⊗ (Arch.linear [] m n ≫ Arch.sigmoid [n])) ≫ Arch.mul [n])
      ((PUnit.unit, (((W, b), ((W', b'), PUnit.unit)), PUnit.unit)) :
        Params α (Arch.copy (.tensor [m]) ≫
          (Arch.linear [] m n ⊗ (Arch.linear [] m n ≫ Arch.sigmoid [n])) ≫ Arch.mul [n]))
      x i =
      Kernel.glu (α := α)
        (Kernel.affine (α := α) (Kernel.stack (β := Fin m → α) W W') (Kernel.stack (β := α) b b') x) i :=
  (Kernel.glu_affine_stack W W' b b' x i).symm

end Formal.Arch
