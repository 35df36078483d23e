"""Loops with a step (TVM 0.27's `For.step`): parsed, printed as TVM 0.27 prints them (expected
texts are apache-tvm 0.27's output), compiled with the values a Python range would take."""

import numpy as np
import tvmlite as tvm
from tvmlite import tir
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir.loop_steps import unit_steps


@T.prim_func
def stepped(A: T.Buffer((20,), "float32"), tid: T.int32, v: T.int32):
    for i in T.serial(tid, 20, step=3):
        A[i] = A[i] + T.float32(1)
    for i in range(0, 20, 4):
        A[i] = A[i] + T.float32(10)
    for i in T.unroll(0, 7, step=v):
        A[i] = A[i] + T.float32(100)


def test_steps_parse_onto_the_loops():
    loops = stepped.body.seq
    assert int(loops[0].step) == 3 and int(loops[1].step) == 4 and loops[2].step is v_param()
    plain = from_source("@T.prim_func\ndef f(A: T.Buffer((4,), 'float32')):\n"
                        "    for i in T.serial(4, step=1):\n        A[i] = T.float32(0)\n")
    assert plain.body.step is None  # a unit step is the plain loop


def v_param() -> tir.Var:
    return stepped.params[2]


def test_stepped_loops_print_as_tvm_0_27_and_read_back():
    text = stepped.script()
    assert "    for i in range(tid, tid + (20 - tid), 3):\n" in text
    assert "    for i in range(0, 20, 4):\n" in text
    assert "    for i in T.unroll(0, 7, step=v):\n" in text
    assert_structural_equal(from_source(text), stepped)


def test_stepped_loops_run_over_the_values_of_a_python_range():
    lib = tvm.build(stepped)
    a = tvm.nd.array(np.zeros(20, "float32"))
    lib(a, 2, 2)
    expected = np.zeros(20, "float32")
    for i in range(2, 20, 3):
        expected[i] += 1
    for i in range(0, 20, 4):
        expected[i] += 10
    for i in range(0, 7, 2):
        expected[i] += 100
    np.testing.assert_array_equal(a.numpy(), expected)


def test_unit_steps_counts_the_trips():
    loop = unit_steps(stepped).body.seq[1]
    assert loop.step is None and int(loop.min) == 0 and int(loop.extent) == 5
    assert unit_steps(loop) is loop
