import Formal.Category.ChosenProducts
import Formal.Gap.FullyFaithful
import Formal.Attention.Witness

/-!
# The locally-affine category, and VM.C3 refuted in it

Villani & McBurney (arXiv 2403.18415v2, §4, claim C3) place the transformer in a topos completion
of a category of piecewise-linear maps. `Formal/Gap/FullyFaithful.lean` refutes this for `PLCat`,
whose maps are the continuous maps of the PL fragment. The paper's pretopos (as VM.C1 reads it) is
larger: semilinear sets with possibly discontinuous maps. This file takes a category that contains
all of those maps between Euclidean spaces and repeats the argument there.

* `lineV x v t`: the line `t ↦ x + v * t` in `αⁿ`, coordinatewise.
* `LineAffine f`: for every line `(x, v)` in `αᵐ` and every output coordinate `j`, the function
  `t ↦ f (x + v t) j` is `LocallyAffine` (every nondegenerate interval has a nondegenerate
  subinterval on which it is affine; `Formal/PL/OneDim.lean`).
* `LACat`: objects are dimensions `n : Nat` (standing for `αⁿ`), morphisms `αᵐ → αⁿ` are the
  `LineAffine` maps. Closure under composition is `LineAffine.comp`: on a subinterval where all
  coordinates of `f` along the line are affine at once (`common_affine`, finitely many coordinates),
  `t ↦ f (x + v t)` is the line `t ↦ C + K t` (constant when `K = 0`), along which `g` is locally
  affine.
* Every PL-fragment map of `PLCat` is `LineAffine` (`lineAffine_of_plHom`).
* `αᵃ⁺ᵇ` with the two coordinate projections `laFst`, `laSnd` is a product of `αᵃ` and `αᵇ` in
  `LACat` (`laProdIsProduct`; the pairing is concatenation, `laLift`).

**It contains every semilinear map, continuous or not (argument, not formalised).** The restriction
of a semilinear map `f : αᵐ → αⁿ` to a line, in one output coordinate, is a function `α → α` whose
graph is a finite Boolean combination of half-planes and lines of `α²`; the finitely many boundary
lines cut `α` into finitely many points and open intervals, and on each such interval the graph is
(a subset of) one line, so the function is affine there: it is `PL1` (`Formal/PL/Breakpoints.lean`),
hence `LocallyAffine`. Nothing here needs continuity, so discontinuous semilinear maps are included.
`Formal/Gap/Hypotheses.lean` defines semilinear maps concretely; the implication from that definition
to `LineAffine` is not proved in Lean.

**VM.C3 in this category.** Let `F : LACat ⥤ D` be fully faithful and preserve binary products:
`D` has chosen products `K`, and the comparison `F(αᵃ⁺ᵇ) ⟶ F(αᵃ) × F(αᵇ)`, paired from the images of
the two product projections of `LACat`, has an inverse (`PreservesBinaryProducts`). A morphism `g : F(αᵐ) ⟶ F(αⁿ)`
*computes* `h : αᵐ → αⁿ` when the unique preimage of `g` under `F` has underlying function `h`
(`Computes`); a morphism `g : F(αᵃ) × F(αᵇ) ⟶ F(αⁿ)` computes `h : αᵃ⁺ᵇ → αⁿ` when the comparison
followed by `g` does (`ComputesOnProduct`).

* `no_morphism_computes`: if `h` is not locally affine along some line in some coordinate
  (`LineWitness h`), no morphism `F(αᵐ) ⟶ F(αⁿ)` computes `h`.
* `no_product_morphism_computes`: the same for morphisms `F(αᵃ) × F(αᵇ) ⟶ F(αⁿ)`; with
  `product_morphism_is_image`, every such morphism is `inv ≫ F.map f` for exactly one morphism `f`
  of `LACat`, and `f` is not `h`. (Only the inverse of the comparison is used, so the results hold
  for every fully faithful functor preserving binary products; a finite-product-preserving one is a
  special case.)
