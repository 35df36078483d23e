"""MergeCompositeFunctions as TVM 0.27 groups and writes offloaded regions: one region per
backend as far as no cycle forms, composites inlined as local functions, aliases and
projections kept with their producer unless the whole tuple leaves the region."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.backend import ccompiler  # noqa: F401  (importing registers the backend)
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.merge_composite import MergeCompositeFunctions
from tvmlite.transforms.run_codegen import RunCodegen


def regions(mod):
    return {gv.name_hint: f.attr_dict["Codegen"] for gv, f in mod.functions.items()
            if isinstance(f, relax.Function) and "Codegen" in f.attr_dict}


@I.ir_module
class TwoAdds:
    @R.function(private=True)
    def add_a(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")
              ) -> R.Tensor((4,), "float32"):
        R.func_attr({"Composite": "A.add", "Primitive": True})
        with R.dataflow():
            z = R.add(x, y)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")
             ) -> R.Tensor((4,), "float32"):
        cls = TwoAdds
        with R.dataflow():
            a = cls.add_a(x, y)
            b = cls.add_a(a, y)
            R.output(b)
        return b


@I.ir_module
class TwoAddsMerged:
    @R.function
    def fused_add_a_add_a_A(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")
                            ) -> R.Tensor((4,), "float32"):
        R.func_attr({"Codegen": "A"})

        @R.function
        def local(x1: R.Tensor((4,), "float32"), y1: R.Tensor((4,), "float32")
                  ) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": "A.add"})
            with R.dataflow():
                z = R.add(x1, y1)
                R.output(z)
            return z

        a = local(x, y)
        b = local(a, y)
        return b

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")
             ) -> R.Tensor((4,), "float32"):
        cls = TwoAddsMerged
        with R.dataflow():
            b = cls.fused_add_a_add_a_A(x, y)
            R.output(b)
        return b


def test_one_composite_called_twice_is_inlined_once():
    tvm.ir.assert_structural_equal(MergeCompositeFunctions()(TwoAdds), TwoAddsMerged)


def _diamond(second_backend):
    """a -> (b, c) -> d, with c offloaded to `second_backend`."""

    @I.ir_module
    class Diamond:
        @R.function(private=True)
        def relu_a(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": "A.relu", "Primitive": True})
            with R.dataflow():
                y = R.nn.relu(x)
                R.output(y)
            return y

        @R.function(private=True)
        def neg_b(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": second_backend + ".negative", "Primitive": True})
            with R.dataflow():
                y = R.negative(x)
                R.output(y)
            return y

        @R.function(private=True)
        def add_a(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")
                  ) -> R.Tensor((4,), "float32"):
            R.func_attr({"Composite": "A.add", "Primitive": True})
            with R.dataflow():
                z = R.add(x, y)
                R.output(z)
            return z

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Diamond
            with R.dataflow():
                a = cls.relu_a(x)
                b = cls.relu_a(a)
                c = cls.neg_b(a)
                d = cls.add_a(b, c)
                R.output(d)
            return d

    return Diamond


def test_a_region_never_surrounds_another_backend():
    # merging d into {a, b} would make that region both feed and read B's region
    merged = MergeCompositeFunctions()(_diamond("B"))
    assert regions(merged) == {"fused_relu_a_relu_a_A": "A", "fused_neg_b_B": "B",
                               "fused_add_a_A": "A"}
    main_calls = [b.value.op.gvar.name_hint for blk in merged["main"].body.blocks
                  for b in blk.bindings if isinstance(b.value, relax.Call)
                  and hasattr(b.value.op, "gvar")]
    assert main_calls == ["fused_relu_a_relu_a_A", "fused_neg_b_B", "fused_add_a_A"]
    # the first region returns both a (for B) and b
    first = merged["fused_relu_a_relu_a_A"]
    assert len(first.ret_struct_info.fields) == 2


def test_one_backend_merges_the_whole_diamond():
    merged = MergeCompositeFunctions()(_diamond("A"))
    assert regions(merged) == {"fused_relu_a_relu_a_neg_b_add_a_A": "A"}
    assert sorted(merged.names()) == ["fused_relu_a_relu_a_neg_b_add_a_A", "main"]


@I.ir_module
class SplitThenAdd:
    @R.function(private=True)
    def split(x: R.Tensor((2, 4), "float32")
              ) -> R.Tuple(R.Tensor((1, 4), "float32"), R.Tensor((1, 4), "float32")):
        R.func_attr({"Composite": "A.split", "Primitive": True})
        with R.dataflow():
            y = R.split(x, indices_or_sections=2, axis=0)
            R.output(y)
        return y

    @R.function(private=True)
    def add(x: R.Tensor((1, 4), "float32"), y: R.Tensor((1, 4), "float32")
            ) -> R.Tensor((1, 4), "float32"):
        R.func_attr({"Composite": "A.add", "Primitive": True})
        with R.dataflow():
            z = R.add(x, y)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((1, 4), "float32"):
        cls = SplitThenAdd
        with R.dataflow():
            parts = cls.split(x)
            alias = parts
            left = alias[0]
            right = parts[1]
            out = cls.add(right, left)
            R.output(out)
        return out


def test_aliases_and_projections_stay_in_their_region():
    merged = MergeCompositeFunctions()(SplitThenAdd)
    assert regions(merged) == {"fused_split_add_A": "A"}
    region = merged["fused_split_add_A"]
    values = [type(b.value).__name__ for blk in region.body.blocks for b in blk.bindings]
    assert values == ["Function", "Call", "Var", "TupleGetItem", "TupleGetItem", "Function",
                      "Call"]
    # main only calls the region
    (binding,) = [b for blk in merged["main"].body.blocks for b in blk.bindings]
    assert binding.value.op.gvar.name_hint == "fused_split_add_A"


@I.ir_module
class TupleEscapes:
    @R.function(private=True)
    def split(x: R.Tensor((2, 4), "float32")
              ) -> R.Tuple(R.Tensor((1, 4), "float32"), R.Tensor((1, 4), "float32")):
        R.func_attr({"Composite": "A.split", "Primitive": True})
        with R.dataflow():
            y = R.split(x, indices_or_sections=2, axis=0)
            R.output(y)
        return y

    @R.function(private=True)
    def relu(x: R.Tensor((1, 4), "float32")) -> R.Tensor((1, 4), "float32"):
        R.func_attr({"Composite": "A.relu", "Primitive": True})
        with R.dataflow():
            y = R.nn.relu(x)
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((2, 4), "float32")):
        cls = TupleEscapes
        with R.dataflow():
            parts = cls.split(x)
            left = parts[0]
            out = cls.relu(left)
            result = (parts, out)
            R.output(result)
        return result


def test_a_projection_of_an_escaping_tuple_stays_outside():
    merged = MergeCompositeFunctions()(TupleEscapes)
    assert regions(merged) == {"fused_split_A": "A", "fused_relu_A": "A"}
    values = [b.value for blk in merged["main"].body.blocks for b in blk.bindings]
    assert [type(v).__name__ for v in values] == ["Call", "TupleGetItem", "Call", "Tuple"]


def test_merged_region_runs_through_ccompiler():
    @I.ir_module
    class Mod:
        @R.function(private=True)
        def add(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")
                ) -> R.Tensor((2, 3), "float32"):
            R.func_attr({"Composite": "ccompiler.add", "Primitive": True})
            with R.dataflow():
                z = R.add(x, y)
                R.output(z)
            return z

        @R.function(private=True)
        def mul(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")
                ) -> R.Tensor((2, 3), "float32"):
            R.func_attr({"Composite": "ccompiler.multiply", "Primitive": True})
            with R.dataflow():
                z = R.multiply(x, y)
                R.output(z)
            return z

        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            cls = Mod
            with R.dataflow():
                a = cls.add(x, y)
                b = cls.mul(a, x)
                c = cls.add(b, a)
                R.output(c)
            return c

    mod = RunCodegen()(MergeCompositeFunctions()(Mod))
    assert mod.names() == ["main"]
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.full((2, 3), 0.5, dtype="float32")
    np.testing.assert_allclose(vm["main"](x, y).numpy(), (x + y) * x + (x + y), rtol=1e-6)
