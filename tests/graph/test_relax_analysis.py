# ruff: noqa: F841 (TVMScript bindings that the analyses under test must see)
"""`relax.analysis` beyond variables: who uses what, purity, recursion, compile-time values,
reshape-shaped prim_funcs and the struct-info ("type") questions, each against a hand-derived
answer."""

import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.relax import analysis as A
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

BR = A.BaseCheckResult


@R.function
def two_steps(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.add(x, y)
        b = R.multiply(a, y)
        R.output(b)
    return b


def test_udchain_and_used_vars():
    x, y = two_steps.params
    a, b = (bd.var for bd in two_steps.body.blocks[0].bindings)
    chain = A.udchain(two_steps.body.blocks[0])
    assert chain[x] == [a] and chain[y] == [a, b] and chain[a] == [b] and chain[b] == []
    assert A.used_vars(relax.op.multiply(x, x)) == [x]
    seen = []
    A.post_order_visit(two_steps.body.blocks[0].bindings[1].value, seen.append)
    assert seen[-1] is two_steps.body.blocks[0].bindings[1].value  # the call after its args
    assert a in seen and y in seen


def test_symbolic_vars_defined_and_free():
    @R.function
    def f(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((m,), "float32"))
        z = R.ones(R.shape([n + m]), "float32")
        return z

    names = [v.name for v in A.defined_symbolic_vars(f)]
    assert names == ["n", "m"]
    assert A.free_symbolic_vars(f) == []
    assert [v.name for v in A.free_symbolic_vars(f.body)] == ["n"]  # m: the match_cast


def test_contains_impure_call():
    @R.function(pure=False)
    def impure(x: R.Tensor((4,), "float32")):
        y = R.call_packed("my_print", x, sinfo_args=R.Tensor((4,), "float32"))
        return y

    assert A.contains_impure_call(impure)
    assert not A.contains_impure_call(two_steps)


def test_a_recursive_call_has_its_functions_declared_purity():
    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def loop(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            y = Mod.loop(x)
            return y

        @R.function
        def pure_loop(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            y = Mod.pure_loop(x)
            return y

    call = Mod["loop"].body.blocks[0].bindings[0].value
    # the call is parsed before `loop` exists: it takes the declared signature
    assert call.op.struct_info == R.Callable([R.Tensor((), "int32")], R.Tensor((), "int32"),
                                             purity=False)
    assert call.struct_info == R.Tensor((), "int32")
    assert A.contains_impure_call(Mod["loop"].body)
    assert not A.contains_impure_call(Mod["loop"].body, own_name=call.op.gvar)
    assert not A.contains_impure_call(Mod["pure_loop"].body)


def test_detect_recursion_finds_cycles_only():
    @I.ir_module
    class Mod:
        @R.function
        def a(x: R.Object) -> R.Object:
            return Mod.b(x)

        @R.function
        def b(x: R.Object) -> R.Object:
            return Mod.a(x)

        @R.function
        def c(x: R.Object) -> R.Object:
            return Mod.c(x)

        @R.function
        def d(x: R.Object) -> R.Object:
            return Mod.a(x)

    groups = sorted(sorted(gv.name_hint for gv in g) for g in A.detect_recursion(Mod))
    assert groups == [["a", "b"], ["c"]]


def test_computable_at_compile_time_follows_weights_and_their_dims():
    @R.function
    def f(x: R.Tensor(("n",), "float32"), w: R.Tensor(("m",), "float32")):
        R.func_attr({"num_input": 1})
        n = T.int64()
        m = T.int64()
        w2 = R.add(w, w)
        c = R.ones(R.shape([m]), "float32")
        d = R.ones(R.shape([n]), "float32")
        out = R.add(x, d)
        return (out, w2, c)

    assert [v.name for v in A.computable_at_compile_time(f)] == ["w", "w2", "c"]
    assert A.computable_at_compile_time(two_steps) == []


def _copy_func(reshape: bool):
    @T.prim_func
    def as_8x3(a: T.Buffer((1, 2, 3, 4), "float32"), b: T.Buffer((8, 3), "float32")):
        for i, j in T.grid(8, 3):
            with T.block("T_reshape"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[(vi * 3 + vj) // 24, (vi * 3 + vj) % 24 // 12,
                              (vi * 3 + vj) % 12 // 4, (vi * 3 + vj) % 4]

    @T.prim_func
    def transpose(a: T.Buffer((3, 8), "float32"), b: T.Buffer((8, 3), "float32")):
        for i, j in T.grid(8, 3):
            with T.block("T_transpose"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vj, vi]

    return as_8x3 if reshape else transpose


def test_has_reshape_pattern():
    assert A.has_reshape_pattern(_copy_func(True))
    assert not A.has_reshape_pattern(_copy_func(False))


def test_has_reshape_pattern_symbolic():
    @T.prim_func
    def flat(var_a: T.handle, var_b: T.handle):
        n = T.int64()
        a = T.match_buffer(var_a, (n, T.int64(4)), "float32")
        b = T.match_buffer(var_b, (n * T.int64(4),), "float32")
        for i in range(n * T.int64(4)):
            with T.block("T_reshape"):
                vi = T.axis.spatial(n * T.int64(4), i)
                b[vi] = a[vi // T.int64(4), vi % T.int64(4)]

    @T.prim_func
    def off_by_one(var_a: T.handle, var_b: T.handle):
        n = T.int64()
        a = T.match_buffer(var_a, (n, T.int64(4)), "float32")
        b = T.match_buffer(var_b, (n * T.int64(4),), "float32")
        for i in range(n * T.int64(4)):
            with T.block("T_reshape"):
                vi = T.axis.spatial(n * T.int64(4), i)
                b[vi] = a[vi // T.int64(4), (vi + 1) % T.int64(4)]

    assert A.has_reshape_pattern(flat)
    assert not A.has_reshape_pattern(off_by_one)


N, M = tir.Var("n", "int64"), tir.Var("m", "int64")


def test_type_base_check_levels():
    tensor_any = relax.TensorType(ndim=-1, dtype="int32")
    tensor_nm = relax.TensorType([N, M], "int32")
    assert A.type_base_check(relax.ObjectType(), tensor_nm) == BR.PASS
    assert A.type_base_check(tensor_any, tensor_nm) == BR.PASS
    assert A.type_base_check(tensor_nm, tensor_any) == BR.FAIL_L1
    assert A.type_base_check(tensor_nm, relax.TensorType([N, 3], "int32")) == BR.FAIL_L2
    assert A.type_base_check(tensor_nm, relax.TensorType([N, M], "float32")) == BR.FAIL_L0
    assert A.type_base_check(relax.TensorType([2, 3], "int32"),
                             relax.TensorType([2, 4], "int32")) == BR.FAIL_L0
    assert A.type_base_check(tensor_nm, relax.ObjectType()) == BR.FAIL_L1
    assert A.type_base_check(relax.ShapeType(ndim=2), relax.TensorType(ndim=2)) == BR.FAIL_L0


def test_type_lca_and_static_type():
    a = relax.TensorType([N, 4], "float32")
    b = relax.TensorType([N, 5], "float32")
    tvm.ir.assert_structural_equal(A.type_lca(a, a), a)
    tvm.ir.assert_structural_equal(A.type_lca(a, b), relax.TensorType(ndim=2, dtype="float32"))
    tvm.ir.assert_structural_equal(A.type_lca(a, relax.ShapeType(ndim=2)), relax.ObjectType())
    tup = relax.TupleType([a, relax.ShapeType([N, 1])])
    tvm.ir.assert_structural_equal(
        A.get_static_type(tup),
        relax.TupleType([relax.TensorType(ndim=2, dtype="float32"), relax.ShapeType(ndim=2)]))


def test_erase_to_well_defined_substitutes_or_forgets():
    s = relax.ShapeType([1, N + 1, M])
    tvm.ir.assert_structural_equal(A.erase_to_well_defined(s), relax.ShapeType(ndim=3))
    tvm.ir.assert_structural_equal(A.erase_to_well_defined(s, {N: 2, M: M + 1}),
                                   relax.ShapeType([1, 3, M + 1]))


def test_tir_vars_and_non_negative_expressions():
    t = relax.TensorType([N, M + 1, N * 2], "float32")
    assert A.tir_vars_in_type(t) == [N, M]
    assert A.definable_tir_vars_in_type(t) == [N]
    exprs = A.collect_non_negative_expressions(t)
    assert len(exprs) == 3 and exprs[0] is N


def test_derive_call_ret_type_matches_dims():
    x = relax.Var("x", relax.TensorType([N, M], "float32"))
    finfo = relax.FuncType([relax.TensorType([N, M], "float32")],
                           relax.TensorType([M + 1, N], "float32"))
    arg = relax.Var("a", relax.TensorType([10, 11], "float32"))
    call = relax.Call(relax.GlobalVar("f"), [arg])
    tvm.ir.assert_structural_equal(A.derive_call_ret_type(finfo, call),
                                   relax.TensorType([12, 10], "float32"))
    with pytest.raises(ValueError, match="does not match"):
        A.derive_call_ret_type(finfo, relax.Call(relax.GlobalVar("f"), [
            relax.Var("s", relax.ShapeType(ndim=2))]))
    assert x.name == "x"


def test_remove_all_unused_keeps_effects_only():
    @R.function(pure=False)
    def before(x: R.Tensor((4,), "float32")):
        unused0 = R.call_dps_packed("my_sigmoid", (x,), R.Tensor((4,), "float32"))
        kept = R.call_packed("my_print", x, sinfo_args=R.Tensor((4,), "float32"))
        return x

    after = A.remove_all_unused(before)
    values = [b.var.name for b in after.body.blocks[0].bindings]
    assert values == ["kept"]
    seq = A.remove_all_unused(before.body)
    assert [b.var.name for b in seq.blocks[0].bindings] == ["kept"]


def test_function_takes_tvm_027_keywords_and_any():
    x = relax.Var("x", R.Tensor((4,), "float32"))
    f = relax.Function([x], relax.op.add(x, x), ret_ty=R.Tensor((4,), "float32"))
    assert isinstance(f.body, relax.SeqExpr) and f.ret_ty == R.Tensor((4,), "float32")
    assert R.Any == R.Object


def test_well_formed_requires_a_normal_form_as_tvm():
    m = tir.Var("m", "int64")
    x = relax.Var("x", R.Tensor((m,), "float32"))
    y = relax.Var("y", R.Tensor((m,), "float32"))
    nested = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(
        y, relax.op.add(x, relax.op.add(x, x)))])], y), ret_ty=R.Tensor((m,), "float32"))
    assert not A.check_well_formed(nested)
    with pytest.raises(ValueError, match="A-normal form"):  # TVM 0.27 raises a ValueError
        A.well_formed(nested)
    flat = relax.transform.Normalize()(tvm.IRModule.from_expr(nested))
    assert A.well_formed(flat)
    unbound = relax.Function([x], relax.op.add(x, x), ret_ty=R.Tensor((m,), "float32"))
    assert not A.check_well_formed(unbound)  # the result must be bound
    k = tir.Var("k", "int64")
    z = relax.Var("z", R.Tensor((k,), "float32"))  # k: defined nowhere
    bad_dim = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(
        z, x)])], z), ret_ty=R.Tensor(ndim=1, dtype="float32"))
    assert not A.check_well_formed(bad_dim)
    f = double_with_attrs()
    assert f.attr_dict["k"] == 1 and "j" not in f.attr_dict


