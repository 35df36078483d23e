# ruff: noqa: E501  (the Expected modules are apache-tvm 0.27's printed output, as printed)
"""LegalizeOps' plain form of the nn operators is TVM 0.27's (issue 16 item 6).

Each Expected module below is what apache-tvm 0.27 printed for `relax.transform.LegalizeOps()`
of the same Before (the block names and layout of te.create_prim_func: `pad_temp`,
`group_conv2d_nchw`, `pool_max`, `data_dilate`, `nll_loss_without_weight`, ...). The numeric
tests run the plain kernels (LegalizeOps, then build) and the build's own scheduled kernels
against torch.
"""

import numpy as np
import pytest
import torch

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class SiluPrelu:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), a: R.Tensor((1,), "float32")):
        y = R.nn.silu(x)
        z = R.nn.prelu(y, a)
        return z


@I.ir_module
class LayerNormFp16:
    @R.function
    def main(x: R.Tensor((2, 3), "float16"), g: R.Tensor((3,), "float16"), b: R.Tensor((3,), "float16")):
        y = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5)
        return y


@I.ir_module
class GroupConv:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 5), "float32"), w: R.Tensor((4, 2, 3, 3), "float32")):
        y = R.nn.conv2d(x, w, strides=(2, 2), padding=(1, 1), dilation=(1, 1), groups=2)
        return y


@I.ir_module
class MaxPoolNHWC:
    @R.function
    def main(x: R.Tensor((1, 5, 5, 2), "float32")):
        y = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0], ceil_mode=True, layout="NHWC")
        return y


@I.ir_module
class Conv1dTranspose:
    @R.function
    def main(x: R.Tensor((1, 2, 3), "float32"), w: R.Tensor((2, 1, 2), "float32")):
        y = R.nn.conv1d_transpose(x, w, strides=2, padding=0, output_padding=1)
        return y


@I.ir_module
class NllNoWeight:
    @R.function
    def main(p: R.Tensor((2, 3), "float32"), t: R.Tensor((2,), "int64")):
        y = R.nn.nll_loss(p, t, reduction="mean", ignore_index=-1)
        return y


