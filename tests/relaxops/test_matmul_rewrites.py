"""Matmul rewrites (AdjustMatmulOrder, ...): Before/Expected as TVM writes them, and the
compiled result of the rewritten module against numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R

RNG = np.random.default_rng(7)


def _run(mod, *arrays):
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in arrays])
    return out.numpy()


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def test_adjust_matmul_order_multiplies_the_vector_first():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")) -> R.Tensor((32,), "float32"):
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")) -> R.Tensor((32,), "float32"):
            xa = R.matmul(x, a)
            out = R.matmul(xa, b)
            return out

    after = relax.transform.AdjustMatmulOrder()(Before)
    assert_structural_equal(after, Expected)
    assert_structural_equal(relax.transform.AdjustMatmulOrder()(after), Expected)  # idempotent
    x, a, b = _rand(16), _rand(16, 2), _rand(2, 32)
    np.testing.assert_allclose(_run(after, x, a, b), x @ (a @ b), rtol=1e-4, atol=1e-4)


def test_adjust_matmul_order_keeps_an_order_not_always_cheaper():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("batch", 16), "float32"), a: R.Tensor((16, "r"), "float32"),
                 b: R.Tensor(("r", 32), "float32")):
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    # (x @ a) @ b costs 48 * batch * r, x @ (a @ b) costs 512 * (r + batch): neither always
    assert_structural_equal(relax.transform.AdjustMatmulOrder()(Before), Before)


def test_adjust_matmul_order_keeps_weight_products_it_can_fold():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 2), "float32"),
                 b: R.Tensor((2, 32), "float32")):
            R.func_attr({"num_input": 1})
            w = R.matmul(a, b)
            out = R.matmul(x, w)
            return out

    assert_structural_equal(relax.transform.AdjustMatmulOrder()(Before), Before)


def test_expand_matmul_of_sum():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 32), "float32"),
                 b: R.Tensor((16, 32), "float32")) -> R.Tensor((32,), "float32"):
            w = R.add(a, b)
            out = R.matmul(x, w)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((16,), "float32"), a: R.Tensor((16, 32), "float32"),
                 b: R.Tensor((16, 32), "float32")) -> R.Tensor((32,), "float32"):
            lhs = R.matmul(x, a)
            rhs = R.matmul(x, b)
            out = R.add(lhs, rhs)
            return out

    after = relax.transform.ExpandMatmulOfSum()(Before)
    assert_structural_equal(after, Expected)
    x, a, b = _rand(16), _rand(16, 32), _rand(16, 32)
    np.testing.assert_allclose(_run(after, x, a, b), x @ (a + b), rtol=1e-4, atol=1e-4)


def test_reorder_take_after_matmul():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 16), "float32"), table: R.Tensor((16, 10), "float32"),
                 idx: R.Tensor((4,), "int64")):
            with R.dataflow():
                w = R.take(table, idx, axis=1)
                out = R.matmul(x, w)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 16), "float32"), table: R.Tensor((16, 10), "float32"),
                 idx: R.Tensor((4,), "int64")):
            with R.dataflow():
                full = R.matmul(x, table)
                out = R.take(full, idx, axis=1)
                R.output(out)
            return out

    after = relax.transform.ReorderTakeAfterMatmul()(Before)
    assert_structural_equal(after, Expected)
    x, t = _rand(2, 16), _rand(16, 10)
    idx = np.array([3, 0, 9, 3], dtype="int64")
    np.testing.assert_allclose(_run(after, x, t, idx), x @ t[:, idx], rtol=1e-4, atol=1e-4)


def test_reorder_take_after_matmul_with_one_table_entry_per_batch_row():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 2, 4), "float32"), table: R.Tensor((5, 4, 6), "float32"),
                 idx: R.Tensor((3,), "int64")):
            with R.dataflow():
                w = R.take(table, idx, axis=0)
                out = R.matmul(x, w)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3, 2, 4), "float32"), table: R.Tensor((5, 4, 6), "float32"),
                 idx: R.Tensor((3,), "int64")):
            with R.dataflow():
                side_by_side = R.reshape(R.permute_dims(table, [1, 0, 2]), [4, 30])
                every_entry = R.reshape(R.matmul(x, side_by_side), [3, 2, 5, 6])
                out = R.einsum([R.take(every_entry, idx, axis=2)], "ijik->ijk")
                R.output(out)
            return out

    after = relax.transform.ReorderTakeAfterMatmul()(Before)
    assert_structural_equal(after, relax.transform.Normalize()(Expected))
    x, t = _rand(3, 2, 4), _rand(5, 4, 6)
    idx = np.array([4, 0, 4], dtype="int64")
    np.testing.assert_allclose(_run(after, x, t, idx), np.matmul(x, t[idx]), rtol=1e-4,
                               atol=1e-4)


def test_reorder_permute_dims_after_concat():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 8), "float32"), a: R.Tensor((6, 8), "float32"),
                 b: R.Tensor((6, 8), "float32")):
            with R.dataflow():
                at = R.permute_dims(a)
                bt = R.permute_dims(b, axes=[1, 0])
                w = R.concat([at, bt], axis=1)
                out = R.matmul(x, w)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((1, 8), "float32"), a: R.Tensor((6, 8), "float32"),
                 b: R.Tensor((6, 8), "float32")):
            with R.dataflow():
                ab = R.concat([a, b], axis=0)
                w = R.permute_dims(ab)
                out = R.matmul(x, w)
                R.output(out)
            return out

    after = relax.transform.ReorderPermuteDimsAfterConcat()(Before)
    assert_structural_equal(after, Expected)


def test_combine_parallel_matmul_runs_the_same():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
                 w2: R.Tensor((8, 5), "float32"), w3: R.Tensor((8, 6), "float32")):
            with R.dataflow():
                y1 = R.matmul(x, w1)
                y2 = R.matmul(x, w2)
                r2 = R.nn.relu(y2)
                y3 = R.matmul(x, w3)
                out = R.concat([y1, r2, y3], axis=1)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3, 8), "float32"), w1: R.Tensor((8, 4), "float32"),
                 w2: R.Tensor((8, 5), "float32"), w3: R.Tensor((8, 6), "float32")):
            with R.dataflow():
                w = R.concat((w1, w2, w3), axis=1)
                y = R.matmul(x, w, out_dtype="float32")  # TVM names the product's dtype
                parts = R.split(y, indices_or_sections=[4, 9], axis=1)
                y1 = parts[0]
                y2 = parts[1]
                r2 = R.nn.relu(y2)
                y3 = parts[2]
                out = R.concat([y1, r2, y3], axis=1)
                R.output(out)
            return out

    after = relax.transform.CombineParallelMatmul()(Before)
    assert_structural_equal(after, Expected)
    x, w1, w2, w3 = _rand(3, 8), _rand(8, 4), _rand(8, 5), _rand(8, 6)
    ref = np.concatenate([x @ w1, np.maximum(x @ w2, 0), x @ w3], axis=1)
    np.testing.assert_allclose(_run(after, x, w1, w2, w3), ref, rtol=1e-4, atol=1e-4)


def test_to_mixed_precision_runs_products_in_float16():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 3), "float32")):
            with R.dataflow():
                y = R.matmul(x, w)
                z = R.nn.relu(y)
                R.output(z)
            return z

    # apache-tvm 0.27's output: the product is stored as float16 inside the block, relu
    # follows its float16 operand, and the block's output gets float32 back
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 3), "float32")):
            with R.dataflow():
                xh = R.astype(x, "float16")
                wh = R.astype(w, "float16")
                p = R.matmul(xh, wh, out_dtype="float32")
                y = R.astype(p, "float16")
                r = R.nn.relu(y)
                z = R.astype(r, "float32")
                R.output(z)
            return z

    after = relax.transform.ToMixedPrecision()(Before)
    assert_structural_equal(after, Expected)
    x, w = _rand(4, 8), _rand(8, 3)
    prod = x.astype("float16").astype("float32") @ w.astype("float16").astype("float32")
    ref = np.maximum(prod.astype("float16"), 0).astype("float32")
    np.testing.assert_allclose(_run(after, x, w), ref, rtol=1e-3, atol=1e-3)
    half = relax.transform.ToMixedPrecision(out_dtype="float16")(Before)
    np.testing.assert_allclose(_run(half, x, w), np.maximum(x @ w, 0), rtol=1e-2, atol=1e-2)


def test_to_mixed_precision_follow_ops_take_float32_when_an_operand_is_float32():
    # apache-tvm 0.27's output: `add` reads a float32 parameter, so it runs in float32 and the
    # float16 product is cast back; the parameter read only by matmul is cast at the start
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 3), "float32"),
                 b: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.nn.relu(x)
                y = R.matmul(a, w)
                z = R.add(y, b)
                R.output(z)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 3), "float32"),
                 b: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                wh = R.astype(w, "float16")
                a = R.nn.relu(x)
                ah = R.astype(a, "float16")
                p = R.matmul(ah, wh, out_dtype="float32")
                y = R.astype(p, "float16")
                yf = R.astype(y, "float32")
                z = R.add(yf, b)
                R.output(z)
            return z

    assert_structural_equal(relax.transform.ToMixedPrecision()(Before), Expected)
