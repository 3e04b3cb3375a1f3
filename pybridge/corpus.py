"""A corpus of public architectures, built from ``transformers`` configs (random weights, tiny sizes).

Nothing is downloaded: each model is built from a config with ``torch.manual_seed(0)`` weights and the
eager attention implementation (plain matmul and softmax; PyTorch's fused CPU attention kernel has no
forward-mode derivative, which the path-sum check of ``presheaf`` needs) and, for the mixture of
experts, the batched-matmul experts (the grouped-matmul kernel refuses float64, which every check uses,
and the eager expert loop branches on which experts were hit, which export cannot capture). Every
factory returns ``(module, example)`` as a ``file.py:factory`` target does, ``example`` a dict of keyword
inputs (floating ``inputs_embeds`` or ``pixel_values``, so the probe has a point of Rⁿ to move; integer
masks are held fixed), so ``pybridge fragment pybridge/corpus.py:llama`` works as for any user's model.

:func:`run_corpus` runs ``fragment``, ``site``, ``presheaf`` and (for the vision model) ``equivariance``
on each and returns one :class:`CorpusRow` per model; :func:`corpus_markdown` renders the README table,
which ``python -m pybridge.corpus --write-readme`` rewrites and ``tests/test_corpus.py`` checks.
``transformers`` is the optional extra ``models`` (``pip install -e '.[models]'``).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict
from torch import nn

from pybridge.errors import TargetError, UsageError

#: Every config uses the eager attention implementation (see the module docstring).
EAGER: dict[str, Any] = {"attn_implementation": "eager"}
#: Sequence length and batch of the text models' examples.
SEQ, BATCH = 4, 1


def _transformers() -> Any:
    try:
        import transformers
    except ImportError:
        raise TargetError(
            "corpus: the model corpus needs the optional extra 'models' (pip install -e '.[models]')"
        ) from None
    return transformers


def _embeds(width: int, seed: int = 1) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(BATCH, SEQ, width, generator=gen)


def _text_common() -> dict[str, Any]:
    """Keyword inputs fixed for the decoders: no key/value cache."""
    return {"use_cache": False}


def bert(layers: int = 1) -> tuple[nn.Module, dict[str, Any]]:
    """``BertModel``: post-LN encoder, GELU MLP, a padding mask (integer, held fixed)."""
    tf = _transformers()
    cfg = tf.BertConfig(**EAGER, vocab_size=32, hidden_size=16, num_hidden_layers=layers,
                        num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16, type_vocab_size=2)
    torch.manual_seed(0)
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[:, -1] = 0
    return tf.BertModel(cfg, add_pooling_layer=False).eval(), {"inputs_embeds": _embeds(16),
                                                               "attention_mask": mask}


def gpt2(layers: int = 1) -> tuple[nn.Module, dict[str, Any]]:
    """``GPT2Model``: pre-LN causal decoder, learned positions, GELU (tanh form) MLP."""
    tf = _transformers()
    cfg = tf.GPT2Config(**EAGER, vocab_size=32, bos_token_id=0, eos_token_id=0, n_embd=16, n_layer=layers,
                        n_head=2, n_positions=16)
    torch.manual_seed(0)
    return tf.GPT2Model(cfg).eval(), {"inputs_embeds": _embeds(16), **_text_common()}


def llama(layers: int = 1, width: int = 16) -> tuple[nn.Module, dict[str, Any]]:
    """``LlamaModel``: RMSNorm, rotary positions, grouped-query attention, SwiGLU MLP."""
    tf = _transformers()
    cfg = tf.LlamaConfig(**EAGER, vocab_size=32, hidden_size=width, intermediate_size=2 * width,
                         num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=16)
    torch.manual_seed(0)
    return tf.LlamaModel(cfg).eval(), {"inputs_embeds": _embeds(width), **_text_common()}


def llama32() -> tuple[nn.Module, dict[str, Any]]:
    """The scale check: a 32-layer ``LlamaModel`` of width 64."""
    return llama(32, 64)


def mixtral(layers: int = 1) -> tuple[nn.Module, dict[str, Any]]:
    """``MixtralModel``: LLaMA attention with a sparse mixture of 4 experts, top-2 routing."""
    tf = _transformers()
    cfg = tf.MixtralConfig(**EAGER, experts_implementation="batched_mm", vocab_size=32, hidden_size=16,
                           intermediate_size=32, num_hidden_layers=layers,
                           num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                           num_experts_per_tok=2, max_position_embeddings=16)
    torch.manual_seed(0)
    return tf.MixtralModel(cfg).eval(), {"inputs_embeds": _embeds(16), **_text_common()}


def vit(layers: int = 1) -> tuple[nn.Module, dict[str, Any]]:
    """``ViTModel``: patch embedding (a strided convolution), class token, pre-LN encoder."""
    tf = _transformers()
    cfg = tf.ViTConfig(**EAGER, image_size=8, patch_size=4, num_channels=3, hidden_size=16,
                       num_hidden_layers=layers,
                       num_attention_heads=2, intermediate_size=32)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    return tf.ViTModel(cfg, add_pooling_layer=False).eval(), {
        "pixel_values": torch.randn(BATCH, 3, 8, 8, generator=gen)}


#: The corpus: name -> factory; the README table lists them in this order.
CORPUS: dict[str, Callable[[], tuple[nn.Module, dict[str, Any]]]] = {
    "bert": bert, "gpt2": gpt2, "llama": llama, "mixtral": mixtral, "vit": vit,
}
#: The group of ``equivariance`` per model (``None``: no group acts on the model's input).
GROUP: dict[str, str | None] = {"bert": None, "gpt2": None, "llama": None, "mixtral": None, "vit": "shift"}


class CorpusRow(BaseModel):
    """One model of the corpus through the four commands."""

    model_config = ConfigDict(frozen=True)

    model: str
    capture: str
    nodes: int
    verdict: str
    offending_ops: tuple[str, ...]
    probe: str
    agree: bool | None  # None: the probe was inconclusive
    site_objects: int
    thin_raw: bool
    thin_normal: bool
    largest_omega: int
    presheaf_failed: tuple[str, ...]
    equivariance: str
    seconds: float


def _spec(name: str) -> str:
    return f"{Path(__file__).resolve()}:{name}"


def run_model(name: str, *, lines: int = 1, fine_exponent: int = 8) -> CorpusRow:
    """Run ``fragment``, ``site``, ``presheaf`` and (where a group applies) ``equivariance`` on one model.

    The probe runs ``lines`` random lines at step ``2^-fine_exponent`` (the corpus keeps it short).
    """
    from pybridge.fragment.classify import classify_captured
    from pybridge.fragment.probe import probe
    from pybridge.fragment.report import agree
    from pybridge.site.commands import presheaf_rows, site_report
    from pybridge.site.equivariance import equivariance_report
    from pybridge.site.graph import extract
    from pybridge.targets import load_target

    if name not in CORPUS:
        raise UsageError(f"corpus: no model {name!r} (one of {', '.join(CORPUS)})")
    t0 = time.perf_counter()
    tgt = load_target(_spec(name))
    graph = extract(tgt.module, tgt.inputs, tgt.name)  # captured once (float64), read by every command
    cap = graph.capture
    assert cap is not None
    syntax = classify_captured(cap, tgt.inputs, tgt.name)
    measured = probe(tgt.module, tgt.inputs, lines=lines, fine_exponent=fine_exponent, name=tgt.name)
    report, _ = site_report(tgt.name, graph, raw=False)
    failed = tuple(r.check for r in presheaf_rows(tgt, graph) if r.ok is False and r.must_hold)
    equiv = "-"
    group = GROUP[name]
    if group is not None:
        layer_rows, whole = equivariance_report(tgt.module, tgt.inputs, group, name=tgt.name)
        measured_rows = [r for r in layer_rows if r.equivariant is not None]
        kept = sum(1 for r in measured_rows if r.equivariant)
        model_cell = "n/a (the output is not an image)" if whole is None else f"defect {whole.defect:.1e}"
        equiv = f"{group}: {kept} of {len(measured_rows)} measured layers equivariant; model {model_cell}"
    off_ops = sorted({n.op.split(":")[-1].removeprefix("aten.") for n in syntax.nodes
                      if n.node in syntax.verdict.offending})
    return CorpusRow(
        model=name,
        capture=cap.method,
        nodes=len(cap.gm.graph.nodes),
        verdict=syntax.verdict.cls,
        offending_ops=tuple(off_ops),
        probe=measured.cls,
        agree=agree(syntax, measured),
        site_objects=report.x_objects,
        thin_raw=report.raw_thin,
        thin_normal=report.thin,
        largest_omega=report.largest_omega,
        presheaf_failed=failed,
        equivariance=equiv,
        seconds=round(time.perf_counter() - t0, 1),
    )


def run_corpus(names: Sequence[str] | None = None) -> list[CorpusRow]:
    """:func:`run_model` on each named model (default: the whole corpus)."""
    return [run_model(n) for n in (names or list(CORPUS))]


BEGIN = "<!-- BEGIN GENERATED: model corpus (python -m pybridge.corpus --write-readme) -->"
END = "<!-- END GENERATED: model corpus -->"
def _agree_cell(agree: bool | None) -> str:
    return "n/a" if agree is None else "yes" if agree else "NO"


HEADER = ("| model | capture | nodes | verdict (offending op classes) | probe | agree | site objects | "
          "thin raw / normal | largest \\|Ω(x)\\| | presheaf checks | equivariance | seconds |")


def row_cells(r: CorpusRow) -> list[str]:
    """The cells of one table row (the last one, seconds, is a measurement of this machine)."""
    ops = ", ".join(r.offending_ops) if r.offending_ops else "—"
    return [
        f"`{r.model}`", r.capture, str(r.nodes), f"{r.verdict} ({ops})", r.probe, _agree_cell(r.agree),
        str(r.site_objects), f"{'yes' if r.thin_raw else 'no'} / {'yes' if r.thin_normal else 'no'}",
        str(r.largest_omega),
        "all hold" if not r.presheaf_failed else "FAIL: " + "; ".join(r.presheaf_failed),
        r.equivariance, f"{r.seconds:.1f}",
    ]


def corpus_markdown(rows: Sequence[CorpusRow]) -> str:
    """The README block, markers included."""
    lines = [BEGIN, HEADER, "|" + "---|" * 12]
    lines += ["| " + " | ".join(row_cells(r)) + " |" for r in rows]
    return "\n".join([*lines, END])


def readme_block(readme: str) -> str | None:
    """The generated corpus block of the README text, markers included (``None`` if absent)."""
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), readme, flags=re.S)
    return m.group(0) if m else None


def parse_block(block: str) -> list[list[str]]:
    """The rows of a generated block, as lists of cells."""
    out = []
    for line in block.splitlines()[3:-1]:
        out.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pybridge.corpus [--write-readme] [MODEL ...]``: print (or write) the README table."""
    from pybridge.files import write_atomic

    args = list(sys.argv[1:] if argv is None else argv)
    write = "--write-readme" in args
    names = [a for a in args if a != "--write-readme"]
    try:
        rows = run_corpus(names or None)
        block = corpus_markdown(rows)
        if not write:
            print(block)
            return 0
        readme = Path(__file__).resolve().parents[1] / "README.md"
        text = readme.read_text(encoding="utf-8")
        old = readme_block(text)
        if old is None:
            raise UsageError(f"{readme}: no generated corpus block ({BEGIN})")
        if old != block:
            write_atomic(readme, text.replace(old, block), force=True)
        print(f"README.md: corpus block {'rewritten' if old != block else 'already up to date'}")
        return 0
    except (TargetError, UsageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
