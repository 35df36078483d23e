"""`tvm.relax.backend.contrib.tensorrt`: TensorRT patterns, partitioning (backend/tensorrt.py)."""

from ....backend.tensorrt import *  # noqa: F401,F403
