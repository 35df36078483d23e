"""Matmuls reading packed column panels (topi/matmul_packed.py): the panel layout, kernels
against numpy on tile-shaped, odd, batched and symbolic shapes, the copy packed inside the
kernel for a large right operand, and the build packing a bound weight once."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, topi
from tvmlite.ir import expr as rx
from tvmlite.topi.conv2d_schedule import host_vector_bits
from tvmlite.topi.matmul_packed import matmul_packed, pack_panels, panel_lanes, should_pack
from tvmlite.transforms.fuse_transpose_matmul import FuseTransposeMatmul
from tvmlite.topi.schedule_mode import default_schedules

RNG = np.random.default_rng(5)


def test_pack_panels_layout() -> None:
    b = RNG.random((5, 12), "float32")
    packed = pack_panels(b, 4)
    assert packed.shape == (3, 5, 4) and packed.flags.c_contiguous
    for k in range(5):
        for j in range(12):
            assert packed[j // 4, k, j % 4] == b[k, j]
    np.testing.assert_array_equal(pack_panels(b.T.copy(), 4, transposed=True), packed)


def build_packed(ashape, n, lanes, dtype="float32"):
    k = ashape[-1]
    A = te.placeholder(ashape, dtype, name="A")
    P = te.placeholder((n // lanes, k, lanes), dtype, name="P")
    out = matmul_packed(A, P)
    return out, tvm.build(te.create_prim_func([A, P, out]), target="llvm")


@pytest.mark.parametrize("ashape,n,lanes,dtype", [
    ((16, 40), 64, 32, "float32"),  # 2 row tiles, 2 panels
    ((7, 13), 10, 5, "float32"),  # odd rows (tiles of one row), odd panels
    ((1, 40), 48, 16, "float32"),  # one row: the panels in parallel
    ((3, 24, 33), 96, 32, "float32"),  # a batch of rows sharing the weight
    ((8, 300), 32, 8, "float64"),
    ((12, 20), 16, 16, "int32"),
    ((19, 40), 64, 32, "float32"),  # 19 rows: 16 in 8-row tiles, a tail tile of 3
    ((2, 13, 24), 32, 16, "float32"),  # a batch of 13-row blocks: 8 rows and a tail of 5
])
def test_packed_matmul_matches_numpy(ashape, n, lanes, dtype) -> None:
    k = ashape[-1]
    if dtype.startswith("int"):
        a, b = RNG.integers(-9, 9, ashape).astype(dtype), RNG.integers(-9, 9, (k, n)).astype(dtype)
    else:
        a, b = RNG.standard_normal(ashape).astype(dtype), RNG.standard_normal((k, n)).astype(dtype)
    out, lib = build_packed(ashape, n, lanes, dtype)
    c = tvm.nd.array(np.zeros((*ashape[:-1], n), dtype))
    lib["main"](tvm.nd.array(a), tvm.nd.array(pack_panels(b, lanes)), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-4)


def test_rows_without_a_good_tile_split_into_tiles_and_a_tail() -> None:
    out, _ = build_packed((19, 40), 64, 32)
    text = te.create_prim_func([*_placeholders(out), out]).script()
    # the 16 rows of 8-row tiles and the 3-row tail tile, then the copy into the output
    assert "T.unroll(8)" in text and "T.unroll(3)" in text and "T.if_then_else" in text, text


def _placeholders(t):
    found, todo = [], [t]
    while todo:
        u = todo.pop()
        if isinstance(u.op, te.PlaceholderOp):
            if all(u is not f for f in found):
                found.append(u)
        else:
            todo += u.op.input_tensors
    return sorted(found, key=lambda p: p.name)


def test_packed_matmul_with_symbolic_rows() -> None:
    m = te.var("m", "int64")
    A = te.placeholder((m, 24), "float32", name="A")
    P = te.placeholder((2, 24, 16), "float32", name="P")
    out = matmul_packed(A, P)
    lib = tvm.build(te.create_prim_func([A, P, out]), target="llvm")
    b = RNG.standard_normal((24, 32)).astype("float32")
    for rows in (1, 5, 19):
        a = RNG.standard_normal((rows, 24)).astype("float32")
        c = tvm.nd.array(np.zeros((rows, 32), "float32"))
        lib["main"](tvm.nd.array(a), tvm.nd.array(pack_panels(b, 16)), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")
def test_the_panels_are_read_contiguously() -> None:
    from tvmlite.tir.lower import lower

    out, _ = build_packed((16, 40), 64, 32)
    A, P = out.op.input_tensors
    text = lower(te.create_prim_func([A, P, out])).script()
    assert "//" not in text and "%" not in text, text  # (j // 32, k, j % 32) folded to loops


def test_a_large_right_operand_is_packed_in_the_kernel() -> None:
    assert should_pack(64, 256, 512, "float32")
    assert not should_pack(64, 64, 600, "float32")  # two panels: rows of B are near
    assert not should_pack(8, 256, 512, "float32")  # one row tile reads each panel once
    assert not should_pack(64, 64, 64, "float32")  # small: stays in cache as it lies
    A = te.placeholder((3, 24, 512), "float32", name="A")
    B = te.placeholder((512, 256), "float32", name="B")
    out = topi.nn.matmul(A, B)
    text = te.create_prim_func([A, B, out]).script()
    assert "B_pack" in text
    a = RNG.standard_normal((3, 24, 512)).astype("float32")
    b = RNG.standard_normal((512, 256)).astype("float32")
    c = tvm.nd.array(np.zeros((3, 24, 256), "float32"))
    tvm.build(te.create_prim_func([A, B, out]), target="llvm")["main"](
        tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def loop_heads(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("for ")]


@pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")
def test_panels_outermost_while_a_fits_in_l2_else_batches() -> None:
    small, _ = build_packed((2, 64, 256), 256, 32)  # A: 128 KiB
    A, P = small.op.input_tensors
    assert loop_heads(te.create_prim_func([A, P, small]).script())[0] == \
        "for i2_o in T.parallel(8):"
    big, _ = build_packed((8, 128, 512), 256, 32)  # A: 2 MiB
    A, P = big.op.input_tensors
    assert loop_heads(te.create_prim_func([A, P, big]).script())[:2] == \
        ["for i0 in T.parallel(8):", "for i2_o, i1_o in T.grid(8, 16):"]


def bound_matmul(xshape, w: np.ndarray, transposed: bool):
    """x @ w.T (a linear layer, `transposed`) or x @ w (ONNX's MatMul) with w a constant."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xshape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            wv = relax.const(w)
            if transposed:
                wv = bb.emit(relax.op.permute_dims(wv))
            y = bb.emit_output(relax.op.matmul(x, wv))
        bb.emit_func_output(y)
    return bb.get()


@pytest.mark.parametrize("xshape,wshape,transposed", [
    ((2, 24, 64), (96, 64), True),  # a batch of rows, torch's Linear
    ((24, 64), (64, 96), False),  # ONNX's MatMul with its weight as it lies
    ((9, 30), (30, 20), False),  # odd sizes: panels of 10 (or 5) lanes
])
def test_bound_weights_are_packed_at_build_time(xshape, wshape, transposed) -> None:
    w = RNG.standard_normal(wshape).astype("float32")
    mod = bound_matmul(xshape, w, transposed)
    with default_schedules():
        fused = FuseTransposeMatmul()(mod)
    text = fused.script()
    assert "R.call_tir(cls.matmul_packed" in text and "R.permute_dims" not in text, text
    consts = [c for blk in fused["main"].body.blocks for b in blk.bindings
              for c in b.value.args[1].fields if isinstance(c, rx.Constant)]
    n = wshape[0] if transposed else wshape[1]
    lanes = panel_lanes(n, "float32")
    assert [c.data.numpy().shape for c in consts] == [(n // lanes, xshape[-1], lanes)]
    x = RNG.standard_normal(xshape).astype("float32")
    y = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x)
    np.testing.assert_allclose(y.numpy(), x @ (w.T if transposed else w), rtol=1e-4,
                               atol=1e-4)


def linear_with_bias(xshape, w: np.ndarray, bias: np.ndarray, bias_first: bool,
                     keep_matmul: bool = False):
    """torch's Linear as exported: add(bias, matmul(x, permute_dims(w)))."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xshape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            wt = bb.emit(relax.op.permute_dims(relax.const(w)))
            mm = bb.emit(relax.op.matmul(x, wt))
            b = relax.const(bias)
            y = bb.emit(relax.op.add(b, mm) if bias_first else relax.op.add(mm, b))
            out = bb.emit_output(relax.Tuple([y, mm]) if keep_matmul else y)
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize("xshape,bias_first", [((16, 24), True), ((2, 19, 24), False)])
def test_a_bias_add_is_done_by_the_packed_matmul(xshape, bias_first) -> None:
    w = RNG.standard_normal((64, 24)).astype("float32")
    bias = RNG.standard_normal(64).astype("float32")
    mod = linear_with_bias(xshape, w, bias, bias_first)
    with default_schedules():
        text = FuseTransposeMatmul()(mod).script()
    assert "cls.matmul_packed_bias" in text and "R.add" not in text and "R.matmul" not in text
    x = RNG.standard_normal(xshape).astype("float32")
    y = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x)
    np.testing.assert_allclose(y.numpy(), x @ w.T + bias, rtol=1e-4, atol=1e-4)


def test_a_matmul_used_elsewhere_keeps_its_bias_add() -> None:
    w = RNG.standard_normal((64, 24)).astype("float32")
    bias = RNG.standard_normal(64).astype("float32")
    mod = linear_with_bias((16, 24), w, bias, True, keep_matmul=True)
    with default_schedules():
        text = FuseTransposeMatmul()(mod).script()
    assert "cls.matmul_packed," in text and "R.add" in text, text
    x = RNG.standard_normal((16, 24)).astype("float32")
    y, mm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x)
    np.testing.assert_allclose(mm.numpy(), x @ w.T, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(y.numpy(), x @ w.T + bias, rtol=1e-4, atol=1e-4)
