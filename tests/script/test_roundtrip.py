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


COMPUTED_SIGNATURE = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        y = R.concat((x, x))
        return y
'''


def test_computed_dims_in_signatures_are_strings_as_tvm_prints_them():
    from tvmlite.tir.expr import BinaryOp, BinOp, IntImm

    mod = from_source(COMPUTED_SIGNATURE)
    func = mod["main"]
    (n,) = func.params[0].struct_info.shape
    (ret,) = func.ret_struct_info.shape
    assert ret == BinOp(BinaryOp.MUL, n, IntImm("int64", 2)) and ret.a is n
    text = mod.script()
    assert '-> R.Tensor(("n * 2",), dtype="float32")' in text
    assert_structural_equal(from_source(text), mod)


def test_a_bad_string_dim_is_refused():
    with pytest.raises(Exception, match=r"only names, ints, \+ - \* // % and T.max"):
        from_source(COMPUTED_SIGNATURE.replace("n * 2", "n ** 2"))
