"""Forms TVM 0.27 prints and parses that tvmlite's parser takes too: a DPS call of a prim_func
in any function, `T.max` in a string dim, an annotated last binding of an `if` branch, and
`Op.same_as` between two lookups of one operator, `R.emit_with_ty(op, args, ty_args)`
(apache-tvm accepts each of these)."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def test_dps_call_of_a_prim_func_given_every_buffer():
    @I.ir_module
    class Mod:
        @T.prim_func
        def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            T.evaluate(0)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Mod
            out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
            _ = cls.copy(x, out)
            return out

    call = Mod["main"].body.blocks[0].bindings[1].value
    assert call.op.gvar.name_hint == "copy" and len(call.args) == 2
    assert call.struct_info == relax.TupleStructInfo([])  # TVM: R.Tuple, the call's result


def test_max_in_a_string_dim():
    @R.function
    def f(x: R.Tensor(("n", "m", "T.max(n - m, 1)"), "float32")):
        return x

    n, m, third = f.params[0].struct_info.shape
    assert tvm.ir.structural_equal(third, tir.max(n - m, 1))


def test_if_branch_may_end_with_an_annotated_binding():
    @R.function
    def f(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")):
        if c:
            y: R.Tensor((2,), "float32") = x
        else:
            y: R.Tensor((2,), "float32") = R.add(x, x)
        return y

    if_binding = f.body.blocks[0].bindings[-1]
    assert isinstance(if_binding.value, relax.If) and if_binding.var.name_hint == "y"


def test_a_computed_branch_result_is_bound_in_the_branch():
    @R.function
    def f(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")):
        if c:
            y = x
        else:
            z = R.add(x, x)
            y = R.multiply(z, x)
        return y

    branch = f.body.blocks[0].bindings[-1].value
    # as TVM 0.27 parses it: a leaf result stays the branch's body; a computed one is bound
    # to `y_else` inside the branch, which returns that variable
    assert branch.true_branch.blocks == () and branch.true_branch.body is f.params[1]
    last = branch.false_branch.blocks[-1].bindings[-1]
    assert last.var.name_hint == "y_else" and branch.false_branch.body is last.var
    assert isinstance(last.value, relax.Call) and last.value.op.name == "relax.multiply"
    reparsed = tvm.script.from_source(f.script())
    tvm.ir.assert_structural_equal(reparsed, f)


def test_if_on_symbolic_dims_and_a_branch_ending_in_match_cast():
    @R.function
    def f(x: R.Tensor(["n"], "float32")):
        n = T.int64()
        if n == 4:
            y = R.match_cast(x, R.Tensor([4], "float32"))
        else:
            y = R.add(x, x)
        return y

    branch = f.body.blocks[0].bindings[-1].value
    assert isinstance(branch.cond, relax.PrimValue)  # `n == 4` is decided at run time
    cast = branch.true_branch.blocks[-1].bindings[-1]
    assert isinstance(cast, relax.MatchCast) and branch.true_branch.body is cast.var
    assert cast.struct_info == R.Tensor([4], "float32")
    mod = relax.transform.LegalizeOps()(tvm.IRModule({"main": f}))
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    four, three = np.arange(4, dtype="float32"), np.arange(3, dtype="float32")
    np.testing.assert_array_equal(vm["main"](four).numpy(), four)
    np.testing.assert_array_equal(vm["main"](three).numpy(), three + three)


def test_op_same_as_compares_the_operator():
    add = tvm.ir.Op.get("relax.add")
    assert add.same_as(tvm.ir.Op.get("relax.add"))
    assert not add.same_as(tvm.ir.Op.get("relax.multiply"))


def test_emit_with_ty_is_a_call_of_the_named_op_with_type_arguments():
    @R.function
    def f(x: R.Tensor((4,), "float32")):
        alloc: R.Tensor((2, 2), "float32") = R.emit_with_ty(
            "relax.builtin.alloc_tensor",
            (R.shape([2, 2]), R.dtype("float32"), R.prim_value(0), R.str("global")),
            (R.Tensor((2, 2), dtype="float32"),))
        return alloc

    call = f.body.blocks[0].bindings[0].value
    assert call.op.same_as(tvm.ir.Op.get("relax.builtin.alloc_tensor"))
    assert len(call.args) == 4
    assert call.sinfo_args == (relax.TensorStructInfo((2, 2), "float32"),)
    assert f.ret_struct_info == relax.TensorStructInfo((2, 2), "float32")
