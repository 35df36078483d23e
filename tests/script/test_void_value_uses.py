"""TVMScript: returning a variable that holds the empty tuple returns an in-line `R.tuple()`,
as TVM's normalizer writes every use of a void value."""

from tvmlite.ir import expr as rx
from tvmlite.script import relax as R


def test_returned_void_variable_becomes_an_inline_empty_tuple():
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tuple:
        gv: R.Tuple = R.tuple()
        return gv

    assert isinstance(f.body.body, rx.Tuple) and f.body.body.fields == ()
    assert len(f.body.blocks[0].bindings) == 1  # the binding stays


def test_returned_tensor_variable_is_kept():
    @R.function
    def g(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.add(x, x)
        return y

    assert isinstance(g.body.body, rx.Var)