* Instances: linear attention `linearAttention 1 1 1` with the weights `linParams` of
  `Formal/Attention/Witness.lean` (`linearAttention_lineWitness`, `no_morphism_computes_linearAttention`)
  and the product atom `(x₀, x₁) ↦ x₀ x₁` (`mul_lineWitness`, `no_morphism_computes_mul`,
  `no_product_morphism_computes_mul` for `F(α¹) × F(α¹) ⟶ F(α¹)`). Softmax attention is added by
  instantiating `no_morphism_computes` with a `LineWitness` for it.
-/

namespace Formal.Gap

open Formal.CategoryTheory
open Formal.PL
open Formal.Attention

universe u v₂ u₂

/-- Objects of the locally-affine category: a dimension `n`, standing for `αⁿ`. -/
structure LAObj (α : Type u) where
  /-- The dimension. -/
  dim : Nat

section Defs

variable {α : Type u} [Scalar α]

/-- The line `t ↦ x + v * t` in `αⁿ`, coordinatewise. -/
def lineV {n : Nat} (x v : Fin n → α) (t : α) : Fin n → α := fun i => x i + v i * t

/-- `f` is locally affine along every line in every output coordinate: for all `x, v : αᵐ` and
`j < n`, `t ↦ f (x + v t) j` is `LocallyAffine`. -/
def LineAffine {m n : Nat} (f : (Fin m → α) → (Fin n → α)) : Prop :=
  ∀ (x v : Fin m → α) (j : Fin n), LocallyAffine (fun t => f (lineV x v t) j)

/-- `h` is not locally affine along some line in some output coordinate. -/
def LineWitness {m n : Nat} (h : (Fin m → α) → (Fin n → α)) : Prop :=
  ∃ (x v : Fin m → α) (j : Fin n), ¬ LocallyAffine (fun t => h (lineV x v t) j)

/-- A map with a line witness is not `LineAffine`. -/
theorem not_lineAffine_of_witness {m n : Nat} {h : (Fin m → α) → (Fin n → α)}
    (w : LineWitness h) : ¬ LineAffine h :=
  fun hla => Exists.elim w (fun x hx => Exists.elim hx (fun v hv =>
    Exists.elim hv (fun j hj => hj (hla x v j))))

variable (α) in
/-- Morphisms `αᵐ → αⁿ` of the locally-affine category: the `LineAffine` maps. -/
def LAHom (m n : Nat) : Type u :=
  { f : (Fin m → α) → (Fin n → α) // LineAffine f }

/-- Extensionality: morphisms with the same underlying function are equal. -/
theorem LAHom.ext {m n : Nat} (f g : LAHom α m n) (h : Subtype.val f = Subtype.val g) : f = g := by
  cases f with
  | mk fv fp =>
    cases g with
    | mk gv gp =>
      have e : fv = gv := h
      subst e
      rfl

/-- The projection `αᵃ⁺ᵇ → αᵃ` onto the first `a` coordinates. -/
def projFst (a b : Nat) (x : Fin (a + b) → α) : Fin a → α := fun i => x (Fin.castAdd b i)

/-- The projection `αᵃ⁺ᵇ → αᵇ` onto the last `b` coordinates. -/
def projSnd (a b : Nat) (x : Fin (a + b) → α) : Fin b → α := fun j => x (Fin.natAdd a j)

/-- The product atom `(x₀, x₁) ↦ x₀ x₁` as a map `α² → α¹`. -/
def mulMap (x : Fin 2 → α) : Fin 1 → α :=
  fun _ => x ⟨0, Nat.succ_pos 1⟩ * x ⟨1, Nat.lt_succ_self 1⟩

/-- Linear attention `linearAttention 1 1 1` with the weights `linParams` (`Q = K = x`, `V = 1`),
as a map `α¹ → α¹`. -/
def linearAttentionMap [Transcendental α] (x : Fin 1 → α) : Fin 1 → α :=
  fun _ => out11 (Arch.eval (linearAttention 1 1 1) linParams (mat11 (x ⟨0, Nat.succ_pos 0⟩)))

end Defs

section Laws

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]

/-- An affine piece restricts to every subinterval. -/
theorem affineOn_sub {f : α → α} {a' b' a b : α} (hs : SubInterval a' b' a b)
    (h : AffineOn f a b) : AffineOn f a' b' :=
  Exists.elim h (fun k hk => Exists.elim hk (fun c hc =>
    ⟨k, c, fun x h1 h2 => hc x (And.left (And.right hs x h1 h2)) (And.right (And.right hs x h1 h2))⟩))

