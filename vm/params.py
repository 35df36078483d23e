"""`tvm.runtime.save_param_dict` / `load_param_dict`: named tensors to bytes and back.

The bytes are a NumPy `.npz` archive (no pickles), not TVM's binary format: tvmlite reads what
it wrote, and any NumPy reads it too, but a file saved by Apache TVM does not load here.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from .ndarray import NDArray, array


def _as_numpy(name: str, value: Any) -> np.ndarray:
    if hasattr(value, "numpy"):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"parameter {name!r}: expected a tensor or numpy array, got "
                    f"{type(value).__name__}")


def save_param_dict(params: dict[str, Any]) -> bytes:
    """The tensors of `params` ({name: NDArray or numpy array}) as one byte string."""
    buffer = io.BytesIO()
    np.savez(buffer, **{str(k): _as_numpy(str(k), v) for k, v in params.items()})
    return buffer.getvalue()


def load_param_dict(data: bytes | bytearray) -> dict[str, NDArray]:
    """{name: NDArray} from bytes that `save_param_dict` made."""
    try:
        with np.load(io.BytesIO(bytes(data)), allow_pickle=False) as archive:
            return {name: array(archive[name]) for name in archive.files}
    except (ValueError, OSError) as err:
        raise ValueError("load_param_dict: these bytes are not a parameter dict saved by "
                         f"tvmlite's save_param_dict ({err})") from None


def save_param_dict_to_file(params: dict[str, Any], path: str) -> None:
    with open(path, "wb") as f:
        f.write(save_param_dict(params))


def load_param_dict_from_file(path: str) -> dict[str, NDArray]:
    with open(path, "rb") as f:
        return load_param_dict(f.read())
