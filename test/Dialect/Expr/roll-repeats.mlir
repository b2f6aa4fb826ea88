// RUN: scaly-opt %s --split-input-file --scaly-roll-repeats="min-ops=8" | FileCheck %s
//
// scaly-roll-repeats: n copies of a few operations, each reading the copy
// before, become one expr.scan of a function holding one copy.

// A chain y = (y * c) + d, 20 copies of period 2, the first reading x.
// CHECK-LABEL: expr.func @chain_repeat(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<f64>) -> tensor<f64>
// CHECK:         %[[M:.*]] = expr.mul %[[S]],
// CHECK:         %[[A:.*]] = expr.add %[[M]],
// CHECK:         expr.return %[[A]]
// CHECK-LABEL: expr.func @chain(
// CHECK:         %[[R:.*]] = expr.scan @chain_repeat(%arg0) count 20 {mapped = array<i1: false>}
// CHECK-NEXT:    expr.return %[[R]]
expr.func @chain(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %c = expr.constant dense<1.0001> : tensor<f64>
  %d = expr.constant dense<0.5> : tensor<f64>
  %m0 = expr.mul %x, %c : tensor<f64>
  %a0 = expr.add %m0, %d : tensor<f64>
  %m1 = expr.mul %a0, %c : tensor<f64>
  %a1 = expr.add %m1, %d : tensor<f64>
  %m2 = expr.mul %a1, %c : tensor<f64>
  %a2 = expr.add %m2, %d : tensor<f64>
  %m3 = expr.mul %a2, %c : tensor<f64>
  %a3 = expr.add %m3, %d : tensor<f64>
  %m4 = expr.mul %a3, %c : tensor<f64>
  %a4 = expr.add %m4, %d : tensor<f64>
  %m5 = expr.mul %a4, %c : tensor<f64>
  %a5 = expr.add %m5, %d : tensor<f64>
  %m6 = expr.mul %a5, %c : tensor<f64>
  %a6 = expr.add %m6, %d : tensor<f64>
  %m7 = expr.mul %a6, %c : tensor<f64>
  %a7 = expr.add %m7, %d : tensor<f64>
  %m8 = expr.mul %a7, %c : tensor<f64>
  %a8 = expr.add %m8, %d : tensor<f64>
  %m9 = expr.mul %a8, %c : tensor<f64>
  %a9 = expr.add %m9, %d : tensor<f64>
  %m10 = expr.mul %a9, %c : tensor<f64>
  %a10 = expr.add %m10, %d : tensor<f64>
  %m11 = expr.mul %a10, %c : tensor<f64>
  %a11 = expr.add %m11, %d : tensor<f64>
  %m12 = expr.mul %a11, %c : tensor<f64>
  %a12 = expr.add %m12, %d : tensor<f64>
  %m13 = expr.mul %a12, %c : tensor<f64>
  %a13 = expr.add %m13, %d : tensor<f64>
  %m14 = expr.mul %a13, %c : tensor<f64>
  %a14 = expr.add %m14, %d : tensor<f64>
  %m15 = expr.mul %a14, %c : tensor<f64>
  %a15 = expr.add %m15, %d : tensor<f64>
  %m16 = expr.mul %a15, %c : tensor<f64>
  %a16 = expr.add %m16, %d : tensor<f64>
  %m17 = expr.mul %a16, %c : tensor<f64>
  %a17 = expr.add %m17, %d : tensor<f64>
  %m18 = expr.mul %a17, %c : tensor<f64>
  %a18 = expr.add %m18, %d : tensor<f64>
  %m19 = expr.mul %a18, %c : tensor<f64>
  %a19 = expr.add %m19, %d : tensor<f64>
  expr.return %a19 : tensor<f64>
}

// -----

