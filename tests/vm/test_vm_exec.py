"""VM execution: every path (native fast path, closures, interpreter) on hand-built bytecode."""

from __future__ import annotations

import numpy as np
import pytest
import vmtools as V

from tvmlite.vm import ndarray as nd
from tvmlite.vm.fastpath import compile_static
from tvmlite.vm.registry import register_func, remove_global_func
from tvmlite.vm.static_plan import analyze
from tvmlite.vm.vm import VirtualMachine, VMFunctionError

MODES = ["auto", "closure", "interpreter"]
X = np.array([1.5, -2.0, 0.0, 3.25], np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [1, 2, 10, 100])
def test_static_chain(mode: str, n: int) -> None:
    vm = VirtualMachine(V.executable(V.chain(n)), mode=mode)
    out = vm["main"](nd.array(X))
    assert isinstance(out, nd.NDArray) and out.shape == (4,) and out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), X + np.float32(n))
    np.testing.assert_array_equal(vm["main"](X).numpy(), X + np.float32(n))  # numpy input


def test_fast_path_is_taken_and_arena_is_reused() -> None:
    ex = V.executable(V.chain(10))
    plan = analyze(ex, ex.functions["main"])
    assert plan.arena_bytes == 128  # 9 intermediates, two live at a time, 64-byte aligned
    assert len(plan.outputs) == 1
    assert compile_static(ex, ex.functions["main"], nd.cpu(), lambda a: None) is not None


def test_outputs_are_fresh_each_call() -> None:
    f = VirtualMachine(V.executable(V.chain(3)))["main"]
    a, b = f(nd.array(X)), f(nd.array(X + 10))
    assert a._ptr != b._ptr and a._ptr == a._arr.ctypes.data
    np.testing.assert_array_equal(a.numpy(), X + 3)
    np.testing.assert_array_equal(b.numpy(), X + 13)


@pytest.mark.parametrize("mode", MODES)
def test_dps_packed_function(mode: str) -> None:
    @register_func("test.vm.double_dps", override=True)
    def double(x: nd.NDArray, out: nd.NDArray) -> None:
        assert isinstance(x, nd.NDArray)
        np.multiply(np.from_dlpack(x), 2, out=np.from_dlpack(out))  # writes through DLPack

    table = V.TABLE + [V.FuncEntry("packed", "test.vm.double_dps")]
    ex = V.executable(V.dps_function(len(V.TABLE)), table=table)
    assert analyze is not None and compile_static(ex, ex.functions["main"], nd.cpu(),
                                                  lambda a: None) is None
    out = VirtualMachine(ex, mode=mode)["main"](nd.array(X))
    np.testing.assert_array_equal(out.numpy(), (X + 1) * 2)
    remove_global_func("test.vm.double_dps")


def test_packed_function_registered_late_and_missing() -> None:
    table = V.TABLE + [V.FuncEntry("packed", "test.vm.late")]
    vm = VirtualMachine(V.executable(V.dps_function(len(V.TABLE)), table=table))
    with pytest.raises(ValueError, match="test.vm.late"):
        vm["main"](nd.array(X))
    register_func("test.vm.late", lambda x, out: out.copyfrom(x))
    np.testing.assert_array_equal(vm["main"](nd.array(X)).numpy(), X + 1)
    remove_global_func("test.vm.late")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [1, 3, 7])
def test_symbolic_dims(mode: str, n: int) -> None:
    vm = VirtualMachine(V.executable(V.symbolic()), mode=mode)
    x = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(vm["main"](nd.array(x), nd.array(x)).numpy(), x + 1)
    with pytest.raises(ValueError, match=r"'y'.*\bn\b.*3.*got 2"):
        vm["main"](nd.array(np.zeros(3, np.float32)), nd.array(np.zeros(2, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_if_goto(mode: str) -> None:
    vm = VirtualMachine(V.executable(V.branchy()), mode=mode)
    np.testing.assert_array_equal(vm["main"](nd.array(X), 1).numpy(), X + 1)
    np.testing.assert_array_equal(vm["main"](nd.array(X), 0).numpy(), X - 1)


@pytest.mark.parametrize("mode", MODES)
def test_constants_scalars_and_tuple_return(mode: str) -> None:
    c = np.array([10, 20, 30, 40], np.float32)
    ex = V.executable(V.with_constant(4), constants=[nd.array(c), 2.0])
    out = VirtualMachine(ex, mode=mode)["main"](nd.array(X))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_array_equal(out[0].numpy(), (X + c) * 2)
    np.testing.assert_array_equal(out[1].numpy(), X + c)


def test_fast_path_matches_interpreter_randomized() -> None:
    rng = np.random.default_rng(0)
    ex = V.executable(V.chain(5))
    fast, ref = VirtualMachine(ex)["main"], VirtualMachine(ex, mode="interpreter")["main"]
    for _ in range(50):
        x = rng.standard_normal(4).astype(np.float32)
        np.testing.assert_array_equal(fast(nd.array(x)).numpy(), ref(nd.array(x)).numpy())


BAD_CALLS = [
    ((), VMFunctionError, r"main\(x: R.Tensor\(\(4,\), 'float32'\)\) takes 1 argument, got 0"),
    ((X, X), VMFunctionError, r"main.*takes 1 argument, got 2"),
    ((X.astype(np.float64),), ValueError, r"'x'.*expected dtype float32, got float64"),
    ((X.reshape(2, 2),), ValueError, r"'x'.*expected a rank-1 tensor, got rank 2"),
    ((np.zeros(5, np.float32),), ValueError, r"'x'.*expected shape\[0\] == 4, got 5"),
    (("hello",), ValueError, r"'x'.*expected a tensor, got str"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("args,exc,msg", BAD_CALLS)
def test_bad_inputs(mode: str, args: tuple, exc: type, msg: str) -> None:
    f = VirtualMachine(V.executable(V.chain(2)), mode=mode)["main"]
    wrapped = tuple(nd.array(a) if isinstance(a, np.ndarray) else a for a in args)
    for call_args in (args, wrapped):
        with pytest.raises(exc, match=msg):
            f(*call_args)


def test_argument_count_error_is_runtime_error_too() -> None:
    with pytest.raises(RuntimeError):
        VirtualMachine(V.executable(V.chain(1)))["main"]()


def test_unknown_function_and_mode() -> None:
    vm = VirtualMachine(V.executable(V.chain(1)))
    with pytest.raises(AttributeError, match="main"):
        vm["nope"]
    with pytest.raises(ValueError, match="mode"):
        VirtualMachine(V.executable(V.chain(1)), mode="jit")


def test_time_evaluator_and_stateful() -> None:
    vm = VirtualMachine(V.executable(V.chain(2)))
    res = vm.time_evaluator("main", nd.cpu(), number=5, repeat=3)(nd.array(X))
    assert len(res.results) == 3 and res.mean > 0 and res.median > 0
    vm.set_input("main", nd.array(X))
    vm.invoke_stateful("main")
    np.testing.assert_array_equal(vm.get_outputs("main").numpy(), X + 2)


@pytest.mark.parametrize("mode", MODES)
def test_callable_outlives_vm_and_executable(mode: str) -> None:
    import gc

    f = VirtualMachine(V.executable(V.chain(3)), mode=mode)["main"]
    gc.collect()  # the JIT engine must stay alive as long as the callable does
    np.testing.assert_array_equal(f(nd.array(X)).numpy(), X + 3)
