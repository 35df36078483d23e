"""Schedule errors that show the IR with the offending loops marked and underlined (TVM's
rendering): reorder over loops that are not a perfect nest, fuse given inner-first."""

import pytest

from tvmlite import tir
from tvmlite.script import tir as T


@T.prim_func
def two_branches(A: T.Buffer((8, 8, 8), "float32"), B: T.Buffer((8, 8, 8), "float32")):
    C = T.alloc_buffer((8, 8, 8))
    for i, j in T.grid(8, 8):
        for k in range(8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                C[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
        for k in range(8):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = C[vi, vj, vk] * T.float32(2)


def _loops():
    sch = tir.Schedule(two_branches)
    return sch, sch.get_loops(sch.get_sblock("B"))


def test_reorder_marks_the_loop_that_branches() -> None:
    sch, (i, j, k) = _loops()
    with pytest.raises(tir.ScheduleError) as info:
        sch.reorder(k, i)
    text = str(info.value)
    assert text.startswith("ScheduleError: An error occurred in the schedule primitive "
                           "'reorder'.\n\nThe IR with diagnostic is:\n")
    # unsugared (no T.grid), an explicit root block, the marked loop commented and underlined
    assert ("            for i in range(8):\n"
            "                # tirx.For#0\n"
            "                for j in range(8):\n"
            "                ^^^^^^^^^^^^^^^^^^\n"
            "                    for k in range(8):\n"
            "                    ^^^^^^^^^^^^^^^^^^\n") in text
    assert '        with T.sblock("root"):\n' in text
    assert text.endswith("loop 'j' (tirx.For#0) holds more than loop 'k'; the loops must be "
                         "perfectly nested")


def test_fuse_given_inner_first_marks_both_loops() -> None:
    sch, (i, j, k) = _loops()
    with pytest.raises(tir.ScheduleError) as info:
        sch.fuse(k, i)
    text = str(info.value)
    assert ("            # tirx.For#1\n"
            "            for i in range(8):\n"
            "            ^^^^^^^^^^^^^^^^^^\n") in text
    # the nested mark's comment is not underlined, nor are its lines twice
    assert ("                    # tirx.For#0\n"
            "                    for k in range(8):\n"
            "                    ^^^^^^^^^^^^^^^^^^\n"
            '                        with T.sblock("B"):\n') in text
    assert "the outer loop tirx.For#0 is not the parent of the inner loop tirx.For#1" in text


def test_fuse_in_order_still_works() -> None:
    sch, (i, j, k) = _loops()
    fused = sch.fuse(i, j)
    assert sch.get(fused).loop_var.name == "i_j_fused"