// Copy 2's value is used after the run: rolling starts after copy 2.
// CHECK-LABEL: expr.func @kept(
// CHECK-COUNT-2: expr.add
// CHECK:         %[[K:.*]] = expr.add %{{.*}}, %{{.*}} : tensor<f64>
// CHECK-NEXT:    %[[R2:.*]] = expr.scan @kept_repeat(%[[K]]) count 17
// CHECK:         expr.add %[[R2]], %[[K]]
expr.func @kept(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %c = expr.constant dense<1.0001> : tensor<f64>
  %d = expr.constant dense<0.5> : tensor<f64>
  %m0 = expr.mul %x, %c : tensor<f64>
  %a0 = expr.add %m0, %d : tensor<f64>
  %m1 = expr.mul %a0, %c : tensor<f64>
  %a1 = expr.add %m1, %d : tensor<f64>
  %m2 = expr.mul %a1, %c : tensor<f64>
  %a2 = expr.add %m2, %d : tensor<f64>
  %m3 = expr.mul %a2, %c : tensor<f64>
  %a3 = expr.add %m3, %d : tensor<f64>
  %m4 = expr.mul %a3, %c : tensor<f64>
  %a4 = expr.add %m4, %d : tensor<f64>
  %m5 = expr.mul %a4, %c : tensor<f64>
  %a5 = expr.add %m5, %d : tensor<f64>
  %m6 = expr.mul %a5, %c : tensor<f64>
  %a6 = expr.add %m6, %d : tensor<f64>
  %m7 = expr.mul %a6, %c : tensor<f64>
  %a7 = expr.add %m7, %d : tensor<f64>
  %m8 = expr.mul %a7, %c : tensor<f64>
  %a8 = expr.add %m8, %d : tensor<f64>
  %m9 = expr.mul %a8, %c : tensor<f64>
  %a9 = expr.add %m9, %d : tensor<f64>
  %m10 = expr.mul %a9, %c : tensor<f64>
  %a10 = expr.add %m10, %d : tensor<f64>
  %m11 = expr.mul %a10, %c : tensor<f64>
  %a11 = expr.add %m11, %d : tensor<f64>
  %m12 = expr.mul %a11, %c : tensor<f64>
  %a12 = expr.add %m12, %d : tensor<f64>
  %m13 = expr.mul %a12, %c : tensor<f64>
  %a13 = expr.add %m13, %d : tensor<f64>
  %m14 = expr.mul %a13, %c : tensor<f64>
  %a14 = expr.add %m14, %d : tensor<f64>
  %m15 = expr.mul %a14, %c : tensor<f64>
  %a15 = expr.add %m15, %d : tensor<f64>
  %m16 = expr.mul %a15, %c : tensor<f64>
  %a16 = expr.add %m16, %d : tensor<f64>
  %m17 = expr.mul %a16, %c : tensor<f64>
  %a17 = expr.add %m17, %d : tensor<f64>
  %m18 = expr.mul %a17, %c : tensor<f64>
  %a18 = expr.add %m18, %d : tensor<f64>
  %m19 = expr.mul %a18, %c : tensor<f64>
  %a19 = expr.add %m19, %d : tensor<f64>
  %out = expr.add %a19, %a2 : tensor<f64>
  expr.return %out : tensor<f64>
}

// -----

