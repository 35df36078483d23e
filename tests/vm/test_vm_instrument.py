"""vm.set_instrument: the callback sees every call before and after it, and can skip one."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            z = R.exp(y)
            R.output(z)
        return z


def test_instrument_sees_kernel_calls_and_can_skip_them():
    # legalized only: the default build would fuse add and exp into one kernel
    ex = relax.build(Mod, target="llvm", relax_pipeline=None)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    exp = next(e.name for e in ex.func_table if e.name.endswith("exp"))  # the exp kernel
    seen = []

    def instrument(func, name, before_run, ret_value, *args):
        seen.append((name, before_run))
        assert callable(func) and (ret_value is None or not before_run)
        if name == exp and before_run:
            return relax.VMInstrumentReturnKind.SKIP_RUN
        return relax.VMInstrumentReturnKind.NO_OP

    vm.set_instrument(instrument)
    x = np.arange(4, dtype="float32")
    out = vm["main"](tvm.nd.array(x)).numpy()
    assert ("add", True) in seen and ("add", False) in seen
    assert (exp, True) in seen and (exp, False) not in seen
    assert not np.allclose(out, np.exp(2 * x))  # exp skipped: its output was never written
    vm.set_instrument(None)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), np.exp(2 * x), rtol=1e-6)
