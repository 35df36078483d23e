"""`.script()` of a relax node on its own (script/printer/node_printer.py), and struct info
printed with TVM 0.27's names (`R.Any`, `R.Callable(..., True)`); expected texts are what
TVM 0.27 prints for the same nodes."""

from tvmlite import relax
from tvmlite.script import relax as R
from tvmlite.tir import expr as tx


def test_struct_info_declares_its_symbolic_dims():
    a = tx.Var("a", "int64")
    assert R.Shape([1, 2, 3]).script() == "R.Shape([1, 2, 3])"
    assert R.Tensor((1, a, 3), "float32").script() == \
        'a = T.int64()\nR.Tensor((1, a, 3), dtype="float32")'
    assert R.Object().script() == "R.Any"
    f = R.Callable((R.Object, R.Shape(ndim=3)), R.Tensor(ndim=3, dtype="float32"))
    assert f._relax_script() == \
        'R.Callable((R.Any, R.Shape(ndim=3)), R.Tensor(dtype="float32", ndim=3), True)'


def test_expression_declares_the_variables_it_uses():
    x, y = tx.Var("x", "int64"), tx.Var("y", "int64")
    a = relax.Var("a", R.Tensor((1, x, 3), "float32"))
    b = relax.Var("b", R.Tensor((1, y, 3), "float32"))
    assert relax.TupleGetItem(relax.Tuple([a, b]), 0).script() == (
        'x = T.int64()\na: R.Tensor((1, x, 3), dtype="float32")\n'
        'y = T.int64()\nb: R.Tensor((1, y, 3), dtype="float32")\n(a, b)[0]')
    assert relax.ShapeExpr([1, 2, 3]).script() == "R.shape([1, 2, 3])"
    assert relax.StringImm("hello").script() == 'R.str("hello")'
    assert relax.DataTypeImm("float32").script() == 'R.dtype("float32")'


def test_binding_prints_its_value():
    a = relax.Var("a", R.Tensor((2,), "float32"))
    b = relax.Var("b", R.Tensor((2,), "float32"))
    text = relax.VarBinding(b, relax.op.sin(a)).script()
    assert text.splitlines() == ['a: R.Tensor((2,), dtype="float32")',
                                 'b: R.Tensor((2,), dtype="float32") = R.sin(a)']


def test_binding_blocks_print_alone_as_tvm_does():
    a = relax.Var("a", R.Tensor((2,), "float32"))
    b = relax.Var("b", R.Tensor((2,), "float32"))
    block = relax.DataflowBlock([relax.VarBinding(b, relax.op.sin(a))])
    assert block.script().splitlines() == [
        'a: R.Tensor((2,), dtype="float32")', "with R.dataflow():",
        '    b: R.Tensor((2,), dtype="float32") = R.sin(a)', "    R.output(b)"]
    plain = relax.BindingBlock([relax.VarBinding(b, relax.op.sin(a))])
    assert plain.script().splitlines()[-1] == 'b: R.Tensor((2,), dtype="float32") = R.sin(a)'


def test_tensor_type_takes_a_shape_expr():
    n = tx.Var("n", "int64")
    t = relax.TensorType(shape=relax.ShapeExpr([1, n]), dtype="float32")
    assert t.script() == 'n = T.int64()\nR.Tensor((1, n), dtype="float32")'


def test_print_format_given_as_r_str():
    from tvmlite.script import from_source

    f = from_source('''
@R.function(pure=False)
def main(x: R.Tensor((), "int32")):
    R.print(x, format=R.str("x: {}"))
    return x
''')
    call = f.body.blocks[0].bindings[0].value
    assert call.args[0].value == "x: {}"


def test_show_all_ty_annotates_every_binding_as_tvm_prints_by_default():
    from tvmlite.script import from_source

    f = from_source('''
@R.function
def main(x: R.Tensor((2, 3), "float32")):
    y = R.add(x, x)
    return y
''')
    assert "\n    y = R.add(x, x)" in f.script(show_all_struct_info=False)
    assert "\n    y = R.add(x, x)" in f.script(show_all_ty=False)
    line = '    y: R.Tensor((2, 3), dtype="float32") = R.add(x, x)'  # TVM 0.27's line
    assert line in f.script() and line in f.script(show_all_ty=True)
    assert "y: R.Tensor" in tvm_module_text(f)


def tvm_module_text(f):
    import tvmlite as tvm

    return tvm.IRModule({"main": f}).script(show_all_ty=True)
