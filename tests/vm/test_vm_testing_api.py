"""The VM conveniences TVM's VM tests rely on (test_vm_build.py): save_function, set_input /
invoke_stateful / get_outputs errors, timing a stateful call, `arr[:] = value`, match_cast
errors that say so, relax.testing.nn / relax.testing.vm, and tvm.support importing."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.testing import nn
from tvmlite.relax.testing.vm import check_saved_func
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Affine:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 3), "float32")):
        return R.add(R.multiply(x, w), x)


def vm_of(mod):
    return relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


def test_save_function_closes_over_positional_and_named_arguments() -> None:
    vm = vm_of(Affine)
    x, w = (np.random.rand(2, 3).astype("float32") for _ in range(2))
    got = check_saved_func(vm, "main", tvm.nd.array(x), tvm.nd.array(w))
    np.testing.assert_allclose(got.numpy(), x * w + x, rtol=1e-6)
    vm.save_function("main", "named", tvm.nd.array(x), w=tvm.nd.array(w))
    np.testing.assert_allclose(vm["named"]().numpy(), x * w + x, rtol=1e-6)
    with pytest.raises(TypeError, match="no parameters"):
        vm.save_function("main", "bad", tvm.nd.array(x), z=tvm.nd.array(w))


def test_stateful_calls_and_their_errors() -> None:
    vm = vm_of(Affine)
    with pytest.raises(ValueError, match="invoke_stateful"):
        vm.get_outputs("main")
    x = np.ones((2, 3), "float32")
    vm.set_input("main", x, x)
    timing = vm.time_evaluator("invoke_stateful", tvm.cpu(), number=2)("main")
    assert timing.mean > 0
    np.testing.assert_array_equal(vm.get_outputs("main").numpy(), x * x + x)


def test_an_array_is_assigned_whole() -> None:
    arr = tvm.nd.array(np.zeros((2, 2), "float32"))
    arr[:] = np.arange(4, dtype="float32").reshape(2, 2)
    np.testing.assert_array_equal(arr.numpy(), [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="arr\\[:\\]"):
        arr[0] = 1


def test_a_failed_match_cast_names_itself_and_the_ndim() -> None:
    @I.ir_module
    class Cast:
        @R.function
        def main(x: R.Tensor(dtype="float32")) -> R.Shape:
            n, m = T.int64(), T.int64()
            _ = R.match_cast(x, R.Tensor((n, m), "float32"))
            return R.shape([n * 2, m])

    vm = vm_of(Cast)
    assert tuple(vm["main"](np.zeros((3, 4), "float32"))) == (6, 4)
    with pytest.raises(ValueError, match="match_cast _.*ndim 1 != 2"):
        vm["main"](np.zeros((3,), "float32"))


def test_an_unused_pure_packed_call_still_runs() -> None:
    """TVM's build keeps a binding nobody reads; a packed function run for its effect
    (writing its second argument) must run even though it is declared pure."""
    @I.ir_module
    class Effect:
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            _ = R.call_pure_packed("test.vm.identity", x, y,
                                   sinfo_args=R.Tensor((3,), "float32"))
            return y

    x, y = tvm.nd.array(np.array([1, 2, 3], "float32")), tvm.nd.array(np.zeros(3, "float32"))
    vm_of(Effect)["main"](x, y)
    np.testing.assert_array_equal(y.numpy(), [1, 2, 3])


def test_relax_testing_nn_builds_a_model() -> None:
    bb = relax.BlockBuilder()
    data = nn.Placeholder((2, 4), name="data")
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.LogSoftmax())
    with bb.function("main", [data, *model.parameters()]):
        bb.emit_func_output(model(data))
    mod = bb.get()
    assert [type(p).__name__ for p in mod["main"].params] == ["Placeholder", "Parameter",
                                                             "Parameter"]
    params = nn.init_params(mod)
    assert [p.shape for p in params] == [(4, 3), (3,)]
    got = vm_of(mod)["main"](np.ones((2, 4), "float32"), *params).numpy()
    np.testing.assert_allclose(got, np.full((2, 3), -np.log(3)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="BlockBuilder"):
        nn.ReLU()(data)  # outside `with bb.function(...)`


def test_tvm_support_imports_and_refuses_native_builds() -> None:
    from tvmlite.support import cc, popen_pool, utils

    assert utils.tempdir is tvm.contrib.utils.tempdir
    with pytest.raises(NotImplementedError, match="shared libraries"):
        cc.create_shared("x.so", [])
    with pytest.raises(NotImplementedError):
        popen_pool.PopenWorker()


def test_tir_index_arithmetic_names() -> None:
    x = tvm.tir.Var("x", "int64")
    assert str(tvm.tir.floordiv(x, 4)) == str(tvm.te.floordiv(x, 4))
    sel = tvm.tir.if_then_else(x < 3, x, x * 2)
    assert sel.dtype == "int64"
