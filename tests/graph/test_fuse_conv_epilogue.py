"""FuseConvEpilogue: a conv2d's elementwise chain (bias, activation, residual) runs in the
conv's loop nest. Results against numpy for the row and flat conv rules, the fused kernel's
structure, and chains that must stay apart."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.transforms.fuse_conv_epilogue import FuseConvEpilogue

RNG = np.random.default_rng(4)
op = relax.op


def conv_ref(x, w, pad, groups):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    cg, og = w.shape[1], w.shape[0] // groups
    return np.concatenate([np.einsum("ncyxij,fcij->nfyx", win[:, g * cg:(g + 1) * cg],
                                     w[g * og:(g + 1) * og]) for g in range(groups)], axis=1)


# each: (relax chain builder on (y, bias, residual), numpy of the same)
CHAINS = {
    "bias_relu": (lambda y, b, r: op.nn.relu(op.add(y, b)), lambda y, b, r: np.maximum(y + b, 0)),
    "bias_relu6": (lambda y, b, r: op.clip(op.add(b, y), 0.0, 6.0),
                   lambda y, b, r: np.clip(y + b, 0, 6)),
    "residual": (lambda y, b, r: op.nn.relu(op.add(r, op.add(y, b))),
                 lambda y, b, r: np.maximum(r + y + b, 0)),
    "sub_mul_max": (lambda y, b, r: op.maximum(op.multiply(op.subtract(b, y), r),
                                               relax.const(0.5, "float32")),
                    lambda y, b, r: np.maximum((b - y) * r, 0.5)),
}


def model(xshape, wshape, pad, groups, chain):
    w = RNG.standard_normal(wshape).astype("float32")
    b = RNG.standard_normal((1, wshape[0], 1, 1)).astype("float32")
    oshape = (xshape[0], wshape[0], xshape[2] + 2 * pad - wshape[2] + 1,
              xshape[3] + 2 * pad - wshape[3] + 1)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xshape, "float32"))
    r = relax.Var("r", relax.TensorStructInfo(oshape, "float32"))
    with bb.function("main", [x, r]):
        with bb.dataflow():
            y = bb.emit(op.nn.conv2d(x, relax.const(w), padding=pad, groups=groups))
            out = bb.emit_output(CHAINS[chain][0](y, relax.const(b), r))
        bb.emit_func_output(out)
    return bb.get(), w, b, oshape


@pytest.mark.parametrize("chain", sorted(CHAINS))
@pytest.mark.parametrize("xshape,wshape,pad,groups", [
    ((1, 8, 16, 16), (16, 8, 3, 3), 1, 1),  # the row rule
    ((2, 8, 7, 7), (16, 8, 3, 3), 1, 1),  # the flat rule (7 columns)
    ((1, 8, 6, 10), (8, 2, 3, 3), 0, 4),  # groups
])
def test_fused_chain_matches_numpy(chain, xshape, wshape, pad, groups) -> None:
    mod, w, b, oshape = model(xshape, wshape, pad, groups, chain)
    fused = FuseConvEpilogue()(mod)
    text = fused.script()
    assert "R.nn.conv2d" not in text and "cls.conv2d_fused" in text
    x = RNG.standard_normal(xshape).astype("float32")
    r = RNG.standard_normal(oshape).astype("float32")
    want = CHAINS[chain][1](conv_ref(x, w, pad, groups), b.astype(np.float64), r)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x, r).numpy(), want, rtol=1e-4, atol=1e-4)


def test_the_epilogue_runs_inside_the_conv_nest() -> None:
    mod, *_ = model((1, 8, 16, 16), (16, 8, 3, 3), 1, 1, "bias_relu")
    fused = FuseConvEpilogue()(mod)
    kernel = next(f for gv, f in fused.functions_items() if gv.name_hint == "conv2d_fused")
    text = kernel.script()
    # one parallel tile loop holds the init, the reduction and the epilogue, in that order
    blocks = [line.strip() for line in text.splitlines() if "T.sblock(" in line]
    assert blocks[-3:] == ['with T.sblock("conv2d_nchw_init"):', 'with T.sblock("conv2d_nchw"):',
                           'with T.sblock("conv2d_nchw_epilogue"):']
    # the padded copy of the input runs in parallel too, before the conv's nest
    assert text.count("T.parallel(") == 2 and text.index('T.sblock("pad_temp")') < \
        text.index('T.sblock("conv2d_nchw_init")')


def test_shared_results_stay_apart() -> None:
    w = RNG.standard_normal((4, 4, 1, 1)).astype("float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 5, 5), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(op.nn.conv2d(x, relax.const(w)))
            z = bb.emit(op.nn.relu(y))
            out = bb.emit_output(relax.Tuple([z, y]))  # the conv's result is returned too
        bb.emit_func_output(out)
    assert "R.nn.conv2d" in FuseConvEpilogue()(bb.get()).script()


def test_the_tile_accumulates_in_a_local_buffer() -> None:
    """With a residual read in the epilogue, LLVM could no longer keep an output-resident
    tile in registers (6x slower); the tile now accumulates in a small local buffer."""
    mod, *_ = model((1, 8, 16, 16), (16, 8, 3, 3), 1, 1, "residual")
    fused = FuseConvEpilogue()(mod)
    kernel = next(f for gv, f in fused.functions_items() if gv.name_hint == "conv2d_fused")
    text = kernel.script()
    assert 'conv2d_nchw_local = T.sblock_alloc_buffer(' in text and 'scope="local"' in text
    update = next(line for line in text.splitlines() if "conv2d_nchw_local[v_b" in line
                  and "+ pad_temp" in line)
    assert update.strip().startswith("conv2d_nchw_local[")
    epilogue = text[text.index('T.sblock("conv2d_nchw_epilogue")'):]
    assert "conv2d_nchw[e_b, e_f, e_y, e_xx] = T.max(conv2d_nchw_local[e_b" in epilogue


def test_a_reshaped_constant_bias_is_fused_as_a_constant() -> None:
    """ONNX's Conv bias: `add(conv, reshape(b, [1, -1, 1, 1]))` folds to a constant bias."""
    from tvmlite.transforms.fold_reshape_constants import FoldReshapeOfConstants
    from tvmlite.transforms.pipeline import default_build_pipeline

    w = RNG.standard_normal((6, 4, 3, 3)).astype("float32")
    b = RNG.standard_normal(6).astype("float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 4, 9, 9), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(op.nn.conv2d(x, relax.const(w), padding=1))
            bias = bb.emit(op.reshape(relax.const(b), (1, -1, 1, 1)))
            out = bb.emit_output(op.nn.relu(op.add(y, bias)))
        bb.emit_func_output(out)
    mod = bb.get()
    folded = FoldReshapeOfConstants()(mod)
    assert "R.reshape" not in folded.script()
    consts = [a for blk in folded["main"].body.blocks for bnd in blk.bindings
              for a in getattr(bnd.value, "args", ()) if isinstance(a, relax.Constant)]
    np.testing.assert_array_equal(consts[-1].data.numpy(), b.reshape(1, 6, 1, 1))
    built = default_build_pipeline()(mod).script()
    assert "cls.conv2d_fused" in built and "vm.builtin.reshape" not in built
    xv = RNG.standard_normal((1, 4, 9, 9)).astype("float32")
    want = np.maximum(conv_ref(xv, w, 1, 1) + b.reshape(1, 6, 1, 1), 0)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](xv).numpy(), want, rtol=1e-4, atol=1e-4)
