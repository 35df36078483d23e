"""Statement-level `T` names: attributes and thread launches, builder-style control flow,
declarations, macros. Each is parsed, printed (as TVM 0.27 prints it where the forms agree),
read back to an equal function, and, where it computes, run against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir import stmt as ts


def roundtrip(func: object) -> str:
    text = func.script()
    tvm.ir.assert_structural_equal(func, from_source(text))
    return text


def run(func: object, *arrays: np.ndarray) -> None:
    nd = [tvm.nd.array(a) for a in arrays]
    tvm.build(func, target="llvm")["main"](*nd)
    for a, n in zip(arrays, nd):
        a[...] = n.numpy()


LAUNCH = '''@T.prim_func
def f(A: T.Buffer((64, 4), "float32")):
    tx = T.env_thread("threadIdx.x")
    bx = T.launch_thread("blockIdx.x", 64)
    with T.launch_thread(tx, 4):
        A[bx, tx] = T.float32(0)
    with T.launch_thread(tx, 4):
        A[bx, tx] = A[bx, tx] + T.float32(1)
'''


def test_launch_thread_and_env_thread():
    func = from_source(LAUNCH)
    text = roundtrip(func)
    assert 'tx = T.env_thread("threadIdx.x")' in text  # launched twice: one variable
    assert 'with T.launch_thread("blockIdx.x", 64) as bx:' in text
    assert text.count("with T.launch_thread(tx, 4):") == 2
    launch = func.body
    assert isinstance(launch, ts.AttrStmt) and launch.attr_key == "thread_extent"
    assert launch.node.thread_tag == "blockIdx.x" and launch.value.value == 64
    inner = launch.body.seq
    assert inner[0].node.var is inner[1].node.var


def test_attr_scopes_a_body_and_the_cpu_backend_keeps_the_body():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    T.attr(A.data, "storage_alignment", 128)\n'
           '    with T.attr(0, "pragma_x", 1):\n'
           '        for i in range(4):\n'
           '            A[i] = T.float32(2)\n')
    func = from_source(src)
    text = roundtrip(func)
    assert 'with T.attr(A.data, "storage_alignment", 128):' in text
    assert 'with T.attr(0, "pragma_x", 1):' in text
    a = np.zeros(4, "float32")
    run(func, a)
    np.testing.assert_array_equal(a, np.full(4, 2, "float32"))


IF_WHILE = '''@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    with T.If(A[1] > 0):
        with T.Then():
            A[0] = 1
        with T.Else():
            A[0] = 2
    with T.While(A[2] < 5):
        A[2] = A[2] + 1
    T.assume(A[3] >= 0)
'''


@pytest.mark.parametrize("a1,want0", [(3, 1), (-3, 2)])
def test_builder_if_then_else_and_while(a1, want0):
    func = from_source(IF_WHILE)
    text = roundtrip(func)
    assert "if A[1] > 0:" in text and "while A[2] < 5:" in text
    assert "T.assume(A[3] >= 0)" in text
    a = np.array([0, a1, -2, 7], "int32")
    run(func, a)
    np.testing.assert_array_equal(a, [want0, a1, 5, 7])


def test_then_outside_if_is_a_located_error():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "int32")):\n'
           '    with T.Then():\n        A[0] = 1\n')
    with pytest.raises(ValueError, match=r"T.Then\(\) must be directly inside"):
        from_source(src)


def test_declarations():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32"), p: T.handle("float32")):\n'
           '    n = T.var("int32")\n'
           '    q = T.ptr("float32")\n'
           '    r = T.buffer_var("float32", "shared")\n'
           '    k = T.meta_var(3)\n'
           '    T.static_assert(k == 3, "k is 3")\n'
           '    x = T.bind(0)\n'
           '    T.buffer_store(A, A[1] + T.float32(x), [k])\n')
    func = from_source(src)
    text = roundtrip(func)
    assert "x: T.let[T.int32] = 0" in text and "A[3] = A[1] + T.Cast(\"float32\", x)" in text
    assert func.params[1].dtype == "handle"
    buf = T.buffer((4, 2), "int8", name="B")
    assert isinstance(buf, ts.Buffer) and (buf.name, buf.dtype) == ("B", "int8")
    assert [d.value for d in T.buffer_decl((4, 2)).shape] == [4, 2]


def test_static_assert_fails_while_parsing():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    T.static_assert(1 == 2, "one is not two")\n')
    with pytest.raises(ValueError, match="static assertion failed: one is not two"):
        from_source(src)


def test_ptr_annotation_and_let_annotation():
    src = ('@T.prim_func\ndef f(p: T.Ptr(T.float32), A: T.Buffer((4,), "float32")):\n'
           '    a: T.let[T.float32] = A[0]\n    A[1] = a\n')
    func = from_source(src)
    assert func.params[0].dtype == "handle"
    assert func.body.var.dtype == "float32"
    assert isinstance(T.let, T.LetAnnotation)


def test_target_attribute_prints_as_t_target():
    src = ('@T.prim_func\ndef f():\n'
           '    T.func_attr({"target": T.target("llvm", host="llvm")})\n    T.evaluate(0)\n')
    func = from_source(src)
    text = roundtrip(func)
    assert 'T.target("llvm", host="llvm")' in text
    assert str(func.attrs["target"].kind) == "llvm"


def test_sblock_attr_and_block_attr():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    for i in range(4):\n'
           '        with T.sblock("b"):\n'
           '            vi = T.axis.spatial(4, i)\n'
           '            T.sblock_attr({"k": 1})\n'
           '            A[vi] = T.float32(0)\n')
    func = from_source(src)
    assert dict(func.body.body.block.annotations) == {"k": 1}
    roundtrip(func)


def test_builder_function_names():
    src = ('@T.prim_func\ndef f() -> T.int32:\n'
           '    T.func_name("g")\n'
           '    A = T.arg("A", T.buffer((4,), "float32"))\n'
           '    T.add_to_parent(T.buffer_store(A, T.float32(1), [0]))\n'
           '    return 0\n')
    func = from_source(src)
    assert func.attrs["global_symbol"] == "g" and func.ret_dtype == "int32"
    assert func.buffer_map[0][1].name == "A"
    assert "return 0" in func.script()


def test_scalar_and_scoped_allocations():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    s = T.alloc_scalar("float32")\n'
           '    l = T.local_scalar("int32")\n'
           '    h = T.shared_scalar("int32")\n'
           '    L = T.alloc_local((4,), "float32")\n'
           '    S = T.alloc_shared((4,), "float32")\n'
           '    A[0] = s[()] + L[0] + S[0] + T.Cast("float32", l[()] + h[()])\n')
    func = from_source(src)
    # TVM 0.27: buffers allocated in a function without blocks are flat AllocBuffer statements
    allocs = [s.buffer for s in func.body.seq if isinstance(s, ts.AllocBuffer)]
    assert [b.scope for b in allocs] == ["global", "local", "shared", "local", "shared"]
    assert allocs[0].shape == ()
    roundtrip(func)


def test_call_effect_kind_values():
    assert (T.CallEffectKind.Pure, T.CallEffectKind.Opaque) == (1, 3)


@T.inline
def _add_one(A, i):
    A[i] = A[i] + T.float32(1)


@T.macro(hygienic=False)
def _scale(A, i):
    A[i] = A[i] * factor  # noqa: F821 (the caller's `factor`)


def test_inline_macro_expands_in_place_and_computes():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            _add_one(A, i)
            factor = T.float32(3)  # noqa: F841 (read by the macro)
            _scale(A, i)

    text = f.script()
    assert "A[i] = A[i] + T.float32(1.0)" in text
    assert "A[i] = A[i] * factor" in text
    a = np.arange(4, dtype="float32")
    run(f, a)
    np.testing.assert_allclose(a, (np.arange(4) + 1) * 3)


def test_inline_is_hygienic_and_nested_inline_binds_late():
    x_value = 2

    @T.inline
    def capture(A, B):
        B[()] = A[x_value]

    @T.prim_func
    def f(A: T.Buffer((8,), "int32"), B: T.Buffer((), "int32")):
        for x_value in range(3):  # noqa: F841 (a different x_value)
            capture(A, B)

            @T.inline
            def late(A, B):
                B[()] = B[()] + A[x_value]

            late(A, B)

    text = f.script()
    assert "B[()] = A[2]" in text and "B[()] = B[()] + A[x_value]" in text


def test_macro_options_are_keywords():
    with pytest.raises(ValueError):
        T.inline(True)


LOOP_JUMPS = '''@T.prim_func
def f(In: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "int32")):
    Out[0] = 0
    Out[1] = 0
    for i in range(1000):
        if i % 13 == 0:
            Out[1] = Out[1] + 1
            continue
        Out[0] = Out[0] + 1
        if Out[0] >= In[0]:
            break
    while Out[1] < 100:
        Out[1] = Out[1] + 1
        if Out[1] % 7 == 0:
            T.Break()
        T.Continue()
'''


def _loop_jumps_reference(limit: int) -> list[int]:
    out = [0, 0]
    for i in range(1000):
        if i % 13 == 0:
            out[1] += 1
            continue
        out[0] += 1
        if out[0] >= limit:
            break
    while out[1] < 100:
        out[1] += 1
        if out[1] % 7 == 0:
            break
    return out


@pytest.mark.parametrize("limit", [1, 40, 5000])
def test_break_and_continue_compile_and_interpret_as_python_runs(limit):
    from tvmlite.tir import interpreter

    func = from_source(LOOP_JUMPS)
    text = roundtrip(func)
    assert "            T.continue_loop()" in text and "            T.break_loop()" in text
    out = np.zeros(2, "int32")
    run(func, np.array([limit], "int32"), out)
    assert out.tolist() == _loop_jumps_reference(limit)
    ref = np.zeros(2, "int32")
    interpreter.run(func, np.array([limit], "int32"), ref)
    assert ref.tolist() == out.tolist()


def test_break_outside_a_loop_is_a_located_error():
    src = '@T.prim_func\ndef f(A: T.Buffer((4,), "int32")):\n    break\n'
    with pytest.raises(ValueError, match="`break` outside a loop"):
        from_source(src)


def test_return_statement():
    assert T.Return(0).value.op == "tir.ret"


def test_printer_details_tvm_tests_rely_on():
    src = ('@T.prim_func\ndef f(A: T.Buffer((), "int32"), B: T.Buffer((4,), "float32")):\n'
           '    for i in range(128):\n'
           '        for j in range(i):\n'
           '            A[()] = A[()] + j\n'
           '    T.tvm_storage_sync("warp")\n'
           '    for k in range(4):\n'
           '        with T.sblock("b"):\n'
           '            vk = T.axis.spatial(4, k)\n'
           '            T.block_attr({"layout_free_placeholders": [B]})\n'
           '            B[vk] = T.float32(0)\n')
    func = from_source(src)
    text = roundtrip(func)
    assert "for j in range(i):" in text  # not joined into T.grid(128, i)
    assert 'T.evaluate(T.tvm_storage_sync("warp"))' in text
    assert 'T.block_attr({"layout_free_placeholders": [B]})' in text
    assert func.body[1].value.op == "tir.tvm_storage_sync" and len(func.body) == 3
    assert isinstance(tvm.tir.FloorDiv(T.int32(4), 2), tvm.tir.FloorDiv)


def test_block_attrs_merge_and_conflicts_are_located():
    src = ('@T.prim_func\ndef f(A: T.buffer((4,), "float32")):\n'
           '    with T.sblock("b"):\n'
           '        T.sblock_attr({"k1": "a", "nested": {"x": 1}})\n'
           '        T.sblock_attr({"k2": "b", "nested": {"y": 2}, "k1": "a"})\n'
           '        A[0] = T.float32(0)\n')
    func = from_source(src)
    assert func.buffer_map[0][1].shape[0].value == 4  # a lower-case T.buffer annotation
    ann = func.body.block.annotations
    assert dict(ann.items()) == {"k1": "a", "nested": {"x": 1, "y": 2}, "k2": "b"}
    assert ann["k2"] == "b"
    bad = src.replace('"k1": "a"})', '"k1": "c"})')
    with pytest.raises(ValueError, match="block attribute 'k1' is set twice, to 'a' and 'c'"):
        from_source(bad)


def test_loop_targets_tuple_and_starred():
    src = ('@T.prim_func\ndef f(A: T.Buffer((2, 3, 4), "int32"), B: T.Buffer((2, 3), "int32")):\n'
           '    for idx in T.grid(2, 3, 4):\n'
           '        A[idx] = 1\n'
           '    for *outer, k in T.grid(2, 3, 4):\n'
           '        B[outer] = B[outer] + A[(*outer, k)]\n')
    func = from_source(src)
    text = roundtrip(func)
    assert "for idx_0, idx_1, idx_2 in T.grid(2, 3, 4):" in text
    assert "B[outer_0, outer_1] = B[outer_0, outer_1] + A[outer_0, outer_1, k]" in text
    a, b = np.zeros((2, 3, 4), "int32"), np.zeros((2, 3), "int32")
    run(func, a, b)
    np.testing.assert_array_equal(b, np.full((2, 3), 4))


@T.inline
def _double(A, i):
    with T.sblock("op"):
        v = T.axis.remap("S", [i])
        A[v] = A[v] * T.float32(2)


def test_blocks_a_macro_expands_twice_get_suffixes():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            _double(A, i)
            _double(A, i)

    names = [s.block.name for s in f.body.body.seq]
    assert names == ["op", "op_1"]
    a = np.arange(4, dtype="float32")
    run(f, a)
    np.testing.assert_allclose(a, np.arange(4) * 4)


def test_a_prim_func_calls_another_of_its_module():
    src = ('@I.ir_module\nclass Module:\n'
           '    @T.prim_func\n    def main(A: T.Buffer((2,), "float32")):\n'
           '        T.evaluate(Module.square(A[0]) + Module.square(A[1]))\n'
           '    @T.prim_func\n    def square(x: T.float32) -> T.float32:\n'
           '        return x * x\n')
    mod = from_source(src)
    text = mod.script()
    assert "T.evaluate(Module.square(A[0]) + Module.square(A[1]))" in text
    call = mod["main"].body.value.a
    assert (call.op, call.dtype) == ("@square", "float32")
    tvm.ir.assert_structural_equal(mod, from_source(text))


def test_meta_var_binds_without_a_let():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8, 4), "float32")):\n'
           '    N, M = T.meta_var(A.shape)\n'
           '    for i, j in T.grid(N, M):\n'
           '        A[i, j] = T.float32(0)\n')
    func = from_source(src)
    assert isinstance(func.body, ts.For)  # no LetStmt for N, M
    assert "for i, j in T.grid(8, 4):" in roundtrip(func)


def test_break_and_continue_are_tvm_loop_intrinsics():
    explicit = ('@T.prim_func\ndef f():\n    for i in range(16):\n        if i % 2 == 0:\n'
                '            T.evaluate(T.continue_loop())\n        if i < 15:\n'
                '            T.evaluate(T.break_loop())\n')
    implicit = explicit.replace("T.evaluate(T.continue_loop())", "continue").replace(
        "T.evaluate(T.break_loop())", "break")
    tvm.ir.assert_structural_equal(from_source(explicit), from_source(implicit))
    assert "            T.continue_loop()\n" in from_source(explicit).script()  # as TVM 0.27


def test_tvm_parsing_details():
    ret = from_source("@T.prim_func\ndef f():\n    return 5\n")
    tvm.ir.assert_structural_equal(ret, from_source("@T.prim_func\ndef f():\n"
                                                    "    T.Return(T.int32(5))\n"))
    folded = from_source('@T.prim_func\ndef f():\n    assert 0 == 1, "no"\n    T.evaluate(0)\n')
    assert folded.body.condition == tvm.tir.const(False)
    region = from_source('@T.prim_func\ndef f(A: T.Buffer((16, 64), "int32")):\n'
                         '    with T.sblock():\n        B = T.match_buffer(A[8:16, 32:64])\n'
                         '        T.evaluate(0)\n')
    b = region.body.block.match_buffers[0].buffer
    assert ([d.value for d in b.shape], b.dtype) == ([8, 32], "int32")
    same_name = from_source('@T.prim_func\ndef f(A: T.Buffer((4, 4), "float32")):\n'
                            '    for i, j in T.grid(4, 4):\n        with T.sblock("b"):\n'
                            '            i, j = T.axis.remap("SS", [i, j])\n'
                            '            A[i, j] = T.float32(0)\n')
    assert [iv.var.name for iv in same_name.body.body.body.block.iter_vars] == ["i", "j"]


def test_bind_to_a_declared_variable():
    explicit = from_source('@T.prim_func\ndef f(i: T.int32):\n    j = T.int32()\n'
                           '    T.bind(i, var=j)\n    T.evaluate(j)\n')
    implicit = from_source('@T.prim_func\ndef f(i: T.int32):\n    j: T.let[T.int32] = i\n'
                           '    T.evaluate(j)\n')
    tvm.ir.assert_structural_equal(explicit, implicit)
    assert isinstance(explicit.body, ts.LetStmt)


def test_an_empty_body_is_evaluate_zero_as_in_tvm():
    only_alloc = from_source('@T.prim_func\ndef f():\n    with T.sblock("root"):\n'
                             '        a = T.alloc_buffer((10, 10), "int8")\n')
    assert only_alloc.body.block.body == ts.Evaluate(tvm.tir.const(0, "int32"))
    let_last = from_source("@T.prim_func\ndef f():\n    k: T.let[T.int32] = 2\n")
    assert let_last.body.body == ts.Evaluate(tvm.tir.const(0, "int32"))


def test_a_closure_variable_only_in_annotations_is_found():
    def outer(m=16):
        def middle(n=8):
            @T.prim_func
            def func(A: T.Buffer((m, n), "float32")):
                T.evaluate(0)
            return func
        return middle()

    func = outer()
    assert [d.value for d in func.buffer_map[0][1].shape] == [16, 8]


def test_meta_var_passed_to_a_call_is_its_value():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    A[0] = T.cast(T.meta_var(T.int32(1)), "float32") + T.meta_var(T.float32(2))\n')
    assert 'A[0] = T.Cast("float32", 1) + T.float32(2.0)' in from_source(src).script()


def test_local_vector_annotation():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    acc: T.float32[4] = 1\n'
           '    for i in range(4):\n'
           '        acc[i] = acc[i] + A[i]\n'
           '        A[i] = acc[i]\n')
    func = from_source(src)
    assert isinstance(T.float32[4], T.LocalVectorAnnotation)
    acc = func.body.seq[0].buffer  # a flat AllocBuffer, as TVM 0.27 makes it
    assert (acc.scope, acc.dtype, [d.value for d in acc.shape]) == ("local", "float32", [4])
    a = np.arange(4, dtype="float32")
    run(func, a)
    np.testing.assert_allclose(a, np.arange(4) + 1)
    roundtrip(func)


@T.jit(private=True)
def _jit_add(A: T.Buffer((N,), "int32"), B: T.Buffer((N,), "int32"), *, N: T.constexpr):  # noqa: F821 (N: a T.constexpr)
    for i in range(N):
        B[i] = A[i] + 1


@T.jit
def _jit_guarded(optional: T.Optional(T.Buffer((4,), "int32")), out: T.Buffer((4,), "int32")):
    if optional is not None:
        out[0] = optional[0]
    else:
        out[0] = 7


def test_jit_specializes_constexpr_and_optional_parameters():
    add = _jit_add.specialize(N=8)
    assert [d.value for d in add.buffer_map[0][1].shape] == [8]
    a, b = np.arange(8, dtype="int32"), np.zeros(8, "int32")
    run(add, a, b)
    np.testing.assert_array_equal(b, np.arange(8) + 1)
    assert len(_jit_guarded.specialize().params) == 2
    absent = _jit_guarded.specialize(optional=None)
    assert len(absent.params) == 1
    out = np.zeros(4, "int32")
    run(absent, out)
    assert out[0] == 7
    with pytest.raises(TypeError, match="needs values for"):
        _jit_add.specialize()
