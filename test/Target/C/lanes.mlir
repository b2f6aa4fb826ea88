// RUN: scaly-translate --emit-c --lanes=8 --recipe-cpu=x86-64-v4 --vector-libm=glibc %s | FileCheck %s --check-prefix=GLIBC
// RUN: scaly-translate --emit-c --lanes=4 %s | FileCheck %s --check-prefix=LIBM
// RUN: scaly-translate --emit-c --lanes=auto %s | FileCheck %s --check-prefix=AUTO
// RUN: scaly-translate --emit-c --lanes=1 %s | FileCheck %s --check-prefix=SCALAR
// RUN: not scaly-translate --emit-c --lanes=3 %s 2>&1 | FileCheck %s --check-prefix=BAD
//
// A widened loop in C: contiguous lanes through the aligned(8), may_alias
// type, libmvec's variant for the width behind its guard (glibc), lane by
// lane libm otherwise, and SCALY_LANES chosen by the preprocessor (auto).

// GLIBC:       lanes=8, dialect=gnu, vector_libm=glibc, reciprocal=False
// GLIBC-NEXT:  Math library: glibc x86-64
// GLIBC:       clang -O3 -march=x86-64-v4 -ffp-contract=off -fno-math-errno -fveclib=libmvec -c waves.c
// GLIBC-NEXT:  Link with: -lmvec -lm
// GLIBC:       typedef double double8 __attribute__((vector_size(64), aligned(8), may_alias));
// GLIBC:       typedef double scaly_f64x8 __attribute__((vector_size(64)));
// GLIBC-NEXT:  #if !defined(__AVX512F__)
// GLIBC-NEXT:  #error "vector_libm=glibc width 8 requires __AVX512F__ and -lmvec"
// GLIBC-NEXT:  #endif
// GLIBC-NEXT:  scaly_f64x8 _ZGVeN8v_sin(scaly_f64x8);
// GLIBC:       {{^  }}SCALY_NO_UNROLL{{$}}
// GLIBC-NEXT:  for (long long i = 0; i < 96; i += 8) {
// GLIBC-NEXT:    *(double8*)(res[0] + i) = (double8)_ZGVeN8v_sin(((const double8*)(arg[0] + i))[0] * 2.0);
// GLIBC-NEXT:  }
// GLIBC-NEXT:  SCALY_NO_UNROLL
// GLIBC-NEXT:  for (long long i_ = 96; i_ < 99; ++i_) {
// GLIBC-NEXT:    res[0][i_] = sin(arg[0][i_] * 2.0);

// LIBM:        Math library: scalar libm
// LIBM:        #define scaly_sin_f64x4(x) __extension__({
// LIBM:          r_[scaly_k_] = sin(scaly_x_[scaly_k_]);
// LIBM:        for (long long i = 0; i < 96; i += 4) {
// LIBM-NEXT:     *(double4*)(res[0] + i) = (double4)scaly_sin_f64x4(((const double4*)(arg[0] + i))[0] * 2.0);

// AUTO:        lanes=auto
// AUTO:        #if defined(__AVX512F__)
// AUTO-NEXT:   #define SCALY_LANES 8
// AUTO-NEXT:   #elif defined(__AVX2__)
// AUTO-NEXT:   #define SCALY_LANES 4
// AUTO-NEXT:   #else
// AUTO-NEXT:   #define SCALY_LANES 2
// AUTO-NEXT:   #endif
// AUTO:        typedef double doubleN __attribute__((vector_size(8 * SCALY_LANES), aligned(8), may_alias));
// AUTO:        for (long long i = 0; i < 96; i += SCALY_LANES) {

// SCALAR-NOT:  scaly_f64x
// SCALAR:      for (long long i = 0; i < 99; ++i) {

// BAD: --lanes=3 is not one of 1, 2, 4, 8, auto
expr.func @waves(%x: tensor<99xf64>) -> tensor<99xf64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %two = expr.constant dense<2.0> : tensor<f64>
  %twos = expr.broadcast %two : tensor<f64> to tensor<99xf64>
  %m = expr.mul %twos, %x : tensor<99xf64>
  %s = expr.math sin %m : tensor<99xf64>
  expr.return %s : tensor<99xf64>
}
