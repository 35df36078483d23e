"""AllocateWorkspace (transforms/allocate_workspace.py): Before/Expected as TVM writes them, and
the rewritten module run by the VM."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Before:
    @R.function
    def ext(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Codegen": "ccompiler", "WorkspaceSize": 64, "global_symbol": "ext"})

        @R.function
        def inner(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": "ccompiler.relu", "Primitive": True,
                         "WorkspaceSize": 64})
            with R.dataflow():
                z = R.nn.relu(y)
                R.output(z)
            return z

        out = inner(x)
        return out

    @R.function
    def small(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"WorkspaceSize": 16, "global_symbol": "small"})
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Before
        with R.dataflow():
            a = cls.ext(x)
            b = cls.small(a)
            R.output(b)
        return b

    @R.function
    def untouched(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y


@I.ir_module
class Expected:
    @R.function
    def ext1(x: R.Tensor((4,), "float32"), workspace: R.Tensor((64,), "uint8")
             ) -> R.Tensor((4,), "float32"):
        R.func_attr({"Codegen": "ccompiler", "global_symbol": "ext1"})

        @R.function
        def inner(y: R.Tensor((4,), "float32"), workspace_1: R.Tensor((64,), "uint8")
                  ) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": "ccompiler.relu", "Primitive": True})
            with R.dataflow():
                z = R.nn.relu(y)
                R.output(z)
            return z

        out = inner(x, workspace)
        return out

    @R.function
    def small1(x: R.Tensor((4,), "float32"), workspace: R.Tensor((64,), "uint8")
               ) -> R.Tensor((4,), "float32"):
        R.func_attr({"global_symbol": "small1"})
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Expected
        with R.dataflow():
            workspace_main = R.builtin.alloc_tensor(R.shape([64]), R.dtype("uint8"),
                                                    R.prim_value(0))
            a = cls.ext1(x, workspace_main)
            b = cls.small1(a, workspace_main)
            R.output(b)
        return b

    @R.function
    def untouched(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y


def test_external_functions_get_one_workspace_of_the_largest_size():
    assert_structural_equal(relax.transform.AllocateWorkspace()(Before), Expected)


def test_a_module_asking_for_no_workspace_is_unchanged():
    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    assert relax.transform.AllocateWorkspace()(Plain) is Plain


def test_the_workspace_is_allocated_and_passed_at_run_time():
    @I.ir_module
    class Scratch:
        @R.function
        def double(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"WorkspaceSize": 32, "global_symbol": "double"})
            with R.dataflow():
                y = R.add(x, x)
                R.output(y)
            return y

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Scratch
            with R.dataflow():
                y = cls.double(x)
                R.output(y)
            return y

    after = relax.transform.AllocateWorkspace()(Scratch)
    assert [p.struct_info for p in after["double1"].params][1] == R.Tensor((32,), "uint8")
    ex = relax.build(relax.transform.LegalizeOps()(after), target="llvm")
    x = np.arange(4, dtype="float32")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](x)
    np.testing.assert_array_equal(out.numpy(), x + x)
