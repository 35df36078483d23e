"""The native fast path for functions whose only unknowns are symbolic dims (vm/fastpath.py,
compile_symbolic): same results and same errors as the reference interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import new_syntax_modules as modern
import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I, relax as R, tir as T
from tvmlite.vm import ndarray as nd

RNG = np.random.default_rng(7)
WEIGHTS = [RNG.standard_normal(s).astype("float32") for s in [(128, 784), (128,), (10, 128), (10,)]]


@I.ir_module
class Twice:
    """Two inputs sharing n (check_dim_equal) and an output of n * 2 (eval_shape)."""

    @T.prim_func(s_tir=True)
    def cat(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n * 2,), "float32")
        for i in range(n):
            with T.sblock("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi]
                C[vi + n] = B[vi]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Twice
        with R.dataflow():
            out = R.call_tir(cls.cat, (x, y), out_sinfo=R.Tensor((n * 2,), "float32"))
            R.output(out)
        return out


@pytest.fixture(scope="module")
def mlp_ex():
    return tvm.compile(modern.DynamicMLP, target="llvm")


def _mlp_args(batch: int) -> list[nd.NDArray]:
    x = RNG.standard_normal((batch, 784)).astype("float32")
    return [tvm.nd.array(x)] + [tvm.nd.array(w) for w in WEIGHTS]


def test_the_symbolic_fast_path_is_taken(mlp_ex) -> None:
    assert relax.VirtualMachine(mlp_ex, tvm.cpu())["main"].fast_path == "symbolic"
    assert relax.VirtualMachine(tvm.compile(Twice, target="llvm"))["main"].fast_path == "symbolic"


@pytest.mark.parametrize("batch", [1, 2, 5, 8, 33])
def test_same_as_interpreter(mlp_ex, batch: int) -> None:
    fast = relax.VirtualMachine(mlp_ex, tvm.cpu())["main"]
    ref = relax.VirtualMachine(mlp_ex, tvm.cpu(), mode="interpreter")["main"]
    args = _mlp_args(batch)
    out = fast(*args)
    assert out.shape == (batch, 10) and out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), ref(*args).numpy())
    np.testing.assert_array_equal(fast(*[a.numpy() for a in args]).numpy(), out.numpy())


def test_arena_grows_and_is_reused(mlp_ex) -> None:
    fast = relax.VirtualMachine(mlp_ex, tvm.cpu())["main"]
    ref = relax.VirtualMachine(mlp_ex, tvm.cpu(), mode="interpreter")["main"]
    sizes = []
    for batch in (2, 64, 2):
        args = _mlp_args(batch)
        np.testing.assert_array_equal(fast(*args).numpy(), ref(*args).numpy())
        # NOTE: the weights alone pass GIL_RELEASE_BYTES, so the calls use the arena the
        # binder keeps for calls that release the GIL (never taken here: no pool arena made)
        arena = fast.binder.released[0]
        sizes.append((arena.size, arena.ctypes.data))
        assert not fast.binder.pool.free
    assert sizes[1][0] > sizes[0][0] >= 2 * 2 * 128 * 4  # two (n, 128) intermediates
    assert sizes[2] == sizes[1]  # big enough already: kept, not reallocated


def test_shared_arena_of_small_calls_grows_and_is_reused() -> None:
    """Calls below GIL_RELEASE_BYTES run holding the GIL and share the binder's one arena."""
    fast = relax.VirtualMachine(tvm.compile(Twice, target="llvm"))["main"]
    sizes = []
    for n in (3, 50, 3):
        x, y = (RNG.standard_normal(n).astype("float32") for _ in range(2))
        np.testing.assert_array_equal(fast(tvm.nd.array(x), tvm.nd.array(y)).numpy(),
                                      np.concatenate([x, y]))
        sizes.append((fast.binder.arena.size, fast.binder.arena.ctypes.data))
    assert sizes[1] == sizes[2] and not fast.binder.pool.free


def test_outputs_are_fresh_arrays(mlp_ex) -> None:
    fast = relax.VirtualMachine(mlp_ex, tvm.cpu())["main"]
    args = _mlp_args(4)
    a, b = fast(*args), fast(*args)
    arena = fast.binder.arena
    lo, hi = arena.ctypes.data, arena.ctypes.data + arena.size
    for r in (a, b):
        assert r._ptr == r._arr.ctypes.data and not lo <= r._ptr < hi
    assert a._ptr != b._ptr
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_eval_shape_and_equal_dims() -> None:
    ex = tvm.compile(Twice, target="llvm")
    fast = relax.VirtualMachine(ex)["main"]
    ref = relax.VirtualMachine(ex, mode="interpreter")["main"]
    for n in (1, 3, 100, 3):
        x, y = (RNG.standard_normal(n).astype("float32") for _ in range(2))
        out = fast(tvm.nd.array(x), tvm.nd.array(y))
        np.testing.assert_array_equal(out.numpy(), np.concatenate([x, y]))
        np.testing.assert_array_equal(out.numpy(), ref(tvm.nd.array(x), tvm.nd.array(y)).numpy())


def _message(f, args) -> str:
    with pytest.raises(ValueError) as info:
        f(*args)
    return str(info.value)


@pytest.mark.parametrize("index, bad, name", [
    (0, np.zeros((784,), "float32"), "x"),  # rank
    (0, np.zeros((2, 784), "float64"), "x"),  # dtype
    (0, np.zeros((2, 783), "float32"), "x"),  # static dim of a symbolic parameter
    (1, np.zeros((128, 783), "float32"), "w0"),  # static dim of a static parameter
    (2, np.zeros((64,), "float32"), "b0"),
])
def test_bad_inputs_raise_like_the_reference(mlp_ex, index: int, bad, name: str) -> None:
    fast = relax.VirtualMachine(mlp_ex, tvm.cpu())["main"]
    ref = relax.VirtualMachine(mlp_ex, tvm.cpu(), mode="interpreter")["main"]
    fast(*_mlp_args(2))  # a cached binding must not hide the check
    args = _mlp_args(2)
    args[index] = tvm.nd.array(bad)
    message = _message(fast, args)
    assert f"'{name}'" in message and message == _message(ref, args)


def test_inconsistent_symbolic_dims_raise() -> None:
    ex = tvm.compile(Twice, target="llvm")
    fast = relax.VirtualMachine(ex)["main"]
    ref = relax.VirtualMachine(ex, mode="interpreter")["main"]
    fast(tvm.nd.array(np.zeros(3, "float32")), tvm.nd.array(np.zeros(3, "float32")))
    args = (tvm.nd.array(np.zeros(3, "float32")), tvm.nd.array(np.zeros(4, "float32")))
    message = _message(fast, args)
    assert "'y'" in message and message == _message(ref, args)


def test_wrong_argument_count(mlp_ex) -> None:
    fast = relax.VirtualMachine(mlp_ex, tvm.cpu())["main"]
    with pytest.raises(ValueError, match="takes 5 arguments, got 1"):
        fast(*_mlp_args(2)[:1])
