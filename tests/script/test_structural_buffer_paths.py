# ruff: noqa: F841 (TVMScript bodies name what they define)
"""Where structural equality says two functions differ in a buffer: at TVM 0.27's paths, where
a buffer parameter is `params[k]` and a buffer's shape and dtype sit in its type (`.ty`)."""

import pytest
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import tir as T


def _mismatch(a, b) -> str:
    with pytest.raises(ValueError) as err:
        assert_structural_equal(a, b)
    return str(err.value)


def test_a_buffer_parameter_differs_at_its_param_type():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (128, 128))
        B = T.match_buffer(b, (128, 128))

    @T.prim_func
    def g(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (128, 128))
        B = T.match_buffer(b, (128, 256))

    text = _mismatch(f, g)
    assert text.startswith("StructuralEqual check failed, caused by lhs at "
                           "<root>.params[1].ty.shape[1].value:\n")
    # the path resolves to the differing dimension, which is underlined
    lines = text.split("\n")
    row = lines.index('def g(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 256), '
                      '"float32")):')
    assert lines[row + 1] == " " * lines[row].index("256") + "^^^"


def test_a_block_buffer_differs_in_its_type():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        with T.sblock("root"):
            B = T.sblock_alloc_buffer((4,), "float32")
            B[0] = A[0]

    @T.prim_func
    def g(A: T.Buffer((4,), "float32")):
        with T.sblock("root"):
            B = T.sblock_alloc_buffer((4,), "float16")
            B[0] = T.Cast("float16", A[0])

    assert "caused by lhs at <root>.body.block.alloc_buffers[0].ty.dtype:" in _mismatch(f, g)
