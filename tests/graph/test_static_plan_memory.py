"""`StaticPlanBlockMemory`: explicit allocations planned into shared storages. The expected
plans are apache-tvm 0.27's output for the same modules (its printed storages and sizes)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

PLAN = relax.transform.StaticPlanBlockMemory()


@I.ir_module
class Chain:
    @T.prim_func
    def exp(A: T.Buffer((2, 8), "float32"), B: T.Buffer((2, 8), "float32")):
        T.evaluate(0)

    @T.prim_func
    def big(A: T.Buffer((2, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T.evaluate(0)

    @T.prim_func
    def small(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2, 8), "float32")) -> R.Tensor((8,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Chain
        a = R.builtin.alloc_tensor(R.shape([2, 8]), "float32", 0)
        _ = cls.exp(x, a)
        b = R.builtin.alloc_tensor(R.shape([4, 8]), "float32", 0)
        _1 = cls.big(a, b)
        c = R.builtin.alloc_tensor(R.shape([2, 8]), "float32", 0)
        _2 = cls.exp(x, c)
        d = R.builtin.alloc_tensor(R.shape([4, 8]), "float32", 0)
        _3 = cls.big(c, d)
        e = R.builtin.alloc_tensor(R.shape([8]), "float32", 0)
        _4 = cls.small(d, e)
        t = (b, e)
        b2 = t[0]
        f = R.builtin.alloc_tensor(R.shape([8]), "float32", 0)
        _5 = cls.small(b2, f)
        return f


def _plan_of(func):
    """Each allocated var -> (storage index, storage bytes), or None where left unplanned."""
    storages, plan = {}, {}
    for b in func.body.blocks[0].bindings:
        if not isinstance(b.value, relax.Call) or not isinstance(b.value.op, tvm.ir.Op):
            continue
        name = b.value.op.name
        if name == "relax.memory.alloc_storage":
            storages[b.var] = (len(storages), b.value.args[0].values[0].value)
        elif name == "relax.memory.alloc_tensor":
            plan[b.var.name_hint] = storages[b.value.args[0]]
        elif name == "relax.builtin.alloc_tensor":
            plan[b.var.name_hint] = None
    return plan


def test_reuse_after_last_use_and_outputs_keep_their_own():
    # apache-tvm: storage(64) for a, c, e; storage1(128) for b (alive through the tuple);
    # storage2(128) for d; f is returned, so it keeps R.builtin.alloc_tensor
    plan = _plan_of(PLAN(Chain)["main"])
    assert plan == {"a": (0, 64), "b": (1, 128), "c": (0, 64), "d": (2, 128), "e": (0, 64),
                    "f": None}


def test_upper_bound_sizes_symbolic_storage():
    @I.ir_module
    class Mod:
        @T.prim_func
        def fill(a: T.handle, b: T.handle):
            T.evaluate(0)

        @R.function
        def main(x: R.Tensor((2, "n"), "float32")):
            n = T.int64()
            R.func_attr({"tir_var_upper_bound": {"n": 4}, "relax.force_pure": True})
            cls = Mod
            a = R.builtin.alloc_tensor(R.shape([2, n]), "float32", 0)
            _ = cls.fill(x, a)
            b = R.builtin.alloc_tensor(R.shape([2 * n + 2]), "float32", 0)
            _1 = cls.fill(a, b)
            return x

    # apache-tvm: (2, n) with n <= 4 takes 32 bytes; (2n + 2,) takes 40, growing a's storage
    plan = _plan_of(PLAN(Mod)["main"])
    assert plan == {"a": (0, 32), "b": (1, 40)}
    bad = Mod.functions[Mod.get_global_var("main")].with_attr("tir_var_upper_bound", {"n": [4]})
    Mod.update_func(Mod.get_global_var("main"), bad)
    with pytest.raises(TypeError, match="tir_var_upper_bound"):
        PLAN(Mod)


def test_symbolic_size_is_tvm_form():
    @I.ir_module
    class Mod:
        @T.prim_func
        def fill(a: T.handle, b: T.handle):
            T.evaluate(0)

        @R.function
        def main(x: R.Tensor(("m", "n"), "float32")):
            m, n = T.int64(), T.int64()
            R.func_attr({"relax.force_pure": True})
            a = R.builtin.alloc_tensor(R.shape([2, m, n]), "float32", 0)
            _ = Mod.fill(x, a)
            return x

    # apache-tvm prints R.shape([T.int64(8) * (m * n)])
    m, n = (v for v in Mod["main"].params[0].struct_info.shape)
    storage = PLAN(Mod)["main"].body.blocks[0].bindings[0].value
    assert tvm.ir.structural_equal(storage.args[0].values[0], 8 * (m * n))


@I.ir_module
class Runnable:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Runnable
        a = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _ = cls.add_one(x, a)
        b = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _1 = cls.add_one(a, b)
        c = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _2 = cls.add_one(b, c)
        d = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _3 = cls.add_one(c, d)
        return d


def test_planned_module_runs():
    planned = PLAN(Runnable)
    assert _plan_of(planned["main"]) == {"a": (0, 16), "b": (1, 16), "c": (0, 16), "d": None}
    vm = relax.VirtualMachine(relax.build(planned, "llvm"), tvm.cpu())
    x = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), x + 4)


def test_estimate_of_a_planned_module():
    # apache-tvm 0.27 prints this report for Chain after StaticPlanBlockMemory: 6 tensors
    # (64+128+64+128+32+32 = 448 bytes), 3 storages + 1 output (64+128+128+32 = 352 bytes)
    report = relax.analysis.estimate_memory_usage(PLAN(Chain))
    assert report == (
        "Memory usage estimation:\n- Function main:\n"
        " * Without memory planning, there are 6 constant-size memory allocation(s) with "
        "total size 4.172e-07 GB.\n"
        " * With memory planning, there are 4 constant-size memory allocation(s) with "
        "total size 3.278e-07 GB.\n"
        " * Memory planning reduces constant memory size to 78.6%.\n")
