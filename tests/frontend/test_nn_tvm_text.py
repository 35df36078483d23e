"""Exported modules match what Apache TVM 0.27 exports for the same nn models.

TVM's printed text (tvm027_nn_export.txt) is read back with tvmlite's parser; the export must
be structurally equal to it, print the same, and bind the same names in the same order.
tvmlite's printer leaves out binding annotations that TVM 0.27 prints, so the raw texts are
compared by names and signatures, not character by character.
"""

import os
import re
import sys

import pytest

import tvmlite as tvm
from tvmlite.relax.frontend import nn
from tvmlite.script import from_source

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
from nn_models import build_models, specs  # noqa: E402

MODELS = build_models(nn)
SPECS = specs(nn)


def _tvm_texts() -> dict[str, str]:
    sections = re.split(r"^===== (\w+)\n", open(os.path.join(HERE, "tvm027_nn_export.txt")).read(),
                        flags=re.M)
    return dict(zip(sections[1::2], sections[2::2]))


TVM_TEXT = _tvm_texts()


def _parse_tvm(text: str):
    """TVM 0.27 declares symbolic dims as module-level `n = TypeVar("n")`; tvmlite's parser
    takes them as names ("n") in the signature."""
    dims = re.findall(r'^(\w+) = TypeVar\("\w+"\)$', text, re.M)
    text = re.sub(r'^\w+ = TypeVar\("\w+"\)\n', "", text, flags=re.M)
    return from_source(text, env={d: d for d in dims})


def _bound_names(text: str) -> list[str]:
    """Names bound in function bodies, in order (`name: R.Tensor(...) = ...` or `name = ...`)."""
    return re.findall(r"^ {12}(\w+)(?::| =)", text, re.M)


def _export(key: str):
    cls, spec = SPECS[key]
    return MODELS[cls]().export_tvm(spec=spec)


def test_every_spec_has_tvm_text():
    assert sorted(TVM_TEXT) == sorted(SPECS)


@pytest.mark.parametrize("key", sorted(SPECS))
def test_export_equals_tvm_export(key):
    mod, _ = _export(key)
    ref = _parse_tvm(TVM_TEXT[key])
    tvm.ir.assert_structural_equal(mod, ref)
    assert mod.script() == ref.script()
    assert _bound_names(mod.script()) == _bound_names(TVM_TEXT[key])


def test_quick_start_text_line_by_line():
    """The Quick Start print, TVM's line for line once `out_dtype=None` is dropped."""
    mod, _ = _export("mlp")
    theirs = TVM_TEXT["mlp"].replace(", out_dtype=None", "")
    ours = mod.script()
    body = [ln for ln in theirs.splitlines() if ln.startswith("    ")]
    assert body == [ln for ln in ours.splitlines() if ln.startswith("    ")]
    assert '    def forward(x: R.Tensor((1, 784), dtype="float32"), fc1_weight: ' in ours
    assert 'R.func_attr({"num_input": 1})' in ours


def test_symbolic_dim_is_one_variable_in_the_signature():
    mod, _ = _export("mlp_sym")
    f = mod["forward"]
    n_in = f.params[0].struct_info.shape[0]
    assert f.ret_struct_info.shape[0] is n_in
    assert isinstance(n_in, tvm.tir.Var) and n_in.name == "n"


def test_names_are_unique_across_functions():
    """One name table per export, as in TVM: the second function's bindings go on counting."""
    mod, _ = _export("stack")
    names = _bound_names(mod.script())
    assert len(names) == len(set(names))
    assert names[:2] == ["add2", "mul"]  # `combine` prints first (by name), traced second


def test_param_spec_names_and_order():
    _, params = _export("conv")
    assert [(n, p.shape) for n, p in params] == [
        ("conv1.weight", [8, 3, 3, 3]), ("conv1.bias", [8]), ("conv2.weight", [4, 8, 3, 3]),
        ("fc.weight", [10, 196]), ("fc.bias", [10])]
    assert repr(params[0][1]) == 'Tensor([8, 3, 3, 3], "float32")'  # TVM's repr
