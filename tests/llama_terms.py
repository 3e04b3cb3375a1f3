"""The spec's LLaMA terms (``gqaAttention``, ``llamaDecoder`` and their parts, as the round's
specification defines them for ``Formal/Network/Derived.lean``), built in Python from the term classes
(the parts shared with ``causalAttention`` and ``swiglu`` come from ``tests/zoo_terms_a.py``).

They let the layer checks run on exactly the term the specification names; ``test_llama_layers``
also checks that the Lean catalogue's ``Zoo.gqa``/``Zoo.llamaDecoderLayer``, where present, read to
these terms.
"""

from __future__ import annotations

from zoo_terms_a import attn_weights_causal, fan3, llama_mlp, merge_heads, split_heads, t
from zoo_terms_a import chain as comp

from pybridge.spec import terms as T
from pybridge.spec.shapes import Dim


def residual(s: tuple[Dim, ...], f: T.Term) -> T.Term:
    return comp(T.Copy(s=t(*s)), T.Par(f=T.Id(s=t(*s)), g=f), T.Add(s=s))


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


EPS = T.Rat(num=1, den=1000000)


def llama_decoder(seq: Dim, d: int, kv_heads: int, groups: int, k: int, f: int, base: int = 10000) -> T.Term:
    return comp(
        residual((seq, d), comp(T.RmsNorm(pre=(seq,), n=d, eps=EPS),
                                gqa_attention(seq, d, kv_heads, groups, k, base))),
        residual((seq, d), comp(T.RmsNorm(pre=(seq,), n=d, eps=EPS), llama_mlp(seq, d, f))),
    )
