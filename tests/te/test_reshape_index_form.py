"""topi.reshape's input index in the form TVM 0.27's simplifier leaves it (each expected line
printed by apache-tvm 0.27 for the same reshape), and the values it reads (numpy)."""

import re

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi

# (input shape, output shape) -> the input index TVM prints (T.int64(k) written k, v_ax -> v_i)
TVM_FORMS = {
    ((6, 2), (3, 2, 2)): "(v_i0 * 2 + v_i2 // 2 + v_i1) % 6, v_i2 % 2",
    ((2, 4, 4, 5), (2, 2, 2, 4, 5)): "((v_i1 * 2 + (v_i4 // 5 + v_i3) // 4 + v_i2) // 4 + v_i0) % 2"
    ", (v_i1 * 2 + (v_i4 // 5 + v_i3) // 4 + v_i2) % 4, (v_i4 // 5 + v_i3) % 4, v_i4 % 5",
    ((4, 32, 16, 8), (128, 16, 8)): "((v_i2 // 8 + v_i1) // 16 + v_i0) % 128 // 32, "
    "((v_i2 // 8 + v_i1) // 16 + v_i0) % 32, (v_i2 // 8 + v_i1) % 16, v_i2 % 8",
    ((3,), (1, 3, 1, 1)): "(v_i1 + v_i2 + v_i3) % 3",
    ((2, 3, 4), (24,)): "v_i0 % 24 // 12, v_i0 % 12 // 4, v_i0 % 4",
    ((4, 6), (3, 8)): "(v_i0 * 8 + v_i1) % 24 // 6, (v_i0 * 8 + v_i1) % 6",
    ((8, 3), (2, 12)): "(v_i0 * 4 + v_i1 // 3) % 8, v_i1 % 3",
    ((2, 2, 2, 4, 5), (2, 4, 4, 5)): "(((v_i3 // 5 + v_i2) // 4 + v_i1) // 4 + v_i0) % 2, "
    "((v_i3 // 5 + v_i2) // 4 + v_i1) % 4 // 2, ((v_i3 // 5 + v_i2) // 4 + v_i1) % 2, "
    "(v_i3 // 5 + v_i2) % 4, v_i3 % 5",
}


def _reshape(src, dst):
    a = te.placeholder([tvm.tir.IntImm("int64", d) for d in src], name="A")
    return a, topi.reshape(a, [tvm.tir.IntImm("int64", d) for d in dst])


@pytest.mark.parametrize("shapes", list(TVM_FORMS))
def test_reshape_index_is_tvms(shapes):
    a, b = _reshape(*shapes)
    text = te.create_prim_func([a, b]).script().replace("T.int64(", "(")
    line = next(ln for ln in text.splitlines() if "T_reshape[" in ln and "] = A[" in ln)
    got = line.split("] = A[", 1)[1].rstrip("]")
    want = TVM_FORMS[shapes]
    assert re.sub(r"\((\d+)\)", r"\1", got) == want


@pytest.mark.parametrize("shapes", list(TVM_FORMS))
def test_reshape_reads_the_row_major_element(shapes):
    a, b = _reshape(*shapes)
    f = tvm.build(te.create_prim_func([a, b]), target="llvm")
    x = np.arange(np.prod(shapes[0]), dtype="float32").reshape(shapes[0])
    out = tvm.nd.array(np.zeros(shapes[1], "float32"))
    f(tvm.nd.array(x), out)
    np.testing.assert_array_equal(out.numpy(), x.reshape(shapes[1]))
