"""`tvm.relax.testing.runtime_builtin`: the codes of the VM's shape builtins
(`vm.builtin.match_shape`, `vm.builtin.make_shape`), as TVM numbers them."""

from enum import IntEnum


class MatchShapeCode(IntEnum):
    """What `vm.builtin.match_shape` does with each dim."""

    ASSERT_EQUAL_TO_IMM = 0
    STORE_TO_HEAP = 1
    NO_OP = 2
    ASSERT_EQUAL_TO_LOAD = 3


class MakeShapeCode(IntEnum):
    """Where `vm.builtin.make_shape` takes each dim from."""

    USE_IMM = 0
    LOAD_SHAPE = 1
