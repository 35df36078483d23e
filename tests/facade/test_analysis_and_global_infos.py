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


def test_global_infos_print_as_the_calls_that_make_them():
    @I.ir_module
    class WithDevices:
        I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global")],
                               "dummy": [I.dummy_global_info()]})

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    text = WithDevices.script()
    assert ('I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global")], '
            '"dummy": [I.dummy_global_info()]})') in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), WithDevices)


def test_block_builder_module_keeps_and_shares_global_infos():
    start = tvm.IRModule({}, attrs={"k": 1}, global_infos={"dummy": [I.dummy_global_info()]})
    bb = relax.BlockBuilder(start)
    x = relax.Var("x", R.Tensor((4,), "float32"))
    with bb.function("f", [x]):
        bb.emit_func_output(x)
    vdev = I.vdevice("llvm")
    bb.get().update_global_info("vdevice", [vdev])  # as TVM: the builder's module takes it
    mod = bb.get()
    assert mod.attrs == {"k": 1}
    assert mod.global_infos["vdevice"] == [vdev] and "dummy" in mod.global_infos


def test_opencl_device_is_named_but_absent():
    dev = R.opencl(2)
    assert (dev.device_type, dev.device_id, str(dev)) == (4, 2, "opencl(2)")
    assert R.device(4, 2) is dev and not dev.exist
