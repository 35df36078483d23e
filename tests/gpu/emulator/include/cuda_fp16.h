// Stand-in for CUDA's cuda_fp16.h (CuPy emulator): half is the compiler's IEEE binary16.
#pragma once

typedef _Float16 __half;
typedef __half half;

static inline __half __float2half_rn(float f) { return (__half)f; }  // rounds to nearest even
static inline __half __float2half(float f) { return (__half)f; }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
