import Formal.Network.Arch
import Formal.Network.Laws
import Formal.Network.Derived
import Formal.Network.Rewrites
import Formal.Network.Batch
import Formal.Network.Stack
import Formal.Zoo.MLP
import Formal.Zoo.Attention
import Formal.Zoo.EncoderBlock
import Formal.Zoo.GLU
import Formal.Zoo.HyperLinear
import Formal.Zoo.MoE
import Formal.Category.LimitLemmas
import Formal.Category.TypesPretopos
import Formal.Category.TypesTopos
import Formal.Fam.Universal
import Formal.Para.ChooseEval
import Formal.Para.Cartesian
import Formal.Fam.Preserves
import Formal.Fam.Unique
import Formal.Site.Sieve
import Formal.Site.Presheaf
import Formal.Site.PresheafCategory
import Formal.Site.Omega
import Formal.Site.Fork
import Formal.Site.Residual
import Formal.Site.CopyNormal
import Formal.Site.Acyclic
import Formal.PL.Fragment
import Formal.PL.Rat
import Formal.PL.Softmax
import Formal.Attention.Witness
import Formal.Attention.ChooseEval
import Formal.Gap.FullyFaithful
import Formal.Gap.Hypotheses
import Formal.Gap.LineAffine
import Formal.Gap.SoftmaxC3
import Formal.PL.Breakpoints

/-!
# The claims ledger

Every statement of the two source papers that this library formalises has one entry here:
*Topos and Stacks of Deep Neural Networks* (Belfiore & Bennequin, arXiv 2106.14587, ids `BB.*`) and
*The Topos of Transformer Networks* (Villani & McBurney, arXiv 2403.18415v2, ids `VM.*`), plus the
project's own structural results (ids `TB.*`, "topos-bridge").

An entry names the paper, states the claim in words, gives its status, and lists the Lean declarations
that settle it. The declarations are written as double-backtick name literals (``` ``Formal.foo ```),
which Lean resolves when this file is elaborated: a ledger entry that names a missing declaration is a
build error, not a silent drift. The Python bridge (`pybridge claims`, `pybridge audit`, `TRUST.md`)
reads this file as text, so every entry keeps the exact layout of the ones below: one
`def <name> : Claim where` block with the five fields in order, each on its own line.
-/

namespace Formal.Claims

/-- How a claim stands in this library. -/
inductive Status where
  /-- Proved in Lean from the core axioms (`propext`, `funext`, `Quot.sound`, `Classical.choice`). -/
  | proved
  /-- Enters as an explicit, named hypothesis (a structure field or an argument). -/
  | assumed
  /-- Refuted as stated: the listed declarations give the counterexample. -/
  | refuted
  /-- Not formalised here; the statement says why. -/
  | outOfScope
  deriving Repr, DecidableEq

/-- One ledger entry. -/
structure Claim where
  /-- `VM.C3`, `BB.Prop1.1`, `TB.Arch.assoc`, ... -/
  id : String
  /-- The source: `VM` (Villani–McBurney), `BB` (Belfiore–Bennequin) or `TB` (this project). -/
  paper : String
  /-- The claim in words, as this library reads it. -/
  statement : String
  status : Status
  /-- The declarations that settle it (empty only for `outOfScope`). -/
  decls : List Lean.Name

/-! ## Layer syntax and the Zoo (`Formal/Network`, `Formal/Zoo`) -/

def tbArchAssoc : Claim where
  id := "TB.Arch.assoc"
  paper := "TB"
  statement := "Sequential composition of layers is associative for the semantics: ((f ≫ g) ≫ h) and (f ≫ (g ≫ h)) denote the same map, up to the canonical reparametrisation ((p, q), r) ↦ (p, (q, r))."
  status := .proved
  decls := [``Formal.Arch.eval_comp_assoc, ``Formal.Arch.eval_comp]

def tbArchUnit : Claim where
  id := "TB.Arch.unit"
  paper := "TB"
  statement := "The identity layer is a two-sided unit for composition in the semantics, up to dropping the trivial parameter."
  status := .proved
  decls := [``Formal.Arch.eval_id_comp, ``Formal.Arch.eval_comp_id]

def tbArchInterchange : Claim where
  id := "TB.Arch.interchange"
  paper := "TB"
  statement := "Parallel composition is functorial for the semantics, up to reparametrisation: it preserves identities (id ⊗ id denotes the identity of the product, the two trivial parameters dropped) and satisfies the interchange law ((f ⊗ g) ≫ (f' ⊗ g') and (f ≫ f') ⊗ (g ≫ g') denote the same map, up to regrouping the four weight sets)."
  status := .proved
  decls := [``Formal.Arch.eval_par_id, ``Formal.Arch.eval_par_comp]

def tbArchAttnCore : Claim where
  id := "TB.Arch.attnCore"
  paper := "TB"
  statement := "The attention core written with primitives, (attnWeights seq heads k ⊗ id) ≫ matmul [heads] seq seq [k] (per head softmax(Q Kᵀ/√k) V), denotes the same map as the fused primitive sdpa heads seq k false, at every value of its parameters (all trivial); likewise (attnWeightsCausal seq heads k ⊗ id) ≫ matmul [heads] seq seq [k] and sdpa heads seq k true. Over any Scalar and Transcendental operations, with no law assumed: Kernel.sdpa is built from the kernels that eval applies to the left-hand side, so both sides unfold to the same term."
  status := .proved
  decls := [``Formal.Arch.attnCore_eq_sdpa, ``Formal.Arch.attnCoreCausal_eq_sdpa, ``Formal.Kernel.sdpa]

