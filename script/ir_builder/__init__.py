"""`tvm.script.ir_builder`: build relax functions with Python `with` frames instead of parsing
(`with IRBuilder() as ib: with R.function(): ...; ib.get()`)."""

from . import base, ir, relax, tirx  # noqa: F401
from .base import IRBuilder, IRBuilderFrame

__all__ = ["IRBuilder", "IRBuilderFrame", "base", "ir", "relax", "tirx"]
