"""CombineParallelMatmul as TVM 0.27: branches (matmul, bias add, activation) sharing a left
operand become one matmul; what every branch shares is combined, the rest applied per slice."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.combine_parallel_matmul import CombineParallelMatmul

RNG = np.random.default_rng(11)


def _run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*args)


def _ops(func):
    return [b.value.op.name.removeprefix("relax.") if isinstance(b.value, relax.Call)
            else type(b.value).__name__ for blk in func.body.blocks for b in blk.bindings]


@I.ir_module
class BiasMixed:
    @R.function
    def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
             b1: R.Tensor((4,), "float32"), w2: R.Tensor((8, 5), "float32"),
             b2: R.Tensor((5,), "float32")):
        with R.dataflow():
            y1 = R.matmul(x, w1)
            z1 = R.add(y1, b1)
            a1 = R.nn.relu(z1)
            y2 = R.matmul(x, w2)
            z2 = R.add(y2, b2)
            out = (a1, z2)
            R.output(out)
        return out


@I.ir_module
class BiasMixedCombined:
    @R.function
    def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
             b1: R.Tensor((4,), "float32"), w2: R.Tensor((8, 5), "float32"),
             b2: R.Tensor((5,), "float32")):
        with R.dataflow():
            w = R.concat((w1, w2), axis=1)
            y = R.matmul(x, w, out_dtype="float32")
            b = R.concat((b1, b2), axis=0)
            z = R.add(y, b)
            parts = R.split(z, indices_or_sections=[4], axis=1)
            p0 = parts[0]
            a1 = R.nn.relu(p0)
            z2 = parts[1]
            out = (a1, z2)
            R.output(out)
        return out


def test_biases_combine_and_a_lone_activation_stays_with_its_branch():
    after = CombineParallelMatmul()(BiasMixed)
    assert_structural_equal(after, BiasMixedCombined)
    x, w1, b1, w2, b2 = (RNG.standard_normal(s).astype("float32")
                         for s in ((3, 8), (8, 4), (4,), (8, 5), (5,)))
    a1, z2 = _run(after, x, w1, b1, w2, b2)
    np.testing.assert_allclose(a1.numpy(), np.maximum(x @ w1 + b1, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z2.numpy(), x @ w2 + b2, rtol=1e-5, atol=1e-5)


def test_same_activation_everywhere_is_combined():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
                 w2: R.Tensor((8, 5), "float32")):
            with R.dataflow():
                a1 = R.nn.relu(R.matmul(x, w1))
                a2 = R.nn.relu(R.matmul(x, w2))
                out = (a1, a2)
                R.output(out)
            return out

    after = CombineParallelMatmul()(Mod)
    assert _ops(after["main"]) == ["concat", "matmul", "nn.relu", "split", "TupleGetItem",
                                   "TupleGetItem", "Tuple"]


def test_a_missing_bias_keeps_every_bias_per_branch():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
                 b1: R.Tensor((4,), "float32"), w2: R.Tensor((8, 5), "float32")):
            with R.dataflow():
                z1 = R.add(R.matmul(x, w1), b1)
                y2 = R.matmul(x, w2)
                out = (z1, y2)
                R.output(out)
            return out

    after = CombineParallelMatmul()(Mod)
    assert _ops(after["main"]) == ["concat", "matmul", "split", "TupleGetItem", "add",
                                   "TupleGetItem", "Tuple"]


def test_symbolic_width_goes_last_and_only_one():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w0: R.Tensor((8, "m"), "float32"),
                 w1: R.Tensor((8, 4), "float32"), w2: R.Tensor((8, "n"), "float32")):
            with R.dataflow():
                y0 = R.matmul(x, w0)
                y1 = R.matmul(x, w1)
                y2 = R.matmul(x, w2)
                out = (y0, y1, y2)
                R.output(out)
            return out

    after = CombineParallelMatmul()(Mod)
    main = after["main"]
    bindings = [b for blk in main.body.blocks for b in blk.bindings]
    concat = bindings[0].value
    assert [f.name_hint for f in concat.args[0].fields] == ["w1", "w0"]
    split = bindings[2]
    assert split.value.attr("indices_or_sections") == (4,)
    m = main.params[1].struct_info.shape[1]
    assert split.var.struct_info.fields[1].shape[1] is m  # `(4 + m) - 4` is m
    assert bindings[3].value.index == 1 and bindings[4].value.index == 0  # y0, then y1
    assert bindings[5].value.op.name == "relax.matmul"  # w2 left alone
    x = RNG.standard_normal((3, 8)).astype("float32")
    w0, w1, w2 = (RNG.standard_normal(s).astype("float32") for s in ((8, 2), (8, 4), (8, 3)))
    for got, w in zip(_run(after, x, w0, w1, w2), (w0, w1, w2)):
        np.testing.assert_allclose(got.numpy(), x @ w, rtol=1e-5, atol=1e-5)


def test_check_can_refuse_a_group_and_batches_must_agree():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((2, 8, 4), "float32"),
                 w2: R.Tensor((3, 8, 4), "float32"), v1: R.Tensor((8, 4), "float32"),
                 v2: R.Tensor((8, 4), "float32")):
            with R.dataflow():
                y1 = R.matmul(x, w1)
                y2 = R.matmul(x, w2)
                z1 = R.matmul(x, v1)
                z2 = R.matmul(x, v2)
                out = (y1, y2, z1, z2)
                R.output(out)
            return out

    seen = []

    def check(lhs, rhs, bias, activation):
        seen.append(([r.name_hint for r in rhs], bias, activation))
        return False

    assert_structural_equal(CombineParallelMatmul(check)(Mod), Mod)
    # the rank-3 operands disagree on their batch: only the rank-2 pair was offered
    assert seen == [(["v1", "v2"], [None, None], [None, None])]
    combined = CombineParallelMatmul()(Mod)["main"]
    assert _ops(combined).count("matmul") == 3


def test_nothing_to_combine_returns_the_same_function():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w: R.Tensor((8, 4), "float32")):
            with R.dataflow():
                y = R.matmul(x, w)
                R.output(y)
            return y

    assert CombineParallelMatmul()(Mod)["main"] is Mod["main"]
