"""`tvm.relax.analysis`: questions asked of relax functions and modules."""

from ..ir.well_formed import well_formed
from ..transforms.simple_passes import remove_unused as remove_all_unused

__all__ = ["remove_all_unused", "well_formed"]
