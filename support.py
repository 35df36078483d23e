"""`tvm.support`: the build helpers TVM code imports at module level (`cc`, `popen_pool`,
`utils`). tvmlite builds no shared libraries and runs no worker processes of TVM's kind, so
`cc` and `popen_pool` say so when called; `utils` is tvm.contrib.utils (`tempdir`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from .contrib import utils


def _no_native_toolchain(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"tvm.support.{what}: tvmlite exports executables as its own zip of LLVM IR and "
            "data (export_library), not as shared libraries built with a C compiler")
    return refuse


cc = SimpleNamespace(create_shared=_no_native_toolchain("cc.create_shared"),
                     create_staticlib=_no_native_toolchain("cc.create_staticlib"),
                     create_executable=_no_native_toolchain("cc.create_executable"))


def _no_worker_pool(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("tvm.support.popen_pool: tvmlite has no popen worker pool; use "
                              "concurrent.futures (meta_schedule takes any Executor)")


popen_pool = SimpleNamespace(PopenWorker=_no_worker_pool, PopenPoolExecutor=_no_worker_pool)

__all__ = ["cc", "popen_pool", "utils"]