def tbArchCongr : Claim where
  id := "TB.Arch.congr"
  paper := "TB"
  statement := "A rewrite may be applied inside a term: if f with parameters p and f' with parameters p' denote the same map, then so do f ≫ g and f' ≫ g, g ≫ f and g ≫ f', f ⊗ g and f' ⊗ g, and g ⊗ f and g ⊗ f', the parameters of g unchanged; copair k f with p and copair k f' with p' denote the same map when f with p j and f' with p' j do for every tag j. And f ≫ (g ≫ h) denotes the same map as (f ≫ g) ≫ h up to the reparametrisation (p, (q, r)) ↦ ((p, q), r)."
  status := .proved
  decls := [``Formal.Arch.eval_congr_comp_left, ``Formal.Arch.eval_congr_comp_right, ``Formal.Arch.eval_congr_par_left, ``Formal.Arch.eval_congr_par_right, ``Formal.Arch.eval_congr_copair, ``Formal.Arch.eval_comp_assoc_symm]

def tbArchDispatch : Claim where
  id := "TB.Arch.dispatch"
  paper := "TB"
  statement := "A layer acts on a batch row by row (evalBatch f p xs is fun b => eval f p (xs b)), and evaluating reindexed rows (fun r => xs (σ r), for any σ : Fin B' → Fin B: a permutation, a selection of rows) gives the evaluated rows σ r. On rows ι r of a batch of tagged inputs that all carry the tag j, copair k f with parameters p gives the same values as the branch f with parameters p j applied to the untagged values of those rows alone: the per-tag step of evaluating copair by dispatch (for each tag, gather its rows, run its branch on them alone, scatter the results back)."
  status := .proved
  decls := [``Formal.Arch.evalBatch, ``Formal.Arch.evalBatch_reindex, ``Formal.Arch.copair_dispatch]

def tbArchGluStacked : Claim where
  id := "TB.Arch.gluStacked"
  paper := "TB"
  statement := "The gated linear unit copy ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n] with value weights (W, b) and gate weights (W', b') gives, at every input and output entry, the value of glu (first half times the sigmoid of the second half, as torch.nn.functional.glu) on the affine map whose weight is the rows of W above the rows of W' and whose bias is b above b' (as torch.cat). Over any Scalar and Transcendental operations, with no law assumed: each entry of an affine map reads only its own weight row and bias entry."
  status := .proved
  decls := [``Formal.Kernel.stack, ``Formal.Kernel.glu, ``Formal.Kernel.affine_stack_castAdd, ``Formal.Kernel.affine_stack_natAdd, ``Formal.Kernel.glu_affine_stack, ``Formal.Arch.glu_stacked]

/-- The claims of the layer syntax and the Zoo. -/
def networkClaims : List Claim :=
  [tbArchAssoc, tbArchUnit, tbArchInterchange, tbArchAttnCore, tbArchCongr, tbArchDispatch,
    tbArchGluStacked]

/-! ## Categorical core (`Formal/Category`, `Formal/Fam`, `Formal/Para`) -/

-- LEDGER: category (entries, then `def categoryClaims : List Claim := [...]`)
def tbCatTypeTopos : Claim where
  id := "TB.Cat.TypeTopos"
  paper := "TB"
  statement := "Type u is an elementary topos: chosen finite limits, cartesian closed (exponential = function type, beta and eta by computation), and a subobject classifier Ω = ULift Prop with truth map fun _ => ULift.up True (Prop itself for u = 0, up to ULift)."
  status := .proved
  decls := [``Formal.CategoryTheory.Types.typeTopos, ``Formal.CategoryTheory.Types.typeCartesianClosed, ``Formal.CategoryTheory.Types.typeSubobjectClassifier, ``Formal.CategoryTheory.Types.typeFiniteLimits]

def tbCatTypePretopos : Claim where
  id := "TB.Cat.TypePretopos"
  paper := "TB"
  statement := "Type u is a pretopos, proved directly: extensive (sums are disjoint and stable under pullback) and exact (regular, with every internal equivalence relation effective as the kernel pair of its quotient)."
  status := .proved
  decls := [``Formal.CategoryTheory.Types.typePretopos, ``Formal.CategoryTheory.Types.typeExtensive, ``Formal.CategoryTheory.Types.typeRegular, ``Formal.CategoryTheory.Types.typeExact, ``Formal.CategoryTheory.Types.quot_exact]

def tbCatLimitsUnique : Claim where
  id := "TB.Cat.limitsUnique"
  paper := "TB"
  statement := "Limits are unique up to a unique isomorphism: any two terminal objects, initial objects, binary products, or pullbacks of the same cospan are isomorphic; for products and pullbacks the comparison isomorphism commutes with the two projections; and in all four cases the comparison map is the only morphism that commutes with the cone legs (for terminal and initial objects, whose cones are empty, the only morphism at all)."
  status := .proved
  decls := [``Formal.CategoryTheory.IsTerminal.uniqueUpToIso, ``Formal.CategoryTheory.IsInitial.uniqueUpToIso, ``Formal.CategoryTheory.IsBinaryProduct.uniqueUpToIso, ``Formal.CategoryTheory.IsPullback.uniqueUpToIso, ``Formal.CategoryTheory.IsBinaryProduct.uniqueUpToIso_hom_fst, ``Formal.CategoryTheory.IsBinaryProduct.uniqueUpToIso_hom_snd, ``Formal.CategoryTheory.IsPullback.uniqueUpToIso_hom_fst, ``Formal.CategoryTheory.IsPullback.uniqueUpToIso_hom_snd, ``Formal.CategoryTheory.IsTerminal.uniqueUpToIso_hom_unique, ``Formal.CategoryTheory.IsInitial.uniqueUpToIso_hom_unique, ``Formal.CategoryTheory.IsBinaryProduct.uniqueUpToIso_hom_unique, ``Formal.CategoryTheory.IsPullback.uniqueUpToIso_hom_unique]

def tbCatPullbackPasting : Claim where
  id := "TB.Cat.pullbackPasting"
  paper := "TB"
  statement := "Pullback pasting: if the right square and the left square are pullbacks, so is the outer rectangle."
  status := .proved
  decls := [``Formal.CategoryTheory.IsPullback.paste]

def tbCatMonoPullback : Claim where
  id := "TB.Cat.monoPullback"
  paper := "TB"
  statement := "Monomorphisms are stable under pullback."
  status := .proved
  decls := [``Formal.CategoryTheory.IsPullback.mono_snd]

