"""`tvm.relax.transform.legalize_ops`: TVM's module of legalization functions (`common`)."""

from . import common  # noqa: F401
from .common import register_legalize  # noqa: F401
