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
    assert text.splitlines() == ['a: R.Tensor((2,), dtype="float32")', "b = R.sin(a)"]
