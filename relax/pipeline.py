"""`tvm.relax.pipeline`: the named pipelines (transforms/pipeline.py), as TVM 0.27 places them."""

from ..transforms.pipeline import default_build_pipeline, get_pipeline, zero_pipeline  # noqa: F401
from ..transforms.relax_utils import register_pipeline  # noqa: F401


def get_default_pipeline(target: object = None) -> object:
    """The passes `relax.build` runs by default (the same for every target tvmlite builds)."""
    return get_pipeline("default")


__all__ = ["default_build_pipeline", "get_default_pipeline", "get_pipeline", "register_pipeline",
           "zero_pipeline"]
