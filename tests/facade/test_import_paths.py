"""The TVM-facing facade is a tree of real modules on TVM's paths: each imports by its dotted
name, and what it names is the one object the layers define."""

import importlib

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T

PATHS = ["relax", "relax.transform", "relax.op", "relax.op.nn", "relax.op.image",
         "relax.analysis", "relax.dpl", "relax.expr_functor", "relax.block_builder",
         "relax.vm", "relax.vm_build", "relax.testing", "relax.backend",
         "relax.backend.pattern_registry", "relax.backend.contrib.example_npu",
         "relax.backend.cuda.cublas", "relax.frontend", "relax.frontend.nn", "runtime",
         "runtime.script_printer", "s_tir", "s_tir.schedule", "s_tir.schedule.testing",
         "script.tirx", "error", "contrib.utils", "rpc", "testing", "testing.env", "tirx",
         "tirx.function", "tirx.expr", "tirx.stmt", "ir.base", "contrib.cblas",
         "relax.op.linear_algebra", "relax.op.unary", "ir.transform", "tirx.buffer",
         "relax.base_py_module", "relax.relax_to_pyfunc_converter"]


@pytest.mark.parametrize("path", PATHS)
def test_module_imports_by_its_path(path):
    module = importlib.import_module(f"tvmlite.{path}")
    assert module.__name__.startswith("tvmlite.")


def test_names_are_the_layers_objects():
    from tvmlite.relax.block_builder import BlockBuilder
    from tvmlite.relax.transform import LegalizeOps
    from tvmlite.transforms.block_builder import BlockBuilder as LayerBuilder
    from tvmlite.transforms.legalize import LegalizeOps as LayerLegalize

    assert BlockBuilder is LayerBuilder and LegalizeOps is LayerLegalize
    assert tvm.relax.op.nn.relu is tvm.relax.op.nn.__dict__["relu"]
    tirx = importlib.import_module("tvmlite.script.tirx")
    assert all(getattr(tirx, name) is getattr(T, name) for name in T.__all__)


def test_errors_are_catchable_as_tvm_classes():
    with pytest.raises(tvm.error.DiagnosticError):
        tvm.script.from_source("@T.prim_func\ndef f(A: T.Buffer((4,), 'float32')):\n  A[0] = B\n")
    with pytest.raises(tvm.error.OpError):
        tvm.relax.op.matmul(tvm.relax.Var("x", tvm.relax.TensorStructInfo((2, 3), "float32")),
                            tvm.relax.Var("y", tvm.relax.TensorStructInfo((4, 5), "float32")))
    with pytest.raises(NotImplementedError, match="no RPC runtime"):
        tvm.rpc.connect("localhost", 9090)


def test_tempdir_is_removed():
    import os

    tmp = tvm.contrib.utils.tempdir()
    path = tmp.relpath("x.txt")
    open(path, "w").close()
    assert tmp.listdir() == ["x.txt"]
    tmp.remove()
    assert not os.path.exists(path)


@T.prim_func
def _add_one(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)


def test_verify_trace_roundtrip_replays_the_schedule():
    from tvmlite.s_tir.schedule.testing import verify_trace_roundtrip

    sch = tvm.s_tir.Schedule(_add_one)
    outer, inner = sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[None, 16])
    sch.vectorize(inner)
    replayed = verify_trace_roundtrip(sch, _add_one)
    f = tvm.build(replayed.mod)
    a = np.arange(64, dtype="float32")
    b = np.zeros(64, dtype="float32")
    f(a, b)
    np.testing.assert_allclose(b, a + 1)


def test_operator_files_hold_relax_ops_builders():
    from tvmlite.relax.op import _groups

    for group, names in _groups.GROUPS.items():
        module = importlib.import_module(f"tvmlite.relax.op.{group}")
        present = [n for n in names if hasattr(tvm.relax.op, n)]
        assert all(getattr(module, n) is getattr(tvm.relax.op, n) for n in present), group
    from tvmlite.relax.op.linear_algebra import matmul

    x = tvm.relax.Var("x", tvm.relax.TensorStructInfo((2, 3), "float32"))
    y = tvm.relax.Var("y", tvm.relax.TensorStructInfo((3, 5), "float32"))
    assert [int(d) for d in matmul(x, y).struct_info.shape] == [2, 5]


def test_tvm_027_spellings_are_the_same_objects():
    from tvmlite.script.parser import relax as R
    from tvmlite.script.parser import tirx as parser_T
    from tvmlite.tirx.function import PrimFunc

    assert parser_T is T and R is tvm.script.relax
    assert tvm.tirx.PrimFunc is tvm.tir.PrimFunc is PrimFunc and tvm.tirx.build is tvm.tir.build
    assert tvm.ir.PrimType("int64") == tvm.relax.PrimStructInfo("int64")
    assert tvm.ir.base.assert_structural_equal is tvm.ir.assert_structural_equal


def test_cblas_imports_and_says_why_it_cannot_run():
    import tvmlite.contrib.cblas as cblas

    with pytest.raises(NotImplementedError, match="does not link a CBLAS library"):
        cblas.matmul(None, None)


def test_check_well_formed_answers_false_instead_of_raising():
    x = tvm.relax.Var("x", tvm.relax.TensorStructInfo((4,), "float32"))
    y = tvm.relax.Var("y", tvm.relax.TensorStructInfo((4,), "float32"))
    body = tvm.relax.SeqExpr((), y)  # y is bound nowhere
    bad = tvm.relax.Function((x,), body, tvm.relax.TensorStructInfo((4,), "float32"))
    good = tvm.relax.Function((x,), tvm.relax.SeqExpr((), x),
                              tvm.relax.TensorStructInfo((4,), "float32"))
    assert tvm.relax.analysis.check_well_formed(good)
    assert not tvm.relax.analysis.check_well_formed(bad)


def test_tirx_paths_name_tir_objects():
    from tvmlite.ir.transform import PassContext
    from tvmlite.tirx import BufferAccessKind
    from tvmlite.tirx.expr import EQ, Add

    assert PassContext is tvm.transform.PassContext
    a, b = tvm.tir.Var("a", "int32"), tvm.tir.Var("b", "int32")
    assert isinstance(a + b, Add) and isinstance(tvm.tir.EQ(a, b), EQ)
    buf = tvm.tir.decl_buffer((4, 4), "float32", name="A")
    ptr = buf.access_ptr(BufferAccessKind.READ | BufferAccessKind.WRITE)
    assert ptr.args[4].value == 3 and buf.access_ptr("w").args[4].value == BufferAccessKind.WRITE
