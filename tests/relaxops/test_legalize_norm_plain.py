"""R.nn.batch_norm, R.nn.group_norm and R.nn.attention legalized in TVM's plain form
(topi/nn_plain.py), each checked against numpy: batch_norm one broadcasting step per block, in
training (batch statistics, moving averages updated) and inference (moving statistics returned
unchanged); group_norm through the (groups, channels per group) reshape and one tuple
reduction, float32 and float16; attention as batch matmuls and a (causal) softmax; and the
reshape index TVM's simplifier leaves when a term vanishes under the last modulo."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, topi
from tvmlite.script import relax as R


def _run_batch_norm(arrays, training, axis=1, momentum=0.1, eps=1e-5):
    params = [relax.Var(n, R.Tensor(a.shape, "float32"))
              for n, a in zip(("x", "g", "b", "m", "v"), arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        gv = bb.emit(R.nn.batch_norm(*params, axis=axis, epsilon=eps, momentum=momentum,
                                     training=training))
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    text = mod.script()
    ex = relax.build(mod, target="llvm")
    outs = relax.VirtualMachine(ex, tvm.cpu())["main"](*map(tvm.nd.array, arrays))
    return text, [o.numpy() for o in outs]


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_plain_matches_numpy(training):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    g, b, m = (rng.standard_normal(3).astype("float32") for _ in range(3))
    v = rng.uniform(0.5, 2.0, 3).astype("float32")
    text, (out, new_m, new_v) = _run_batch_norm([x, g, b, m, v], training)
    view = (1, 3, 1, 1)
    if training:
        mu, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
        np.testing.assert_allclose(new_m, 0.9 * m + 0.1 * mu, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(new_v, 0.9 * v + 0.1 * var, rtol=1e-5, atol=1e-6)
    else:
        mu, var = m, v
        np.testing.assert_array_equal(new_m, m)
        np.testing.assert_array_equal(new_v, v)
    want = (x - mu.reshape(view)) / np.sqrt(var.reshape(view) + 1e-5) * g.reshape(view) + \
        b.reshape(view)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    assert 'with T.sblock("T_reshape"' in text and "T.sqrt(" in text


def test_reshape_drops_a_term_the_last_modulo_cancels():
    """(3,) -> (1, 3, 1, 1): `(i0 * 3 + i1 + i2 + i3) % 3` is `(i1 + i2 + i3) % 3`, as TVM."""
    a = te.placeholder((tvm.tir.IntImm("int64", 3),), name="a")
    one, three = tvm.tir.IntImm("int64", 1), tvm.tir.IntImm("int64", 3)
    out = topi.reshape(a, (one, three, one, one))
    text = te.create_prim_func([a, out]).script()
    assert "= a[(v_i1 + v_i2 + v_i3) % T.int64(3)]" in text


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_group_norm_plain_matches_numpy(dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 3, 5)).astype(dtype)
    g, b = (rng.standard_normal(4).astype(dtype) for _ in range(2))
    params = [relax.Var(n, R.Tensor(a.shape, dtype)) for n, a in zip("xgb", (x, g, b))]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        gv = bb.emit(R.nn.group_norm(*params, num_groups=2, channel_axis=1, axes=[2, 3]))
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    text = mod.script()
    assert "x_red_temp_v0" in text and "x_red_temp_v1" in text  # one tuple reduction
    ex = relax.build(mod, target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](*map(tvm.nd.array, (x, g, b))).numpy()
    xg = x.astype("float64").reshape(2, 2, 2, 3, 5)
    mean = xg.mean(axis=(2, 3, 4), keepdims=True)
    var = xg.var(axis=(2, 3, 4), keepdims=True)
    want = ((xg - mean) / np.sqrt(var + 1e-5)).reshape(x.shape) * g.reshape(1, 4, 1, 1) + \
        b.reshape(1, 4, 1, 1)
    tol = 1e-4 if dtype == "float32" else 2e-2
    np.testing.assert_allclose(got.astype("float64"), want, rtol=tol, atol=tol)


def _attention_ref(q, k, v, bias, scale, causal):
    qh, kh, vh = (t.transpose(0, 2, 1, 3).astype("float64") for t in (q, k, v))
    s = qh @ kh.transpose(0, 1, 3, 2) * scale + bias
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True) @ vh).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("causal", [None, "TopLeft"])
def test_attention_plain_matches_numpy(causal):
    rng = np.random.default_rng(7)
    q, k = (rng.standard_normal((2, 4, 3, 8)).astype("float32") for _ in range(2))
    v = rng.standard_normal((2, 4, 3, 5)).astype("float32")
    bias = rng.standard_normal((2, 3, 4, 4)).astype("float32")
    params = [relax.Var(n, R.Tensor(a.shape, "float32")) for n, a in zip("qkvb", (q, k, v, bias))]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        gv = bb.emit(R.nn.attention(*params, scale=0.25, causal_mask=causal))
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    assert "T_batch_matmul_NT" in mod.script() and "T_batch_matmul_NN" in mod.script()
    ex = relax.build(mod, target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](*map(tvm.nd.array, (q, k, v, bias)))
    np.testing.assert_allclose(got.numpy(), _attention_ref(q, k, v, bias, 0.25, causal),
                               rtol=1e-4, atol=1e-5)