def tbCatTranspose : Claim where
  id := "TB.Cat.transpose"
  paper := "TB"
  statement := "In a cartesian closed category the exponential transpose curry is a bijection between maps X × Y ⟶ Z and maps X ⟶ Z^Y, with inverse uncurry."
  status := .proved
  decls := [``Formal.CategoryTheory.CartesianClosed.uncurry_curry, ``Formal.CategoryTheory.CartesianClosed.curry_uncurry, ``Formal.CategoryTheory.CartesianClosed.curry_injective, ``Formal.CategoryTheory.CartesianClosed.curry_surjective]

def tbFamCategory : Claim where
  id := "TB.Fam.category"
  paper := "TB"
  statement := "Fam C (families indexed by Type w, morphisms = reindexing map + family of morphisms) is a category into which C embeds fully faithfully as the one-element families."
  status := .proved
  decls := [``Formal.CategoryTheory.Fam.category, ``Formal.CategoryTheory.Fam.embed, ``Formal.CategoryTheory.Fam.embedFullyFaithful]

def tbFamCoproducts : Claim where
  id := "TB.Fam.coproducts"
  paper := "TB"
  statement := "Fam C has all coproducts indexed by Type w, given by the dependent sum of the index types."
  status := .proved
  decls := [``Formal.CategoryTheory.Fam.sigmaIsCoproduct, ``Formal.CategoryTheory.Fam.famCoproducts]

def tbFamExtend : Claim where
  id := "TB.Fam.extend"
  paper := "TB"
  statement := "Given chosen Type w-indexed coproducts in D, every functor F : C ⥤ D extends to a functor Fam C ⥤ D, (I, X) ↦ ∐ F (X i), whose restriction along the embedding is naturally isomorphic to F."
  status := .proved
  decls := [``Formal.CategoryTheory.Fam.extend, ``Formal.CategoryTheory.Fam.extendEmbedIso]

def tbFamExtendPreserves : Claim where
  id := "TB.Fam.extendPreserves"
  paper := "TB"
  statement := "The extension extend K F : Fam C ⥤ D preserves coproducts: for A : J → Fam C (J : Type w) the images of the injections into the dependent sum form a coproduct cocone in D (IsCoproduct), and more generally the image of every Type w-indexed coproduct cocone of Fam C is a coproduct cocone in D (transported along the image of the comparison isomorphism)."
  status := .proved
  decls := [``Formal.CategoryTheory.Fam.extendSigmaIsCoproduct, ``Formal.CategoryTheory.Fam.extendIsCoproduct, ``Formal.CategoryTheory.Fam.sigmaExtendDesc, ``Formal.CategoryTheory.IsCoproduct.uniqueUpToIso, ``Formal.CategoryTheory.IsCoproduct.ofIso, ``Formal.CategoryTheory.Functor.mapIso]

def tbFamExtendUnique : Claim where
  id := "TB.Fam.extendUnique"
  paper := "TB"
  statement := "Uniqueness in the universal property of Fam C: every family A = (I, X) is the coproduct in Fam C of the one-element families embed (X i) (injections reindexing ⋆ ↦ i with identity components); if G : Fam C ⥤ D sends each such decomposition to a coproduct cocone in D (PreservesDecomposition, implied by PreservesCoproducts: the image of every Type w-indexed coproduct cocone is a coproduct cocone; extend K F satisfies it) and embed ⋙ G ≅ F, then G ≅ extend K F as functors (a natural isomorphism, whose component at A compares the two coproducts summand by summand)."
  status := .proved
  decls := [``Formal.CategoryTheory.Fam.extendUnique, ``Formal.CategoryTheory.Fam.extendUniqueOfDecomposition, ``Formal.CategoryTheory.Fam.extendUniqueIsoApp, ``Formal.CategoryTheory.Fam.extendUniqueIsoApp_naturality, ``Formal.CategoryTheory.Fam.embedIsCoproduct, ``Formal.CategoryTheory.Fam.embedι, ``Formal.CategoryTheory.Fam.PreservesDecomposition, ``Formal.CategoryTheory.Fam.PreservesCoproducts, ``Formal.CategoryTheory.Fam.PreservesCoproducts.toPreservesDecomposition, ``Formal.CategoryTheory.Fam.extendPreservesCoproducts, ``Formal.CategoryTheory.IsCoproduct.isoOfComponents, ``Formal.CategoryTheory.NatIso.ofComponents]

def tbParaAssoc : Claim where
  id := "TB.Para.assoc"
  paper := "TB"
  statement := "Composition of parametrised maps P × X → Y in Type is associative up to the reparametrisation ((p, q), r) ↦ (p, (q, r)) (an isomorphism of parameter types transporting the maps)."
  status := .proved
  decls := [``Formal.CategoryTheory.Para.assocReparam, ``Formal.CategoryTheory.Para.comp_map_assoc]

def tbParaUnit : Claim where
  id := "TB.Para.unit"
  paper := "TB"
  statement := "The identity parametrised map (parameter PUnit) is a two-sided unit in Type up to the reparametrisations (⋆, p) ↦ p and (p, ⋆) ↦ p."
  status := .proved
  decls := [``Formal.CategoryTheory.Para.leftUnitReparam, ``Formal.CategoryTheory.Para.rightUnitReparam, ``Formal.CategoryTheory.Para.id_comp_map, ``Formal.CategoryTheory.Para.comp_id_map]