def double_with_attrs():
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        return x

    return f.with_attrs({"k": 1, "j": 2}).without_attr("j")


def test_well_formed_wants_global_symbols_to_match_names():
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        return x

    mod = tvm.IRModule({"main": f.with_attr("global_symbol", "other")})
    assert not A.check_well_formed(mod)
    assert A.well_formed(relax.transform.NormalizeGlobalVar()(mod))
    assert f.params[0].ty is f.params[0].struct_info


def test_non_negative_expressions_leave_out_constants_and_repeats():
    # apache-tvm 0.27 prints (N, M + T.int64(1)) and (N, M) for these two
    n, m = tir.Var("N", "int64"), tir.Var("M", "int64")
    exprs = A.collect_non_negative_expressions(relax.TensorType([4, n, m + 1, n], "float32"))
    assert len(exprs) == 2 and exprs[0] is n
    assert tvm.ir.structural_equal(exprs[1], m + 1)
    pair = relax.TupleType([relax.ShapeType([n, 3]), relax.TensorType([m, n], "float32")])
    assert A.collect_non_negative_expressions(pair) == [n, m]


def test_well_formed_purity_as_tvm():
    # apache-tvm 0.27: check_well_formed is False for each of these, and well_formed raises
    # a ValueError naming the impure call
    x = relax.Var("x", R.Tensor((), "int32"))
    y = relax.Var("y", R.Tuple())  # relax.print's value is void, as in TVM 0.27
    printed = relax.BindingBlock([relax.VarBinding(y, relax.op.print(x, format="{}"))])
    pure = relax.Function([x], relax.SeqExpr([printed], x), R.Tensor((), "int32"))
    assert not A.check_well_formed(tvm.IRModule.from_expr(pure))
    with pytest.raises(ValueError, match="R.print"):
        A.well_formed(tvm.IRModule.from_expr(pure))
    assert A.well_formed(tvm.IRModule.from_expr(pure.with_attr("relax.force_pure", True)))
    impure = relax.Function([x], relax.SeqExpr([printed], x), R.Tensor((), "int32"),
                            is_pure=False)
    assert A.well_formed(tvm.IRModule.from_expr(impure))
    forced_impure = relax.Function([x], relax.SeqExpr([], x), R.Tensor((), "int32"),
                                   is_pure=False).with_attr("relax.force_pure", True)
    assert not A.check_well_formed(tvm.IRModule.from_expr(forced_impure))
    yd = relax.DataflowVar("y", R.Tensor((), "int32"))
    in_dataflow = relax.Function([x], relax.SeqExpr([relax.DataflowBlock([relax.VarBinding(
        yd, relax.op.print(x, format="{}"))])], x), R.Tensor((), "int32"))
    assert not A.check_well_formed(
        tvm.IRModule.from_expr(in_dataflow.with_attr("relax.force_pure", True)))


