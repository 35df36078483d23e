"""relax.backend.DispatchSortScan / DispatchSampling lower only their operators; the module
still computes what numpy does."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.contrib.thrust import can_use_thrust
from tvmlite.relax.backend import DispatchSortScan
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), "float32")):
        with R.dataflow():
            a = R.cumsum(x, axis=1)
            b = R.sort(a, axis=1, descending=True)
            c = R.add(b, b)
            R.output(c)
        return c


def test_only_sorts_and_scans_are_lowered():
    after = DispatchSortScan()(Module)
    text = after["main"].script()
    assert "R.cumsum" not in text and "R.sort" not in text and "R.add(" in text
    assert not can_use_thrust(tvm.target.Target("cuda"), "tvm.contrib.thrust.sort")
    x = np.random.rand(2, 5).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(after, "llvm"), tvm.cpu())
    expected = 2 * -np.sort(-np.cumsum(x, axis=1), axis=1)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), expected, rtol=1e-5)
