"""`tvmlite.ffi`: the `tvm_ffi` names TVM 0.27 code uses next to `import tvm`, each checked
against what apache-tvm 0.27 answers for the same call."""

import tvmlite as tvm
from tvmlite import ffi as tvm_ffi
from tvmlite import relax, tir
from tvmlite.script import relax as R
from tvmlite.script.parser import relax as parser_relax


def test_structural_equal_and_hash_compare_ir():
    n = tir.Var("n", "int64")
    a = relax.TensorType([n, 4], "float32")
    assert tvm_ffi.structural_equal(a, relax.TensorType([n, 4], "float32"))
    assert not tvm_ffi.structural_equal(a, relax.TensorType([n, 5], "float32"))
    assert tvm_ffi.structural_hash(a) == tvm_ffi.structural_hash(relax.TensorType([n, 4],
                                                                                  "float32"))


def test_shape_and_containers():
    assert tuple(tvm_ffi.Shape([2, 3])) == (2, 3)
    assert isinstance([1, 2], tvm_ffi.Array) and isinstance((1,), tvm_ffi.Array)
    assert not isinstance({}, tvm_ffi.Array) and isinstance({}, tvm_ffi.Map)
    assert tvm_ffi.Array([1, 2]) == (1, 2)


def test_type_proxy_stands_for_bare_constructors():
    # TVM's tests normalise `R.Any` through TypeProxy.as_ty(): R.Any is the object type
    proxy = parser_relax.entry.TypeProxy
    assert isinstance(R.Object, proxy) and not isinstance(R.Tensor((2,), "int32"), proxy)
    assert R.Object.as_ty() == relax.ObjectType()
    # apache-tvm: type_lca(Prim("int32"), Prim("int64")) is R.Any; with itself, itself
    lca = relax.analysis.type_lca(R.Prim("int32"), R.Prim("int64"))
    assert tvm_ffi.structural_equal(lca, R.Any.as_ty())
    assert tvm.ir.structural_equal(relax.analysis.type_lca(R.Prim("int32"), R.Prim("int32")),
                                   R.Prim("int32"))