# fmt: off
@I.ir_module
class SiluPreluTVM:
    @T.prim_func(private=True, s_tir=True)
    def prelu(y: T.Buffer((T.int64(2), T.int64(3)), "float32"), a: T.Buffer((T.int64(1),), "float32"), compute: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        slope_broadcasted = T.sblock_alloc_buffer((T.int64(3),))
        for c in range(T.int64(3)):
            with T.sblock("slope_broadcasted"):
                v_c = T.axis.spatial(T.int64(3), c)
                slope_broadcasted[v_c] = a[T.int64(0)]
        for i0, i1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                compute[v_i0, v_i1] = T.Select(T.float32(0.0) < y[v_i0, v_i1], y[v_i0, v_i1], y[v_i0, v_i1] * slope_broadcasted[v_i1])

    @T.prim_func(private=True, s_tir=True)
    def silu(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        compute = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        for i0, i1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                compute[v_i0, v_i1] = T.sigmoid(x[v_i0, v_i1])
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_multiply[v_ax0, v_ax1] = x[v_ax0, v_ax1] * compute[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), a: R.Tensor((1,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = SiluPreluTVM
        y = R.call_tir(cls.silu, (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
        z = R.call_tir(cls.prelu, (y, a), out_ty=R.Tensor((2, 3), dtype="float32"))
        return z


@I.ir_module
class LayerNormFp16TVM:
    @T.prim_func(private=True, s_tir=True)
    def layer_norm(x: T.Buffer((T.int64(2), T.int64(3)), "float16"), g: T.Buffer((T.int64(3),), "float16"), b: T.Buffer((T.int64(3),), "float16"), T_layer_norm: T.Buffer((T.int64(2), T.int64(3)), "float16")):
        T.func_attr({"tirx.noalias": True})
        x_sum = T.sblock_alloc_buffer((T.int64(2),))
        x_mean = T.sblock_alloc_buffer((T.int64(2),))
        x_var_sum = T.sblock_alloc_buffer((T.int64(2),))
        for ax0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("x_sum"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                with T.init():
                    x_sum[v_ax0] = T.float32(0.0)
                x_sum[v_ax0] = x_sum[v_ax0] + T.Cast("float32", x[v_ax0, v_k1])
        for ax0 in range(T.int64(2)):
            with T.sblock("x_mean"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                x_mean[v_ax0] = x_sum[v_ax0] / T.float32(3.0)
        for ax0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("x_var_sum"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                with T.init():
                    x_var_sum[v_ax0] = T.float32(0.0)
                x_var_sum[v_ax0] = x_var_sum[v_ax0] + (T.Cast("float32", x[v_ax0, v_k1]) - x_mean[v_ax0]) * (T.Cast("float32", x[v_ax0, v_k1]) - x_mean[v_ax0])
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_layer_norm"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T_layer_norm[v_ax0, v_ax1] = T.Cast("float16", (T.Cast("float32", x[v_ax0, v_ax1]) - x_mean[v_ax0]) * T.rsqrt(x_var_sum[v_ax0] / T.float32(3.0) + T.float32(1.0000000000000001e-05))) * g[v_ax1] + b[v_ax1]

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float16"), g: R.Tensor((3,), dtype="float16"), b: R.Tensor((3,), dtype="float16")) -> R.Tensor((2, 3), dtype="float16"):
        cls = LayerNormFp16TVM
        y = R.call_tir(cls.layer_norm, (x, g, b), out_ty=R.Tensor((2, 3), dtype="float16"))
        return y


@I.ir_module
class GroupConvTVM:
    @T.prim_func(private=True, s_tir=True)
    def conv2d(x: T.Buffer((T.int64(1), T.int64(4), T.int64(5), T.int64(5)), "float32"), w: T.Buffer((T.int64(4), T.int64(2), T.int64(3), T.int64(3)), "float32"), group_conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(3), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(7)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(7)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(6) and T.int64(1) <= v_i3 and v_i3 < T.int64(6), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(3), T.int64(3), T.int64(2), T.int64(3), T.int64(3)):
            with T.sblock("group_conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                with T.init():
                    group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_ff // T.int64(2) * T.int64(2) + v_rc, v_yy * T.int64(2) + v_ry, v_xx * T.int64(2) + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @R.function
    def main(x: R.Tensor((1, 4, 5, 5), dtype="float32"), w: R.Tensor((4, 2, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 3, 3), dtype="float32"):
        cls = GroupConvTVM
        y = R.call_tir(cls.conv2d, (x, w), out_ty=R.Tensor((1, 4, 3, 3), dtype="float32"))
        return y


@I.ir_module
class MaxPoolNHWCTVM:
    @T.prim_func(private=True, s_tir=True)
    def max_pool2d(x: T.Buffer((T.int64(1), T.int64(5), T.int64(5), T.int64(2)), "float32"), pool_max: T.Buffer((T.int64(1), T.int64(3), T.int64(3), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(6), T.int64(6), T.int64(2)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(6), T.int64(6), T.int64(2)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(v_ax1 < T.int64(5) and v_ax2 < T.int64(5), x[v_ax0, v_ax1, v_ax2, v_ax3], T.float32(-340282346638528859811704183484516925440.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(3), T.int64(3), T.int64(2), T.int64(2), T.int64(2)):
            with T.sblock("pool_max"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_max"})
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(-340282346638528859811704183484516925440.0)
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], pad_temp[v_ax0, v_ax1 * T.int64(2) + v_rv0, v_ax2 * T.int64(2) + v_rv1, v_ax3])

    @R.function
    def main(x: R.Tensor((1, 5, 5, 2), dtype="float32")) -> R.Tensor((1, 3, 3, 2), dtype="float32"):
        cls = MaxPoolNHWCTVM
        y = R.call_tir(cls.max_pool2d, (x,), out_ty=R.Tensor((1, 3, 3, 2), dtype="float32"))
        return y


@I.ir_module
class Conv1dTransposeTVM:
    @T.prim_func(private=True, s_tir=True)
    def conv1d_transpose(x: T.Buffer((T.int64(1), T.int64(2), T.int64(3)), "float32"), w: T.Buffer((T.int64(2), T.int64(1), T.int64(2)), "float32"), compute: T.Buffer((T.int64(1), T.int64(1), T.int64(7)), "float32")):
        T.func_attr({"tirx.noalias": True})
        data_dilate = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(5)))
        data_pad = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(8)))
        kernel = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(2)))
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(2), T.int64(5)):
            with T.sblock("data_dilate"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                data_dilate[v_i0, v_i1, v_i2] = T.if_then_else(v_i2 % T.int64(2) == T.int64(0), x[v_i0, v_i1, v_i2 // T.int64(2)], T.float32(0.0))
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(2), T.int64(8)):
            with T.sblock("data_pad"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                data_pad[v_i0, v_i1, v_i2] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(6), data_dilate[v_i0, v_i1, v_i2 - T.int64(1)], T.float32(0.0))
        for o, i, w_1 in T.grid(T.int64(1), T.int64(2), T.int64(2)):
            with T.sblock("kernel"):
                v_o, v_i, v_w = T.axis.remap("SSS", [o, i, w_1])
                kernel[v_o, v_i, v_w] = w[v_i, v_o, T.int64(1) - v_w]
        for b, c, w_1, dc, dw in T.grid(T.int64(1), T.int64(1), T.int64(7), T.int64(2), T.int64(2)):
            with T.sblock("compute"):
                v_b, v_c, v_w, v_dc, v_dw = T.axis.remap("SSSRR", [b, c, w_1, dc, dw])
                with T.init():
                    compute[v_b, v_c, v_w] = T.float32(0.0)
                compute[v_b, v_c, v_w] = compute[v_b, v_c, v_w] + data_pad[v_b, v_dc, v_w + v_dw] * kernel[v_c, v_dc, v_dw]

    @R.function
    def main(x: R.Tensor((1, 2, 3), dtype="float32"), w: R.Tensor((2, 1, 2), dtype="float32")) -> R.Tensor((1, 1, 7), dtype="float32"):
        cls = Conv1dTransposeTVM
        y = R.call_tir(cls.conv1d_transpose, (x, w), out_ty=R.Tensor((1, 1, 7), dtype="float32"))
        return y


@I.ir_module
class NllNoWeightTVM:
    @T.prim_func(private=True, s_tir=True)
    def nll_loss_without_weight(p: T.Buffer((T.int64(2), T.int64(3)), "float32"), t: T.Buffer((T.int64(2),), "int64"), T_divide: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        T_full = T.sblock_alloc_buffer((T.int64(3),))
        nll_loss = T.sblock_alloc_buffer((T.int64(2),))
        nll_loss_red = T.sblock_alloc_buffer(())
        nll_loss_1 = T.sblock_alloc_buffer((T.int64(2),))
        nll_loss_red_1 = T.sblock_alloc_buffer(())
        for ax0 in range(T.int64(3)):
            with T.sblock("T_full"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T_full[v_ax0] = T.float32(1.0)
        for ax0 in range(T.int64(2)):
            with T.sblock("nll_loss"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                nll_loss[v_ax0] = T.Select(t[v_ax0] != T.int64(-1), (T.float32(0.0) - p[v_ax0, t[v_ax0]]) * T_full[t[v_ax0]], T.float32(0.0))
        for k0 in range(T.int64(2)):
            with T.sblock("nll_loss_red"):
                v_k0 = T.axis.reduce(T.int64(2), k0)
                with T.init():
                    nll_loss_red[()] = T.float32(0.0)
                nll_loss_red[()] = nll_loss_red[()] + nll_loss[v_k0]
        for ax0 in range(T.int64(2)):
            with T.sblock("nll_loss_1"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                nll_loss_1[v_ax0] = T.Select(t[v_ax0] != T.int64(-1), T_full[t[v_ax0]], T.float32(0.0))
        for k0 in range(T.int64(2)):
            with T.sblock("nll_loss_red_1"):
                v_k0 = T.axis.reduce(T.int64(2), k0)
                with T.init():
                    nll_loss_red_1[()] = T.float32(0.0)
                nll_loss_red_1[()] = nll_loss_red_1[()] + nll_loss_1[v_k0]
        with T.sblock("T_divide"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))  # noqa: F841
            T_divide[()] = nll_loss_red[()] / nll_loss_red_1[()]

    @R.function
    def main(p: R.Tensor((2, 3), dtype="float32"), t: R.Tensor((2,), dtype="int64")) -> R.Tensor((), dtype="float32"):
        cls = NllNoWeightTVM
        y = R.call_tir(cls.nll_loss_without_weight, (p, t), out_ty=R.Tensor((), dtype="float32"))
        return y
# fmt: on


@pytest.mark.parametrize("before, expected", [
    (SiluPrelu, SiluPreluTVM), (LayerNormFp16, LayerNormFp16TVM), (GroupConv, GroupConvTVM),
    (MaxPoolNHWC, MaxPoolNHWCTVM), (Conv1dTranspose, Conv1dTransposeTVM),
    (NllNoWeight, NllNoWeightTVM),
], ids=["silu_prelu", "layer_norm_fp16", "group_conv2d", "max_pool2d_nhwc", "conv1d_transpose",
        "nll_loss_without_weight"])
def test_plain_legalization_is_tvms(before, expected):
    assert_structural_equal(relax.transform.LegalizeOps()(before), expected)


def _run_both(mod, *args):
    """The module's outputs from its plain kernels (LegalizeOps alone, then build) and from the
    build pipeline's own (scheduled) legalization."""
    outs = []
    for m in (relax.transform.LegalizeOps()(mod), mod):
        vm = relax.VirtualMachine(relax.build(m, target="llvm"), tvm.cpu())
        res = vm["main"](*(tvm.nd.array(a) for a in args))
        outs.append([r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()])
    return outs


@I.ir_module
class Activations:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), a: R.Tensor((1,), "float32")):
        return (R.nn.gelu(x), R.nn.gelu_tanh(x), R.nn.silu(x), R.nn.leakyrelu(x, 0.1),
                R.nn.prelu(x, a), R.nn.softmax(x, axis=1), R.nn.log_softmax(x, axis=1))


def test_activations_match_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    a = np.array([0.25], "float32")
    t = torch.tensor(x)
    F = torch.nn.functional
    want = [F.gelu(t), F.gelu(t, approximate="tanh"), F.silu(t), F.leaky_relu(t, 0.1),
            F.prelu(t, torch.tensor(a)), F.softmax(t, 1), F.log_softmax(t, 1)]
    for outs in _run_both(Activations, x, a):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5)


@I.ir_module
class NormsLosses:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), g: R.Tensor((3, 4), "float32"),
             b: R.Tensor((3, 4), "float32"), t: R.Tensor((2, 4), "int64"),
             w: R.Tensor((3,), "float32")):
        return (R.nn.layer_norm(x, g, b, axes=[1, 2]), R.nn.rms_norm(x, g, axes=[1, 2]),
                R.nn.nll_loss(x, t, w, reduction="mean", ignore_index=1),
                R.nn.nll_loss(x, t, reduction="sum", ignore_index=-100))


def test_norms_and_losses_match_torch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    g, b = rng.standard_normal((3, 4)).astype("float32"), rng.standard_normal((3, 4)).astype("float32")
    t = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], "int64")
    w = np.array([0.5, 2.0, 1.5], "float32")
    tx, tt = torch.tensor(x), torch.tensor(t)
    F = torch.nn.functional
    rms = tx * torch.rsqrt((tx * tx).mean((1, 2), keepdim=True) + 1e-5) * torch.tensor(g)
    want = [F.layer_norm(tx, (3, 4), torch.tensor(g), torch.tensor(b)), rms,
            F.nll_loss(tx, tt, torch.tensor(w), ignore_index=1),
            F.nll_loss(tx, tt, reduction="sum")]
    for outs in _run_both(NormsLosses, x, g, b, t, w):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-5)


@I.ir_module
class Convs:
    @R.function
    def main(x: R.Tensor((1, 4, 6, 7), "float32"), w: R.Tensor((4, 2, 3, 3), "float32"),
             xw: R.Tensor((1, 7, 4), "float32"), w1: R.Tensor((3, 4, 2), "float32"),
             wt: R.Tensor((4, 3, 2, 3), "float32")):
        return (R.nn.conv2d(x, w, strides=(2, 1), padding=(1, 0, 2, 1), dilation=(1, 2), groups=2),
                R.nn.conv1d(xw, w1, data_layout="NWC", padding=(1, 1)),
                R.nn.conv2d_transpose(x, wt, strides=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                      dilation=(1, 2), groups=2),
                R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 2, 0, 3], pad_value=1.5))


def test_convolutions_and_pad_match_torch():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 6, 7)).astype("float32")
    w = rng.standard_normal((4, 2, 3, 3)).astype("float32")
    xw = rng.standard_normal((1, 7, 4)).astype("float32")
    w1 = rng.standard_normal((3, 4, 2)).astype("float32")
    wt = rng.standard_normal((4, 3, 2, 3)).astype("float32")
    F = torch.nn.functional
    T_ = torch.tensor
    want = [F.conv2d(F.pad(T_(x), (0, 1, 1, 2)), T_(w), stride=(2, 1), dilation=(1, 2), groups=2),
            F.conv1d(T_(xw).permute(0, 2, 1), T_(w1), padding=1).permute(0, 2, 1),
            F.conv_transpose2d(T_(x), T_(wt), stride=(2, 3), padding=(1, 0),
                               output_padding=(1, 2), dilation=(1, 2), groups=2),
            F.pad(T_(x), (0, 3, 1, 2), value=1.5)]
    for outs in _run_both(Convs, x, w, xw, w1, wt):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)