def tbParaCartesian : Claim where
  id := "TB.Para.cartesian"
  paper := "TB"
  statement := "Para in an arbitrary category with chosen finite products (ChosenProducts: terminal object and a product of every pair): a parametrised map X ⟶ Y is P with P × X ⟶ Y; the identity has the terminal object as parameter; the composite of (P, f) and (Q, g) has parameter Q × P and map ((q, p), x) ↦ g (q, f (p, x)) (the convention of Cruttwell, Gavranović et al.). Associativity and unitality hold as equations up to reparametrisation (r × 𝟙) ≫ f along the canonical isomorphisms built from the product universal property: comp (comp f g) h = reparam (comp f (comp g h)) assocIso.hom, comp id f = reparam f rightUnitor.hom, comp f id = reparam f leftUnitor.hom; also as invertible reparametrisation 2-cells."
  status := .proved
  decls := [``Formal.CategoryTheory.ChosenProducts, ``Formal.CategoryTheory.CartPara, ``Formal.CategoryTheory.CartPara.comp, ``Formal.CategoryTheory.CartPara.id, ``Formal.CategoryTheory.CartPara.reparam, ``Formal.CategoryTheory.CartPara.comp_assoc, ``Formal.CategoryTheory.CartPara.id_comp, ``Formal.CategoryTheory.CartPara.comp_id, ``Formal.CategoryTheory.CartPara.assocReparam, ``Formal.CategoryTheory.CartPara.leftUnitReparam, ``Formal.CategoryTheory.CartPara.rightUnitReparam, ``Formal.CategoryTheory.ChosenProducts.assocIso, ``Formal.CategoryTheory.ChosenProducts.leftUnitor, ``Formal.CategoryTheory.ChosenProducts.rightUnitor, ``Formal.CategoryTheory.ChosenProducts.compMap_assoc]

def vmC3Factorisation : Claim where
  id := "VM.C3.factorisation"
  paper := "VM"
  statement := "A map with input-dependent parameters factors as choose : X → P × X followed by eval (attention = eval ∘ ⟨choose, id⟩): in Type for any parametrised map and parameter choice (withChoice_eq), and in any cartesian closed category as diag ≫ h = ⟨curry h, 𝟙⟩ ≫ eval (choose_eval). The chosen weights are unique once h is fixed: curry h is the only c : X ⟶ Y^X with uncurry c = h (choose_unique), and in Type any factorisation through choose c agrees with eval on the values of choose c (factor_unique). The factorisation of a given map is not unique: every f : X ⟶ Y factors as ⟨curry (snd ≫ f), 𝟙⟩ ≫ eval through its constant name (factors_through_name) and also as ⟨curry (fst ≫ f), 𝟙⟩ ≫ eval (factors_through_fst), and in Type the two chosen weights for the identity of Bool differ (name_ne_fst_in_types)."
  status := .proved
  decls := [``Formal.CategoryTheory.Para.withChoice_eq, ``Formal.CategoryTheory.Para.factor_unique, ``Formal.CategoryTheory.CartesianClosed.choose_eval, ``Formal.CategoryTheory.CartesianClosed.choose_unique, ``Formal.CategoryTheory.CartesianClosed.factors_through_name, ``Formal.CategoryTheory.CartesianClosed.factors_through_fst, ``Formal.Attention.name_ne_fst_in_types]

/-- The claims of the categorical core. -/
def categoryClaims : List Claim :=
  [tbCatTypeTopos, tbCatTypePretopos, tbCatLimitsUnique, tbCatPullbackPasting, tbCatMonoPullback,
    tbCatTranspose, tbFamCategory, tbFamCoproducts, tbFamExtend, tbFamExtendPreserves,
    tbFamExtendUnique, tbParaAssoc, tbParaUnit, tbParaCartesian, vmC3Factorisation]

/-! ## The transformer-topos claims (`Formal/PL`, `Formal/Attention`, `Formal/Gap`) -/

-- LEDGER: transformer (entries, then `def transformerClaims : List Claim := [...]`)
def vmC1 : Claim where
  id := "VM.C1"
  paper := "VM"
  statement := "CNN/RNN/GCN networks embed in a pretopos of piecewise-linear maps. The part proved here (no hypothesis), over any OrderedFieldLaws scalars: every term of the PL fragment (IsPL: id, comp, par, copy, fst, snd, add, scale, linear, relu, transpose, splitLast, mergeLast; not route/copair) is piecewise linear along every line in every coordinate with finitely many pieces, i.e. PL1: a finite list of breakpoints off which it is affine (pl1_on_lines, from pl1_closure), and so LocallyAffine (pl_on_lines). The pretopos is entry VM.C1.pretopos."
  status := .proved
  decls := [``Formal.PL.IsPL, ``Formal.PL.IsPL.preserves, ``Formal.PL.pl1_on_lines, ``Formal.PL.pl1_closure, ``Formal.PL.pl_on_lines, ``Formal.PL.locallyAffine_closure]

def vmC1pretopos : Claim where
  id := "VM.C1.pretopos"
  paper := "VM"
  statement := "The pretopos of VM.C1. Our reading (not formalised): semilinear sets with possibly discontinuous semilinear maps, since continuous PL maps on Euclidean spaces lack equalizers and coproducts. Not formalised: no theorem constructs a pretopos structure (finite limits, disjoint stable coproducts, effective quotients) on semilinear sets. The one related result rests on the named hypothesis DefinableChoice (entry TB.Hyp.DefinableChoice): every surjective semilinear map has a semilinear section (semilinear_surj_splits)."
  status := .outOfScope
  decls := []

