"""FoldConstantBatchnorm (the default build's folding of inference batch norms into the conv2d
before them): the folded graph against the unfolded one and numpy, and what it must leave."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.transforms.fold_constant_bn import FoldConstantBatchnorm

RNG = np.random.default_rng(5)


def conv_bn(training: bool = False, conv_also_returned: bool = False, groups: int = 1):
    """x -> conv2d(x, W) -> batch_norm(...)[0] with every weight a constant."""
    c, o = 4, 6
    w = RNG.standard_normal((o, c // groups, 3, 3)).astype("float32")
    stats = [RNG.standard_normal(o).astype("float32") for _ in range(3)]
    var = RNG.random(o).astype("float32") + 0.5
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, 8, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), padding=1, groups=groups))
            bn = bb.emit(relax.op.nn.batch_norm(y, *(relax.const(s) for s in stats),
                                                relax.const(var), axis=1, epsilon=1e-5,
                                                training=training))
            out = bb.emit_output(relax.Tuple([bb.emit(relax.TupleGetItem(bn, 0)), y])
                                 if conv_also_returned else relax.TupleGetItem(bn, 0))
        bb.emit_func_output(out)
    return bb.get(), (w, *stats, var)


def reference(x, w, gamma, beta, mean, var, groups=1):
    """numpy: the conv by windows, then the batch norm with the moving statistics."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    cg, og = w.shape[1], w.shape[0] // groups
    y = np.concatenate([np.einsum("ncyxij,fcij->nfyx", win[:, g * cg:(g + 1) * cg],
                                  w[g * og:(g + 1) * og]) for g in range(groups)], axis=1)
    ch = (1, -1, 1, 1)
    return (y - mean.reshape(ch)) / np.sqrt(var.reshape(ch) + 1e-5) * gamma.reshape(ch) + \
        beta.reshape(ch)


def run(mod, x):
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](x)


def test_conv_then_inference_batch_norm_becomes_one_conv_and_a_shift() -> None:
    for groups in (1, 2):
        mod, params = conv_bn(groups=groups)
        folded = FoldConstantBatchnorm()(mod)
        text = folded.script()
        assert "batch_norm" not in text and text.count("R.nn.conv2d") == 1
        assert "R.add" in text
        x = RNG.standard_normal((1, 4, 8, 8)).astype("float32")
        np.testing.assert_allclose(run(folded, x).numpy(), reference(x, *params, groups),
                                   rtol=1e-4, atol=1e-4)


def test_training_mode_and_shared_convs_are_left_alone() -> None:
    for kw in ({"training": True}, {"conv_also_returned": True}):
        mod, _ = conv_bn(**kw)
        assert "R.nn.batch_norm" in FoldConstantBatchnorm()(mod).script(), kw


def test_the_default_build_folds() -> None:
    from tvmlite.transforms.pipeline import default_build_pipeline

    mod, params = conv_bn()
    text = default_build_pipeline()(mod).script()
    assert "batch_norm" not in text
    x = RNG.standard_normal((1, 4, 8, 8)).astype("float32")
    np.testing.assert_allclose(run(mod, x).numpy(), reference(x, *params), rtol=1e-4, atol=1e-4)



def test_no_alias_binding_is_left_for_the_epilogue_fusion() -> None:
    """`relu(bn(conv)[0])` must reach FuseConvEpilogue as relu over the folded add, with no
    `y = x` binding between them (which kept ResNet's relus out of the conv nests)."""
    from tvmlite.transforms.fuse_conv_epilogue import FuseConvEpilogue

    _, params = conv_bn()
    w, *stats = params
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 8, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            conv = bb.emit(relax.op.nn.conv2d(x, relax.const(w), padding=1))
            bn = bb.emit(relax.op.nn.batch_norm(conv, *(relax.const(s) for s in stats),
                                                axis=1, epsilon=1e-5, training=False))
            out = bb.emit_output(relax.op.nn.relu(bb.emit(relax.TupleGetItem(bn, 0))))
        bb.emit_func_output(out)
    folded = FoldConstantBatchnorm()(bb.get())
    bindings = folded["main"].body.blocks[0].bindings
    assert not any(isinstance(b.value, relax.Var) for b in bindings)
    fused = FuseConvEpilogue()(folded)
    assert "R.nn.relu" not in fused.script() and "cls.conv2d_fused" in fused.script()
    x_np = RNG.standard_normal((1, 4, 8, 8)).astype("float32")
    np.testing.assert_allclose(run(fused, x_np).numpy(), np.maximum(reference(x_np, *params), 0),
                               rtol=1e-4, atol=1e-4)
