"""Symbolic shapes at run time (computed dims, R.shape, R.match_cast), relax if/else, located
errors for mismatched operator arguments, te/topi and BlockBuilder."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, topi
from tvmlite.ir.struct_info import tensor_sinfo
from tvmlite.script import from_source

HEADER = "from tvmlite.script import ir as I, relax as R, tir as T\n"


def _vm(src):
    return relax.VirtualMachine(relax.build(from_source(HEADER + src)), tvm.cpu())


def test_computed_dims_and_match_cast():
    vm = _vm('''
@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(ndim=1, dtype="float32")):
        n = T.int64()
        with R.dataflow():
            z = R.reshape(x, (n * 4,))
            yy = R.match_cast(y, R.Tensor((n * 4,), "float32"))
            w = R.concat((z, yy), axis=0)
            R.output(w)
        return w
''')
    for n in (1, 3):
        x, y = np.random.rand(n, 4).astype("float32"), np.random.rand(n * 4).astype("float32")
        np.testing.assert_array_equal(vm["main"](x, y).numpy(), np.concatenate([x.ravel(), y]))
    with pytest.raises(ValueError, match=r"n \* 4"):
        vm["main"](np.ones((2, 4), "float32"), np.ones(5, "float32"))


def test_shape_values():
    vm = _vm('''
@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        s = R.shape([n * m, m + 1])
        return s
''')
    assert tuple(vm["main"](np.ones((2, 3), "float32"))) == (6, 4)


def test_if_else_lowering():
    vm = _vm('''
@I.ir_module
class Mod:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")):
        if c:
            y = R.exp(x)
        else:
            y = R.negative(x)
        return y
''')
    x = np.array([0.0, 1.0, -2.0], "float32")
    np.testing.assert_allclose(vm["main"](np.array(True), x).numpy(), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(vm["main"](np.array(False), x).numpy(), -x)


@pytest.mark.parametrize("body,msg", [
    ("R.add(x, y)", "do not broadcast"),
    ("R.matmul(x, y)", "reduction dims differ"),
    ("R.add(x, R.astype(y, \"int32\"))", "same dtype"),
    ("R.nn.conv2d(x, y)", "4-d"),
])
def test_located_op_errors(body, msg):
    src = HEADER + f'''
@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((4,), "float32")):
        z = {body}
        return z
'''
    with pytest.raises(Exception, match=msg) as info:
        from_source(src)
    assert ":7:" in str(info.value)  # the user's line


def test_te_create_prim_func_and_topi():
    n = te.var("n")
    A = te.placeholder((n, 8), "float32", "A")
    B = te.placeholder((6, 8), "float32", "B")
    C = topi.nn.relu(topi.nn.dense(A, B))
    k = te.reduce_axis((0, 8), "k")
    D = te.compute((n,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="D")
    f = tvm.build(te.create_prim_func([A, B, C, D]))
    a, b = np.random.rand(5, 8).astype("float32"), np.random.rand(6, 8).astype("float32")
    c, d = tvm.nd.array(np.zeros((5, 6), "float32")), tvm.nd.array(np.zeros(5, "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c, d)
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b.T, 0), rtol=1e-5)
    np.testing.assert_allclose(d.numpy(), (a * a).sum(1), rtol=1e-5)


def test_block_builder_emit_te_symbolic():
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", tensor_sinfo((n, 4)))
    w = relax.Var("w", tensor_sinfo((3, 4)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit_te(topi.nn.dense, x, w)
            gv = bb.emit_output(relax.op.nn.softmax(lv))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert "dense" in mod.names()
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a, b = np.random.rand(7, 4).astype("float32"), np.random.rand(3, 4).astype("float32")
    e = np.exp(a @ b.T - (a @ b.T).max(1, keepdims=True))
    np.testing.assert_allclose(vm["main"](a, b).numpy(), e / e.sum(1, keepdims=True), rtol=1e-5)
