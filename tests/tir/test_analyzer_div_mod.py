"""Analyzer.simplify with bound ranges: floordiv / floormod by a constant whose quotient the
ranges pin down fold away, as TVM's analyzer folds them; anything it cannot pin stays. Each
fold is checked against evaluating both forms over every value of the ranges."""

from __future__ import annotations

import itertools

import pytest

from tvmlite import tir
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.tir.analyzer import Analyzer
from tvmlite.tir.expr import IntImm
from tvmlite.tir.functor import simplify, substitute
from tvmlite.tir.stmt import Range

i, j, n = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("n", "int32")


def _value(e, env) -> int:
    return simplify(substitute(e, env)).value


def _analyzer() -> Analyzer:
    a = Analyzer()
    a.bind(i, Range.from_extent(8))
    a.bind(j, Range.from_extent(4))
    return a


@pytest.mark.parametrize("expr, want", [
    ((i * 4 + j) // 4, i),
    ((i * 4 + j) % 4, j),
    (j // 4, 0),
    (j % 4, j),
    (i // 16, 0),
    ((i * 8 + j + 2) // 8, i),
    ((i * 8 + j + 2) % 8, j + 2),
    ((j + 4) // 4, 1),
    ((j + 4) % 4, j),
])
def test_pinned_quotients_fold(expr, want):
    got = _analyzer().simplify(expr)
    assert_structural_equal(got, IntImm("int32", want) if isinstance(want, int) else want)
    for vi, vj in itertools.product(range(8), range(4)):
        env = {i: IntImm("int32", vi), j: IntImm("int32", vj)}
        assert _value(got, env) == _value(expr, env)


@pytest.mark.parametrize("expr", [
    (i * 4 + j) // 8,  # j moves the quotient across a block boundary with i odd
    (i + j) % 4,
    (j + n) // 4,  # n is not bound
])
def test_unpinned_quotients_stay(expr):
    got = _analyzer().simplify(expr)
    assert isinstance(got, tir.expr.BinOp) and got.op.name in ("FLOORDIV", "FLOORMOD")
