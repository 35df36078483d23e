"""relax.analysis.estimate_memory_usage: the report for a chain of kernels, sizes by hand."""

from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Chain:
    @T.prim_func
    def relu(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                b[vi] = T.max(a[vi], T.float32(0))

    @R.function
    def main(x: R.Tensor((8,), "float32")):
        cls = Chain
        with R.dataflow():
            a = R.call_tir(cls.relu, (x,), R.Tensor((8,), "float32"))
            b = R.call_tir(cls.relu, (a,), R.Tensor((8,), "float32"))
            c = R.call_tir(cls.relu, (b,), R.Tensor((8,), "float32"))
            d = R.call_tir(cls.relu, (c,), R.Tensor((8,), "float32"))
            R.output(d)
        return d


def test_estimate_memory_usage_counts_reuse():
    # four 32-byte tensors; planned: a and c share one storage, b another, d is the result
    report = relax.analysis.estimate_memory_usage(Chain)
    assert report == (
        "Memory usage estimation:\n"
        "- Function main:\n"
        " * Without memory planning, there are 4 constant-size memory allocation(s) with "
        f"total size {128 / 1024 ** 3:.4} GB.\n"
        " * With memory planning, there are 3 constant-size memory allocation(s) with "
        f"total size {96 / 1024 ** 3:.4} GB.\n"
        " * Memory planning reduces constant memory size to 75.0%.\n")
