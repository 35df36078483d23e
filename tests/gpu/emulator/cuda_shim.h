// CUDA C on the CPU: force-included (g++ -include) before every kernel source the CuPy
// emulator compiles (tests/gpu/emulated_kernels.py explains the execution model).
//
// Blocks run one after another on the calling OS thread. Without barriers in the source, the
// threads of a block are plain calls in thread order. With __syncthreads/__syncwarp, every
// thread is a fiber with its own stack; fibers switch only at barriers, phase by phase: the
// first thread runs to its barrier, then the next, ..., then all go on to the next barrier. So
// a missing barrier gives a wrong answer every time instead of now and then. The order is
// ascending (thread 0 first, block 0 first) or, with `reverse`, descending: the emulator runs
// twice to find results that depend on it (data races).
#pragma once

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <type_traits>
#include <utility>

// -- keywords -----------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
// Shared memory is static: one block runs at a time, so a static is exactly one block's shared
// memory. The section lets the runtime poison it (0xFF bytes, NaN as float) before each block,
// as a GPU leaves it undefined: reading a tile before it is written shows up as NaN.
#define __shared__ static __attribute__((section("tle_shared")))
#define __constant__ static
#define __align__(n) __attribute__((aligned(n)))

struct uint3 { unsigned x, y, z; };
// CUDA's vector types, with their alignment (a float4 load needs a 16-byte aligned address)
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct dim3 { unsigned x = 1, y = 1, z = 1; };
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static const int warpSize = 32;

// -- math the codegen emits beyond <math.h> -------------------------------------------------------
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
// (__expf and __logf come with glibc's math.h)
static inline float __fdividef(float a, float b) { return a / b; }

// No two threads ever run at once, so atomics are plain read-modify-writes.
template <typename T> inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }

namespace tle {

enum State { READY, AT_BLOCK, AT_WARP, DONE };
struct Fiber { jmp_buf jb; int state; };
constexpr size_t kStack = 64 * 1024;  // local arrays may take 16 KiB (codegen_cuda.py)

static void (*g_body)(void**);  // runs the kernel for the current thread
static void** g_args;
static Fiber* g_fibers;
static char* g_stacks;  // one kStack per thread, each above a guard page
static int g_capacity, g_threads, g_cur;
static bool g_fiber_mode, g_reverse;
static jmp_buf g_sched;
static char g_error[1024];

extern "C" char __start_tle_shared[] __attribute__((weak));
extern "C" char __stop_tle_shared[] __attribute__((weak));

static void set_thread(int t) {
  threadIdx.x = t % blockDim.x;
  threadIdx.y = t / blockDim.x % blockDim.y;
  threadIdx.z = t / (blockDim.x * blockDim.y);
}

// A thread waits at a barrier: note which one, and hand control back to the scheduler.
static void wait_at(State barrier) {
  if (!g_fiber_mode) {  // the runtime chose plain calls: the source had no barrier text
    snprintf(g_error, sizeof g_error, "emulator: a barrier ran outside fiber mode");
    return;
  }
  Fiber& f = g_fibers[g_cur];
  f.state = barrier;
  if (_setjmp(f.jb) == 0) _longjmp(g_sched, 1);
}

static void trampoline() {
  volatile int me = g_cur;
  for (;;) {
    if (_setjmp(g_fibers[me].jb) == 0) _longjmp(g_sched, 1);  // parked until a block starts
    g_body(g_args);
    g_fibers[me].state = DONE;
  }
}

// Fibers switch with _setjmp/_longjmp (no signal-mask syscall, unlike swapcontext); ucontext is
// used only to start each fiber on its own stack.
__attribute__((noinline)) static void resume(int t) {
  g_cur = t;
  set_thread(t);
  if (_setjmp(g_sched) == 0) _longjmp(g_fibers[t].jb, 1);
}

static bool start_fibers(int n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), slot = kStack + page;
  if (n > g_capacity) {
    if (g_stacks) munmap(g_stacks, g_capacity * slot);
    delete[] g_fibers;
    void* mem = mmap(nullptr, n * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      g_stacks = nullptr, g_fibers = nullptr, g_capacity = 0;
      snprintf(g_error, sizeof g_error, "emulator: cannot map stacks for %d threads", n);
      return false;
    }
    g_stacks = (char*)mem;
    for (int i = 0; i < n; ++i) mprotect(g_stacks + i * slot, page, PROT_NONE);  // overflow traps
    g_fibers = new Fiber[n];
    g_capacity = n;
  }
  for (int i = 0; i < n; ++i) {
    ucontext_t uc;
    getcontext(&uc);
    uc.uc_stack.ss_sp = g_stacks + i * slot + page;
    uc.uc_stack.ss_size = kStack;
    uc.uc_link = nullptr;
    makecontext(&uc, trampoline, 0);
    g_cur = i;
    if (_setjmp(g_sched) == 0) setcontext(&uc);
  }
  return true;
}