// A pendulum's Euler steps: the first step also makes the constants, so
// copies start inside a step, at the earliest place they match, and carry
// three values (packed into one state); an input every copy reads is
// passed whole.
// CHECK-LABEL: expr.func @pend_repeat(
// CHECK-SAME:    %[[ST:[^:]*]]: tensor<3xf64>, %[[U:[^:]*]]: tensor<f64>) -> tensor<3xf64>
// CHECK-SAME:    arg_names = ["state", "invariant0"]
// CHECK:         expr.slice %[[ST]] starts [0]
// CHECK:         expr.slice %[[ST]] starts [1]
// CHECK:         expr.slice %[[ST]] starts [2]
// CHECK:         expr.sub %[[U]],
// CHECK:         %[[N:.*]] = expr.concat
// CHECK:         expr.return %[[N]] : tensor<3xf64>
// CHECK-LABEL: expr.func @pend(
// CHECK:         expr.scan @pend_repeat(%{{.*}}, %arg2) count 17 {mapped = array<i1: false, false>}
expr.func @pend(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["th0", "om0", "u"], entry, res_names = ["y"]} {
  %0 = expr.constant dense<1.000000e-02> : tensor<f64>
  %1 = expr.mul %0, %arg1 : tensor<f64>
  %2 = expr.add %arg0, %1 : tensor<f64>
  %3 = expr.math  sin %arg0 : tensor<f64>
  %4 = expr.constant dense<9.810000e+00> : tensor<f64>
  %5 = expr.mul %4, %3 : tensor<f64>
  %6 = expr.sub %arg2, %5 : tensor<f64>
  %7 = expr.mul %0, %6 : tensor<f64>
  %8 = expr.add %arg1, %7 : tensor<f64>
  %9 = expr.mul %0, %8 : tensor<f64>
  %10 = expr.add %2, %9 : tensor<f64>
  %11 = expr.math  sin %2 : tensor<f64>
  %12 = expr.mul %4, %11 : tensor<f64>
  %13 = expr.sub %arg2, %12 : tensor<f64>
  %14 = expr.mul %0, %13 : tensor<f64>
  %15 = expr.add %8, %14 : tensor<f64>
  %16 = expr.mul %0, %15 : tensor<f64>
  %17 = expr.add %10, %16 : tensor<f64>
  %18 = expr.math  sin %10 : tensor<f64>
  %19 = expr.mul %4, %18 : tensor<f64>
  %20 = expr.sub %arg2, %19 : tensor<f64>
  %21 = expr.mul %0, %20 : tensor<f64>
  %22 = expr.add %15, %21 : tensor<f64>
  %23 = expr.mul %0, %22 : tensor<f64>
  %24 = expr.add %17, %23 : tensor<f64>
  %25 = expr.math  sin %17 : tensor<f64>
  %26 = expr.mul %4, %25 : tensor<f64>
  %27 = expr.sub %arg2, %26 : tensor<f64>
  %28 = expr.mul %0, %27 : tensor<f64>
  %29 = expr.add %22, %28 : tensor<f64>
  %30 = expr.mul %0, %29 : tensor<f64>
  %31 = expr.add %24, %30 : tensor<f64>
  %32 = expr.math  sin %24 : tensor<f64>
  %33 = expr.mul %4, %32 : tensor<f64>
  %34 = expr.sub %arg2, %33 : tensor<f64>
  %35 = expr.mul %0, %34 : tensor<f64>
  %36 = expr.add %29, %35 : tensor<f64>
  %37 = expr.mul %0, %36 : tensor<f64>
  %38 = expr.add %31, %37 : tensor<f64>
  %39 = expr.math  sin %31 : tensor<f64>
  %40 = expr.mul %4, %39 : tensor<f64>
  %41 = expr.sub %arg2, %40 : tensor<f64>
  %42 = expr.mul %0, %41 : tensor<f64>
  %43 = expr.add %36, %42 : tensor<f64>
  %44 = expr.mul %0, %43 : tensor<f64>
  %45 = expr.add %38, %44 : tensor<f64>
  %46 = expr.math  sin %38 : tensor<f64>
  %47 = expr.mul %4, %46 : tensor<f64>
  %48 = expr.sub %arg2, %47 : tensor<f64>
  %49 = expr.mul %0, %48 : tensor<f64>
  %50 = expr.add %43, %49 : tensor<f64>
  %51 = expr.mul %0, %50 : tensor<f64>
  %52 = expr.add %45, %51 : tensor<f64>
  %53 = expr.math  sin %45 : tensor<f64>
  %54 = expr.mul %4, %53 : tensor<f64>
  %55 = expr.sub %arg2, %54 : tensor<f64>
  %56 = expr.mul %0, %55 : tensor<f64>
  %57 = expr.add %50, %56 : tensor<f64>
  %58 = expr.mul %0, %57 : tensor<f64>
  %59 = expr.add %52, %58 : tensor<f64>
  %60 = expr.math  sin %52 : tensor<f64>
  %61 = expr.mul %4, %60 : tensor<f64>
  %62 = expr.sub %arg2, %61 : tensor<f64>
  %63 = expr.mul %0, %62 : tensor<f64>
  %64 = expr.add %57, %63 : tensor<f64>
  %65 = expr.mul %0, %64 : tensor<f64>
  %66 = expr.add %59, %65 : tensor<f64>
  %67 = expr.math  sin %59 : tensor<f64>
  %68 = expr.mul %4, %67 : tensor<f64>
  %69 = expr.sub %arg2, %68 : tensor<f64>
  %70 = expr.mul %0, %69 : tensor<f64>
  %71 = expr.add %64, %70 : tensor<f64>
  %72 = expr.mul %0, %71 : tensor<f64>
  %73 = expr.add %66, %72 : tensor<f64>
  %74 = expr.math  sin %66 : tensor<f64>
  %75 = expr.mul %4, %74 : tensor<f64>
  %76 = expr.sub %arg2, %75 : tensor<f64>
  %77 = expr.mul %0, %76 : tensor<f64>
  %78 = expr.add %71, %77 : tensor<f64>
  %79 = expr.mul %0, %78 : tensor<f64>
  %80 = expr.add %73, %79 : tensor<f64>
  %81 = expr.math  sin %73 : tensor<f64>
  %82 = expr.mul %4, %81 : tensor<f64>
  %83 = expr.sub %arg2, %82 : tensor<f64>
  %84 = expr.mul %0, %83 : tensor<f64>
  %85 = expr.add %78, %84 : tensor<f64>
  %86 = expr.mul %0, %85 : tensor<f64>
  %87 = expr.add %80, %86 : tensor<f64>
  %88 = expr.math  sin %80 : tensor<f64>
  %89 = expr.mul %4, %88 : tensor<f64>
  %90 = expr.sub %arg2, %89 : tensor<f64>
  %91 = expr.mul %0, %90 : tensor<f64>
  %92 = expr.add %85, %91 : tensor<f64>
  %93 = expr.mul %0, %92 : tensor<f64>
  %94 = expr.add %87, %93 : tensor<f64>
  %95 = expr.math  sin %87 : tensor<f64>
  %96 = expr.mul %4, %95 : tensor<f64>
  %97 = expr.sub %arg2, %96 : tensor<f64>
  %98 = expr.mul %0, %97 : tensor<f64>
  %99 = expr.add %92, %98 : tensor<f64>
  %100 = expr.mul %0, %99 : tensor<f64>
  %101 = expr.add %94, %100 : tensor<f64>
  %102 = expr.math  sin %94 : tensor<f64>
  %103 = expr.mul %4, %102 : tensor<f64>
  %104 = expr.sub %arg2, %103 : tensor<f64>
  %105 = expr.mul %0, %104 : tensor<f64>
  %106 = expr.add %99, %105 : tensor<f64>
  %107 = expr.mul %0, %106 : tensor<f64>
  %108 = expr.add %101, %107 : tensor<f64>
  %109 = expr.math  sin %101 : tensor<f64>
  %110 = expr.mul %4, %109 : tensor<f64>
  %111 = expr.sub %arg2, %110 : tensor<f64>
  %112 = expr.mul %0, %111 : tensor<f64>
  %113 = expr.add %106, %112 : tensor<f64>
  %114 = expr.mul %0, %113 : tensor<f64>
  %115 = expr.add %108, %114 : tensor<f64>
  %116 = expr.math  sin %108 : tensor<f64>
  %117 = expr.mul %4, %116 : tensor<f64>
  %118 = expr.sub %arg2, %117 : tensor<f64>
  %119 = expr.mul %0, %118 : tensor<f64>
  %120 = expr.add %113, %119 : tensor<f64>
  %121 = expr.mul %0, %120 : tensor<f64>
  %122 = expr.add %115, %121 : tensor<f64>
  %123 = expr.math  sin %115 : tensor<f64>
  %124 = expr.mul %4, %123 : tensor<f64>
  %125 = expr.sub %arg2, %124 : tensor<f64>
  %126 = expr.mul %0, %125 : tensor<f64>
  %127 = expr.add %120, %126 : tensor<f64>
  %128 = expr.concat %122, %127 : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
  expr.return %128 : tensor<2xf64>
}

// -----

// Too few copies (8 < 16): left alone.
// CHECK-LABEL: expr.func @few(
// CHECK-NOT:     expr.scan
expr.func @few(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %c = expr.constant dense<1.0001> : tensor<f64>
  %m0 = expr.mul %x, %c : tensor<f64>
  %m1 = expr.mul %m0, %c : tensor<f64>
  %m2 = expr.mul %m1, %c : tensor<f64>
  %m3 = expr.mul %m2, %c : tensor<f64>
  %m4 = expr.mul %m3, %c : tensor<f64>
  %m5 = expr.mul %m4, %c : tensor<f64>
  %m6 = expr.mul %m5, %c : tensor<f64>
  %m7 = expr.mul %m6, %c : tensor<f64>
  expr.return %m7 : tensor<f64>
}
