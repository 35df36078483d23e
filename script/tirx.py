"""`tvm.script.tirx` (TVM 0.27's name for `tvm.script.tir`): the same `T` namespace.

NOTE: this module replaces itself by `script.tir`, so `T.Buffer` from either path is the one
object (two copies would make two parsers' worth of distinct `T.*` markers).
"""

import sys

from . import tir

sys.modules[__name__] = tir
