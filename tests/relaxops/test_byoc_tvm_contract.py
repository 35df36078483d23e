"""TVM's BYOC contract (issue 16 item 4): `relax.ext.<name>` returns a list of runtime modules,
often empty, and each function's `global_symbol` is found among the global functions."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.fuse_by_pattern import FuseOpsByPattern
from tvmlite.vm import registry
from tvmlite.transforms.run_codegen import CodegenNotFoundError, RunCodegen


@I.ir_module
class AddRelu:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.nn.relu(a)
            R.output(b)
        return b


def _partition(codegen_name):
    from tvmlite.ir.dpl import is_op, wildcard

    p = is_op("relax.nn.relu")(is_op("relax.add")(wildcard(), wildcard()))
    return FuseOpsByPattern([(f"{codegen_name}.add_relu", p)], annotate_codegen=True)(AddRelu)


def _kernel(x, y, out):
    np.copyto(np.from_dlpack(out), np.maximum(np.from_dlpack(x) + np.from_dlpack(y), 0))


def test_codegen_registering_symbols_and_returning_empty_list():
    seen = []

    @tvm.register_func("relax.ext.tvmstyle", override=True)
    def codegen(functions, options, constant_names):
        for f in functions:
            symbol = f.attrs["global_symbol"]
            seen.append(symbol)
            tvm.register_global_func(symbol, _kernel, override=True)
        return []

    mod = RunCodegen()(_partition("tvmstyle"))
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = np.random.randn(2, 3).astype("float32")
    y = np.random.randn(2, 3).astype("float32")
    np.testing.assert_allclose(vm["main"](x, y).numpy(), np.maximum(x + y, 0), rtol=1e-6)
    assert len(seen) == 1


def test_codegen_returning_a_module_with_the_symbol():
    class Module:
        def __init__(self, funcs):
            self.funcs = funcs

        def get_function(self, name):
            return self.funcs.get(name)

    @tvm.register_func("relax.ext.tvmmod", override=True)
    def codegen(functions, options, constant_names):
        return [Module({f.attrs["global_symbol"]: _kernel for f in functions})]

    mod = RunCodegen()(_partition("tvmmod"))
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = np.random.randn(2, 3).astype("float32")
    np.testing.assert_allclose(vm["main"](x, x).numpy(), np.maximum(2 * x, 0), rtol=1e-6)


def test_symbol_found_nowhere_is_a_clear_error():
    @tvm.register_func("relax.ext.tvmnone", override=True)
    def codegen(functions, options, constant_names):
        return []

    mod = _partition("tvmnone")
    for gv, f in mod.functions.items():
        if "global_symbol" in f.attr_dict and "Codegen" in f.attr_dict:
            if f.attrs["global_symbol"] in registry.list_global_func_names():
                registry.remove_global_func(f.attrs["global_symbol"])
    with pytest.raises(CodegenNotFoundError, match="global_symbol"):
        RunCodegen()(mod)
