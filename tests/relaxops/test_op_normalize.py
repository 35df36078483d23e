"""Operator-specific normalization (TVM's FNormalize): a custom operator's rule is applied by
relax.testing.transform.ApplyEmptyCppMutator, not by the parser, and well_formed reports a call
the rule would change; call_tir's own rule writes its argument tuple in line."""

import pytest

from tvmlite import ir, relax
from tvmlite.ir import expr as rx
from tvmlite.ir import assert_structural_equal
from tvmlite.relax.testing.transform import ApplyEmptyCppMutator
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

_NAME = "test_op_normalize.pad_second_argument"


def _bound_function(params, call):
    out = relax.Var("out", call.struct_info)
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(out, call)])], out)
    return relax.Function(params, body, call.struct_info)


@pytest.fixture
def custom_op():
    def normalize(builder, call):
        if len(call.args) == 1:
            return relax.Call(call.op, [call.args[0], relax.Tuple([])])
        return call

    attrs = {"FInferType": lambda call, ctx: call.args[0].struct_info,
             "FNormalize": normalize, "FPurity": True}
    for key, value in attrs.items():
        ir.register_op_attr(_NAME, key, value)
    op = ir.Op.get(_NAME)
    yield op
    for key in attrs:
        op.reset_attr(key)


def test_mutator_applies_the_rule_and_the_parser_does_not(custom_op):
    x = relax.Var("x", R.Tensor((2,), "float32"))
    before = _bound_function([x], relax.Call(custom_op, [x], struct_info=x.struct_info))
    after = ApplyEmptyCppMutator()(ir.IRModule({"main": before}))
    call = after["main"].body.blocks[0].bindings[0].value
    assert len(call.args) == 2 and isinstance(call.args[1], relax.Tuple)
    assert call.args[1].fields == ()
    assert not relax.analysis.check_well_formed(ir.IRModule({"main": before}))
    relax.analysis.well_formed(after)


def test_call_tir_argument_tuple_is_written_in_line():
    @I.ir_module
    class Before:
        @T.prim_func(private=True)
        def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("B"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] * T.float32(2)

        @R.function
        def main(t: R.Tuple(R.Tensor((4,), "float32"))):
            cls = Before
            y = R.call_tir(cls.double, (t[0],), R.Tensor((4,), "float32"))
            return y

    main = Before["main"]
    call = main.body.blocks[-1].bindings[-1].value
    t = main.params[0]
    # the same call with the tuple parameter itself as the argument list
    by_var = relax.Call(call.op, [call.args[0], t], call.attrs, call.sinfo_args,
                        call.struct_info)
    func = _bound_function([t], by_var)
    mod = ir.IRModule({ir.GlobalVar("main"): func,
                       Before.get_global_var("double"): Before["double"]})
    assert not relax.analysis.check_well_formed(mod)
    after = ApplyEmptyCppMutator()(mod)
    # as apache-tvm 0.27 re-emits it: the tuple is in line, its item bound to a variable first
    item, out = after["main"].body.blocks[0].bindings
    assert_structural_equal(item.value, relax.TupleGetItem(
        t, 0, struct_info=t.struct_info.fields[0]))
    inline = out.value.args[1]
    assert isinstance(inline, relax.Tuple) and inline.fields == (item.var,)


def test_python_mutator_applies_the_rule(custom_op):
    x = relax.Var("x", R.Tensor((2,), "float32"))
    before = _bound_function([x], relax.Call(custom_op, [x], struct_info=x.struct_info))

    class Empty(relax.PyExprMutator):
        pass

    after = Empty().visit_expr(before)
    call = after.body.blocks[0].bindings[0].value
    assert [type(a).__name__ for a in call.args] == ["Var", "Tuple"]


def test_call_takes_tvms_ty_args_keyword():
    x = relax.Var("x", R.Tensor((2,), "float32"))
    call = relax.Call(ir.Op.get("relax.call_pure_packed"), [relax.ExternFunc("f"), x],
                      ty_args=[x.struct_info])
    assert call.sinfo_args == (x.struct_info,)
    assert call.ty_args == (x.struct_info,)


def test_hand_written_call_tir_keeps_its_callee_inline_and_declared_struct_info():
    @I.ir_module(check_well_formed=False)
    class Raw:
        @T.prim_func(private=True)
        def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("B"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] * T.float32(2)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Raw
            return relax.Call(ir.Op.get("relax.call_tir"), [cls.double, relax.Tuple([x])],
                              ty_args=[x.struct_info])

    bindings = Raw["main"].body.blocks[0].bindings
    assert len(bindings) == 1  # the function reference is not bound to a variable first
    callee = bindings[0].value.args[0]
    assert isinstance(callee, rx.GlobalVarRef) and callee.name_hint == "double"
    assert_structural_equal(bindings[0].var.struct_info, R.Tensor((4,), "float32"))
