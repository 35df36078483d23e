"""`tvm.tirx.buffer`: Buffer, decl_buffer and the access kinds of `Buffer.access_ptr`."""

from enum import IntEnum

from ..tir import Buffer, decl_buffer  # noqa: F401


class BufferAccessKind(IntEnum):
    """The access mask `Buffer.access_ptr` takes (combine with `|`)."""

    READ = 1
    WRITE = 2


__all__ = ["Buffer", "BufferAccessKind", "decl_buffer"]
