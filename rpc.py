"""`tvm.rpc`: importable, as TVM code imports it at the top; remote devices do not apply.

tvmlite runs kernels in the calling process; there is no RPC server or tracker to talk to.
"""

from __future__ import annotations

from typing import Any

_WHY = ("tvmlite has no RPC runtime: kernels run in the calling process (build and run "
        "locally, or export the executable and load it on the other machine)")


def connect(*_: Any, **__: Any) -> Any:
    """TVM's `rpc.connect(host, port)`: not available in tvmlite."""
    raise NotImplementedError(_WHY)


def connect_tracker(*_: Any, **__: Any) -> Any:
    """TVM's `rpc.connect_tracker(host, port)`: not available in tvmlite."""
    raise NotImplementedError(_WHY)


class RPCSession:
    """TVM's remote session class; constructing one raises NotImplementedError."""

    def __init__(self, *_: Any, **__: Any) -> None:
        raise NotImplementedError(_WHY)


LocalSession = PopenSession = TrackerSession = Server = RPCSession

__all__ = ["LocalSession", "PopenSession", "RPCSession", "Server", "TrackerSession", "connect",
           "connect_tracker"]
