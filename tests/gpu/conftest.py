"""Which CuPy the GPU-run tests use: the real one with a GPU, else the CPU emulator.

Tests that take the `cuda_backend` fixture (or use it through `usefixtures`) run once, with an
id naming the backend: `[cupy]` on a GPU; `[emulator]` with cupy_emulator.py installed as
`sys.modules["cupy"]` for the test module (and removed after it, so the other tests still see
no CuPy); without a GPU and without g++ they skip, saying why.
"""

from __future__ import annotations

from typing import Any, Iterator

import cupy_emulator
import pytest

from tvmlite.vm.cuda import CudaUnavailableError, cupy_module


def _real_cupy_missing() -> str | None:
    try:
        cupy_module()
    except CudaUnavailableError as err:
        return str(err)
    return None


REAL_MISSING = _real_cupy_missing()
EMULATOR_MISSING = cupy_emulator.unavailable() if REAL_MISSING else None
BACKEND = "cupy" if REAL_MISSING is None else "none" if EMULATOR_MISSING else "emulator"


@pytest.fixture(scope="module", params=[BACKEND])
def cuda_backend(request: Any) -> Iterator[str]:
    """"cupy" (a GPU) or "emulator" (kernels run on the CPU); skips if neither can run."""
    if request.param == "none":
        pytest.skip(f"needs CuPy and a GPU ({REAL_MISSING}) or g++ for the CuPy emulator "
                    f"({EMULATOR_MISSING})")
    if request.param == "cupy":
        yield "cupy"
        return
    with cupy_emulator.installed():
        yield "emulator"
