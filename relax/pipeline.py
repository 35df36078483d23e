"""`tvm.relax.pipeline`: the named pipelines (transforms/pipeline.py), as TVM 0.27 places them."""

from ..transforms.pipeline import (  # noqa: F401
    dataflow_lower_passes, default_build_pipeline, finalize_passes, get_default_pipeline,
    get_pipeline, legalize_passes, library_dispatch_passes, zero_pipeline,
)
from ..transforms.relax_utils import register_pipeline  # noqa: F401

__all__ = ["dataflow_lower_passes", "default_build_pipeline", "finalize_passes",
           "get_default_pipeline", "get_pipeline", "legalize_passes", "library_dispatch_passes",
           "register_pipeline", "zero_pipeline"]
