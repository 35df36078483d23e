"""Visitor / Mutator dispatch, substitute and the index simplifier."""

from __future__ import annotations

from tvmlite.tir import BinaryOp, BinOp, BufferStore, For, ForKind, IntImm, Var, const, make_buffer
from tvmlite.tir.functor import Mutator, Visitor, post_order_visit, simplify, substitute


def test_visitor_dispatches_by_class_name() -> None:
    i = Var("i")
    seen: list[str] = []

    class Names(Visitor):
        def visit_Var(self, v: Var) -> None:
            seen.append(v.name)

    Names().visit(i * 4 + Var("j"))
    assert seen == ["i", "j"]


def test_mutator_keeps_unchanged_subtrees() -> None:
    i, j = Var("i"), Var("j")
    e = (i * 4) + (j * 2)
    assert Mutator().visit(e) is e
    out = substitute(e, {j: const(3)})
    assert out.a is e.a  # the untouched side is the same object
    assert out.b == BinOp(BinaryOp.MUL, IntImm("int32", 3), IntImm("int32", 2))


def test_substitute_in_statements() -> None:
    i, k = Var("i"), Var("k")
    A = make_buffer("A", (8,))
    loop = For(k, const(0), const(8), ForKind.SERIAL, BufferStore(A, A[k] + const(1.0), (k + i,)))
    out = substitute(loop, {i: const(2)})
    assert out.body.indices[0] == BinOp(BinaryOp.ADD, k, IntImm("int32", 2))
    assert out.loop_var is k and out.body.buffer is A


def test_post_order_visit_counts_nodes() -> None:
    i = Var("i")
    kinds: list[str] = []
    post_order_visit(i + 1, lambda n: kinds.append(type(n).__name__))
    assert kinds == ["Var", "IntImm", "BinOp"]


def test_simplify_folds_index_arithmetic() -> None:
    i, k = Var("i", "int64"), Var("k", "int64")
    zero, one = const(0, "int64"), const(1, "int64")
    assert simplify(zero * 784 + k) is k
    assert simplify(i * one + zero) is i
    assert simplify(const(3, "int64") * 4 + 1) == IntImm("int64", 13)
    assert simplify(const(-7) // 2) == IntImm("int32", -4)
    assert simplify(const(-7) % 2) == IntImm("int32", 1)
    assert simplify(BinOp(BinaryOp.DIV, const(-7), const(2))) == IntImm("int32", -3)
    assert simplify(BinOp(BinaryOp.MOD, const(-7), const(2))) == IntImm("int32", -1)
    assert simplify(const(2**31 - 1) + 1) == IntImm("int32", -(2**31))  # wraps like hardware
    # constants of a product gather on the right, as TVM's canonical form has them
    assert str(simplify(const(2, "int64") * i * const(16, "int64"))) == str(i * 32)


def test_simplify_leaves_floats_alone() -> None:
    x = Var("x", "float32")
    e = x + const(0.0)
    assert simplify(e) is e
