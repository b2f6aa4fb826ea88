//===- SolverWrappers.h - the C of a module's solver wrappers -----*- C++ -*-===//
//
// A module whose body calls a QP or NLP solver gets a second translation
// unit, <module>_solvers.c: per wrapper the solver object kept between
// calls, its statistics and options, and per entry `<entry>_with_options`.
// Its QP wrappers, prologue and `_with_options` functions are built here as
// EmitC and cdecl ops and printed by the C printer (lib/Target/C), like the
// model; python/scaly/solvers/wrapper.py describes the unit (names, sizes,
// index tables, the entries' parameters) and passes it in.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CODEGEN_SOLVERWRAPPERS_H
#define SCALY_CODEGEN_SOLVERWRAPPERS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scaly::codegen {

/// A QP wrapper: min 1/2 x'Px + c'x s.t. Ax = b, h_l <= Gx <= h_u,
/// x_l <= x <= x_u, with P, A and G's compressed-column patterns.
struct QpWrapper {
  int64_t n = 0, p = 0, m = 0;
  bool dense = false;
  /// The CSC index tables of P, A and G, in that order.
  std::array<std::vector<int64_t>, 3> colptr, rowind;
};

/// An NLP wrapper: min f(x, p) s.t. lbg <= g(x, p) <= ubg, lbx <= x <= ubx,
/// through IPOPT or Scaly's SQP, over oracles rendered from the traced f, g
/// and their derivatives (python/scaly/solvers/nlp_wrapper.py renders them
/// after this unit; here they are declared).
struct NlpWrapper {
  int64_t n = 0, m = 0;
  std::string solver = "ipopt"; // or "sqp"
  bool denseQp = false;         // the SQP's subproblems
  int64_t optionCount = 0;      // the backend's option table
  /// Option defaults fixed when tracing: (index in the table, value), and
  /// IPOPT options as text (name, value).
  std::vector<std::pair<int64_t, double>> traceOptions;
  std::vector<std::pair<std::string, std::string>> ipoptOptions;
  /// The oracles' C names: f, g, grad_f, jac_g, hess_l ("": none, g and
  /// jac_g when m == 0).
  std::array<std::string, 5> oracles;
  int64_t workspaceBytes = 0; // the largest oracle's
  int64_t hessFull = 0;       // values of hess_l's symmetric output
  std::vector<int64_t> jacColptr, jacRowind, hessColptr, hessRowind;
  /// Per stored entry of the Hessian's lower triangle, its position in
  /// hess_l's symmetric values.
  std::vector<int64_t> hessPick;
};

/// One wrapper the module's body calls, by its C name in this module.
struct SolverWrapper {
  std::string name;
  bool isNlp = false;
  QpWrapper qp = {};   // when !isNlp
  NlpWrapper nlp = {}; // when isNlp
};

/// An exported entry of the module: its C name and (type, name) parameters.
struct WrapperEntry {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
};

struct SolverWrappersSpec {
  std::string module; // the name of the module's first entry
  std::vector<SolverWrapper> wrappers;
  std::vector<WrapperEntry> entries;
};

/// The unit's ops: the prologue (comment, includes, the lock, the clock),
/// each QP and NLP wrapper and each entry's `_with_options`.
mlir::OwningOpRef<mlir::ModuleOp> buildSolverWrappers(mlir::MLIRContext *ctx,
                                                      const SolverWrappersSpec &spec);

/// That module printed as C; a failure (a bug in Scaly) sets `error`.
std::string renderSolverWrappers(const SolverWrappersSpec &spec, std::string &error);

} // namespace scaly::codegen

#endif