@I.ir_module
class PoolsResize:
    @R.function
    def main(x: R.Tensor((2, 7, 6, 3), "float32"), y: R.Tensor((1, 3, 8, 6), "float32")):
        return (R.nn.max_pool2d(x, pool_size=[3, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True, layout="NHWC"),
                R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout="NHWC"),
                R.nn.adaptive_avg_pool2d(y, output_size=[4, 2]),
                R.image.resize2d(x, size=(14, 9), layout="NHWC", method="nearest_neighbor",
                                 coordinate_transformation_mode="asymmetric", rounding_method="floor"),
                R.nn.avg_pool2d(y, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1]),
                R.nn.avg_pool2d(y, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=True))


def test_pools_and_resize_in_other_layouts_match_torch():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 7, 6, 3)).astype("float32")
    y = rng.standard_normal((1, 3, 8, 6)).astype("float32")
    F = torch.nn.functional
    t = torch.tensor(x).permute(0, 3, 1, 2)
    nhwc = lambda r: r.permute(0, 2, 3, 1).numpy()  # noqa: E731
    want = [nhwc(F.max_pool2d(t, (3, 2), 2, (1, 0), ceil_mode=True)),
            nhwc(F.avg_pool2d(t, 3, 2, 1, count_include_pad=False)),
            F.adaptive_avg_pool2d(torch.tensor(y), (4, 2)).numpy(),
            nhwc(F.interpolate(t, size=(14, 9), mode="nearest")),
            F.avg_pool2d(torch.tensor(y), 3, 1, 1, count_include_pad=False).numpy(),
            F.avg_pool2d(torch.tensor(y), 3, 2, 1, ceil_mode=True, count_include_pad=False).numpy()]
    for outs in _run_both(PoolsResize, x, y):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_custom_legalization_takes_tvms_bb_call_convention():
    """TVM's customize_legalize_map and legalize_ops.common.register_legalize take f(bb, call);
    bb.call_te's kernel joins the module, named after the te function (TVM's behaviour)."""
    from tvmlite import topi
    from tvmlite.relax.transform.legalize_ops import common

    def swap_subtract(bb, call):
        return bb.call_te(topi.subtract, call.args[1], call.args[0])

    @I.ir_module
    class Sub:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")):
            return R.subtract(x, y)

    mod = relax.transform.LegalizeOps({"relax.subtract": swap_subtract})(Sub)
    assert [gv.name_hint for gv in mod.functions if gv.name_hint != "main"] == ["subtract"]
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.array([1.0, 5.0, -2.0], "float32")
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(x), tvm.nd.array(y)).numpy(), y - x)
    assert common.register_legalize is not None


