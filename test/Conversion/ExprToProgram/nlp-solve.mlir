// RUN: scaly-opt %s --scaly-lower | FileCheck %s
// RUN: scaly-opt %s --scaly-lower | scaly-translate --emit-c | FileCheck %s --check-prefix=C
//
// An NLP solve lowers, like a QP solve, to a call of its solver wrapper,
// declared once per name with prog.extern: one read-only pointer per operand
// (x0, p, lbx, ubx, lbg, ubg, lam_g0, lam_x0), then one writable pointer per
// result (x, lam_g, lam_x). An empty operand or result (no constraints: lbg,
// ubg, lam_g0 and lam_g) is a null pointer, and the entry does not require
// the caller's pointer for an empty result.

// Exactly two declarations (the module's first lines, newest first), one per name:
// CHECK:       prog.extern @scaly_nlp_00000000000000[[FIRST:aa|bb]] : (!prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>, !prog.ptr<f64>) -> ()
// CHECK-NOT:   prog.extern @scaly_nlp_00000000000000[[FIRST]]
// CHECK:       prog.extern @scaly_nlp_00000000000000{{aa|bb}} : (!prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>, !prog.ptr<f64>) -> ()
// CHECK-NOT:   prog.extern

// CHECK-LABEL: prog.proc @unconstrained(
// CHECK-SAME:    %[[P:[^:]+]]: !prog.ptr<const f64>, %[[X:[^:]+]]: !prog.ptr<f64>, %[[LG:[^:]+]]: !prog.ptr<f64>, %[[LX:[^:]+]]: !prog.ptr<f64>, %{{[^:]+}}: !prog.ptr<f64>)
// CHECK-SAME:    output_sizes = array<i64: 2, 0, 2>
// CHECK-DAG:     %[[CNULL:[0-9]+]] = prog.null : <const f64>
// CHECK-DAG:     %[[NULL:[0-9]+]] = prog.null : <f64>
// CHECK:         prog.call_extern @scaly_nlp_00000000000000aa(%{{[0-9]+}}, %[[P]], %{{[0-9]+}}, %{{[0-9]+}}, %[[CNULL]], %[[CNULL]], %[[CNULL]], %{{[0-9]+}}, %[[X]], %[[NULL]], %[[LX]]) :
// CHECK-NEXT:    prog.return
expr.func @unconstrained(%p: tensor<2xf64>) -> (tensor<2xf64>, tensor<0xf64>, tensor<2xf64>) attributes {arg_names = ["p"], res_names = ["x", "lam_g", "lam_x"], entry} {
  %x0 = expr.constant dense<[0.5, 0.25]> : tensor<2xf64>
  %lbx = expr.constant dense<[-1.0e20, 0.0]> : tensor<2xf64>
  %ubx = expr.constant dense<[1.0e20, 3.0]> : tensor<2xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %lx0 = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %lbx, %ubx, %none, %none, %none, %lx0) {name = "scaly_nlp_00000000000000aa", solver = "ipopt"}
      : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x, %lam_g, %lam_x : tensor<2xf64>, tensor<0xf64>, tensor<2xf64>
}

