"""Model targets (``file.py:factory`` or a Zoo name): every bad target is a one-line TargetError."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from pybridge.errors import TargetError, UnknownLayerError
from pybridge.fragment.probe import probe
from pybridge.targets import load_target

FACTORIES = '''
import torch

def good():
    return torch.nn.Linear(3, 2), torch.randn(4, 3)

def pair():
    return torch.nn.Bilinear(3, 3, 2), (torch.randn(4, 3), torch.randn(4, 3))

def raises():
    raise ValueError("first line\\nsecond line")

def not_a_pair():
    return torch.nn.Linear(3, 2)

def not_tensors():
    return torch.nn.Linear(3, 2), [1, 2]

value = 3
'''


@pytest.fixture
def factories(tmp_path: Path) -> Path:
    path = tmp_path / "factories.py"
    path.write_text(FACTORIES)
    return path


def test_factories_and_zoo_names_load(factories: Path) -> None:
    target = load_target(f"{factories}:good")
    assert target.name == "factories:good" and not target.module.training
    assert [tuple(x.shape) for x in target.inputs] == [(4, 3)]
    assert len(load_target(f"{factories}:pair").inputs) == 2
    zoo = load_target("mlp", batch=3)
    assert zoo.name == "mlp" and zoo.inputs[0].shape[0] == 3


@pytest.mark.parametrize(
    ("suffix", "message"),
    [
        (":raises", "raises() failed: ValueError: first line"),
        (":not_a_pair", "must return (torch.nn.Module, example_input)"),
        (":not_tensors", "must be a tensor, a tuple of tensors or a dict"),
        (":value", "has no function 'value'"),
        (":missing", "has no function 'missing'"),
        (":", "is not a Python identifier"),
        ("", "name the factory function"),
    ],
)
def test_bad_targets_are_one_line_errors(factories: Path, suffix: str, message: str) -> None:
    with pytest.raises(TargetError, match=re.escape(message)) as info:
        load_target(f"{factories}{suffix}")
    assert "\n" not in str(info.value)


def test_missing_file_and_unknown_layer(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="no such file"):
        load_target(f"{tmp_path / 'nothere.py'}:f")
    with pytest.raises(UnknownLayerError, match="unknown layer 'convnet'"):
        load_target("convnet")


def test_probe_refuses_empty_inputs_and_outputs() -> None:
    with pytest.raises(TargetError, match="non-empty floating-point input"):
        probe(torch.nn.Linear(3, 2), [torch.randn(0, 3)], name="empty")
    with pytest.raises(TargetError, match="^empty: the model has no floating-point output"):
        probe(torch.nn.Linear(3, 0), [torch.randn(2, 3)], name="empty")