/-- The first `k` of finitely many locally affine functions are affine at once on a subinterval of
any nondegenerate interval (induction on `k`, nesting the subintervals). -/
theorem common_affine_upto {n : Nat} (u : Fin n → α → α) (hu : ∀ i : Fin n, LocallyAffine (u i))
    {a b : α} (hab : a < b) :
    (k : Nat) → ∃ a' b' : α, SubInterval a' b' a b ∧ ∀ i : Fin n, i.val < k → AffineOn (u i) a' b'
  | 0 => ⟨a, b, SubInterval.refl hab, fun i hi => absurd hi (Nat.not_lt_zero i.val)⟩
  | k + 1 => by
    obtain ⟨a1, b1, hs1, h1⟩ := common_affine_upto u hu hab k
    rcases Classical.em (k < n) with hk | hk
    · obtain ⟨a2, b2, hs2, h2⟩ := hu ⟨k, hk⟩ a1 b1 (And.left hs1)
      refine ⟨a2, b2, SubInterval.trans hs2 hs1, fun i hi => ?_⟩
      rcases Nat.eq_or_lt_of_le (Nat.le_of_lt_succ hi) with e | e
      · have hi' : i = ⟨k, hk⟩ := Fin.eq_of_val_eq e
        rw [hi']
        exact h2
      · exact affineOn_sub hs2 (h1 i e)
    · refine ⟨a1, b1, hs1, fun i hi => ?_⟩
      rcases Nat.eq_or_lt_of_le (Nat.le_of_lt_succ hi) with e | e
      · have hkn : k < n := Eq.subst (motive := fun z => z < n) e i.isLt
        exact absurd hkn hk
      · exact h1 i e

/-- Finitely many locally affine functions are affine at once on a subinterval of any
nondegenerate interval. -/
theorem common_affine {n : Nat} (u : Fin n → α → α) (hu : ∀ i : Fin n, LocallyAffine (u i))
    {a b : α} (hab : a < b) :
    ∃ a' b' : α, SubInterval a' b' a b ∧ ∀ i : Fin n, AffineOn (u i) a' b' :=
  match common_affine_upto u hu hab n with
  | ⟨a', b', hs, h⟩ => ⟨a', b', hs, fun i => h i i.isLt⟩

/-- Coordinatewise affine pieces assemble into a vector of slopes `K` and offsets `C`. -/
theorem affine_vec {n : Nat} {u : Fin n → α → α} {a b : α} (h : ∀ i : Fin n, AffineOn (u i) a b) :
    ∃ K C : Fin n → α, ∀ (i : Fin n) (t : α), a < t → t < b → u i t = K i * t + C i :=
  ⟨fun i => Classical.choose (h i), fun i => Classical.choose (Classical.choose_spec (h i)),
    fun i => Classical.choose_spec (Classical.choose_spec (h i))⟩

/-- Each coordinate of a line is locally affine. -/
theorem la_lineV {n : Nat} (x v : Fin n → α) (i : Fin n) : LocallyAffine (fun t => lineV x v t i) :=
  la_add (la_const (x i)) (la_scale (v i) la_ident)

/-- The identity is `LineAffine`. -/
theorem lineAffine_id (n : Nat) : LineAffine (fun x : Fin n → α => x) :=
  fun x v j => la_lineV x v j

/-- **Closure under composition.** On a subinterval where every coordinate of `f` along the line is
affine, `f` maps the line to the line `C + K t`, along which `g` is locally affine. -/
theorem LineAffine.comp {l m n : Nat} {f : (Fin l → α) → (Fin m → α)}
    {g : (Fin m → α) → (Fin n → α)} (hf : LineAffine f) (hg : LineAffine g) :
    LineAffine (fun x => g (f x)) := by
  intro x v j a b hab
  obtain ⟨a1, b1, hs1, h1⟩ := common_affine (fun i t => f (lineV x v t) i) (fun i => hf x v i) hab
  obtain ⟨K, C, hKC⟩ := affine_vec h1
  obtain ⟨a2, b2, hs2, k, c, h2⟩ := hg C K j a1 b1 (And.left hs1)
  refine ⟨a2, b2, SubInterval.trans hs2 hs1, k, c, fun t ht1 ht2 => ?_⟩
  have hin : a1 < t ∧ t < b1 := And.right hs2 t ht1 ht2
  have hline : f (lineV x v t) = lineV C K t :=
    funext (fun i => (hKC i t (And.left hin) (And.right hin)).trans
      (OrderedFieldLaws.add_comm (K i * t) (C i)))
  show g (f (lineV x v t)) j = k * t + c
  rw [hline]
  exact h2 t ht1 ht2

/-- The identity morphism. -/
def LAHom.ident (n : Nat) : LAHom α n n :=
  Subtype.mk (fun x => x) (lineAffine_id n)

/-- The composite morphism, first `f` then `g`. -/
def LAHom.comp {l m n : Nat} (f : LAHom α l m) (g : LAHom α m n) : LAHom α l n :=
  Subtype.mk (fun x => Subtype.val g (Subtype.val f x))
    (LineAffine.comp (Subtype.property f) (Subtype.property g))

variable (α) in
/-- **The locally-affine category** `LACat`: objects `αⁿ`, morphisms the `LineAffine` maps. -/
instance laCategory : Category.{u} (LAObj α) where
  Hom X Y := LAHom α X.dim Y.dim
  id X := LAHom.ident X.dim
  comp f g := LAHom.comp f g
  id_comp f := LAHom.ext _ _ rfl
  comp_id f := LAHom.ext _ _ rfl
  assoc f g h := LAHom.ext _ _ rfl

/-- The first projection is `LineAffine`. -/
theorem lineAffine_projFst (a b : Nat) : LineAffine (projFst (α := α) a b) :=
  fun x v i => la_lineV x v (Fin.castAdd b i)

/-- The second projection is `LineAffine`. -/
theorem lineAffine_projSnd (a b : Nat) : LineAffine (projSnd (α := α) a b) :=
  fun x v j => la_lineV x v (Fin.natAdd a j)

/-- The first projection `αᵃ⁺ᵇ ⟶ αᵃ` as a morphism. -/
def laFst (a b : Nat) : Category.Hom (LAObj.mk (α := α) (a + b)) (LAObj.mk a) :=
  (Subtype.mk (projFst a b) (lineAffine_projFst a b) : LAHom α (a + b) a)

/-- The second projection `αᵃ⁺ᵇ ⟶ αᵇ` as a morphism. -/
def laSnd (a b : Nat) : Category.Hom (LAObj.mk (α := α) (a + b)) (LAObj.mk b) :=
  (Subtype.mk (projSnd a b) (lineAffine_projSnd a b) : LAHom α (a + b) b)

/-! ## `αᵃ⁺ᵇ` is a product of `αᵃ` and `αᵇ` in `LACat` -/

/-- `a ≤ i < a + b` gives `i - a < b`. -/
theorem sub_lt_of_not_lt {a b i : Nat} (h : ¬ i < a) (hi : i < a + b) : i - a < b :=
  Nat.sub_lt_left_of_lt_add ((Nat.lt_or_ge i a).resolve_left h) hi

/-- `a + k < a` never holds. -/
theorem not_add_lt_self (a k : Nat) : ¬ a + k < a :=
  fun h => Nat.lt_irrefl a (Nat.lt_of_le_of_lt (Nat.le_add_right a k) h)

/-- Concatenation `(y, z) ↦ y ++ z : αᵃ⁺ᵇ` of `y : αᵃ` and `z : αᵇ`. -/
def concatV {a b : Nat} (y : Fin a → α) (z : Fin b → α) : Fin (a + b) → α := fun i =>
  if h : i.val < a then y ⟨i.val, h⟩ else z ⟨i.val - a, sub_lt_of_not_lt h i.isLt⟩

/-- The first `a` coordinates of a concatenation. -/
theorem concatV_castAdd {a b : Nat} (y : Fin a → α) (z : Fin b → α) (i : Fin a) :
    concatV y z (Fin.castAdd b i) = y i :=
  dif_pos i.isLt

/-- The last `b` coordinates of a concatenation. -/
theorem concatV_natAdd {a b : Nat} (y : Fin a → α) (z : Fin b → α) (j : Fin b) :
    concatV y z (Fin.natAdd a j) = z j := by
  have hn : ¬ (Fin.natAdd a j).val < a := not_add_lt_self a j.val
  have e1 : concatV y z (Fin.natAdd a j) =
      z ⟨(Fin.natAdd a j).val - a, sub_lt_of_not_lt hn (Fin.natAdd a j).isLt⟩ :=
    dif_neg hn
  have e2 : (⟨(Fin.natAdd a j).val - a, sub_lt_of_not_lt hn (Fin.natAdd a j).isLt⟩ : Fin b) = j :=
    Fin.eq_of_val_eq (@Nat.add_sub_cancel_left a j.val)
  exact e1.trans (congrArg z e2)

/-- A vector of `αᵃ⁺ᵇ` is the concatenation of its two blocks. -/
theorem concatV_unique {a b : Nat} (y : Fin a → α) (z : Fin b → α) (u : Fin (a + b) → α)
    (hy : ∀ i : Fin a, u (Fin.castAdd b i) = y i) (hz : ∀ j : Fin b, u (Fin.natAdd a j) = z j) :
    u = concatV y z := by
  apply funext
  intro i
  rcases Nat.lt_or_ge i.val a with h | h
  · have e : i = Fin.castAdd b ⟨i.val, h⟩ := Fin.eq_of_val_eq rfl
    have d : concatV y z i = y ⟨i.val, h⟩ := dif_pos h
    exact (congrArg u e).trans ((hy ⟨i.val, h⟩).trans d.symm)
  · have hn : ¬ i.val < a := fun h' => Nat.lt_irrefl a (Nat.lt_of_le_of_lt h h')
    obtain ⟨k, hk⟩ := Nat.le.dest h
    have hsub : i.val - a = k := by
      rw [← hk]
      exact @Nat.add_sub_cancel_left a k
    have hval : i.val = a + (i.val - a) := by
      rw [hsub]
      exact hk.symm
    have e : i = Fin.natAdd a ⟨i.val - a, sub_lt_of_not_lt hn i.isLt⟩ := Fin.eq_of_val_eq hval
    have d : concatV y z i = z ⟨i.val - a, sub_lt_of_not_lt hn i.isLt⟩ := dif_neg hn
    exact (congrArg u e).trans ((hz ⟨i.val - a, sub_lt_of_not_lt hn i.isLt⟩).trans d.symm)

