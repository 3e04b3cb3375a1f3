"""The spec's LLaMA terms (``gqaAttention``, ``llamaDecoder`` and their parts, as the round's
specification defines them for ``Formal/Network/Derived.lean``), built in Python from the term classes.

They let the layer checks run on exactly the term the specification names; ``test_llama_layers``
also checks that the Lean catalogue's ``Zoo.gqa``/``Zoo.llamaDecoderLayer``, where present, read to
these terms.
"""

from __future__ import annotations

from pybridge.spec import terms as T
from pybridge.spec.shapes import Dim, TensorShape


def t(*dims: Dim) -> TensorShape:
    return TensorShape(dims=tuple(dims))


def comp(*fs: T.Term) -> T.Term:
    """``f₁ ≫ f₂ ≫ … ≫ fₙ``, right-nested (``≫`` is ``infixr``)."""
    return fs[0] if len(fs) == 1 else T.Comp(f=fs[0], g=comp(*fs[1:]))


def copy(s: TensorShape) -> T.Term:
    return T.Copy(s=s)


def fan3(f: T.Term, g: T.Term, h: T.Term, s: TensorShape) -> T.Term:
    return comp(copy(s), T.Par(f=comp(copy(s), T.Par(f=f, g=g)), g=h))


def residual(s: tuple[Dim, ...], f: T.Term) -> T.Term:
    return comp(copy(t(*s)), T.Par(f=T.Id(s=t(*s)), g=f), T.Add(s=s))


def split_heads(seq: Dim, heads: int, k: int) -> T.Term:
    return comp(T.SplitLast(pre=(seq,), a=heads, b=k), T.Transpose(pre=(), a=seq, b=heads, post=(k,)))


def merge_heads(seq: Dim, heads: int, k: int) -> T.Term:
    return comp(T.Transpose(pre=(), a=heads, b=seq, post=(k,)), T.MergeLast(pre=(seq,), a=heads, b=k))


def attn_weights_causal(seq: Dim, heads: int, k: int) -> T.Term:
    return comp(
        T.Par(f=T.Id(s=t(heads, seq, k)), g=T.Transpose(pre=(heads,), a=seq, b=k, post=())),
        T.MatMul(pre=(heads,), m=seq, k=k, post=(seq,)),
        T.Scale(c=T.InvSqrt(n=k), s=(heads, seq, seq)),
        T.CausalSoftmax(pre=(heads,), n=seq),
    )


def gqa_attention(seq: Dim, d: int, kv_heads: int, groups: int, k: int, base: int = 10000) -> T.Term:
    heads = kv_heads * groups
    q = comp(T.Linear(pre=(seq,), m=d, n=heads * k), split_heads(seq, heads, k),
             T.Rope(pre=(heads,), seq=seq, k=k, base=base))
    key = comp(T.Linear(pre=(seq,), m=d, n=kv_heads * k), split_heads(seq, kv_heads, k),
               T.Rope(pre=(kv_heads,), seq=seq, k=k, base=base),
               T.RepeatInterleave(pre=(), a=kv_heads, r=groups, post=(seq, k)))
    v = comp(T.Linear(pre=(seq,), m=d, n=kv_heads * k), split_heads(seq, kv_heads, k),
             T.RepeatInterleave(pre=(), a=kv_heads, r=groups, post=(seq, k)))
    return comp(
        fan3(q, key, v, t(seq, d)),
        T.Par(f=attn_weights_causal(seq, heads, k), g=T.Id(s=t(heads, seq, k))),
        T.MatMul(pre=(heads,), m=seq, k=seq, post=(k,)),
        merge_heads(seq, heads, k),
        T.Linear(pre=(seq,), m=heads * k, n=d),
    )


def silu(s: tuple[Dim, ...]) -> T.Term:
    return comp(copy(t(*s)), T.Par(f=T.Id(s=t(*s)), g=T.Sigmoid(s=s)), T.Mul(s=s))


def llama_mlp(seq: Dim, d: int, f: int) -> T.Term:
    return comp(
        copy(t(seq, d)),
        T.Par(f=comp(T.Linear(pre=(seq,), m=d, n=f), silu((seq, f))), g=T.Linear(pre=(seq,), m=d, n=f)),
        T.Mul(s=(seq, f)),
        T.Linear(pre=(seq,), m=f, n=d),
    )


EPS = T.Rat(num=1, den=1000000)


def llama_decoder(seq: Dim, d: int, kv_heads: int, groups: int, k: int, f: int, base: int = 10000) -> T.Term:
    return comp(
        residual((seq, d), comp(T.RmsNorm(pre=(seq,), n=d, eps=EPS),
                                gqa_attention(seq, d, kv_heads, groups, k, base))),
        residual((seq, d), comp(T.RmsNorm(pre=(seq,), n=d, eps=EPS), llama_mlp(seq, d, f))),
    )
