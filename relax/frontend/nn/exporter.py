"""`tvm.relax.frontend.nn.exporter` (frontend/nn/exporter.py)."""

from ....frontend.nn.exporter import *  # noqa: F401,F403