/-- The pairing of two `LineAffine` maps is `LineAffine`: each output coordinate is a coordinate
of one of them. -/
theorem lineAffine_concat {w a b : Nat} {f : (Fin w → α) → (Fin a → α)}
    {g : (Fin w → α) → (Fin b → α)} (hf : LineAffine f) (hg : LineAffine g) :
    LineAffine (fun x => concatV (f x) (g x)) := by
  intro x v i
  rcases Classical.em (i.val < a) with h | h
  · have e : (fun t => concatV (f (lineV x v t)) (g (lineV x v t)) i) =
        (fun t => f (lineV x v t) ⟨i.val, h⟩) :=
      funext (fun t => dif_pos h)
    exact Eq.subst (motive := fun k => LocallyAffine k) e.symm (hf x v ⟨i.val, h⟩)
  · have e : (fun t => concatV (f (lineV x v t)) (g (lineV x v t)) i) =
        (fun t => g (lineV x v t) ⟨i.val - a, sub_lt_of_not_lt h i.isLt⟩) :=
      funext (fun t => dif_neg h)
    exact Eq.subst (motive := fun k => LocallyAffine k) e.symm
      (hg x v ⟨i.val - a, sub_lt_of_not_lt h i.isLt⟩)

/-- The pairing `⟨f, g⟩ : αʷ ⟶ αᵃ⁺ᵇ` of two morphisms. -/
def laLift {w a b : Nat} (f : LAHom α w a) (g : LAHom α w b) : LAHom α w (a + b) :=
  Subtype.mk (fun x => concatV (Subtype.val f x) (Subtype.val g x))
    (lineAffine_concat (Subtype.property f) (Subtype.property g))

