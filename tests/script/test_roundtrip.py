"""The printer's backbone: every module the suite builds prints, parses back equal, reprints."""

import sys
from pathlib import Path

import pytest
from tvmlite.ir import IRModule
from tvmlite.ir.structural import assert_structural_equal, structural_hash
from tvmlite.script import from_source
from tvmlite.script.printer import metadata_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lecture_modules  # noqa: E402
import new_syntax_modules  # noqa: E402


def suite_modules() -> dict[str, IRModule]:
    out = {}
    for mod in (lecture_modules, new_syntax_modules):
        for name, value in vars(mod).items():
            if isinstance(value, IRModule):
                out[f"{mod.__name__}.{name}"] = value
    return out


def roundtrip(mod: IRModule) -> IRModule:
    text = mod.script()
    back = from_source(text, env={"metadata": metadata_of(mod)})
    assert_structural_equal(back, mod)
    assert back.script() == text
    assert structural_hash(back) == structural_hash(mod)
    return back


@pytest.mark.parametrize("name", sorted(suite_modules()))
def test_suite_module_roundtrip(name):
    roundtrip(suite_modules()[name])


def test_symbolic_dims_print_as_tvm_parses_them():
    """Strings ("n") only in the signature; the body uses the `n = T.int64()` it declares."""
    text = new_syntax_modules.DynamicMLP.script()
    assert 'x: R.Tensor(("n", 784), dtype="float32")' in text
    assert '-> R.Tensor(("n", 10), dtype="float32")' in text
    assert 'out_ty=R.Tensor((n, 128), dtype="float32")' in text
    assert 'R.Tensor(("n", 128)' not in text
