"""Node attributes read as TVM users read them: attrs["k"], "k" in attrs, attrs.k."""

import pytest

from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.tir.attrs import Attrs


@I.ir_module
class Mod:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "f", "tir.noalias": True})
        for i in range(4):
            A[i] = T.float32(0)

    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
        y = R.nn.conv2d(x, w, padding=(1, 1))
        return y


def test_function_and_call_attrs_read_like_tvm():
    assert Mod["f"].attrs["global_symbol"] == "f" and "tir.noalias" in Mod["f"].attrs
    call = Mod["main"].body.blocks[0].bindings[0].value
    assert call.attrs.padding == (1, 1, 1, 1) and call.attrs["strides"] == (1, 1)
    assert "groups" in call.attrs and "nosuch" not in call.attrs
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        _ = call.attrs.nosuch


def test_attrs_stay_a_tuple_of_pairs():
    a = Attrs({"a": 1, "b": 2})
    assert a == (("a", 1), ("b", 2)) and dict(a) == {"a": 1, "b": 2}
    assert a[0] == ("a", 1) and list(a.keys()) == ["a", "b"] and a.get("c", 3) == 3
    assert hash(a) == hash((("a", 1), ("b", 2)))


def test_tvm_testing_assert_allclose_takes_ndarrays():
    import numpy as np

    import tvmlite as tvm

    a = tvm.nd.array(np.ones(3, "float32"))
    tvm.testing.assert_allclose(a, np.ones(3), rtol=1e-6)
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(a, np.zeros(3))