def vmC2 : Claim where
  id := "VM.C2"
  paper := "VM"
  statement := "A transformer is not PL. Proved for the Zoo's softmax attention itself: Zoo.attention with seq = 2, d_model = 2, heads = 2 (head width 2/2 = 1), at explicit weights (attnParams: query weights 0 and bias 1, keys read feature 0, values read feature 1, other biases 0, output projection reads head 0) and along an explicit line (token 0 is (t, 1), token 1 is (0, 0)), has output coordinate (0, 0) equal to the logistic exp(c·t)/(exp(c·t) + 1) with c = 1/√1 (attention_line); this is not LocallyAffine (logistic_not_locallyAffine: exp(κt)/(exp(κt) + D) for any κ > 0, D > 0; attention_not_locallyAffine), so no PL-fragment term, whatever its weights, agrees with that coordinate along that line (attention_not_pl). These hold over any ordered field with an exponential: scalars with OrderedFieldLaws, ExpLaws (exp 0 = 1, exp(x + y) = exp x · exp y, exp x > 0, exp strictly increasing), SqrtLaws (sqrt x · sqrt x = x for x ≥ 0, and sqrt x ≥ 0 for every x) and NatCastLaws (ofNat 0 = 0, ofNat (n + 1) = ofNat n + 1) (not over ℚ: no ExpLaws instance is given for Rat). Also proved, for the bilinear atoms over any OrderedFieldLaws scalars (so over ℚ: core's Rat satisfies them, ratOrderedFieldLaws): t ↦ t² is affine on no nondegenerate interval, hence not LocallyAffine; no PL-fragment term denotes (x₀, x₁) ↦ x₀·x₁; explicit weights and lines along which hyperLinear, linear attention (no softmax) and the product atom of the GLU compute t ↦ t²."
  status := .proved
  decls := [``Formal.PL.ExpLaws, ``Formal.PL.SqrtLaws, ``Formal.PL.NatCastLaws, ``Formal.PL.logistic_not_locallyAffine, ``Formal.PL.attention_line, ``Formal.PL.attention_not_locallyAffine, ``Formal.PL.attention_not_pl, ``Formal.PL.sq_not_affineOn, ``Formal.PL.sq_not_pl, ``Formal.PL.mul_not_pl, ``Formal.Attention.mul_witness, ``Formal.Attention.mulVec_witness, ``Formal.Attention.glu_eq, ``Formal.Attention.hyperLinear_witness, ``Formal.Attention.linearAttention_witness, ``Formal.PL.ratOrderedFieldLaws]

def vmC2necessarily : Claim where
  id := "VM.C2.necessarily"
  paper := "VM"
  statement := "A transformer is necessarily not PL. Doubtful and not formalised: the witnesses are specific layers with specific weights; with zero weights in the bilinear branches the same layers compute PL maps."
  status := .outOfScope
  decls := []

def vmC3 : Claim where
  id := "VM.C3"
  paper := "VM"
  statement := "The transformer lives in the topos completion of the PL category, via attention = eval ∘ ⟨choose, id⟩. Refuted in the locally-affine category LACat, argued (not proved) to contain every map between Euclidean spaces of the paper's own category, over any OrderedFieldLaws scalars (the softmax instance also needs ExpLaws, SqrtLaws and NatCastLaws: an ordered field with an exponential and a square root). LACat has the objects αⁿ and as morphisms αᵐ → αⁿ all maps that are LocallyAffine along every line in every output coordinate (LineAffine); it is closed under composition (LineAffine.comp), αᵃ⁺ᵇ with its two coordinate projections is a product of αᵃ and αᵇ in it (laProdIsProduct), and it contains every PL-fragment map (lineAffine_of_plHom); that it contains every semilinear map, continuous or not, is argued in the docstring, not proved. For a fully faithful functor F out of LACat, a morphism g : F(αᵐ) ⟶ F(αⁿ) computes h : αᵐ → αⁿ when the unique preimage of g has underlying map h (Computes). No morphism computes a map h that is not LocallyAffine along some line in some coordinate (no_morphism_computes); none F(αᵃ) × F(αᵇ) ⟶ F(αⁿ) does after the product comparison (ComputesOnProduct, no_product_morphism_computes); and if F preserves binary products (the comparison F(αᵃ⁺ᵇ) ⟶ F(αᵃ) × F(αᵇ) has an inverse, PreservesBinaryProducts), every morphism F(αᵃ) × F(αᵇ) ⟶ F(αⁿ) is inv ≫ F.map f for exactly one morphism f of LACat, whose underlying map is not h (product_morphism_is_image). Instances: linear attention (no softmax) with the weights of linearAttention_witness as a map α¹ → α¹ (no_morphism_computes_linearAttention) and the product (x₀, x₁) ↦ x₀x₁ (no_morphism_computes_mul; on F(α¹) × F(α¹), no_product_morphism_computes_mul), and the Zoo's softmax attention Zoo.attention 2 2 (two heads, sequence length 2) at the weights attnParams of VM.C2, flattened row-major to a map α⁴ → α⁴ (softmaxAttentionMap = flatten22 ∘ eval ∘ unflatten22, with the index table written out case by case): unflattening the flat line through softmaxFlatBase with direction softmaxFlatDir gives the line of VM.C2 (unflatten22_line), so output coordinate 0 (token 0, feature 0) is not LocallyAffine along it (softmaxAttentionMap_line, softmaxAttention_not_locallyAffine, from attention_not_locallyAffine), a line witness (softmaxAttention_lineWitness), and no morphism F(α⁴) ⟶ F(α⁴) computes it (no_morphism_computes_softmaxAttention), nor any F(α²) × F(α²) ⟶ F(α⁴) after the product comparison (no_product_morphism_computes_softmaxAttention; by the definitions of flatIdx and projFst, the first factor holds token 0 and the second token 1). The factorisation separates nothing: it holds for the library's multi-head self-attention (attention_eq_eval_choose), in Type every map factors that way (every_map_factors_eval, mlp_factors_eval), and in any cartesian closed category every f factors as ⟨curry (snd ≫ f), 𝟙⟩ ≫ eval (factors_through_name). The earlier form, for the category PLCat of continuous PL-fragment maps: ff_no_new_maps, pl_completion_adds_no_maps, ff_completion_no_mul."
  status := .refuted
  decls := [``Formal.Gap.LineAffine, ``Formal.Gap.laCategory, ``Formal.Gap.LineAffine.comp, ``Formal.Gap.laProdIsProduct, ``Formal.Gap.lineAffine_of_plHom, ``Formal.Gap.Computes, ``Formal.Gap.ComputesOnProduct, ``Formal.Gap.PreservesBinaryProducts, ``Formal.Gap.no_morphism_computes, ``Formal.Gap.no_product_morphism_computes, ``Formal.Gap.product_morphism_is_image, ``Formal.Gap.linearAttention_lineWitness, ``Formal.Gap.no_morphism_computes_linearAttention, ``Formal.Gap.mul_lineWitness, ``Formal.Gap.no_morphism_computes_mul, ``Formal.Gap.no_product_morphism_computes_mul, ``Formal.Gap.softmaxAttentionMap, ``Formal.Gap.unflatten22_line, ``Formal.Gap.softmaxAttentionMap_line, ``Formal.Gap.softmaxAttention_not_locallyAffine, ``Formal.Gap.softmaxAttention_lineWitness, ``Formal.Gap.no_morphism_computes_softmaxAttention, ``Formal.Gap.no_product_morphism_computes_softmaxAttention, ``Formal.Attention.attention_eq_eval_choose, ``Formal.Attention.every_map_factors_eval, ``Formal.Attention.mlp_factors_eval, ``Formal.CategoryTheory.CartesianClosed.factors_through_name, ``Formal.Gap.ff_no_new_maps, ``Formal.Gap.pl_completion_adds_no_maps, ``Formal.Gap.ff_completion_no_mul]

