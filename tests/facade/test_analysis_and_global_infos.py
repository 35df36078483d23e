"""`relax.analysis`'s variable questions, answered for a function whose bindings we know, and
the global infos `I.module_global_infos` takes (`I.vdevice`, `I.dummy_global_info`)."""

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@R.function
def two_steps(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.add(x, y)
        b = R.multiply(a, x)
        R.output(b)
    return b


def _bindings():
    return [b for block in two_steps.body.blocks for b in block.bindings]


def test_get_var2val_maps_each_bound_var_to_its_value():
    a, b = _bindings()
    var2val = relax.analysis.get_var2val(two_steps)
    assert var2val == {a.var: a.value, b.var: b.value}
    assert var2val[b.var].args[0] is a.var


def test_bound_free_and_all_vars():
    x, y = two_steps.params
    a, b = _bindings()
    assert relax.analysis.bound_vars(two_steps) == [x, y, a.var, b.var]
    assert relax.analysis.free_vars(two_steps) == []
    assert relax.analysis.free_vars(b.value) == [a.var, x]
    assert relax.analysis.name_to_binding(two_steps) == {"a": [a], "b": [b]}


def test_module_global_infos_hold_vdevices():
    @I.ir_module
    class WithDevices:
        I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 1, "global")],
                               "dummy": [I.dummy_global_info()]})

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    llvm, cuda = WithDevices.global_infos["vdevice"]
    assert (llvm.target, llvm.vdevice_id, cuda.target, cuda.vdevice_id) == ("llvm", 0, "cuda", 1)
    assert isinstance(cuda, tvm.ir.GlobalInfo) and isinstance(cuda, relax.VDevice)
    assert isinstance(WithDevices.global_infos["dummy"][0], relax.DummyGlobalInfo)


def test_graph_classes_are_the_ir_classes():
    a, _ = _bindings()
    assert isinstance(a, relax.VarBinding) and isinstance(two_steps.body, relax.SeqExpr)
    assert isinstance(a.value, tvm.ir.Call) and tvm.ir.Call is relax.Call
    assert relax.extern("my_func").global_symbol == "my_func"
