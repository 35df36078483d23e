"""The reference interpreter as oracle: hypothesis generates small loop programs and schedules;
the compiled kernel (serial, parallel, vectorized, unrolled) must equal the interpreter."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvmlite as tvm
from tvmlite.script import from_source
from tvmlite.tir.interpreter import run as interpret
from tvmlite.tir.schedule import Schedule

HEADER = "from tvmlite.script import tir as T\n"
# more examples for a soak run: TVMLITE_HYPOTHESIS_SCALE=10
SCALE = int(os.environ.get("TVMLITE_HYPOTHESIS_SCALE", "1"))

ELEMWISE = HEADER + '''
@T.prim_func
def main(A: T.Buffer(({n}, {m}), "{dt}"), B: T.Buffer(({n}, {m}), "{dt}"),
         C: T.Buffer(({n}, {m}), "{dt}")):
    for i, j in T.grid({n}, {m}):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = {expr}
'''

REDUCE = HEADER + '''
@T.prim_func
def main(A: T.Buffer(({n}, {m}), "{dt}"), B: T.Buffer(({n}, {m}), "{dt}"),
         C: T.Buffer(({n},), "{dt}")):
    for i, k in T.grid({n}, {m}):
        with T.block("C"):
            vi, vj = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = {zero}
            C[vi] = C[vi] + {expr}
'''

LEAVES = ["A[vi, vj]", "B[vi, vj]", "A[vi, 0]", "B[0, vj]"]


def expressions(dt: str) -> st.SearchStrategy[str]:
    one = "T.float32(1.5)" if dt == "float32" else "T.int32(3)"
    leaf = st.sampled_from(LEAVES + [one])
    ops = ["+", "-", "*"]

    def grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(children, st.sampled_from(ops), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")
        minmax = st.tuples(st.sampled_from(["T.max", "T.min"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})")
        select = st.tuples(children, children, children).map(
            lambda t: f"T.Select({t[0]} < {t[1]}, {t[1]}, {t[2]})")
        return st.one_of(binary, minmax, select)

    return st.recursive(leaf, grow, max_leaves=6)


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, str, int, int, bool]:
    dt = draw(st.sampled_from(["float32", "int32"]))
    n, m = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    reduce = draw(st.booleans())
    expr = draw(expressions(dt))
    zero = "T.float32(0)" if dt == "float32" else "T.int32(0)"
    src = (REDUCE if reduce else ELEMWISE).format(n=n, m=m, dt=dt, expr=expr, zero=zero)
    return src, dt, n, m, reduce


@st.composite
def schedules(draw: st.DrawFn, reduce: bool) -> list[tuple[str, int]]:
    steps = draw(st.lists(st.tuples(
        st.sampled_from(["split", "parallel", "vectorize", "unroll", "reorder", "fuse"]),
        st.integers(1, 5)), max_size=4))
    return steps


def apply(sch: Schedule, steps: list[tuple[str, int]]) -> None:
    """Applies what is legal of `steps`; illegal ones must raise ScheduleError and change
    nothing (checked by the result comparison afterwards)."""
    from tvmlite.tir.schedule import ScheduleError

    for name, arg in steps:
        loops = sch.get_loops(sch.get_block("C"))
        loop = loops[arg % len(loops)]
        before = sch.mod
        try:
            if name == "split":
                sch.split(loop, [None, arg])
            elif name == "reorder" and len(loops) > 1:
                sch.reorder(loops[-1], loops[0])
            elif name == "fuse" and len(loops) > 1:
                sch.fuse(loops[0], loops[1])
            elif name in ("parallel", "vectorize", "unroll"):
                getattr(sch, name)(loop)
        except ScheduleError:
            assert sch.mod is before


def _inputs(dt: str, n: int, m: int, reduce: bool, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if dt == "float32":
        a, b = (rng.integers(-4, 5, (2, n, m)) / 2).astype("float32")  # exact in float32
    else:
        a, b = rng.integers(-50, 50, (2, n, m)).astype("int32")
    out = np.zeros((n,) if reduce else (n, m), dt)
    return [a, b, out]


@settings(max_examples=60 * SCALE, deadline=None)
@given(programs(), st.data())
def test_compiled_equals_interpreter(program, data) -> None:
    src, dt, n, m, reduce = program
    func = from_source(src)
    sch = Schedule(func)
    apply(sch, data.draw(schedules(reduce)))
    args = _inputs(dt, n, m, reduce, seed=n * 10 + m)
    ref = [x.copy() for x in args]
    interpret(func, *ref)  # the unscheduled program, interpreted
    scheduled = [x.copy() for x in args]
    interpret(sch.mod["main"], *scheduled)
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(scheduled[-1], ref[-1], rtol=1e-6)
    np.testing.assert_allclose(args[-1], ref[-1], rtol=1e-5, atol=1e-5)


def test_interpreter_semantics_of_int_division_and_wrapping() -> None:
    func = from_source(HEADER + '''
@T.prim_func
def main(A: T.Buffer((4,), "int32"), C: T.Buffer((4, 4), "int32")):
    for i in range(4):
        with T.block("C"):
            vi = T.axis.spatial(4, i)
            C[vi, 0] = A[vi] // 3
            C[vi, 1] = T.floormod(A[vi], 3)
            C[vi, 2] = T.truncdiv(A[vi], 3)
            C[vi, 3] = A[vi] * 2147483647
''')
    a = np.array([-7, -1, 5, 9], "int32")
    ref, out = np.zeros((4, 4), "int32"), np.zeros((4, 4), "int32")
    interpret(func, a, ref)
    tvm.build(func)(a, out)
    np.testing.assert_array_equal(ref, out)
    np.testing.assert_array_equal(ref[:, 0], a // 3)
    np.testing.assert_array_equal(ref[:, 2], np.trunc(a / 3).astype("int32"))


CHAIN = HEADER + '''
@T.prim_func
def main(A: T.Buffer(({n}, {m}), "float32"), B: T.Buffer(({n}, {m}), "float32"),
         C: T.Buffer(({n}, {m}), "float32")):
    X = T.alloc_buffer(({n}, {m}), "float32")
    for i, j in T.grid({n}, {m}):
        with T.block("X"):
            vi, vj = T.axis.remap("SS", [i, j])
            X[vi, vj] = {expr}
    for i, j in T.grid({n}, {m}):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = X[vi, vj] * T.float32(2) + B[vi, vj]
'''

BLOCK_STEPS = ["compute_at", "reverse_compute_at", "compute_inline", "reverse_compute_inline",
               "cache_read", "cache_write"]


def apply_block_step(sch: Schedule, step: str, factor: int, which: int) -> None:
    if step == "compute_at":
        loops = sch.get_loops(sch.get_block("C"))
        sch.compute_at(sch.get_block("X"), loops[which % len(loops)])
    elif step == "reverse_compute_at":
        loops = sch.get_loops(sch.get_block("X"))
        sch.reverse_compute_at(sch.get_block("C"), loops[which % len(loops)])
    elif step in ("compute_inline", "cache_write"):
        getattr(sch, step)(*([sch.get_block("X")] + ([0, "local"] if "cache" in step else [])))
    elif step == "reverse_compute_inline":
        sch.reverse_compute_inline(sch.get_block("C"))
    else:
        sch.cache_read(sch.get_block("C"), which % 2, "local")


@settings(max_examples=40 * SCALE, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), expressions("float32"),
       st.sampled_from(BLOCK_STEPS), st.integers(1, 5), st.integers(0, 3), st.booleans())
def test_block_primitives_equal_interpreter(n, m, expr, step, factor, which, split_first):
    func = from_source(CHAIN.format(n=n, m=m, expr=expr))
    sch = Schedule(func)
    if split_first:
        for name in ("X", "C"):
            sch.split(sch.get_loops(sch.get_block(name))[0], [None, factor])
    apply_block_step(sch, step, factor, which)
    args = _inputs("float32", n, m, False, seed=n + m)
    ref = [x.copy() for x in args]
    interpret(func, *ref)
    scheduled = [x.copy() for x in args]
    interpret(sch.mod["main"], *scheduled)
    tvm.build(sch.mod)(*args)
    np.testing.assert_allclose(scheduled[-1], ref[-1], rtol=1e-6)
    np.testing.assert_allclose(args[-1], ref[-1], rtol=1e-5, atol=1e-5)
