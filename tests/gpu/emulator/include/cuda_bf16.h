// Stand-in for CUDA's cuda_bf16.h (CuPy emulator): bfloat16 stored as its 16 bits; arithmetic
// goes through float and rounds back to nearest even, as the GPU's bf16 operations do.
#pragma once

#include <stdint.h>
#include <string.h>

struct __nv_bfloat16 {
  uint16_t bits;
};
typedef __nv_bfloat16 nv_bfloat16;

static inline float __bfloat162float(__nv_bfloat16 h) {
  uint32_t u = (uint32_t)h.bits << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {(uint16_t)((u >> 16) | 0x40)};  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1);  // round to nearest, ties to even
  return {(uint16_t)(u >> 16)};
}
static inline __nv_bfloat16 __float2bfloat16(float f) { return __float2bfloat16_rn(f); }

#define TLE_BF16_BINARY(op)                                                         \
  static inline __nv_bfloat16 operator op(__nv_bfloat16 a, __nv_bfloat16 b) {       \
    return __float2bfloat16_rn(__bfloat162float(a) op __bfloat162float(b));         \
  }
TLE_BF16_BINARY(+)
TLE_BF16_BINARY(-)
TLE_BF16_BINARY(*)
TLE_BF16_BINARY(/)
#undef TLE_BF16_BINARY
#define TLE_BF16_COMPARE(op)                                                        \
  static inline bool operator op(__nv_bfloat16 a, __nv_bfloat16 b) {                \
    return __bfloat162float(a) op __bfloat162float(b);                              \
  }
TLE_BF16_COMPARE(==)
TLE_BF16_COMPARE(!=)
TLE_BF16_COMPARE(<)
TLE_BF16_COMPARE(<=)
TLE_BF16_COMPARE(>)
TLE_BF16_COMPARE(>=)
#undef TLE_BF16_COMPARE
static inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return {(uint16_t)(a.bits ^ 0x8000u)}; }
