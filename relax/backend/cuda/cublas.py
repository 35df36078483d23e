"""`tvm.relax.backend.cuda.cublas`: TVM's cuBLAS patterns, run through CuPy (backend/cublas.py)."""

from ....backend.cublas import *  # noqa: F401,F403
