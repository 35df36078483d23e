"""Devices, as TVM spells them: `Device(device_type, device_id)`, `cpu()`, `cuda()`.

Device objects are interned by `device()`/`cpu()`/`cuda()` so the VM's per-argument check
(`a._sig == expected`, where the signature tuple holds the device) is an identity test.
"""

from __future__ import annotations

from dataclasses import dataclass

# DLPack device type codes (dlpack.h), which TVM uses as its device_type.
kDLCPU = 1
kDLCUDA = 2
kDLOpenCL = 4  # NOTE: named so IR can say where a tensor lives (R.opencl); nothing runs there
_NAMES = {kDLCPU: "cpu", kDLCUDA: "cuda", kDLOpenCL: "opencl"}
_CODES = {"cpu": kDLCPU, "llvm": kDLCPU, "cuda": kDLCUDA, "gpu": kDLCUDA, "opencl": kDLOpenCL}


@dataclass(frozen=True, slots=True)
class Device:
    """A device: `device_type` is a DLPack code (1 cpu, 2 cuda), `device_id` its index."""

    device_type: int
    device_id: int = 0

    def __str__(self) -> str:
        return f"{_NAMES.get(self.device_type, self.device_type)}({self.device_id})"

    __repr__ = __str__

    @property
    def exist(self) -> bool:
        if self.device_type != kDLCUDA:
            return self.device_type == kDLCPU
        try:
            import cupy  # noqa: F401  # cuda tensors come through CuPy

            return bool(cupy.cuda.runtime.getDeviceCount() > self.device_id)
        except Exception:
            return False

    def sync(self) -> None:
        """Wait for pending work: a no-op on cpu (kernels run synchronously)."""
        if self.device_type == kDLCUDA:  # GPU kernels run on CuPy's current stream
            from .cuda import sync

            sync(self)

    def _dlpack(self) -> tuple[int, int]:
        return (self.device_type, self.device_id)

    def dlpack_device_type(self) -> int:
        """The DLPack code of the device (1: cpu, 2: cuda), as TVM's `Device` gives it."""
        return self.device_type

    @property
    def index(self) -> int:
        """TVM's name of `device_id`."""
        return self.device_id


_INTERNED: dict[tuple[int, int], Device] = {}


def device(dev_type: int | str, dev_id: int = 0) -> Device:
    """`tvm.device("cpu", 0)` / `tvm.device(1, 0)`: the interned Device."""
    code = _CODES.get(dev_type.split()[0].lower()) if isinstance(dev_type, str) else dev_type
    if code is None:
        raise ValueError(f"unknown device type {dev_type!r}; expected one of {sorted(_CODES)}")
    key = (int(code), int(dev_id))
    dev = _INTERNED.get(key)
    if dev is None:
        dev = _INTERNED[key] = Device(*key)
    return dev


def cpu(dev_id: int = 0) -> Device:
    return device(kDLCPU, dev_id)


def cuda(dev_id: int = 0) -> Device:
    return device(kDLCUDA, dev_id)


def opencl(dev_id: int = 0) -> Device:
    return device(kDLOpenCL, dev_id)


def intern(dev: Device) -> Device:
    """The interned object equal to `dev` (user code may build `Device(1, 0)` directly)."""
    return device(dev.device_type, dev.device_id)
