"""`PrimFunc.ty`: the signature TVM 0.27 infers (param types, result, purity)."""

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T


def test_scalar_params_and_result():
    @T.prim_func
    def f(m: T.int32, n: T.int64) -> T.int32:
        return m

    assert structural_equal(f.ty, relax.FuncType([tvm.ir.PrimType("int32"),
                                                  tvm.ir.PrimType("int64")],
                                                 tvm.ir.PrimType("int32"), purity=True))


def test_writing_a_param_buffer_makes_it_impure_and_own_buffers_do_not():
    @T.prim_func
    def copy(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i]

    @T.prim_func
    def total(A: T.Buffer((16,), "float32")) -> T.float32:
        acc = T.decl_buffer((1,), "float32")
        acc[0] = T.float32(0)
        for i in range(16):
            acc[0] = acc[0] + A[i]
        return acc[0]

    tensor = relax.TensorType([16], "float32")
    assert copy.ty.purity is False and total.ty.purity is True
    assert structural_equal(copy.ty, relax.FuncType([tensor, tensor], relax.TupleType([]),
                                                    purity=False))
    assert structural_equal(total.ty.ret, tvm.ir.PrimType("float32"))


def test_symbolic_dims_of_a_signature_map_like_function_params():
    m, n = tir.Var("m", "int64"), tir.Var("n", "int64")
    k = tir.Var("k", "int64")
    one = relax.FuncType([relax.TensorType([m, n], "float32")], relax.TupleType([]))
    same = relax.FuncType([relax.TensorType([k, m], "float32")], relax.TupleType([]))
    tied = relax.FuncType([relax.TensorType([k, k], "float32")], relax.TupleType([]))
    assert structural_equal(one, same)
    assert not structural_equal(one, tied)
