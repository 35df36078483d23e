"""`script(path_to_underline=..., obj_to_underline=...)` on IR nodes (expected text by hand)."""

from tvmlite import ir, runtime
from tvmlite.ffi.access_path import AccessPath
from tvmlite.runtime.script_printer import PrinterConfig, _script
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

ROOT = AccessPath.root()
HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"
QUIET = {"render_invisible_path_info": False}


@T.prim_func
def add_one(A: T.Buffer((4,), "float32"), n: T.int32):
    for i in range(4):
        A[i] = A[i] + T.float32(1)
    T.evaluate(n)
    T.evaluate(n + 1)


@I.ir_module
class Mod:
    @T.prim_func
    def f():
        T.evaluate(0)

    @T.prim_func
    def g():
        T.evaluate(1)


def test_object_is_underlined_at_each_use_not_its_definition():
    text = add_one.script(obj_to_underline=[add_one.params[1]], extra_config=QUIET)
    assert text == HEADER + "\n".join([
        "@T.prim_func",
        'def add_one(A: T.Buffer((4,), "float32"), n: T.int32):',
        "    for i in range(4):",
        "        A[i] = A[i] + T.float32(1.0)",
        "    T.evaluate(n)",
        "               ^",
        "    T.evaluate(n + 1)",
        "               ^",
    ])


def test_path_names_one_use_of_a_shared_variable():
    path = ROOT.attr("body").attr("seq").array_item(2).attr("value").attr("a")
    text = add_one.script(path_to_underline=[path])
    assert text.startswith("Access path: <root>.body.seq[2].value.a\n\n" + HEADER)
    assert text.endswith("    T.evaluate(n)\n    T.evaluate(n + 1)\n               ^")


def test_statement_path_with_a_missing_tail_and_context():
    path = ROOT.attr("body").attr("seq").array_item(0).attr("body").attr("nothing")
    text = add_one.script(path_to_underline=[path], print_line_numbers=True,
                          num_context_lines=0)
    assert text == "\n".join([
        "Access path: <root>.body.seq[0].body.nothing",
        "Note: The underlined object is the nearest visible parent of this path.",
        "",
        "(... 6 lines skipped ...)",
        "7         A[i] = A[i] + T.float32(1.0)",
        "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "(... 2 lines skipped ...)",
    ])


def test_module_function_path_underlines_that_function_only():
    path = ROOT.attr("functions").map_item(Mod.get_global_var("g"))
    text = Mod.script(path_to_underline=[path], extra_config=QUIET)
    assert text.endswith("\n".join([
        "    @T.prim_func",
        "    def f():",
        "        T.evaluate(0)",
        "",
        "    @T.prim_func",
        "    ^^^^^^^^^^^^",
        "    def g():",
        "    ^^^^^^^^",
        "        T.evaluate(1)",
        "        ^^^^^^^^^^^^^",
    ]))


def test_whole_node_and_invisible_paths():
    prim = ir.PrimType("int32")
    assert prim.script(path_to_underline=[ROOT]) == "Access path: <root>\n\nT.int32\n^^^^^^^"
    assert prim.script(path_to_underline=[ROOT.attr("dtype")], extra_config=QUIET) \
        == "T.int32\n^^^^^^^"
    shape = _script(runtime.ShapeTuple([3, 4]), PrinterConfig(path_to_underline=[ROOT]))
    assert shape == ("Access path: <root>\n"
                     "Note: No visible object for this path is rendered in TVMScript.\n\n"
                     "Shape(3, 4)")
    assert PrinterConfig().render_invisible_path_info is True


def test_annotations_follow_simple_and_precede_compound_statements():
    loop, first_eval = add_one.body.seq[0], add_one.body.seq[1]
    last = ROOT.attr("body").attr("seq").array_item(2)
    text = add_one.script(obj_to_annotate={loop: "loop", first_eval: "first"},
                          path_to_annotate={last: "last", last.attr("nothing"): "ignored"})
    assert text == HEADER + "\n".join([
        "@T.prim_func",
        'def add_one(A: T.Buffer((4,), "float32"), n: T.int32):',
        "    # loop",
        "    for i in range(4):",
        "        A[i] = A[i] + T.float32(1.0)",
        "    T.evaluate(n)  # first",
        "    T.evaluate(n + 1)  # last",
    ])


@R.function
def square(x: R.Tensor((2,), "float32")):
    y = R.multiply(x, x)
    return y


def test_relax_path_picks_the_named_use_of_a_repeated_argument():
    path = ROOT.attr("body").attr("blocks").array_item(0).attr("bindings").array_item(0) \
        .attr("value").attr("args").array_item(1)
    text = square.script(path_to_underline=[path], extra_config=QUIET)
    assert text.endswith("\n".join([
        'def square(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):',
        '    y: R.Tensor((2,), dtype="float32") = R.multiply(x, x)',
        "                                                       ^",
        "    return y",
    ]))
    binding = square.body.blocks[0].bindings[0]
    assert square.script(obj_to_underline=[binding], extra_config=QUIET).endswith(
        '    y: R.Tensor((2,), dtype="float32") = R.multiply(x, x)\n'
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n    return y")


def test_a_path_to_a_definition_does_not_underline_the_uses():
    loop_var = ROOT.attr("body").attr("seq").array_item(0).attr("loop_var")
    text = add_one.script(path_to_underline=[loop_var])
    assert "Note: The underlined object is the nearest visible parent of this path." in text
    assert text.endswith("\n".join([
        "    for i in range(4):",
        "    ^^^^^^^^^^^^^^^^^^",
        "        A[i] = A[i] + T.float32(1.0)",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "    T.evaluate(n)",
        "    T.evaluate(n + 1)",
    ]))
    extent = ROOT.attr("body").attr("seq").array_item(0).attr("extent")
    assert "    for i in range(4):\n                   ^\n" in add_one.script(
        path_to_underline=[extent])


@T.prim_func
def grid():
    for i, j in T.grid(2, 2):
        with T.sblock():
            T.evaluate(0)


def test_paths_through_the_root_block_tvm_adds():
    inner = ROOT.attr("body").attr("block").attr("body").attr("body").attr("body")
    text = grid.script(path_to_underline=[inner], extra_config=QUIET)
    assert text.endswith("\n".join([
        '    # with T.sblock("root"):',
        "    for i, j in T.grid(2, 2):",
        '        with T.sblock(""):',
        "        ^^^^^^^^^^^^^^^^^^",
        "            T.reads()",
        "            ^^^^^^^^^",
        "            T.writes()",
        "            ^^^^^^^^^^",
        "            T.evaluate(0)",
        "            ^^^^^^^^^^^^^",
    ]))