static bool run_block_fibers() {
  int n = g_threads;
  for (int i = 0; i < n; ++i) g_fibers[i].state = READY;
  for (;;) {
    for (int k = 0; k < n; ++k) {
      int i = g_reverse ? n - 1 - k : k;
      if (g_fibers[i].state == READY) resume(i);
    }
    // Everyone is at a barrier or done. Release full warps at __syncwarp first.
    bool released = false;
    for (int w = 0; w < n; w += 32) {
      int lanes = n - w < 32 ? n - w : 32, waiting = 0;
      for (int i = w; i < w + lanes; ++i) waiting += g_fibers[i].state == AT_WARP;
      if (waiting == 0) continue;
      if (waiting != lanes) {
        snprintf(g_error, sizeof g_error,
                 "warp divergence in block (%u, %u, %u): %d of the %d lanes of warp %d wait at "
                 "__syncwarp() while the others exited or wait at __syncthreads()",
                 blockIdx.x, blockIdx.y, blockIdx.z, waiting, lanes, w / 32);
        return false;
      }
      for (int i = w; i < w + lanes; ++i) g_fibers[i].state = READY;
      released = true;
    }
    if (released) continue;
    int done = 0, first_done = -1, first_waiting = -1;
    for (int i = 0; i < n; ++i) {
      if (g_fibers[i].state == DONE) {
        done += 1;
        if (first_done < 0) first_done = i;
      } else if (first_waiting < 0) {
        first_waiting = i;
      }
    }
    if (done == n) return true;
    if (done != 0) {
      snprintf(g_error, sizeof g_error,
               "barrier divergence in block (%u, %u, %u): %d of %d threads exited (first: "
               "linear thread %d) while %d wait at __syncthreads() (first: linear thread %d); "
               "every thread of a block must reach each __syncthreads()",
               blockIdx.x, blockIdx.y, blockIdx.z, done, n, first_done, n - done, first_waiting);
      return false;
    }
    for (int i = 0; i < n; ++i) g_fibers[i].state = READY;  // all at __syncthreads: go on
  }
}

// Runs the whole grid; returns 0, or 1 with the reason in g_error.
static int launch(void (*body)(void**), const unsigned* grid, const unsigned* block, void** args,
                  int fiber_mode, int reverse) {
  g_error[0] = 0;
  g_body = body, g_args = args, g_fiber_mode = fiber_mode != 0, g_reverse = reverse != 0;
  gridDim = {grid[0], grid[1], grid[2]};
  blockDim = {block[0], block[1], block[2]};
  g_threads = (int)(block[0] * block[1] * block[2]);
  if (g_fiber_mode && !start_fibers(g_threads)) return 1;
  const long blocks = (long)grid[0] * grid[1] * grid[2];
  for (long k = 0; k < blocks; ++k) {
    const long b = g_reverse ? blocks - 1 - k : k;
    blockIdx = {(unsigned)(b % grid[0]), (unsigned)(b / grid[0] % grid[1]),
                (unsigned)(b / ((long)grid[0] * grid[1]))};
    if (__start_tle_shared != __stop_tle_shared)
      memset(__start_tle_shared, 0xFF, __stop_tle_shared - __start_tle_shared);
    if (g_fiber_mode) {
      if (!run_block_fibers()) return 1;
    } else {
      for (int t = 0; t < g_threads; ++t) {
        set_thread(g_reverse ? g_threads - 1 - t : t);
        body(args);
      }
    }
    if (g_error[0]) return 1;
  }
  g_fiber_mode = false;
  return 0;
}

// Calls kernel `f` with its arguments unpacked from `args` (each points at one value).
template <typename... P, size_t... I>
inline void call(void (*f)(P...), void** args, std::index_sequence<I...>) {
  f(*static_cast<P*>(args[I])...);
}
template <typename... P> inline void call(void (*f)(P...), void** args) {
  call(f, args, std::index_sequence_for<P...>{});
}

// The parameter list of `f`, for the emulator to check arguments: bytes (negative: a pointer).
template <typename... P> inline int describe(void (*)(P...), int* sizes, int cap) {
  const int all[] = {(std::is_pointer_v<P> ? -1 : 1) * (int)sizeof(P)..., 0};
  for (int i = 0; i < (int)sizeof...(P) && i < cap; ++i) sizes[i] = all[i];
  return (int)sizeof...(P);
}

}  // namespace tle

extern "C" const char* tle_error() { return tle::g_error; }

// Barriers. The empty asm statements are compiler barriers: values of shared memory must not
// stay in registers across a switch to another thread.
static inline void __syncthreads() {
  __asm__ __volatile__("" ::: "memory");
  tle::wait_at(tle::AT_BLOCK);
  __asm__ __volatile__("" ::: "memory");
}
// A barrier of the 32 lanes of the calling thread's warp (the mask is ignored: all lanes).
static inline void __syncwarp(unsigned = 0xffffffffu) {
  __asm__ __volatile__("" ::: "memory");
  tle::wait_at(tle::AT_WARP);
  __asm__ __volatile__("" ::: "memory");
}
// Memory is coherent on one CPU thread: a fence only has to stop compiler reordering.
static inline void __threadfence() { __asm__ __volatile__("" ::: "memory"); }
