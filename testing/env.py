"""`tvm.testing.env`: what this machine can run, as TVM 0.27's tests ask it
(`@pytest.mark.skipif(not env.has_cuda(), reason=...)`).

tvmlite runs the CPU through llvmlite and CUDA through CuPy; every other device, vendor
library and toolchain TVM can probe for is absent here, so its probe answers False. Probes
never raise and are cached, as TVM's are.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _device_exists(kind: str, index: int = 0) -> bool:
    """Whether a device of this kind (`"cpu"`, `"cuda"`, `"llvm"`) is present."""
    kind = kind.split()[0].lower()
    if kind in ("cpu", "llvm", "c"):
        return True
    if kind in ("cuda", "gpu"):
        from ..vm.device import cuda

        return bool(cuda(index).exist)
    return False


def _target_enabled(kind: str) -> bool:
    """Whether tvmlite can compile for this target kind (llvm and c for the CPU, cuda)."""
    return kind.split()[0].lower() in ("llvm", "c", "cuda")


def build_flag_enabled(flag: str) -> bool:
    """TVM's build options; tvmlite has no build, only the LLVM and CUDA paths."""
    return flag.upper() in ("USE_LLVM", "USE_CUDA") and (flag.upper() == "USE_LLVM" or has_cuda())


def has_llvm() -> bool:
    return True  # llvmlite is a dependency


def has_cuda() -> bool:
    return _device_exists("cuda")


def has_gpu() -> bool:
    return has_cuda()


def has_cublas() -> bool:
    return has_cuda()  # cuBLAS through CuPy


def has_multi_gpu(count: int = 2) -> bool:
    return False  # one device per VM; disco is not implemented


def _absent(*_: Any, **__: Any) -> bool:
    return False


# Devices, libraries and toolchains tvmlite does not drive.
has_rocm = has_vulkan = has_metal = has_opencl = has_nvptx = has_cudnn = has_nccl = _absent
has_hipblas = has_nvshmem = has_matrixcore = has_cudagraph = has_hexagon = _absent
has_hexagon_toolchain = has_adreno_opencl = has_nvcc_version = _absent


@functools.cache
def _cuda_compute_version() -> tuple[int, int]:
    if not has_cuda():
        return (0, 0)
    from ..vm.device import cuda

    major, _, minor = str(getattr(cuda(), "compute_version", "0.0") or "0.0").partition(".")
    return (int(major), int(minor or 0))


def has_cuda_compute(major: int, minor: int = 0, exact: bool = False) -> bool:
    """Whether the GPU's compute capability is (at least, or exactly) major.minor."""
    version = _cuda_compute_version()
    if version == (0, 0):
        return False
    return version == (major, minor) if exact else version >= (major, minor)


def has_llvm_min_version(major: int) -> bool:
    import llvmlite.binding as llvm

    return llvm.llvm_version_info[0] >= major


@functools.cache
def _host_features() -> frozenset[str]:
    try:
        import llvmlite.binding as llvm

        return frozenset(f[1:] for f in llvm.get_host_cpu_features().flatten().split(",")
                         if f.startswith("+"))
    except Exception:
        return frozenset()


def has_cpu_feature(features: str | list[str]) -> bool:
    """Whether the host CPU has every named feature (`"avx512f"`, `["avx2", "fma"]`)."""
    wanted = [features] if isinstance(features, str) else list(features)
    return all(f in _host_features() for f in wanted)


def has_x86_vnni() -> bool:
    return has_cpu_feature("avx512vnni") or has_cpu_feature("avxvnni")


def has_x86_avx512() -> bool:
    return has_cpu_feature(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])
