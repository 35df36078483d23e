"""The default matmul schedule rule (topi/matmul_schedule.py): compiled kernels against numpy
over tile-shaped and awkward shapes, batch broadcasting, transposed operands and dtypes, and
the loop nest it picks."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.topi.conv2d_schedule import host_vector_bits
from tvmlite.topi.matmul_schedule import pick_lanes

RNG = np.random.default_rng(11)

CASES = [  # a shape, b shape, transpose_a, dtype
    ((16, 600), (600, 64), False, "float32"),  # 2 row tiles of 8, k blocks of 200, 2 vectors
    ((1, 40), (40, 48), False, "float32"),  # a matrix-vector product
    ((7, 13), (13, 5), False, "float32"),  # odd rows: tiles of one row; 5 lanes
    ((3, 1, 6, 20), (4, 20, 9), False, "float32"),  # broadcast batch dims
    ((12, 32, 16), (12, 16, 24), False, "float32"),  # batched, parallel over the batch
    ((20, 6), (20, 33), True, "float32"),  # transpose_a; 33 columns: no vector
    ((16, 64), (64, 48), False, "int32"),
    ((8, 300), (300, 32), False, "float64"),
]


def build_matmul(ashape, bshape, transpose_a, dtype):
    A = te.placeholder(ashape, dtype, name="A")
    B = te.placeholder(bshape, dtype, name="B")
    out = topi.nn.matmul(A, B, transpose_a=transpose_a)
    return out, tvm.build(te.create_prim_func([A, B, out]), target="llvm")


@pytest.mark.parametrize("ashape,bshape,transpose_a,dtype", CASES)
def test_matmul_matches_numpy(ashape, bshape, transpose_a, dtype) -> None:
    out, lib = build_matmul(ashape, bshape, transpose_a, dtype)
    if dtype.startswith("int"):
        a, b = RNG.integers(-9, 9, ashape).astype(dtype), RNG.integers(-9, 9, bshape).astype(dtype)
    else:
        a, b = RNG.standard_normal(ashape).astype(dtype), RNG.standard_normal(bshape).astype(dtype)
    ref = np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, b)
    c = tvm.nd.array(np.zeros(ref.shape, dtype))
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")
def test_nest_is_register_blocked() -> None:
    A = te.placeholder((16, 600), "float32", name="A")
    B = te.placeholder((600, 64), "float32", name="B")
    text = te.create_prim_func([A, B, topi.nn.matmul(A, B)]).script()
    loops = [line.strip() for line in text.splitlines() if line.strip().startswith("for ")]
    # column panels outermost (B has no batch dims: every row tile reuses each panel; no
    # loop has 4 iterations, so the first of the longest runs in parallel), then the 8-row
    # tiles; in each, the tile's init, the whole reduction around the 8 x 32 register tile
    # (two zmm per row, unrolled and vectorized innermost), then the tile's store
    assert loops == ["for i1_o in T.parallel(2):",
                     "for i0_o in range(2):",
                     "for i0_i_init in T.unroll(8):",
                     "for i1_i_init in T.vectorized(32):",
                     "for k in range(600):",
                     "for i0_i in T.unroll(8):",
                     "for i1_i in T.vectorized(32):",
                     "for i0_i_epi in T.unroll(8):",
                     "for i1_i_epi in T.vectorized(32):"], text
    # the tile accumulates in a local buffer (registers), not in the output
    assert 'scope="local"' in text and "T_matmul_local[v_i0, v_i1] = T_matmul_local" in text


@pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")
def test_batched_b_keeps_the_batch_outermost() -> None:
    A = te.placeholder((12, 32, 16), "float32", name="A")
    B = te.placeholder((12, 16, 64), "float32", name="B")
    text = te.create_prim_func([A, B, topi.nn.matmul(A, B)]).script()
    loops = [line.strip() for line in text.splitlines() if line.strip().startswith("for ")]
    # per batch (in parallel), its column panels, then its row tiles
    assert loops[:2] == ["for i0 in T.parallel(12):", "for i2_o, i1_o in T.grid(2, 4):"], text


def test_tile_choices() -> None:
    assert pick_lanes(3072, 16) == 32 and pick_lanes(48, 16) == 16 and pick_lanes(20, 16) == 10


@pytest.mark.skipif(host_vector_bits() != 512, reason="tiles for AVX-512")
def test_rows_of_the_tile_divide_the_rows() -> None:
    from tvmlite.topi.matmul_schedule import default_tile

    # the most rows up to 8 dividing m, within 16 accumulators (two zmm per row here)
    assert [default_tile((m, 3072, 768), "float32")["rows"] for m in (128, 126, 100, 127)] == \
        [8, 7, 5, 1]
    assert default_tile((126, 48, 64), "float32")["rows"] == 7  # 16 lanes: one zmm per row