def vmC4 : Claim where
  id := "VM.C4"
  paper := "VM"
  statement := "PL networks are first-order and transformers higher-order reasoners. Our reading, through the standard correspondence of pretoposes with coherent first-order logic and of elementary toposes with higher-order logic: transformers need the topos completion of the PL category, PL networks stay in the pretopos. Refuted in this reading, with VM.C3: under a fully faithful completion F of LACat, every PL-fragment map is a morphism of LACat (lineAffine_of_plHom), so PL networks are mapped into the same completion, and no morphism of the completion between images of Euclidean spaces computes linear attention, the product, or the Zoo's softmax attention at the weights of VM.C2 (no_morphism_computes_linearAttention, no_morphism_computes_mul, and, over an ordered field with an exponential and a square root, no_morphism_computes_softmaxAttention), so the higher-order structure adds no such map for transformers. The factorisation through eval ∘ ⟨choose, id⟩ holds for every map, PL networks included (every_map_factors_eval, mlp_factors_eval, factors_through_name). Not formalised: the logics themselves."
  status := .refuted
  decls := [``Formal.Gap.lineAffine_of_plHom, ``Formal.Gap.no_morphism_computes_linearAttention, ``Formal.Gap.no_morphism_computes_mul, ``Formal.Gap.no_morphism_computes_softmaxAttention, ``Formal.Attention.every_map_factors_eval, ``Formal.Attention.mlp_factors_eval, ``Formal.CategoryTheory.CartesianClosed.factors_through_name]

def hypDefinableChoice : Claim where
  id := "TB.Hyp.DefinableChoice"
  paper := "TB"
  statement := "O-minimal definable choice for semilinear relations over the scalars α (van den Dries, Tame Topology, Ch. 6, (1.2)), with semilinear defined concretely: R ⊆ αᵐ × αⁿ is semilinear when a finite Boolean combination of atoms a·x + c·y + b > 0 and a·x + c·y + b = 0 cuts it out (LinFormula, SemilinearRel), a map is semilinear when its graph is (SemilinearMap, no continuity asked). A named hypothesis, never asserted; taken as an explicit argument by semilinear_surj_splits, whose former hypothesis that converse graphs are semilinear is now a theorem (SemilinearRel.swap)."
  status := .assumed
  decls := [``Formal.Gap.DefinableChoice, ``Formal.Gap.LinFormula, ``Formal.Gap.LinFormula.holds, ``Formal.Gap.SemilinearRel, ``Formal.Gap.SemilinearMap, ``Formal.Gap.SemilinearRel.swap, ``Formal.Gap.semilinear_surj_splits]

def hypArora : Claim where
  id := "TB.Hyp.AroraReLU"
  paper := "TB"
  statement := "Every continuous PL map αᵐ → αⁿ is computed by a ReLU network (Arora, Basu, Mianjy, Mukherjee, ICLR 2018, Thm 2.1, proved there for ℝ), stated for the PL fragment with continuous PL defined concretely: ε-δ continuous in the max norm, written with the order of α (EpsDeltaContinuous), and given by finitely many affine pieces with semilinear domains (PiecewiseAffine); ContinuousPL is both. A named hypothesis, never asserted. Checked (proved) not to be refuted by mul_not_pl: the product (x₀, x₁) ↦ x₀x₁ is not PiecewiseAffine, hence not ContinuousPL (mul_not_piecewiseAffine, mul_not_continuousPL)."
  status := .assumed
  decls := [``Formal.Gap.AroraReLU, ``Formal.Gap.ContinuousPL, ``Formal.Gap.EpsDeltaContinuous, ``Formal.Gap.PiecewiseAffine, ``Formal.Gap.mul_not_piecewiseAffine, ``Formal.Gap.mul_not_continuousPL]

def hypWilkie : Claim where
  id := "TB.Hyp.Wilkie"
  paper := "TB"
  statement := "ℝ_exp is o-minimal (Wilkie 1996); with the monotonicity theorem (van den Dries 1998, Ch. 3), every function α → α definable with parameters in (α, +, ·, -, <, exp), exp being Transcendental.exp (DefinableExp: its graph is defined by a first-order formula ExpFormula), is strictly increasing, strictly decreasing or constant on a subinterval of every nondegenerate interval. A named hypothesis about α and its exp, never asserted; the literature proves it for ℝ with the real exponential."
  status := .assumed
  decls := [``Formal.Gap.WilkieMonotonicity, ``Formal.Gap.DefinableExp, ``Formal.Gap.ExpFormula, ``Formal.Gap.ExpFormula.holds, ``Formal.Gap.ExpTerm.eval]

def hypInvarianceOfDomain : Claim where
  id := "TB.Hyp.InvarianceOfDomain"
  paper := "TB"
  statement := "Brouwer's invariance of domain: if f : αᵐ → αⁿ and g : αⁿ → αᵐ are mutually inverse and both ε-δ continuous (EpsDeltaContinuous), then m = n. A named hypothesis about α, never asserted; the literature proves it for ℝ, and it fails for ℚ (Sierpiński: ℚ and ℚ² are homeomorphic; not formalised)."
  status := .assumed
  decls := [``Formal.Gap.InvarianceOfDomain, ``Formal.Gap.EpsDeltaContinuous]