/-- **`αᵃ⁺ᵇ` with `laFst`, `laSnd` is a product of `αᵃ` and `αᵇ` in `LACat`**: the pairing is
`laLift` (concatenation), and a map into `αᵃ⁺ᵇ` is determined by its two blocks. So the
comparison `prodCmp` below is the canonical one. -/
def laProdIsProduct (a b : Nat) : IsBinaryProduct (laFst (α := α) a b) (laSnd a b) where
  lift f g := laLift f g
  lift_fst f g := LAHom.ext _ _ (funext (fun x => funext (fun i =>
    concatV_castAdd (Subtype.val f x) (Subtype.val g x) i)))
  lift_snd f g := LAHom.ext _ _ (funext (fun x => funext (fun j =>
    concatV_natAdd (Subtype.val f x) (Subtype.val g x) j)))
  uniq f g m hf hg := LAHom.ext _ _ (funext (fun x =>
    concatV_unique (Subtype.val f x) (Subtype.val g x) (Subtype.val m x)
      (fun i => congrFun (congrFun (congrArg Subtype.val hf) x) i)
      (fun j => congrFun (congrFun (congrArg Subtype.val hg) x) j)))

/-! ## PL maps are locally-affine maps -/

variable [Transcendental α]

/-- Every map denoted by a PL-fragment term `αᵐ → αⁿ` is `LineAffine` (by `pl_on_lines`; the
line `lineS` of `Formal/PL/Fragment.lean` on `.tensor [m]` is `lineV` by unfolding). -/
theorem lineAffine_of_isPL {m n : Nat} (a : Arch (.tensor [m]) (.tensor [n])) (ha : IsPL a)
    (p : Arch.Params α a) : LineAffine (fun x : Fin m → α => (Arch.eval a p x : Fin n → α)) :=
  fun x v j => pl_on_lines a ha p x v j

