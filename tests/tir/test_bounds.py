"""Compile-time bounds check (tir/bounds.py, issue 13 item 2): an index proven out of bounds
for a reachable iteration is a located error at build; guarded or unknown indices are left
alone, and the programs that hold them build and compute the right answer."""
from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import from_source
from tvmlite.script import ir as I, relax as R, tir as T
from tvmlite.script.diagnostics import DiagnosticError
from tvmlite.tir.bounds import TIRBoundsError, index_range
from tvmlite.tir.expr import Var


@T.prim_func
def oob(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi + 100000000]


def test_issue_example_raises_at_build_with_location() -> None:
    with pytest.raises(TIRBoundsError) as info:
        tvm.build(oob, target="llvm")
    err = info.value
    assert isinstance(err, DiagnosticError) and isinstance(err, IndexError)
    assert err.message == ("index out of bounds in prim_func 'oob': A[i + 100000000] takes "
                           "values 100000000..100000007, but A has extent 8 there (valid "
                           "indices 0..7)")
    lines = str(err).splitlines()
    assert lines[1] == f" --> {__file__}:{oob_line()}:13"
    assert lines[3].endswith("B[vi] = A[vi + 100000000]") and lines[4].endswith("^" * 25)


def oob_line() -> int:
    return next(i + 1 for i, ln in enumerate(open(__file__).read().splitlines())
                if ln.strip() == "B[vi] = A[vi + 100000000]")


@I.ir_module
class CallsOob:
    @T.prim_func
    def shift(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi + 1]

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = CallsOob
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((8,), "float32"))
        return y


@pytest.mark.parametrize("build", [lambda m: relax.build(m, target="llvm"),
                                   lambda m: tvm.compile(m, target="llvm")])
def test_off_by_one_in_a_module_raises_at_relax_build(build) -> None:
    with pytest.raises(TIRBoundsError, match=r"A\[i \+ 1\] takes values 1\.\.8, but A has "
                                             r"extent 8"):
        build(CallsOob)


BAD = '''
@T.prim_func
def f(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4, 6), "float32")):
    for i, j in T.grid(4, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, 5 - vj - 1]
'''


def test_from_source_program_shows_line_and_caret() -> None:
    with pytest.raises(TIRBoundsError) as info:
        tvm.build(from_source(BAD, name="bad_bounds.py"), target="llvm")
    text = str(info.value).splitlines()
    assert "takes values -1..4 along axis 1, but A has extent 6" in text[0]
    assert text[1] == " --> bad_bounds.py:7:13"
    assert text[3].endswith("B[vi, vj] = A[vi, 5 - vj - 1]")


@T.prim_func
def guarded(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"),
            C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = T.if_then_else(vi >= 1, A[vi - 1], T.float32(0))
            if vi < 7:
                C[vi] = A[vi + 1]
            else:
                C[vi] = T.float32(0)


@T.prim_func
def predicated(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i0, i1 in T.grid(3, 4):
        with T.block("B"):
            vi = T.axis.spatial(10, i0 * 4 + i1)
            T.where(i0 * 4 + i1 < 10)
            B[vi] = A[vi] * T.float32(2)


@T.prim_func
def symbolic(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi]


def test_guarded_and_unknown_accesses_build_and_run() -> None:
    a = np.arange(1, 11, dtype="float32")
    b, c = np.zeros(8, "float32"), np.zeros(8, "float32")
    out_b, out_c = tvm.nd.array(b), tvm.nd.array(c)
    tvm.build(guarded, target="llvm")(tvm.nd.array(a[:8]), out_b, out_c)
    np.testing.assert_array_equal(out_b.numpy(), np.r_[0, a[:7]])
    np.testing.assert_array_equal(out_c.numpy(), np.r_[a[1:8], 0])
    out = tvm.nd.array(np.zeros(10, "float32"))
    tvm.build(predicated, target="llvm")(tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a * 2)
    out = tvm.nd.array(np.zeros(10, "float32"))
    tvm.build(symbolic, target="llvm")(tvm.nd.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a)


def test_index_range_is_exact_for_affine_indices() -> None:
    i, j = Var("i", "int32"), Var("j", "int32")
    loops = {i: (0, 4), j: (2, 3)}
    assert index_range(i * 3 - j + 1, loops) == (-3, 8)  # brute force: below
    values = [a * 3 - b + 1 for a in range(4) for b in range(2, 5)]
    assert (min(values), max(values)) == (-3, 8)
    assert index_range(i // 2, loops) is None  # floordiv: not claimed exact


@T.prim_func
def scratch_too_small(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((4,), "float32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi]


def test_allocated_buffer_is_checked_too() -> None:
    with pytest.raises(TIRBoundsError, match=r"B\[i\] takes values 0\.\.7, but B has extent 4"):
        tvm.build(scratch_too_small, target="llvm")