def tbPL1 : Claim where
  id := "TB.PL.breakpoints"
  paper := "TB"
  statement := "One-dimensional PL functions in the global sense: PL1 f holds when a finite list of breakpoints exists such that f is affine on every open interval with no breakpoint strictly inside (values at the breakpoints unconstrained, so jumps are allowed). Proved over any OrderedFieldLaws scalars: PL1 implies LocallyAffine, hence t ↦ t² is not PL1 (sq_not_PL1); PL1 is closed under constants, the identity, sums (breakpoints B₁ ++ B₂), scalings (same breakpoints), composition g ∘ f (breakpoints of f plus, for every cell of f and every breakpoint v of g, the point of the cell where the affine piece of f takes the value v, chosen classically) and ReLU (relu is PL1 with the breakpoint 0, so relu ∘ f is a composite). Not proved: continuity of the pieces' junctions; in several variables only restrictions to lines are covered (pl1_on_lines, entry VM.C1)."
  status := .proved
  decls := [``Formal.PL.PL1, ``Formal.PL.PL1.toLocallyAffine, ``Formal.PL.sq_not_PL1, ``Formal.PL.PL1.const, ``Formal.PL.PL1.id, ``Formal.PL.PL1.add, ``Formal.PL.PL1.scale, ``Formal.PL.PL1.comp, ``Formal.PL.PL1.relu_self, ``Formal.PL.PL1.relu]

/-- The claims of the transformer paper and the hypotheses they rest on. -/
def transformerClaims : List Claim :=
  [vmC1, vmC1pretopos, vmC2, vmC2necessarily, vmC3, vmC4, hypDefinableChoice, hypArora, hypWilkie,
    hypInvarianceOfDomain, tbPL1]

/-! ## Sites, sieves and presheaves (`Formal/Site`) -/

-- LEDGER: site (entries, then `def siteClaims : List Claim := [...]`)
def bbProp11i : Claim where
  id := "BB.Prop1.1.i"
  paper := "BB"
  statement := "Prop. 1.1(i): the category generated by the fork graph of a network is a poset (thin: at most one arrow between two objects). Refuted as stated for networks with fan-out, on the residual block y = x + f(x), found by computation: written by hand as a site in B&B's orientation, it is acyclic and has two paths from f to the tang of the join, so it is not thin (rawSite_not_thin, rawSite_acyclic_not_thin); in the data-flow fork graph (Formal/Site/Fork.lean, not B&B's site) there are likewise two distinct paths from the input to the fork point of the join (raw_two_distinct_paths, raw_fork_not_thin). In the data-flow fork graph it holds (thin, and acyclic) for networks in which every layer feeds at most one layer, given a rank that decreases along every edge (fork_thin_acyclic_of_forest), and for the tree unfolding of any network (entry TB.Site.normalThin), which is a different network; with the input shared, the copy-normalised residual block is thin in the site orientation (entry TB.Site.copyNormal)."
  status := .refuted
  decls := [``Formal.Site.CopyNormal.rawSite_not_thin, ``Formal.Site.CopyNormal.rawSite_acyclic_not_thin, ``Formal.Site.Residual.raw_fork_not_thin, ``Formal.Site.Residual.raw_fork_acyclic_not_thin, ``Formal.Site.Residual.raw_two_distinct_paths, ``Formal.Site.Residual.raw_two_paths, ``Formal.Site.Residual.raw, ``Formal.Site.fork_thin_acyclic_of_forest]

def tbSiteNormalThin : Claim where
  id := "TB.Site.normalThin"
  paper := "TB"
  statement := "Thinness and acyclicity of the data-flow fork graph (Formal/Site/Fork.lean: every edge in the data-flow direction, a fork point inserted before each join; not the site of BB, in which only the tines keep the data-flow direction) and of its tree unfolding. If every vertex has at most one successor, there is at most one path between any two vertices; the fork construction preserves this; the tree unfolding along maximal paths has it for every graph, so its fork graph is thin. Thinness does not exclude loops (a two-cycle is thin and not acyclic), so acyclicity (no non-empty path back to its start) is proved beside it: a rank that drops along every edge makes a graph acyclic; the fork construction keeps such a rank, and the tree unfolding has one (the length of a vertex, which is a path), so the fork graph of the tree unfolding of every graph is thin and acyclic. The tree unfolding is a different network: each use of a layer becomes its own vertex, fed by its own copies of the inputs. For the residual block y = x + f(x) the input becomes two unrelated vertices, and the four layers, ordered by the paths of the fork graph (the same order for every bound of at least 6 on the path length, since a rank drops along every edge), are the finite poset ResX. Restoring the shared source (one vertex for x feeding both copies) makes the fork graph not thin again (two paths from x to the fork point of the addition), so this is not a repair of Prop. 1.1(i) for the residual block itself; thinness with the shared input kept is TB.Site.copyNormal, in the site's own orientation."
  status := .proved
  decls := [``Formal.Site.forest_thin, ``Formal.Site.fork_forest, ``Formal.Site.fork_thin_of_forest, ``Formal.Site.normalize_forest, ``Formal.Site.normalize_fork_thin, ``Formal.Site.Acyclic, ``Formal.Site.twoCycle_thin_not_acyclic, ``Formal.Site.acyclic_of_rank, ``Formal.Site.fork_rankDecreasing, ``Formal.Site.fork_thin_acyclic_of_forest, ``Formal.Site.normalize_rankDecreasing, ``Formal.Site.normalize_fork_thin_acyclic, ``Formal.Site.Residual.normalized_fork_thin, ``Formal.Site.Residual.normalized_fork_thin_acyclic, ``Formal.Site.Residual.normalized_unique_paths, ``Formal.Site.Residual.normalized_verts_resX, ``Formal.Site.Residual.normalized_fork_verts, ``Formal.Site.Residual.normalized_order_resX, ``Formal.Site.Residual.normalized_order_resX_stable, ``Formal.Site.pathCount_add_of_rank_le, ``Formal.Site.instFinPosetResX, ``Formal.Site.Residual.normalizedShared_two_paths, ``Formal.Site.Residual.normalizedShared_fork_not_thin]