def test_well_formed_checks_call_tir_signatures_of_unchecked_modules():
    @I.ir_module(check_well_formed=False)
    class Mod:
        @R.function
        def main(a: R.Tensor((8, 4), "float16"), s: R.Prim("int64")):
            b = R.call_tir(Mod.scale, (a, s), out_ty=R.Tensor((64,), "float16"))
            return b

        @T.prim_func
        def scale(a_h: T.handle, s: T.float32, b_h: T.handle):
            m, n = T.int64(), T.int64()
            A = T.match_buffer(a_h, (m, n), "float16")
            B = T.match_buffer(b_h, (m * n,), "float16")
            T.evaluate(0)

    # apache-tvm: not well formed (an int64 scale for a float32 parameter; and 64 != 8 * 4)
    with pytest.raises(ValueError, match="argument 1 of call_tir to 'scale'"):
        A.well_formed(Mod)
    fixed = Mod["main"].body.blocks[0].bindings[0].value
    assert fixed.sinfo_args[0] == R.Tensor((64,), "float16")


def test_well_formed_judges_annotations_and_closure_calls():
    # apache-tvm 0.27: an annotation may say less than the value (R.Any), never something
    # else (check_well_formed False); parsing with check_well_formed=False accepts it
    @I.ir_module(check_well_formed=False)
    class Wrong:
        @R.function
        def main(a: R.Tensor((4,), "float32")):
            c: R.Tensor((4,), "int32") = R.add(a, a)
            return c

    assert not A.check_well_formed(Wrong)
    x = relax.Var("x", R.Tensor((4,), "float32"))
    y = relax.Var("y", R.Tensor((4,), "float32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(y, x)])], y)
    relax.expr._update_type(body, y.struct_info)  # derived from its body: must agree
    with pytest.raises(ValueError, match="follows from its parts"):
        relax.expr._update_type(body, R.Tensor((5,), "float32"))
    # a call of a closure var takes the closure's result struct info, as TVM normalizes it
    f = relax.Var("f", relax.FuncType([R.Tensor((4,), "float32")], R.Tensor((4,), "float32")))
    assert relax.Call(f, [x]).struct_info == R.Tensor((4,), "float32")
    with pytest.raises(RuntimeError, match="can only have dtype of int64"):
        R.Tensor([tir.Var("d", "float32")], "float32")


def _ragged(shift: int):
    @T.prim_func
    def ragged(a: T.Buffer((100, 768), "float32"), ptr: T.Buffer((9,), "int32"),
               b: T.Buffer((100, 12, 64), "float32")):
        for g in T.serial(8):
            with T.block("outer"):
                vg = T.axis.spatial(8, g)
                for i in T.serial(ptr[vg + 1] - ptr[vg]):
                    for h, f in T.grid(12, 64 - shift):
                        with T.block("inner"):
                            vi, vh, vf = T.axis.remap("SSS", [i, h, f])
                            b[ptr[vg] + vi, vh, vf] = a[ptr[vg] + vi, vh * 64 + vf + shift]

    return ragged


def test_ragged_reshape_pattern():
    # apache-tvm 0.27: a ragged row copy (rows from an index buffer) is a reshape; shifted by
    # one element it is not (checked with has_reshape_pattern on both)
    assert A.has_reshape_pattern(_ragged(0))
    assert not A.has_reshape_pattern(_ragged(1))


def test_sizes_compare_as_polynomials():
    from tvmlite.ir.index_poly import provably_equal

    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    assert provably_equal(4 * (2 * n), 8 * n)
    assert provably_equal((n + 1) * (m - 1), n * m - n + m - 1)
    assert provably_equal(2 * n, 3 * n) is False
    assert provably_equal(n // 2, n // 2) is None  # not a polynomial: no verdict


def test_expr_ty_and_indexing_as_tvm_027():
    # apache-tvm 0.27: a var made without a type answers Type::Missing (is_missing() True);
    # a ShapeExpr knows its ShapeType at once; indexing past the end names the node;
    # TensorType(dtype=None) is TensorType(dtype="")
    v = relax.Var("v")
    assert isinstance(v.ty, tvm.ir.Type) and v.ty.is_missing() and v.struct_info is None
    assert relax.Var("w", v.ty).struct_info is None
    assert not R.Tensor((2,), "float32").is_missing()
    n = tir.Var("n", "int64")
    s = relax.ShapeExpr([n, 3])
    assert s.ty == relax.ShapeType([n, 3])
    with pytest.raises(IndexError, match="ShapeExpr index out of range"):
        s[2]
    t = relax.Tuple([v, relax.Var("u")])
    assert t[-1] is t.fields[1]
    with pytest.raises(IndexError, match="Tuple index out of range"):
        t[2]
    assert relax.TensorType([1, 2], None) == relax.TensorType([1, 2], "")


def test_call_needs_an_operator():
    # apache-tvm 0.27: relax.Call(None, []) raises ValueError ("... defined operator")
    with pytest.raises(ValueError, match="defined operator"):
        relax.Call(None, [])
