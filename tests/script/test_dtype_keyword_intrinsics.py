"""`T.reinterpret(x, dtype=...)` and `T.call_intrin(op, *args, dtype=...)`: the result dtype as a
keyword after the operands (TVM's printer writes `T.reinterpret(T.uint64(0), dtype="handle")`)
means the same as the dtype-first call."""

from tvmlite.ir.structural import structural_equal
from tvmlite.script import tir as T


def test_dtype_keyword_matches_the_positional_form() -> None:
    @T.prim_func
    def keyword(x: T.float32, p: T.handle):
        T.evaluate(T.reinterpret(T.uint64(0), dtype="handle"))
        T.evaluate(T.call_intrin("tir.exp", x, dtype="float32"))
        T.evaluate(T.reinterpret(x, dtype="int32"))

    @T.prim_func
    def positional(x: T.float32, p: T.handle):
        T.evaluate(T.reinterpret("handle", T.uint64(0)))
        T.evaluate(T.call_intrin("float32", "tir.exp", x))
        T.evaluate(T.reinterpret("int32", x))

    assert structural_equal(keyword.without_attr("global_symbol"),
                            positional.without_attr("global_symbol"))
    first = keyword.body.seq[0].value
    assert first.dtype == "handle" and first.args[0].dtype == "uint64"
