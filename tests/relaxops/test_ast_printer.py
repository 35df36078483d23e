"""relax.testing.dump_ast: an expression as its tree of nodes, in TVM 0.27's format."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.relax.testing import dump_ast
from tvmlite.script import relax as R


def test_nodes_and_fields_in_tvms_layout():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    assert dump_ast(x, include_ty_annotations=False) == 'Var(name="x")'
    call = relax.op.add(x, x)
    assert dump_ast(call, include_ty_annotations=False) == (
        'Call(\n    op=Op(name="relax.add"),\n    args=[\n        Var(name="x"),\n'
        '        Var(name="x")\n    ]\n)')
    typed = dump_ast(x)
    assert typed.startswith('Var(\n    name="x",\n    ty=TensorType(')
    assert "Expr(value=`T.int64(2)`)" in typed and "dtype=float32" in typed


def test_bindings_blocks_and_types():
    n = tir.Var("n", "int64")
    v = relax.Var("v", R.Tensor((n,), "float32"))
    c = relax.const(np.zeros(3, "float32"))
    block = relax.DataflowBlock([relax.VarBinding(v, c)])
    text = dump_ast(block, include_ty_annotations=False)
    assert text.startswith("DataflowBlock(\n    bindings=[\n        VarBinding(")
    assert 'var=Var(name="v")' in text and "value=Constant(" in text
    printer = relax.testing.ast_printer.ASTPrinter()
    assert printer.visit_ty_(R.Shape(ndim=2)) == "ShapeType(ndim=2)"
    assert printer.visit_ty_(relax.ObjectStructInfo()) == "AnyType()"
    func_ty = tvm.ir.FuncStructInfo([R.Tensor(ndim=2, dtype="int32")], tvm.ir.TupleStructInfo([]))
    assert "".join(printer.visit_type_(func_ty).split()) == \
        "FuncType(params=[TensorType(ndim=2,dtype=int32)],ret=TupleType(fields=[]),purity=True)"


def test_call_attributes_are_shown_on_request():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    call = relax.op.sum(x, axis=[1])
    assert '"axis": (1,)' in dump_ast(call, include_ty_annotations=False)
    assert '"axis"' not in dump_ast(call, include_call_attrs=False)
