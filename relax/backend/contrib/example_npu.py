"""`tvm.relax.backend.contrib.example_npu`: TVM's example NPU backend (backend/example_npu.py)."""

from ....backend.example_npu import *  # noqa: F401,F403
