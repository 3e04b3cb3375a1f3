"""The terms of the Zoo layers ``causalAttention``, ``rmsNorm`` and ``swiglu``, written in Python from
the definitions of ``Formal/Network/Derived.lean`` (``attnWeightsCausal``, ``causalSelfAttention``,
``silu``, ``llamaMLP``) as this round's specification gives them, constructor for constructor.

The checks against ``transformers`` use these terms, so that they do not depend on the Lean reader;
``tests/test_references_hf.py`` also checks that the reader, on the Lean Zoo files, builds the same
terms. ``≫`` is right-associative in Lean (``infixr:80``), as :func:`chain` nests.
"""

from __future__ import annotations

from pybridge.spec import terms as T
from pybridge.spec.shapes import Dim, TensorShape

EPS_1E6 = T.Rat(num=1, den=1000000)


def t(*dims: Dim) -> TensorShape:
    return TensorShape(dims=tuple(dims))


def chain(*steps: T.Term) -> T.Term:
    """``f₁ ≫ f₂ ≫ … ≫ fₙ``, right-nested."""
    return steps[0] if len(steps) == 1 else T.Comp(f=steps[0], g=chain(*steps[1:]))


def fan3(f: T.Term, g: T.Term, h: T.Term, s: TensorShape) -> T.Term:
    """``Arch.fan3 f g h = copy s ≫ ((copy s ≫ (f ⊗ g)) ⊗ h)``."""
    return chain(T.Copy(s=s), T.Par(f=chain(T.Copy(s=s), T.Par(f=f, g=g)), g=h))


def split_heads(seq: Dim, heads: int, k: int) -> T.Term:
    return chain(T.SplitLast(pre=(seq,), a=heads, b=k), T.Transpose(pre=(), a=seq, b=heads, post=(k,)))


def merge_heads(seq: Dim, heads: int, k: int) -> T.Term:
    return chain(T.Transpose(pre=(), a=heads, b=seq, post=(k,)), T.MergeLast(pre=(seq,), a=heads, b=k))


def attn_weights_causal(seq: Dim, heads: int, k: int) -> T.Term:
    """``attnWeights`` with ``causalSoftmax [heads] seq`` in place of ``softmax [heads, seq] seq``."""
    return chain(
        T.Par(f=T.Id(s=t(heads, seq, k)), g=T.Transpose(pre=(heads,), a=seq, b=k, post=())),
        T.MatMul(pre=(heads,), m=seq, k=k, post=(seq,)),
        T.Scale(c=T.InvSqrt(n=k), s=(heads, seq, seq)),
        T.CausalSoftmax(pre=(heads,), n=seq),
    )


def causal_self_attention(seq: Dim, d: int, heads: int, k: int) -> T.Term:
    """``Arch.causalSelfAttention seq d heads k``: ``selfAttention`` with ``attnWeightsCausal``."""

    def proj() -> T.Term:
        return chain(T.Linear(pre=(seq,), m=d, n=heads * k), split_heads(seq, heads, k))

    return chain(
        fan3(proj(), proj(), proj(), t(seq, d)),
        T.Par(f=attn_weights_causal(seq, heads, k), g=T.Id(s=t(heads, seq, k))),
        T.MatMul(pre=(heads,), m=seq, k=seq, post=(k,)),
        merge_heads(seq, heads, k),
        T.Linear(pre=(seq,), m=heads * k, n=d),
    )


def silu(s: tuple[Dim, ...]) -> T.Term:
    """``Arch.silu s = copy ≫ (id ⊗ sigmoid s) ≫ mul s``."""
    return chain(T.Copy(s=t(*s)), T.Par(f=T.Id(s=t(*s)), g=T.Sigmoid(s=s)), T.Mul(s=s))


def llama_mlp(seq: Dim, d: int, f: int) -> T.Term:
    """``Arch.llamaMLP seq d f``: leaves gate_proj, up_proj, down_proj."""
    return chain(
        T.Copy(s=t(seq, d)),
        T.Par(f=chain(T.Linear(pre=(seq,), m=d, n=f), silu((seq, f))), g=T.Linear(pre=(seq,), m=d, n=f)),
        T.Mul(s=(seq, f)),
        T.Linear(pre=(seq,), m=f, n=d),
    )


def causal_attention(d_model: int, heads: int, seq: Dim = "seq") -> T.Term:
    """``Formal.Zoo.causalAttention d_model heads``."""
    return causal_self_attention(seq, d_model, heads, d_model // heads)


def rms_norm(d: int, seq: Dim = "seq") -> T.Term:
    """``Formal.Zoo.rmsNorm d = Arch.rmsNorm [seq] d (.rat 1 1000000)``."""
    return T.RmsNorm(pre=(seq,), n=d, eps=EPS_1E6)


def swiglu(d: int, d_ff: int, seq: Dim = "seq") -> T.Term:
    """``Formal.Zoo.swiglu d d_ff = Arch.llamaMLP seq d d_ff``."""
    return llama_mlp(seq, d, d_ff)
