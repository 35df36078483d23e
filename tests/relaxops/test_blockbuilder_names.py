"""BlockBuilder function names as TVM 0.27 gives them: add_func never overwrites (a taken name
becomes `name1`, ...), emit_func_output returns the function's GlobalVar, and finalize names
each public function by its global_symbol (checked against apache-tvm 0.27's output)."""

from tvmlite import relax, te
from tvmlite.tir import PrimFunc


def _one(value):
    return te.compute((), lambda: value, name="c")


def test_prim_func_and_relax_function_of_one_name_both_stay():
    bb = relax.BlockBuilder()
    with bb.function("func", []):
        a = bb.emit_te(lambda: _one(0.0), primfunc_name_hint="func")
        b = bb.emit_te(lambda: _one(1.0), primfunc_name_hint="func")
        gv = bb.emit_func_output(relax.Tuple([a, b]))
    # apache-tvm 0.27: get() holds func, func1 (prim_funcs) and func2 (global_symbol "func")
    kinds = {g.name_hint: type(f).__name__ for g, f in bb.get().functions.items()}
    assert kinds == {"func": "PrimFunc", "func1": "PrimFunc", "func2": "Function"}
    assert gv.name_hint == "func2"
    assert not relax.analysis.check_well_formed(bb.get())
    final = bb.finalize()
    assert isinstance(final["func"], relax.Function)
    assert sum(isinstance(f, PrimFunc) for f in final.functions.values()) == 2
    relax.analysis.well_formed(final)


def test_private_functions_of_one_name_are_renamed_and_callable():
    bb = relax.BlockBuilder()
    with bb.function("func", [], private=True):
        first = bb.emit_func_output(relax.const(0, "int64"))
    with bb.function("func", [], private=True):
        second = bb.emit_func_output(bb.emit(relax.Call(first, [])))
    with bb.function("func", []):
        bb.emit_func_output(bb.emit(relax.Call(second, [])))
    assert [first.name_hint, second.name_hint] == ["func", "func1"]
    final = bb.finalize()
    assert final["func"].attr_dict["global_symbol"] == "func"
    assert len(final.functions) == 3
    relax.analysis.well_formed(final)


def test_adding_the_same_function_again_keeps_its_global_var():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    with bb.function("main", [x]):
        gv = bb.emit_func_output(x)
    assert bb.add_func(bb.get()["main"], "other") is gv
    assert [g.name_hint for g in bb.get().functions] == ["main"]
