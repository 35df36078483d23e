"""Printing forms of TVM 0.27 (each expected text is what apache-tvm 0.27 prints for the same
IR): extern functions of a module, `T.<dtype>` for a prim struct info, `R.Shape(ndim=-1)` and
`R.Tuple` for the empty tuple; each parses back to the same IR."""

from __future__ import annotations

from tvmlite import IRModule, relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import relax as R


@R.function
def func(a: R.Tensor((10, 10))) -> R.Tensor((10, 10)):
    return a


def test_module_extern_funcs_print_and_parse_back():
    mod = IRModule({"func": func, "zz_ext": relax.ExternFunc("zz_ext"),
                    "a_ext": relax.ExternFunc("a_ext", relax.FuncType(
                        [], relax.TensorType(dtype="float32", ndim=2), purity=True))})
    text = mod.script()
    assert text.endswith('''class Module:
    a_ext = R.ExternFunc("a_ext", R.Callable((), R.Tensor(dtype="float32", ndim=2), True))
    zz_ext = R.ExternFunc("zz_ext")
    @R.function
    def func(a: R.Tensor((10, 10))) -> R.Tensor((10, 10)):
        return a''')
    assert_structural_equal(from_source(text), mod)


def test_prim_shape_and_empty_tuple_annotations():
    @R.function
    def f(s: R.Shape, p: R.Prim("float32"), t: R.Tuple(), u: R.Shape(ndim=2)) -> R.Shape:
        return s

    text = f.script()
    assert "def f(s: R.Shape(ndim=-1), p: T.float32, t: R.Tuple, u: R.Shape(ndim=2)) " \
           "-> R.Shape(ndim=-1):" in text
    assert "# from tvm.script import tirx as T" in text
    assert_structural_equal(from_source(text), f)


_NESTED = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        # from tvm.script import relax as R
        {BLANK}
        @R.function
        def nested(y: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
            return y

        z: R.Tensor((), dtype="int32") = nested(x)
        return z'''.replace("{BLANK}\n", "\n")  # TVM indents the first blank line


def test_nested_function_parses_and_prints_as_tvm():
    mod = from_source(_NESTED)
    inner = mod["main"].body.blocks[0].bindings[0]
    assert isinstance(inner.value, relax.Function) and inner.var.name_hint == "nested"
    assert mod.script() == _NESTED


def test_bare_if_node_script():
    """apache-tvm 0.27 prints an If on its own with each branch's variables inside it."""
    a = relax.Var("a", relax.TensorStructInfo([], "bool"))
    b = relax.Var("b", relax.TensorStructInfo([1, 2, 3], "float32"))
    c = relax.Var("c", relax.TensorStructInfo([1, 2, 3], "float32"))
    text = relax.If(a, relax.SeqExpr([], b), relax.SeqExpr([], c)).script()
    assert text == '''a: R.Tensor((), dtype="bool")
if a:
    b: R.Tensor((1, 2, 3), dtype="float32")
    b
else:
    c: R.Tensor((1, 2, 3), dtype="float32")
    c'''


def test_symbolic_scalar_arguments_print_bare_and_are_declared():
    """apache-tvm 0.27 prints `R.call_tir(tir_func, (a, x), ...)` and declares `t = T.int64()`
    for a scalar used only as an argument."""
    from tvmlite import tir

    x = tir.Var("x", "int64")
    a = relax.Var("a", relax.TensorStructInfo([1, x, 3], "float32"))
    call = relax.call_tir(relax.GlobalVar("tir_func"), args=(a, x), out_ty=a.struct_info)
    assert call.script() == '''x = T.int64()
a: R.Tensor((1, x, 3), dtype="float32")
R.call_tir(tir_func, (a, x), out_ty=R.Tensor((1, x, 3), dtype="float32"))'''
    t = tir.Var("t", "int64")
    b = relax.Var("b", relax.TensorStructInfo([4], "int32"))
    call = relax.call_tir(relax.GlobalVar("f"), args=(b, t), out_ty=b.struct_info)
    assert call.script().splitlines()[:2] == ['b: R.Tensor((4,), dtype="int32")', "t = T.int64()"]


_CALLS = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def tir_func(x: T.Buffer((128,), "float32"), y: T.Buffer((128,), "float32")):
        T.evaluate(0)

    @R.function(pure=False)
    def foo(x: R.Tensor((128,), dtype="float32")) -> R.Tensor((128,), dtype="float32"):
        cls = Module
        gv0 = R.call_tir(cls.tir_func, (x,), out_ty=R.Tensor((128,), dtype="float32"))
        gv1 = R.call_dps_packed("f", (gv0,), out_ty=R.Tensor((128,), dtype="float32"))
        gv2: R.Tensor((128,), dtype="float32") = R.call_packed("g", gv1, ty_args=(R.Tensor((128,), dtype="float32"),))
        gv3: R.Tensor((128,), dtype="float32") = R.call_pure_packed("g", gv2, ty_args=(R.Tensor((128,), dtype="float32"),))
        return gv3'''  # noqa: E501 (apache-tvm 0.27's text for this module, line for line)


def test_destination_passing_calls_state_their_struct_info():
    mod = from_source(_CALLS)
    assert mod.script() == _CALLS
