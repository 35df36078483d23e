"""relax.ExecBuilder: bytecode written by hand runs on the VM (TVM's lowest-level VM tests)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax


@tvm.register_func("test.execbuilder.add", override=True)
def _add(a, b):
    return tvm.nd.array(a.numpy() + b.numpy())


@tvm.register_func("test.execbuilder.mul", override=True)
def _mul(a, b):
    return tvm.nd.array(a.numpy() * b.numpy())


def test_two_functions_and_a_call_between_them():
    ib = relax.ExecBuilder()
    with ib.function("add", num_inputs=2):
        ib.emit_call("test.execbuilder.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("main", num_inputs=2):
        ib.emit_call("add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("test.execbuilder.mul", args=[ib.r(2), ib.r(1)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = np.arange(4.0), np.full(4, 2.0)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy(),
                               (a + b) * b)


def test_branches_and_constants():
    ib = relax.ExecBuilder()
    with ib.function("pick", num_inputs=1):
        ib.emit_if(ib.r(0), 3)  # false: jump to the second return
        ib.emit_call("test.execbuilder.add", args=[ib.convert_constant(tvm.nd.array(
            np.ones(2))), ib.convert_constant(tvm.nd.array(np.ones(2)))], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
        ib.emit_ret(ib.r(0))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    np.testing.assert_allclose(vm["pick"](True).numpy(), [2.0, 2.0])
    assert vm["pick"](False) is False


def test_reading_an_unwritten_register_is_an_error():
    ib = relax.ExecBuilder()
    with ib.function("bad", num_inputs=2):
        ib.emit_call("test.execbuilder.add", args=[ib.r(0), ib.r(2)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with pytest.raises(RuntimeError, match="reads register 2"):
        ib.get()
