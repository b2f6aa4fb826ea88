// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// What the WebAssembly shim's functions print with: `&x` (emitc.apply,
// parenthesized only under a postfix operator), `p->field`
// (emitc.member_of_ptr), a cast to a pointer to const (scaly.const on the
// emitc.cast), a const pointer variable (scaly.const on the emitc.variable),
// and a one-dimensional array whose every element is assigned, in order,
// right after its declaration: its initializer list.

// CHECK-LABEL: int call(point_out* out, const point_in* in, double a0) {
// CHECK-NEXT:    const double* arg[3] = {(const double*)&in->x, NULL, (const double*)&a0};
// CHECK-NEXT:    double* res[1] = {(double*)&out->y};
// CHECK-NEXT:    return entry(arg, res);
// CHECK-NEXT:  }
emitc.func @call(%out: !emitc.ptr<!emitc.opaque<"point_out">> {scaly.name = "out"}, %in: !emitc.ptr<!emitc.opaque<"point_in">> {scaly.name = "in", scaly.const}, %a0: f64 {scaly.name = "a0"}) -> !emitc.opaque<"int"> {
  %x = "emitc.member_of_ptr"(%in) <{member = "x"}> : (!emitc.ptr<!emitc.opaque<"point_in">>) -> !emitc.array<2xf64>
  %xp = emitc.apply "&"(%x) : (!emitc.array<2xf64>) -> !emitc.ptr<!emitc.array<2xf64>>
  %xc = emitc.cast %xp {scaly.const} : !emitc.ptr<!emitc.array<2xf64>> to !emitc.ptr<f64>
  %null = emitc.literal "NULL" : !emitc.ptr<f64>
  %ap = emitc.apply "&"(%a0) : (f64) -> !emitc.ptr<f64>
  %ac = emitc.cast %ap {scaly.const} : !emitc.ptr<f64> to !emitc.ptr<f64>
  %y = "emitc.member_of_ptr"(%out) <{member = "y"}> : (!emitc.ptr<!emitc.opaque<"point_out">>) -> f64
  %yp = emitc.apply "&"(%y) : (f64) -> !emitc.ptr<f64>
  %yc = emitc.cast %yp : !emitc.ptr<f64> to !emitc.ptr<f64>
  %c0 = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  %c1 = "emitc.constant"() <{value = 1 : i32}> : () -> i32
  %c2 = "emitc.constant"() <{value = 2 : i32}> : () -> i32
  %arg = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "arg", scaly.const} : () -> !emitc.array<3x!emitc.ptr<f64>>
  %s0 = emitc.subscript %arg[%c0] : (!emitc.array<3x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %xc : !emitc.ptr<f64> to %s0 : !emitc.ptr<f64>
  %s1 = emitc.subscript %arg[%c1] : (!emitc.array<3x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %null : !emitc.ptr<f64> to %s1 : !emitc.ptr<f64>
  %s2 = emitc.subscript %arg[%c2] : (!emitc.array<3x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %ac : !emitc.ptr<f64> to %s2 : !emitc.ptr<f64>
  %res = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "res"} : () -> !emitc.array<1x!emitc.ptr<f64>>
  %r0 = emitc.subscript %res[%c0] : (!emitc.array<1x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %yc : !emitc.ptr<f64> to %r0 : !emitc.ptr<f64>
  %status = emitc.call_opaque "entry"(%arg, %res) : (!emitc.array<3x!emitc.ptr<f64>>, !emitc.array<1x!emitc.ptr<f64>>) -> !emitc.opaque<"int">
  emitc.return %status : !emitc.opaque<"int">
}

// Elements assigned out of order, or not all of them, are assignments.
// CHECK-LABEL: void partial(double a, double b) {
// CHECK-NEXT:    double* p[2];
// CHECK-NEXT:    p[1] = &a;
// CHECK-NEXT:    p[0] = &b;
// CHECK-NEXT:    double* q[2];
// CHECK-NEXT:    q[0] = &a;
// CHECK-NEXT:    sink(p, q);
emitc.func @partial(%a: f64 {scaly.name = "a"}, %b: f64 {scaly.name = "b"}) {
  %c0 = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  %c1 = "emitc.constant"() <{value = 1 : i32}> : () -> i32
  %pa = emitc.apply "&"(%a) : (f64) -> !emitc.ptr<f64>
  %pb = emitc.apply "&"(%b) : (f64) -> !emitc.ptr<f64>
  %p = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "p"} : () -> !emitc.array<2x!emitc.ptr<f64>>
  %p1 = emitc.subscript %p[%c1] : (!emitc.array<2x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %pa : !emitc.ptr<f64> to %p1 : !emitc.ptr<f64>
  %p0 = emitc.subscript %p[%c0] : (!emitc.array<2x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %pb : !emitc.ptr<f64> to %p0 : !emitc.ptr<f64>
  %qa = emitc.apply "&"(%a) : (f64) -> !emitc.ptr<f64>
  %q = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "q"} : () -> !emitc.array<2x!emitc.ptr<f64>>
  %q0 = emitc.subscript %q[%c0] : (!emitc.array<2x!emitc.ptr<f64>>, i32) -> !emitc.ptr<f64>
  emitc.assign %qa : !emitc.ptr<f64> to %q0 : !emitc.ptr<f64>
  emitc.call_opaque "sink"(%p, %q) : (!emitc.array<2x!emitc.ptr<f64>>, !emitc.array<2x!emitc.ptr<f64>>) -> ()
  emitc.return
}

// A const pointer variable; `&` and `*` under a subscript or `->` are
// parenthesized.
// CHECK-LABEL: const char* pick(point_in** q, point_in* p) {
// CHECK-NEXT:    const char* name = "none";
// CHECK-NEXT:    use((&p)[0], (*q)->x);
// CHECK-NEXT:    return name;
emitc.func @pick(%q: !emitc.ptr<!emitc.ptr<!emitc.opaque<"point_in">>> {scaly.name = "q"}, %p: !emitc.ptr<!emitc.opaque<"point_in">> {scaly.name = "p"}) -> (!emitc.ptr<!emitc.opaque<"char">> {scaly.const}) {
  %name = "emitc.variable"() <{value = #emitc.opaque<"\"none\"">}> {scaly.name = "name", scaly.const} : () -> !emitc.ptr<!emitc.opaque<"char">>
  %pp = emitc.apply "&"(%p) : (!emitc.ptr<!emitc.opaque<"point_in">>) -> !emitc.ptr<!emitc.ptr<!emitc.opaque<"point_in">>>
  %c0 = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  %first = emitc.subscript %pp[%c0] : (!emitc.ptr<!emitc.ptr<!emitc.opaque<"point_in">>>, i32) -> !emitc.ptr<!emitc.opaque<"point_in">>
  %star = emitc.apply "*"(%q) : (!emitc.ptr<!emitc.ptr<!emitc.opaque<"point_in">>>) -> !emitc.ptr<!emitc.opaque<"point_in">>
  %x = "emitc.member_of_ptr"(%star) <{member = "x"}> : (!emitc.ptr<!emitc.opaque<"point_in">>) -> f64
  emitc.call_opaque "use"(%first, %x) : (!emitc.ptr<!emitc.opaque<"point_in">>, f64) -> ()
  emitc.return %name : !emitc.ptr<!emitc.opaque<"char">>
}

// A read through `*p` or `p->f` stays before a later write that may touch
// that memory: printed where it is used, it would read the new value.
// CHECK-LABEL: double reads_before_writes(double* p, point_out* out) {
// CHECK-NEXT:    double v0 = *p;
// CHECK-NEXT:    double v1 = out->y;
// CHECK-NEXT:    p[0] = 1.0;
// CHECK-NEXT:    out->y = 2.0;
// CHECK-NEXT:    return v0 + v1;
// CHECK-NEXT:  }
emitc.func @reads_before_writes(%p: !emitc.ptr<f64> {scaly.name = "p"}, %out: !emitc.ptr<!emitc.opaque<"point_out">> {scaly.name = "out"}) -> f64 {
  %v = emitc.apply "*"(%p) : (!emitc.ptr<f64>) -> f64
  %y = "emitc.member_of_ptr"(%out) <{member = "y"}> : (!emitc.ptr<!emitc.opaque<"point_out">>) -> f64
  %c0 = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  %one = "emitc.constant"() <{value = 1.0 : f64}> : () -> f64
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %s = emitc.subscript %p[%c0] : (!emitc.ptr<f64>, i32) -> f64
  emitc.assign %one : f64 to %s : f64
  %yw = "emitc.member_of_ptr"(%out) <{member = "y"}> : (!emitc.ptr<!emitc.opaque<"point_out">>) -> f64
  emitc.assign %two : f64 to %yw : f64
  %sum = emitc.add %v, %y : (f64, f64) -> f64
  emitc.return %sum : f64
}

// `s.f` of a struct value (emitc.member: the solver wrappers' statistics and
// problem data): assigned in place, and a read stays before a later write
// (any write: a member's assignment names no buffer).
// CHECK-LABEL: double members(double a) {
// CHECK-NEXT:    stats s;
// CHECK-NEXT:    s.total = a;
// CHECK-NEXT:    double v0 = s.total;
// CHECK-NEXT:    s.inner.glue = 2.0;
// CHECK-NEXT:    return v0 - s.inner.glue;
// CHECK-NEXT:  }
emitc.func @members(%a: f64 {scaly.name = "a"}) -> f64 {
  %s = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "s"} : () -> !emitc.opaque<"stats">
  %total = "emitc.member"(%s) <{member = "total"}> : (!emitc.opaque<"stats">) -> f64
  emitc.assign %a : f64 to %total : f64
  %read = "emitc.member"(%s) <{member = "total"}> : (!emitc.opaque<"stats">) -> f64
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %inner = "emitc.member"(%s) <{member = "inner"}> : (!emitc.opaque<"stats">) -> !emitc.opaque<"part">
  %glue = "emitc.member"(%inner) <{member = "glue"}> : (!emitc.opaque<"part">) -> f64
  emitc.assign %two : f64 to %glue : f64
  %inner2 = "emitc.member"(%s) <{member = "inner"}> : (!emitc.opaque<"stats">) -> !emitc.opaque<"part">
  %glue2 = "emitc.member"(%inner2) <{member = "glue"}> : (!emitc.opaque<"part">) -> f64
  %d = emitc.sub %read, %glue2 : (f64, f64) -> f64
  emitc.return %d : f64
}