def test_te_tensors_take_arithmetic_as_topi_broadcasts():
    from tvmlite import te

    a = te.placeholder((2, 3), "float32", "a")
    b = te.placeholder((3,), "float32", "b")
    out = -(a * 2.0 + b) / 4.0 - 1
    f = te.create_prim_func([a, b, out])
    names = [blk for blk in ("T_multiply", "T_add", "T_divide", "T_subtract") if blk in f.script()]
    assert names == ["T_multiply", "T_add", "T_divide", "T_subtract"]
    mod = tvm.build(f, target="llvm")
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.array([1.0, -1.0, 0.5], "float32")
    res = tvm.nd.array(np.zeros((2, 3), "float32"))
    mod(tvm.nd.array(x), tvm.nd.array(y), res)
    np.testing.assert_allclose(res.numpy(), -(x * 2 + y) / 4 - 1)


@I.ir_module
class SymbolicKernelConv:
    @R.function
    def main(x: R.Tensor((1, 2, "h", "w"), "float32"), k: R.Tensor((3, 2, "kh", "kw"), "float32")):
        return R.nn.conv2d(x, k)


def test_conv2d_with_a_symbolic_kernel_size():
    """TVM infers h + 1 - kh for a symbolic kernel (stride and dilation 1); both the plain and
    the build's legalization run it."""
    h, kh = SymbolicKernelConv["main"].params[0].struct_info.shape[2], \
        SymbolicKernelConv["main"].params[1].struct_info.shape[2]
    out = SymbolicKernelConv["main"].body.body.struct_info.shape[2]
    assert tvm.ir.structural_equal(out, h + T.int64(1) - kh)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 2, 6, 5)).astype("float32")
    k = rng.standard_normal((3, 2, 2, 3)).astype("float32")
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(k)).numpy()
    for outs in _run_both(SymbolicKernelConv, x, k):
        np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-5)


