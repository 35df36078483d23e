"""`while` in TIR: parsed, printed (and read back), run by the interpreter, the LLVM backend and
emitted as C for CUDA, each against a Python reference."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir.interpreter import run as interpret


@T.prim_func
def collatz(A: T.Buffer((8,), "int32"), S: T.Buffer((8,), "int32")):
    n = T.alloc_buffer((1,), "int32")
    for i in range(8):
        n[0] = A[i]
        S[i] = 0
        while n[0] != 1:
            if n[0] % 2 == 0:
                n[0] = n[0] // 2
            else:
                n[0] = n[0] * 3 + 1
            S[i] = S[i] + 1


def steps(x: int) -> int:
    count = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        count += 1
    return count


A = np.array([1, 2, 3, 6, 7, 9, 27, 97], "int32")
WANT = np.array([steps(int(x)) for x in A], "int32")


def test_while_runs_on_the_cpu() -> None:
    s = np.zeros(8, "int32")
    tvm.build(collatz, target="llvm")(A, s)
    np.testing.assert_array_equal(s, WANT)


def test_while_in_the_interpreter() -> None:
    s = np.zeros(8, "int32")
    interpret(collatz, A, s)
    np.testing.assert_array_equal(s, WANT)


def test_while_prints_and_reads_back() -> None:
    text = collatz.script()
    assert "        while n[0] != 1:\n" in text
    assert_structural_equal(from_source(text), collatz)


def test_while_in_cuda_source() -> None:
    @T.prim_func
    def halve(A: T.Buffer((64,), "int32")):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            while A[tx] > 1:
                A[tx] = A[tx] // 2

    src = tvm.build(halve, target="cuda").get_source()
    assert "while (A[tx] > 1) {" in src  # an int32 shape and index: no widening cast
