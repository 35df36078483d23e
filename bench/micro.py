"""Micro-costs on this machine (µs, timeit medians): the building blocks of a VM call.

    .venv/bin/python bench/micro.py
"""
import ctypes
import ctypes.util
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import median_us  # noqa: E402


def jit_noop(nargs):
    """A trivial LLVM function `void f(ptr x nargs)` that stores 1.0f into its last buffer,
    JIT-compiled by llvmlite and wrapped with ctypes, as tvmlite calls its kernels."""
    import llvmlite.binding as llvm
    try:
        llvm.initialize()
    except RuntimeError:
        pass  # newer llvmlite initializes itself
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    params = ", ".join(f"ptr %a{i}" for i in range(nargs))
    ir = (f"define void @f({params}) {{\n  store float 1.0, ptr %a{nargs - 1}\n  ret void\n}}\n")
    tm = llvm.Target.from_default_triple().create_target_machine(opt=3)
    mod = llvm.parse_assembly(ir)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    proto = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * nargs)
    fn = proto(engine.get_function_address("f"))
    fn._engine = engine  # keep alive
    return fn


def main():
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    labs = libc.labs
    labs.argtypes, labs.restype = [ctypes.c_long], ctypes.c_long
    labs_untyped = ctypes.CDLL(ctypes.util.find_library("c")).labs
    a = np.zeros((1, 10), "float32")
    p = a.ctypes.data
    f1, f4 = jit_noop(1), jit_noop(4)

    class Arr:
        __slots__ = ("_sig",)

    class ArrDict:
        pass

    sig = ((1, 10), "float32")
    arr, arr_d = Arr(), ArrDict()
    arr._sig = ((1, 10), "float32")  # equal, but a different object than sig
    arr_d._sig = sig
    g = dict(labs=labs, labs_untyped=labs_untyped, np=np, p=p, a=a, f1=f1, f4=f4, arr=arr,
             arr_d=arr_d, sig=sig, c_void_p=ctypes.c_void_p)
    rows = [
        ("empty statement (timeit floor)", "pass"),
        ("ctypes: libc labs(-3), argtypes set", "labs(-3)"),
        ("ctypes: libc labs(-3), no argtypes", "labs_untyped(-3)"),
        ("ctypes: JIT'd void f(ptr), int address", "f1(p)"),
        ("ctypes: JIT'd void f(ptr,ptr,ptr,ptr)", "f4(p, p, p, p)"),
        ("np.empty((1, 10), 'float32')", "np.empty((1, 10), 'float32')"),
        ("a.ctypes.data (numpy pointer)", "a.ctypes.data"),
        ("a.__array_interface__['data'][0]", "a.__array_interface__['data'][0]"),
        ("a._sig == sig (equal tuples, slots)", "arr._sig == sig"),
        ("a._sig == sig (same object, __dict__)", "arr_d._sig == sig"),
        ("a._sig is sig", "arr_d._sig is sig"),
        ("a.shape == (1, 10) and a.dtype == 'float32'",
         "a.shape == (1, 10) and a.dtype == 'float32'"),
    ]
    print(f"{'operation':<48}{'µs':>8}")
    for label, stmt in rows:
        print(f"{label:<48}{median_us(stmt, globals=g):8.3f}")


if __name__ == "__main__":
    main()