def test_legalized_binding_takes_the_kernels_struct_info():
    """As TVM's ExprMutator re-emits a binding: the variable annotated `h - kh + 1` takes the
    legalized call's `h + 1 - kh`, and its uses follow."""

    @I.ir_module
    class Annotated:
        @R.function
        def main(x: R.Tensor((1, 2, "h", 4), "float32"), k: R.Tensor((3, 2, "kh", 1), "float32")):
            h, kh = T.int64(), T.int64()
            gv: R.Tensor((1, 3, h - kh + 1, 4), "float32") = R.nn.conv2d(x, k)
            out = R.nn.relu(gv)
            return out

    main = relax.transform.LegalizeOps()(Annotated)["main"]
    conv, relu = main.body.blocks[0].bindings
    assert tvm.ir.structural_equal(conv.var.struct_info, conv.value.struct_info)
    assert relu.value.args[1].fields[0] is conv.var
    h = main.params[0].struct_info.shape[2]
    kh = main.params[1].struct_info.shape[2]
    assert tvm.ir.structural_equal(conv.var.struct_info.shape[2], h + T.int64(1) - kh)


def test_matmul_of_unknown_dtype_is_refused_as_in_tvm():
    a = relax.Var("a", relax.TensorStructInfo((4, 8), dtype=None))
    b = relax.Var("b", relax.TensorStructInfo((8, 2), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [a, b]):
        out = bb.emit(relax.op.matmul(a, b))
        bb.emit_func_output(out)
    with pytest.raises(AssertionError, match="To legalize R.matmul"):
        relax.transform.LegalizeOps()(bb.get())


@I.ir_module
class AffineGrid:
    @R.function
    def main(theta: R.Tensor((2, 2, 3), "float32")):
        return (R.image.affine_grid(theta, size=(5, 7)),
                R.image.affine_grid(theta, size=(4, 6), align_corners=False))


def test_affine_grid_matches_torch():
    theta = np.random.default_rng(5).standard_normal((2, 2, 3)).astype("float32")
    out = AffineGrid["main"].body.body.struct_info
    assert [tuple(int(d) for d in f.shape) for f in out.fields] == [(2, 2, 5, 7), (2, 2, 4, 6)]
    t = torch.tensor(theta)
    want = [torch.nn.functional.affine_grid(t, (2, 1, h, w), align_corners=ac).permute(0, 3, 1, 2)
            for h, w, ac in ((5, 7, True), (4, 6, False))]
    for outs in _run_both(AffineGrid, theta):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5)


