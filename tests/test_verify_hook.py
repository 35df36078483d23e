"""With TVMLITE_VERIFY set (the suite sets it), a pass that breaks the IR fails at that pass."""

from dataclasses import replace

import pytest

from tvmlite.ir.well_formed import WellFormedError
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transform import module_pass


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.add(x, x)
        return y


def test_a_pass_returning_ill_formed_ir_is_named():
    @module_pass(opt_level=0, name="DropBindings")
    def drop_bindings(mod, ctx):
        func = mod["main"]
        body = replace(func.body, blocks=())  # `y` is now returned but never bound
        return mod.with_function("main", replace(func, body=body))

    with pytest.raises(WellFormedError, match="after pass DropBindings"):
        drop_bindings(Mod)
