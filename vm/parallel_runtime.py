"""The native thread pool that `parallel` loops of compiled kernels run on.

Kernels call `void @tvmlite_parallel_launch(ptr fn, ptr closure, i32 num_tasks)`, where `fn` is
the outlined loop body `void fn(i32 task, i32 num_tasks, ptr closure)` (tir/codegen_llvm.py).
The pool is itself LLVM IR, compiled once (its object code kept in the kernel cache), loaded
once per process and registered as a symbol for every
later kernel engine (`ensure_loaded()` must run before a kernel module that uses it is
compiled; `vm.kernels.KernelLibrary.load` does it).

Why native: ctypes releases the GIL around a kernel call, so threads started here run truly in
parallel; a Python-side pool would pay the GIL on every chunk. The workers are persistent
(created at the first launch), spin briefly on a generation counter after each job, then sleep
in futex (Linux) or yield (elsewhere). Tasks are claimed dynamically from one atomic counter
tagged with the job id, and the caller works too and waits only for the tasks, not for the
workers: on a busy machine a worker that never gets a CPU just claims nothing, instead of
stalling the launch. One launch at a time owns the pool: a nested or concurrent launch runs
its tasks serially on the calling thread, which is always correct.

Threads: `TVMLITE_NUM_THREADS`, else `TVM_NUM_THREADS`, else the CPUs this process may use.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import sys
import threading
from typing import Any

import llvmlite
import llvmlite.binding as llvm

from .kernel_objects import link_objects

LAUNCH_SYMBOL = "tvmlite_parallel_launch"
TASKS_PER_THREAD = 4  # chunks per thread when the kernel leaves the count to the pool
_LOCK = threading.Lock()
_ENGINE: Any = None  # NOTE: never freed: worker threads live in its code until exit
_MODULE: Any = None
_NUM_THREADS = 0


def default_num_threads() -> int:
    for key in ("TVMLITE_NUM_THREADS", "TVM_NUM_THREADS"):
        value = os.environ.get(key, "")
        if value.strip().isdigit() and int(value) > 0:
            return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def num_threads() -> int:
    """The pool's thread count (the calling thread included)."""
    return _NUM_THREADS or default_num_threads()


def _pause() -> tuple[str, str]:
    """A spin-wait hint (declaration, call) for this CPU."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64", "i686", "x86"):
        return "declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"
    if machine in ("arm64", "aarch64"):
        return "declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"
    return "", ""


def _sleep_wake() -> tuple[str, str, str]:
    """(declarations, wait-while-gen==seen body, wake-all body): futex on Linux, else yield."""
    if sys.platform.startswith("linux"):
        decl = "declare i64 @syscall(i64, ...)"
        # FUTEX_WAIT_PRIVATE = 128, FUTEX_WAKE_PRIVATE = 129; syscall 202 (x86-64) / 98 (arm64)
        nr = 98 if platform.machine().lower() in ("arm64", "aarch64") else 202
        wait = (f"  %s64 = zext i32 %seen to i64\n"
                f"  call i64 (i64, ...) @syscall(i64 {nr}, ptr @gen, i64 128, i64 %s64, "
                f"ptr null)")
        wake = (f"  call i64 (i64, ...) @syscall(i64 {nr}, ptr @gen, i64 129, "
                f"i64 2147483647)")
        return decl, wait, wake
    return "", "  call i32 @sched_yield()", ""


def runtime_ir(threads: int) -> str:
    """The pool's LLVM IR text for `threads` threads (see the module docstring)."""
    pause_decl, pause = _pause()
    sleep_decl, wait, wake = _sleep_wake()
    return f"""
@nthreads = global i32 {threads}
@busy = global i32 0
@started = global i32 0
@gen = global i32 0
@start_gen = global i32 0
@claim = global i64 0
@job = global i64 0
@done = global i32 0
@job_fn = global ptr null
@job_closure = global ptr null

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @sched_yield()
{pause_decl}
{sleep_decl}

define internal void @work() {{
entry:
  br label %loop
loop:
  %c = atomicrmw add ptr @claim, i64 1 acq_rel
  %cj64 = lshr i64 %c, 32
  %cj = trunc i64 %cj64 to i32
  %t = trunc i64 %c to i32
  %w = load atomic i64, ptr @job acquire, align 8
  %wj64 = lshr i64 %w, 32
  %wj = trunc i64 %wj64 to i32
  %n = trunc i64 %w to i32
  %same = icmp eq i32 %cj, %wj
  %open = icmp ult i32 %t, %n
  %ok = and i1 %same, %open
  br i1 %ok, label %run, label %out
run:
  %fn = load ptr, ptr @job_fn
  %clo = load ptr, ptr @job_closure
  call void %fn(i32 %t, i32 %n, ptr %clo)
  %d = atomicrmw add ptr @done, i32 1 release
  br label %loop
out:
  ret void
}}

define internal ptr @worker(ptr %arg) {{
entry:
  %seen0 = load i32, ptr @start_gen  ; NOTE: not @gen: the first job may already be out
  br label %wait
wait:
  %seen = phi i32 [%seen0, %entry], [%seen, %sleep], [%now, %job]
  br label %spin
spin:
  %k = phi i32 [0, %wait], [%k1, %spin_more]
  %g = load atomic i32, ptr @gen acquire, align 4
  %changed = icmp ne i32 %g, %seen
  br i1 %changed, label %job, label %spin_more
spin_more:
  {pause}
  %k1 = add i32 %k, 1
  %tired = icmp sgt i32 %k1, 30000
  br i1 %tired, label %sleep, label %spin
sleep:
{wait}
  br label %wait
job:
  %now = phi i32 [%g, %spin]
  call void @work()
  br label %wait
}}

define internal void @start_workers() {{
entry:
  %tid = alloca i64
  %n = load i32, ptr @nthreads
  %g = load i32, ptr @gen
  store i32 %g, ptr @start_gen
  br label %head
head:
  %i = phi i32 [1, %entry], [%i1, %body]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %body, label %done
body:
  %r = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker, ptr null)
  %i1 = add i32 %i, 1
  br label %head
done:
  store i32 1, ptr @started
  ret void
}}

define void @{LAUNCH_SYMBOL}(ptr %fn, ptr %clo, i32 %ntasks0) nounwind {{
entry:
  %nt = load i32, ptr @nthreads
  %auto = icmp sle i32 %ntasks0, 0
  %nt4 = mul i32 %nt, {TASKS_PER_THREAD}
  %ntasks = select i1 %auto, i32 %nt4, i32 %ntasks0
  %one_task = icmp sle i32 %ntasks, 1
  %one_thread = icmp sle i32 %nt, 1
  %trivial = or i1 %one_task, %one_thread
  br i1 %trivial, label %serial, label %claim_pool
claim_pool:
  %pair = cmpxchg ptr @busy, i32 0, i32 1 acquire monotonic
  %won = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %won, label %ready, label %serial
serial:
  %ns = select i1 %auto, i32 1, i32 %ntasks
  br label %s_head
s_head:
  %t = phi i32 [0, %serial], [%t1, %s_body]
  %s_more = icmp slt i32 %t, %ns
  br i1 %s_more, label %s_body, label %s_done
s_body:
  call void %fn(i32 %t, i32 %ns, ptr %clo)
  %t1 = add i32 %t, 1
  br label %s_head
s_done:
  ret void
ready:
  %st = load i32, ptr @started
  %cold = icmp eq i32 %st, 0
  br i1 %cold, label %start, label %post
start:
  call void @start_workers()
  br label %post
post:
  %g0 = load i32, ptr @gen
  %jid = add i32 %g0, 1
  %jid64 = zext i32 %jid to i64
  %jhi = shl i64 %jid64, 32
  %closed = or i64 %jhi, 2147483648
  store atomic i64 %closed, ptr @claim release, align 8
  store i32 0, ptr @done
  store ptr %fn, ptr @job_fn
  store ptr %clo, ptr @job_closure
  %n64 = zext i32 %ntasks to i64
  %jobword = or i64 %jhi, %n64
  store atomic i64 %jobword, ptr @job release, align 8
  store atomic i64 %jhi, ptr @claim release, align 8
  store atomic i32 %jid, ptr @gen release, align 4
{wake}
  call void @work()
  br label %join
join:
  %j = phi i32 [0, %post], [%j1, %join_spin], [0, %join_yield]
  %finished_n = load atomic i32, ptr @done acquire, align 4
  %finished = icmp eq i32 %finished_n, %ntasks
  br i1 %finished, label %out, label %join_spin
join_spin:
  {pause}
  %j1 = add i32 %j, 1
  %patience = icmp slt i32 %j1, 4000
  br i1 %patience, label %join, label %join_yield
join_yield:  ; NOTE: a worker may be waiting for a CPU (oversubscribed machine): give ours up
  %y = call i32 @sched_yield()
  br label %join
out:
  store atomic i32 0, ptr @busy release, align 4
  ret void
}}
"""


