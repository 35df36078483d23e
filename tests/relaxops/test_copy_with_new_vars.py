"""`relax.utils.copy_with_new_vars`: an equal function sharing no variable or symbolic dim."""

from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.ir.analysis import all_vars
from tvmlite.script import relax as R


def test_copy_is_equal_and_shares_nothing():
    @R.function
    def before(x: R.Tensor(("m",), "float32"), y: R.Tensor(("m",), "float32")):
        @R.function
        def inner(a: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            b = R.add(a, a)
            return b

        gv = R.add(x, y)
        return gv

    after = relax.utils.copy_with_new_vars(before)
    assert_structural_equal(after, before)
    assert not set(all_vars(after)) & set(all_vars(before))
    assert after.params[0].struct_info.shape[0] is not before.params[0].struct_info.shape[0]