// Two solves by the same wrapper, the second warm-started from the first's
// results (x, lam_g, lam_x in the workspace, read back through read-only
// views); the entry's inputs and outputs are passed through as they are. No
// operand is empty here, so no null pointer.
// CHECK-LABEL: prog.proc @chained(
// CHECK-SAME:    %[[X0:[^:]+]]: !prog.ptr<const f64>, %[[P2:[^:]+]]: !prog.ptr<const f64>, %[[UBG:[^:]+]]: !prog.ptr<const f64>, %[[XOUT:[^:]+]]: !prog.ptr<f64>, %[[LGOUT:[^:]+]]: !prog.ptr<f64>, %{{[^:]+}}: !prog.ptr<f64>)
// CHECK-NOT:     prog.null
// CHECK:         prog.call_extern @scaly_nlp_00000000000000bb(%[[X0]], %[[P2]], %[[LBX:[0-9]+]], %[[UBX:[0-9]+]], %[[LBG:[0-9]+]], %[[UBG]], %{{[0-9]+}}, %{{[0-9]+}}, %[[X1:[0-9]+]], %[[LG1:[0-9]+]], %[[LX1:[0-9]+]]) :
// CHECK-DAG:     %[[X1R:[0-9]+]] = prog.offset %[[X1]] : <f64> -> <const f64>
// CHECK-DAG:     %[[LG1R:[0-9]+]] = prog.offset %[[LG1]] : <f64> -> <const f64>
// CHECK-DAG:     %[[LX1R:[0-9]+]] = prog.offset %[[LX1]] : <f64> -> <const f64>
// CHECK:         prog.call_extern @scaly_nlp_00000000000000bb(%[[X1R]], %[[P2]], %[[LBX]], %[[UBX]], %[[LBG]], %[[UBG]], %[[LG1R]], %[[LX1R]], %[[XOUT]], %[[LGOUT]], %{{[0-9]+}}) :
// CHECK-NOT:     prog.null
// CHECK:         prog.return
expr.func @chained(%x0: tensor<3xf64>, %p: tensor<1xf64>, %ubg: tensor<2xf64>) -> (tensor<3xf64>, tensor<2xf64>) attributes {arg_names = ["x0", "p", "ubg"], res_names = ["x", "lam_g"], entry} {
  %lbx = expr.constant dense<-1.0e20> : tensor<3xf64>
  %ubx = expr.constant dense<1.0e20> : tensor<3xf64>
  %lbg = expr.constant dense<[-1.0e20, 1.0]> : tensor<2xf64>
  %lg0 = expr.constant dense<0.0> : tensor<2xf64>
  %lx0 = expr.constant dense<0.0> : tensor<3xf64>
  %x1, %lam_g1, %lam_x1 = expr.nlp_solve(%x0, %p, %lbx, %ubx, %lbg, %ubg, %lg0, %lx0) {name = "scaly_nlp_00000000000000bb", solver = "sqp"}
      : tensor<3xf64>, tensor<1xf64>, tensor<3xf64>, tensor<3xf64>, tensor<2xf64>,
        tensor<2xf64>, tensor<2xf64>, tensor<3xf64> -> tensor<3xf64>, tensor<2xf64>, tensor<3xf64>
  %x2, %lam_g2, %lam_x2 = expr.nlp_solve(%x1, %p, %lbx, %ubx, %lbg, %ubg, %lam_g1, %lam_x1) {name = "scaly_nlp_00000000000000bb", solver = "sqp"}
      : tensor<3xf64>, tensor<1xf64>, tensor<3xf64>, tensor<3xf64>, tensor<2xf64>,
        tensor<2xf64>, tensor<2xf64>, tensor<3xf64> -> tensor<3xf64>, tensor<2xf64>, tensor<3xf64>
  expr.return %x2, %lam_g2 : tensor<3xf64>, tensor<2xf64>
}

// In the emitted C, one prototype per wrapper, eight const double* then three double*;
// NULL for the empty operands and result, and no check of res[1] (lam_g of
// length 0) in the entry.
// C-DAG:   void scaly_nlp_00000000000000aa(const double*, const double*, const double*, const double*, const double*, const double*, const double*, const double*, double*, double*, double*);
// C-DAG:   void scaly_nlp_00000000000000bb(const double*, const double*, const double*, const double*, const double*, const double*, const double*, const double*, double*, double*, double*);
// C-LABEL: int unconstrained(
// C-NOT:   res[1]
// C:       scaly_nlp_00000000000000aa({{[^,]+}}, arg[0], {{[^,]+}}, {{[^,]+}}, NULL, NULL, NULL, {{[^,]+}}, res[0], NULL, res[2]);
// C-NEXT:  return SCALY_SUCCESS;
// C-LABEL: int chained(
// C-NOT:   NULL);
// C:       scaly_nlp_00000000000000bb(arg[0], arg[1], {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, arg[2], {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, {{[^,]+}});
// C:       scaly_nlp_00000000000000bb({{[^,]+}}, arg[1], {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, arg[2], {{[^,]+}}, {{[^,]+}}, res[0], res[1], {{[^,]+}});
// C-NEXT:  return SCALY_SUCCESS;