/-- Every morphism of `PLCat` (`Formal/Gap/FullyFaithful.lean`) has a `LineAffine` underlying map. -/
theorem lineAffine_of_plHom {m n : Nat} (f : PLHom α m n) : LineAffine (Subtype.val f) :=
  Exists.elim (Subtype.property f) (fun a ha => Exists.elim ha (fun p hp =>
    Eq.subst (motive := fun g => LineAffine g)
      (funext (And.right hp) : (fun x : Fin m → α => (Arch.eval a p x : Fin n → α)) = Subtype.val f)
      (lineAffine_of_isPL a (And.left hp) p)))

end Laws

/-! ## Fully faithful, product-preserving functors out of `LACat` -/

section Functors

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]
variable {D : Type u₂} [Category.{v₂} D]

/-- The product comparison `F(αᵃ⁺ᵇ) ⟶ F(αᵃ) × F(αᵇ)`: the pairing of the images of the two
projections, into the chosen product `K`. -/
def prodCmp (F : CategoryTheory.Functor (LAObj α) D) (K : ChosenProducts D) (a b : Nat) :
    Category.Hom (F.obj (LAObj.mk (a + b))) (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt :=
  K.lift (F.map (laFst a b)) (F.map (laSnd a b))

/-- `F` preserves binary products (of the chosen products `K` of `D`): for the product
`αᵃ⁺ᵇ` of `αᵃ` and `αᵇ` in `LACat` (`laProdIsProduct`), every comparison `prodCmp F K a b` has a
two-sided inverse `inv a b`. -/
structure PreservesBinaryProducts (F : CategoryTheory.Functor (LAObj α) D) (K : ChosenProducts D) where
  /-- The inverse of the comparison. -/
  inv : (a b : Nat) →
    Category.Hom (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt (F.obj (LAObj.mk (a + b)))
  /-- Comparison, then inverse, is the identity. -/
  hom_inv_id : ∀ a b : Nat, prodCmp F K a b ≫ inv a b = 𝟙 (F.obj (LAObj.mk (a + b)))
  /-- Inverse, then comparison, is the identity. -/
  inv_hom_id : ∀ a b : Nat,
    inv a b ≫ prodCmp F K a b = 𝟙 (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt

/-- `g : F(αᵐ) ⟶ F(αⁿ)` computes `h : αᵐ → αⁿ`: the unique preimage of `g` under the fully
faithful `F` has underlying function `h`. -/
def Computes {F : CategoryTheory.Functor (LAObj α) D} (hF : CategoryTheory.Functor.FullyFaithful F)
    {m n : Nat} (g : Category.Hom (F.obj (LAObj.mk m)) (F.obj (LAObj.mk n)))
    (h : (Fin m → α) → (Fin n → α)) : Prop :=
  Subtype.val (hF.preimage g) = h

/-- `g : F(αᵃ) × F(αᵇ) ⟶ F(αⁿ)` computes `h : αᵃ⁺ᵇ → αⁿ`: the product comparison followed by `g`
computes `h`. -/
def ComputesOnProduct {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) (K : ChosenProducts D) {a b n : Nat}
    (g : Category.Hom (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt (F.obj (LAObj.mk n)))
    (h : (Fin (a + b) → α) → (Fin n → α)) : Prop :=
  Computes hF (prodCmp F K a b ≫ g) h

/-- **VM.C3 (refutation, general form).** Under a fully faithful `F` out of `LACat`, no morphism
`F(αᵐ) ⟶ F(αⁿ)` computes a map `h` that is not locally affine along some line in some coordinate. -/
theorem no_morphism_computes {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) {m n : Nat} {h : (Fin m → α) → (Fin n → α)}
    (w : LineWitness h) (g : Category.Hom (F.obj (LAObj.mk m)) (F.obj (LAObj.mk n))) :
    ¬ Computes hF g h :=
  fun e => not_lineAffine_of_witness w
    (Eq.subst (motive := fun k => LineAffine k) e (Subtype.property (hF.preimage g)))

/-- **VM.C3 (refutation, on products).** Under a fully faithful `F` out of `LACat`, no morphism
`F(αᵃ) × F(αᵇ) ⟶ F(αⁿ)` computes a map `h : αᵃ⁺ᵇ → αⁿ` with a line witness. -/
theorem no_product_morphism_computes {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) (K : ChosenProducts D) {a b n : Nat}
    {h : (Fin (a + b) → α) → (Fin n → α)} (w : LineWitness h)
    (g : Category.Hom (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt (F.obj (LAObj.mk n))) :
    ¬ ComputesOnProduct hF K g h :=
  no_morphism_computes hF w (prodCmp F K a b ≫ g)

/-- **VM.C3 (the completion adds no maps on products).** If `F` is fully faithful and preserves
binary products, every morphism `g : F(αᵃ) × F(αᵇ) ⟶ F(αⁿ)` is `inv ≫ F.map f` for exactly one
morphism `f : αᵃ⁺ᵇ ⟶ αⁿ` of `LACat`, and the underlying map of `f` is not `h`, for any `h` with a
line witness. -/
theorem product_morphism_is_image {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) (K : ChosenProducts D)
    (P : PreservesBinaryProducts F K) {a b n : Nat} {h : (Fin (a + b) → α) → (Fin n → α)}
    (w : LineWitness h)
    (g : Category.Hom (K.prod (F.obj (LAObj.mk a)) (F.obj (LAObj.mk b))).pt (F.obj (LAObj.mk n))) :
    ∃ f : Category.Hom (LAObj.mk (α := α) (a + b)) (LAObj.mk n),
      P.inv a b ≫ F.map f = g ∧
        (∀ f' : Category.Hom (LAObj.mk (α := α) (a + b)) (LAObj.mk n),
          P.inv a b ≫ F.map f' = g → f' = f) ∧
        Subtype.val f ≠ h :=
  Exists.elim (ff_no_new_maps F hF (prodCmp F K a b ≫ g)) (fun f hf =>
    ⟨f,
      (comp_congr_left (P.inv a b) (And.left hf)).trans
        ((Category.assoc (P.inv a b) (prodCmp F K a b) g).symm.trans
          ((comp_congr_right (P.inv_hom_id a b) g).trans (Category.id_comp g))),
      fun f' hf' => And.right hf f'
        ((Category.id_comp (F.map f')).symm.trans
          ((comp_congr_right (P.hom_inv_id a b).symm (F.map f')).trans
            ((Category.assoc (prodCmp F K a b) (P.inv a b) (F.map f')).trans
              (comp_congr_left (prodCmp F K a b) hf')))),
      fun e => not_lineAffine_of_witness w
        (Eq.subst (motive := fun k => LineAffine k) e (Subtype.property f))⟩)

end Functors

/-! ## Instances: linear attention and the product atom -/

section Instances

variable {α : Type u} [Scalar α] [OrderedFieldLaws α]
variable {D : Type u₂} [Category.{v₂} D]

/-- Along the line through `0` with direction `(1, …, 1)`, every coordinate is `t`. -/
theorem lineV_zero_one {n : Nat} (i : Fin n) (t : α) :
    lineV (fun _ => (Scalar.zero : α)) (fun _ => (Scalar.one : α)) t i = t := by
  show (Scalar.zero : α) + (Scalar.one : α) * t = t
  rw [OrderedFieldLaws.one_mul t, OrderedFieldLaws.zero_add t]

/-- A map that is not locally affine along the diagonal `t ↦ (t, …, t)` in coordinate `j` has a
line witness (the line through `0` with direction `(1, …, 1)`). -/
theorem witness_of_diag {m n : Nat} (h : (Fin m → α) → (Fin n → α)) (j : Fin n)
    (hd : ¬ LocallyAffine (fun t => h (fun _ => t) j)) : LineWitness h := by
  refine ⟨fun _ => Scalar.zero, fun _ => Scalar.one, j, fun hla => hd ?_⟩
  have e : (fun t : α => h (lineV (fun _ => (Scalar.zero : α)) (fun _ => (Scalar.one : α)) t) j) =
      (fun t : α => h (fun _ => t) j) :=
    funext (fun t => congrArg (fun y => h y j) (funext (fun i => lineV_zero_one i t)))
  exact Eq.subst (motive := fun k => LocallyAffine k) e hla

/-- The product atom is not locally affine along the diagonal (`sq_not_pl`). -/
theorem mul_lineWitness : LineWitness (mulMap (α := α)) :=
  witness_of_diag mulMap ⟨0, Nat.succ_pos 0⟩ sq_not_pl

/-- **VM.C3 (the product atom).** Under a fully faithful `F` out of `LACat`, no morphism
`F(α²) ⟶ F(α¹)` computes the product `(x₀, x₁) ↦ x₀ x₁`. -/
theorem no_morphism_computes_mul {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F)
    (g : Category.Hom (F.obj (LAObj.mk 2)) (F.obj (LAObj.mk 1))) :
    ¬ Computes hF g mulMap :=
  no_morphism_computes hF mul_lineWitness g

/-- **VM.C3 (the product atom, on a product).** Under a fully faithful `F` out of `LACat`, no
morphism `F(α¹) × F(α¹) ⟶ F(α¹)` computes the product `(x₀, x₁) ↦ x₀ x₁` via the product
comparison. -/
theorem no_product_morphism_computes_mul {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F) (K : ChosenProducts D)
    (g : Category.Hom (K.prod (F.obj (LAObj.mk 1)) (F.obj (LAObj.mk 1))).pt (F.obj (LAObj.mk 1))) :
    ¬ ComputesOnProduct hF K g (mulMap : (Fin (1 + 1) → α) → (Fin 1 → α)) :=
  no_product_morphism_computes (a := 1) (b := 1) hF K mul_lineWitness g

variable [Transcendental α]

/-- Linear attention is not locally affine along the diagonal (`linearAttention_witness`). -/
theorem linearAttention_lineWitness : LineWitness (linearAttentionMap (α := α)) :=
  witness_of_diag linearAttentionMap ⟨0, Nat.succ_pos 0⟩ linearAttention_witness

/-- **VM.C3 (linear attention).** Under a fully faithful `F` out of `LACat`, no morphism
`F(α¹) ⟶ F(α¹)` computes linear attention. -/
theorem no_morphism_computes_linearAttention {F : CategoryTheory.Functor (LAObj α) D}
    (hF : CategoryTheory.Functor.FullyFaithful F)
    (g : Category.Hom (F.obj (LAObj.mk 1)) (F.obj (LAObj.mk 1))) :
    ¬ Computes hF g linearAttentionMap :=
  no_morphism_computes hF linearAttention_lineWitness g

end Instances

end Formal.Gap