def test_operator_registered_by_attributes_legalizes_recursively():
    """TVM's way to add an operator: `register_op_attr` its FInferType and FLegalize; the
    legalization may produce operators that are legalized in turn."""
    name = "tvmlite_test.matmul_bias_add"

    def infer(call, context):
        a, w, b = call.args
        mm = tvm.ir.Op.get("relax.matmul").get_attr("FInferType")(relax.op.matmul(a, w), context)
        return tvm.ir.Op.get("relax.add").get_attr("FInferType")(
            relax.op.add(relax.Var("mm", mm), b), context)

    def legalize(bb, call):
        a, w, b = call.args
        return relax.op.add(relax.op.matmul(a, w), b)

    tvm.ir.register_op_attr(name, "FInferType", infer)
    tvm.ir.register_op_attr(name, "FLegalize", legalize)
    op = tvm.ir.Op.get(name)
    try:
        a = relax.Var("a", relax.TensorStructInfo((2, 3), "float32"))
        w = relax.Var("w", relax.TensorStructInfo((3, 4), "float32"))
        b = relax.Var("b", relax.TensorStructInfo((4,), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [a, w, b]):
            out = bb.emit(relax.Call(op, [a, w, b]))
            bb.emit_func_output(out)
        mod = bb.get()
        assert mod["main"].body.blocks[0].bindings[0].var.struct_info.shape[1].value == 4
        legal = relax.transform.LegalizeOps()(mod)
        assert_structural_equal(relax.transform.LegalizeOps()(legal), legal)
        rng = np.random.default_rng(6)
        x, y, z = (rng.standard_normal(s).astype("float32") for s in ((2, 3), (3, 4), (4,)))
        vm = relax.VirtualMachine(relax.build(legal, target="llvm"), tvm.cpu())
        got = vm["main"](tvm.nd.array(x), tvm.nd.array(y), tvm.nd.array(z)).numpy()
        np.testing.assert_allclose(got, x @ y + z, rtol=1e-5, atol=1e-5)
    finally:
        op.reset_attr("FLegalize")
        op.reset_attr("FInferType")
    assert op.get_attr("FLegalize") is None and op.get_attr("FInferType") is None


def test_meta_var_passes_a_python_value_into_the_function():
    @I.ir_module
    class Attention:
        @R.function
        def main(q: R.Tensor((1, 2, 1, 4), "float32"), k: R.Tensor((1, 3, 1, 4), "float32"),
                 v: R.Tensor((1, 3, 1, 4), "float32")):
            scale = I.meta_var(T.FloatImm("float32", 0.25))
            gv = R.nn.attention(q, k, v, scale=scale)
            return gv

    call = Attention["main"].body.blocks[0].bindings[0].value
    assert float(getattr(call.attr("scale"), "value", call.attr("scale"))) == 0.25
    assert len(Attention["main"].body.blocks[0].bindings) == 1  # `scale` is no binding


def test_kernels_per_virtual_device_and_the_function_returns_its_body():
    """As TVM: a call on a vdevice gets its own kernel, named after and marked with the
    device's target; a legalized function returns what its new body gives (here the body is
    more specific than the annotation)."""

    @I.ir_module
    class TwoDevices:
        I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

        @R.function
        def plain(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor(ndim=1):
            c = R.add(a, b)
            return c

        @R.function
        def on_llvm(a: R.Tensor((4,), "float32", "llvm"), b: R.Tensor((4,), "float32", "llvm")):
            c = R.add(a, b)
            return c

    mod = relax.transform.LegalizeOps()(TwoDevices)
    assert sorted(gv.name_hint for gv in mod.functions) == ["add", "add_llvm", "on_llvm", "plain"]
    assert str(dict(mod["add_llvm"].attrs)["target"]) == "llvm"
    assert "target" not in dict(mod["add"].attrs)
    assert mod["on_llvm"].body.blocks[0].bindings[0].var.struct_info.vdevice is not None
    assert [int(d) for d in mod["plain"].ret_struct_info.shape] == [4]


def test_return_annotation_written_differently_is_kept():
    @I.ir_module
    class Annotated:
        @R.function
        def main(x: R.Tensor((1, 2, "h", 4), "float32"), k: R.Tensor((3, 2, "kh", 1), "float32")
                 ) -> R.Tensor((1, 3, "h - kh + 1", 4), "float32"):
            gv = R.nn.conv2d(x, k)
            return gv

    before = Annotated["main"].ret_struct_info
    after = relax.transform.LegalizeOps()(Annotated)["main"].ret_struct_info
    assert tvm.ir.structural_equal(before, after)  # `h - kh + 1`, not the body's `h + 1 - kh`