def bbCopyNormal : Claim where
  id := "TB.Site.copyNormal"
  paper := "TB"
  statement := "A thinness criterion for sites in the orientation of pybridge site (arrows reverse the data flow, forks with tines into the tang, identity copy nodes on the edges into joins), checked on one hand-written site. Abstract lemma: in a graph, if every vertex that is not a tip has at most one successor and it is not a tip, and every tip has exactly two successors, both non-tips, whose reachable sets are disjoint (which follows from two disjoint forward-closed Boolean predicates), then there is at most one path between any two vertices (no acyclicity is needed for this conclusion). On the residual block y = x + f(x) written as a site by hand: the raw site is acyclic, has two paths from f to the tang of the join and is not thin; the copy-normalised site (copy nodes as tips, the input shared) is thin and acyclic. Not proved: that the copy-normalised site of every acyclic network satisfies the hypotheses of the lemma, so the thinness of the sites that pybridge site builds rests on its Python check, not on Lean; and that the hand-written sites are computed from the data-flow graph."
  status := .proved
  decls := [``Formal.Site.thin_of_tips, ``Formal.Site.separated_of_closed, ``Formal.Site.pathCount_eq_zero_of_closed, ``Formal.Site.CopyNormal.rawSite_two_paths, ``Formal.Site.CopyNormal.rawSite_not_thin, ``Formal.Site.CopyNormal.rawSite_acyclic_not_thin, ``Formal.Site.CopyNormal.copySite_thin, ``Formal.Site.CopyNormal.copySite_thin_acyclic, ``Formal.Site.CopyNormal.copySite_unique_paths]

def bbProp11ii : Claim where
  id := "BB.Prop1.1.ii"
  paper := "BB"
  statement := "Prop. 1.1: the topos of sheaves on the fork site (for the topology generated by the forks) is equivalent to the topos of presheaves on the poset X of non-fork objects. Out of scope: the library has no Grothendieck topologies or sheaf condition; it takes presheaves on the poset X as the definition of the topos of a network, which is the conclusion of this statement."
  status := .outOfScope
  decls := []

def bbOmegaHeyting : Claim where
  id := "BB.Omega.Heyting"
  paper := "BB"
  statement := "At every object x of the poset, the sieves on x (the down-sets of the principal down-set of x) form a Heyting algebra, with implication S => T = {y <= x | every z <= y in S is in T} and negation S => bottom."
  status := .proved
  decls := [``Formal.Site.HeytingAlgebra, ``Formal.Site.Sieve.heytingAlgebra, ``Formal.Site.Sieve.le_himp_iff]

def bbOmegaRestriction : Claim where
  id := "BB.Omega.restriction"
  paper := "BB"
  statement := "Restriction of sieves along y <= x (S maps to S intersected with the down-set of y) preserves meet, join, implication, negation, bottom and top, so Omega is a presheaf of Heyting algebras."
  status := .proved
  decls := [``Formal.Site.Sieve.restrict_inf, ``Formal.Site.Sieve.restrict_sup, ``Formal.Site.Sieve.restrict_himp, ``Formal.Site.Sieve.restrict_compl, ``Formal.Site.Sieve.restrict_bot, ``Formal.Site.Sieve.restrict_top, ``Formal.Site.Omega.heyting_natural]

def bbPShCategory : Claim where
  id := "BB.PSh.category"
  paper := "BB"
  statement := "Presheaves on a poset, with natural transformations, form a category (identity and associativity laws). That this category is a topos is not proved here."
  status := .proved
  decls := [``Formal.Site.PSh.id_comp, ``Formal.Site.PSh.comp_id, ``Formal.Site.PSh.assoc, ``Formal.Site.presheafCategory]

def bbOmegaPresheaf : Claim where
  id := "BB.Omega.presheaf"
  paper := "BB"
  statement := "The sieves form a presheaf Omega on the poset (Omega(x) = sieves on x, restriction along y <= x), with the functor laws, and the maximal sieve is a natural transformation true from the terminal presheaf to Omega. That Omega classifies subobjects (the universal property) is not proved here."
  status := .proved
  decls := [``Formal.Site.Omega, ``Formal.Site.Sieve.restrict_refl, ``Formal.Site.Sieve.restrict_restrict, ``Formal.Site.Omega.truth]

def bbThm11 : Claim where
  id := "BB.Thm1.1"
  paper := "BB"
  statement := "Thm 1.1 and Lemma 1.1: back-propagation is a flow of natural transformations in the topos of the network. Out of scope for the Lean side: it needs differentiation of real-valued maps, which core Lean lacks; it is left to the numerical checks of the Python bridge."
  status := .outOfScope
  decls := []

def bbModelCategory : Claim where
  id := "BB.ModelCategory"
  paper := "BB"
  statement := "The semantic structures of a network are classified by fibrant objects of a closed model category of Quillen, giving homotopical invariants. Out of scope: needs simplicial and homotopical machinery far beyond a core-only library."
  status := .outOfScope
  decls := []

def bbMartinLof : Claim where
  id := "BB.MartinLof"
  paper := "BB"
  statement := "Intensional Martin-Löf type theories organise the semantic objects of a network and the fibrations between them. Out of scope: needs a deep embedding of a dependent type theory and its interpretation in the topos."
  status := .outOfScope
  decls := []

def bbDerivators : Claim where
  id := "BB.Derivators"
  paper := "BB"
  statement := "Information contents and exchanges in a network are analysed by Grothendieck derivators. Out of scope: needs homotopy categories of diagram categories, which the library does not have."
  status := .outOfScope
  decls := []

/-- The claims of sites, sieves and presheaves. -/
def siteClaims : List Claim :=
  [bbProp11i, tbSiteNormalThin, bbCopyNormal, bbProp11ii, bbOmegaHeyting, bbOmegaRestriction,
    bbPShCategory, bbOmegaPresheaf, bbThm11, bbModelCategory, bbMartinLof, bbDerivators]

/-- The whole ledger. -/
def ledger : List Claim :=
  networkClaims ++ categoryClaims ++ transformerClaims ++ siteClaims

end Formal.Claims
