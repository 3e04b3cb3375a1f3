import Formal.Network.Arch

/-!
# Batches: every layer is a per-sample map

`Arch.eval` describes one sample; PyTorch runs a batch. A batch of `B` inputs is a function
`Fin B → Shape.denote α s`, and a layer acts on it row by row (`evalBatch`). Two facts underlie
"copair by dispatch" (issue 13): evaluating a reordered or selected set of rows is
reordering or selecting the evaluated rows (`evalBatch_reindex`), and on rows that all carry the
tag `j`, `copair k f` is branch `j` of `f` run on their untagged values (`copair_dispatch`). The
latter is the per-tag step of "for each tag `j`, gather its rows, run branch `j` on them alone,
scatter the results back"; that the tags' row sets cover the batch and that the scatter writes each
result at its row are facts about that loop, not stated here.
-/

namespace Formal.Arch

open scoped Formal.Arch

universe u

variable {α : Type u} [Scalar α] [Transcendental α]

/-- A layer applied to each row of a batch of `B` inputs. -/
def evalBatch {s t : Shape} {B : Nat} (f : Arch s t) (p : Params α f)
    (xs : Fin B → Shape.denote α s) : Fin B → Shape.denote α t :=
  fun b => eval f p (xs b)

/-- Reindexing commutes with batch evaluation: for any `σ : Fin B' → Fin B` (a permutation, a
selection of rows, a gather), evaluating the rows `xs (σ r)` gives the rows `σ r` of the evaluated
batch. -/
theorem evalBatch_reindex {s t : Shape} {B B' : Nat} (f : Arch s t) (p : Params α f)
    (xs : Fin B → Shape.denote α s) (σ : Fin B' → Fin B) :
    evalBatch f p (fun r => xs (σ r)) = fun r => evalBatch f p xs (σ r) :=
  rfl

/-- Copairing by dispatch: if the rows `ι r` of a batch of tagged inputs `xs` all carry the tag `j`,
then the evaluated rows `ι r` of `copair k f` (parameters `p`, one set per branch) are branch `j`
(parameters `p j`) applied to the untagged values of those rows alone: the per-tag step of
evaluating `copair` by dispatch ("for each tag `j`, gather its rows, run branch `j` on them, scatter
the results back"). -/
theorem copair_dispatch {s t : Shape} {k B m : Nat} (f : Arch s t) (p : Fin k → Params α f)
    (xs : Fin B → Shape.denote α (.coprod k s)) (j : Fin k) (ι : Fin m → Fin B)
    (h : ∀ r, Prod.fst (xs (ι r)) = j) :
    (fun r => evalBatch (Arch.copair k f) p xs (ι r)) =
      evalBatch f (p j) (fun r => Prod.snd (xs (ι r))) :=
  funext fun r =>
    show eval f (p (Prod.fst (xs (ι r)))) (Prod.snd (xs (ι r))) =
        eval f (p j) (Prod.snd (xs (ι r))) from
      congrArg (fun c => eval f (p c) (Prod.snd (xs (ι r)))) (h r)

end Formal.Arch
