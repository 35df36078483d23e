"""The te op protocol (TVM's `te.Operation`: output(i), num_outputs, input_tensors) on every op
kind, and `te.scan` (a recurrence described, refused by create_prim_func as in TVM)."""

import pytest

from tvmlite import ir, te, tirx


def test_compute_outputs_and_inputs() -> None:
    a = te.placeholder((4, 3), name="a")
    b = te.placeholder((3,), name="b")
    c = te.compute((4, 3), lambda i, j: a[i, j] * b[j] + a[i, j], name="c")
    assert c.op.output(0) is c
    assert {c.op.output(0): 1}[c] == 1
    assert c.op.num_outputs == 1
    assert c.op.input_tensors == [a, b]  # first use order, each once
    with pytest.raises(IndexError, match="1 output"):
        c.op.output(1)


def test_reduction_and_multi_output_inputs() -> None:
    a = te.placeholder((4, 3), name="a")
    k = te.reduce_axis((0, 3), "k")
    s = te.compute((4,), lambda i: te.sum(a[i, k], axis=k), name="s")
    assert s.op.input_tensors == [a]
    x, y = te.compute((4,), lambda i: (s[i] + 1.0, a[i, 0]), name="xy")
    assert [x.op.output(0), x.op.output(1)] == [x, y] and x.op.num_outputs == 2
    assert x.op.input_tensors == [s, a]


def test_placeholder_and_extern_ops() -> None:
    a = te.placeholder((5,), name="a")
    assert a.op.output(0) is a and a.op.input_tensors == [] and isinstance(a.op, te.Operation)

    def body(ins, outs):
        return tirx.call_packed("f", ins[0].data, outs[0].data, outs[1].data)

    r0, r1 = te.extern([(5,), (5,)], [a], body, name="ext")
    assert (r0.value_index, r1.value_index) == (0, 1)
    assert r0.op.output(1) is r1 and r0.op.input_tensors == [a]


def test_expr_type_equals_prim_type() -> None:
    a = te.placeholder((2,), name="a")
    assert a[0].astype("float16").ty == ir.PrimType("float16")
    assert a[0].ty != ir.PrimType("float16")


def _cumsum_scan():
    m, n = te.var("m"), te.var("n")
    x = te.placeholder((m, n), name="x")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: x[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + x[t, i], name="update")
    return x, state, init, update


def test_scan_describes_the_recurrence() -> None:
    x, state, init, update = _cumsum_scan()
    res = te.scan(init, update, state, name="cumsum")
    assert isinstance(res.op, te.ScanOp) and res.shape == update.shape
    assert res.op.input_tensors == [init, update]
    axis = res.op.scan_axis
    assert int(axis.dom.min) == 1
    assert ir.structural_equal(axis.dom.extent, x.shape[0] - 1)


def test_scan_with_several_states() -> None:
    x, state, init, update = _cumsum_scan()
    init2 = te.compute((1, x.shape[1]), lambda _, i: x[0, i] * 2.0, name="init2")
    r0, r1 = te.scan([init, init2], [update, update], [state, state])
    assert (r0.value_index, r1.value_index) == (0, 1) and r0.op.output(1) is r1
    with pytest.raises(ValueError, match="same, non-zero length"):
        te.scan([init], [update, update], [state])


def test_create_prim_func_refuses_a_scan() -> None:
    x, state, init, update = _cumsum_scan()
    res = te.scan(init, update, state)
    with pytest.raises(TypeError, match="ScanOp"):
        te.create_prim_func([x, state, res])