def ensure_loaded(cache: Any = None) -> int:
    """Loads the pool once (its object code from `cache` when there) and registers its launch
    symbol; returns its address."""
    global _ENGINE, _MODULE, _NUM_THREADS
    with _LOCK:
        if _ENGINE is None:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            threads = default_num_threads()
            target = llvm.Target.from_triple(llvm.get_process_triple())
            tm = target.create_target_machine(opt=2, codemodel="jitdefault")
            engine, keep = link_objects([_pool_object(runtime_ir(threads), tm, cache)], tm)
            llvm.add_symbol(LAUNCH_SYMBOL, engine.get_function_address(LAUNCH_SYMBOL))
            _ENGINE, _MODULE, _NUM_THREADS = engine, keep, threads
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_reset_after_fork)
        return int(_ENGINE.get_function_address(LAUNCH_SYMBOL))


def _pool_object(text: str, tm: Any, cache: Any) -> bytes:
    """The pool's object code, from `cache` (a tir.kernel_cache.KernelCache, or None) when it
    has it: compiling the pool was ~15 ms of every process's first build, most of a warm build
    of a small model. The key digests the IR, this file (which makes the target machine) and
    the LLVM, CPU and llvmlite it is compiled with."""
    key = None
    if cache is not None:
        with open(__file__, "rb") as f:
            source = f.read()
        parts = [_POOL_CACHE_FORMAT, text, llvm.get_process_triple(), llvm.get_host_cpu_name(),
                 llvm.get_host_cpu_features().flatten(), str(llvm.llvm_version_info),
                 llvmlite.__version__]
        digest = hashlib.sha256(source)
        for part in parts:
            digest.update(b"\0" + part.encode())
        key = digest.hexdigest()
        obj = cache.get(key)
        if obj is not None:
            return obj
    module = llvm.parse_assembly(text)
    module.verify()
    obj = bytes(tm.emit_object(module))
    if cache is not None and key:
        cache.put(key, obj)
    return obj


_POOL_CACHE_FORMAT = "tvmlite-parallel-pool-1"


def _reset_after_fork() -> None:
    """A forked child has none of the parent's workers: start fresh ones on its first launch."""
    for name in ("started", "busy"):
        ctypes.c_int32.from_address(_ENGINE.get_global_value_address(name)).value = 0
