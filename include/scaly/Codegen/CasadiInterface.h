//===- CasadiInterface.h - CasADi's external function API -------*- C++ -*-===//
//
// With render_c_module(casadi=True) a module also exports, for each entry f,
// the functions CasADi's `external()` loads: f (its evaluation),
// f_n_in/_n_out, f_name_in/_name_out, f_sparsity_in/_sparsity_out,
// f_work, f_default_in, f_checkout/_release, f_incref/_decref and
// f_alloc_mem/_init_mem/_free_mem. Scaly's own entry is then named f_scaly;
// f adapts CasADi's conventions to it (column-major dense matrices, null
// inputs meaning zeros, null outputs meaning "not wanted").
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CODEGEN_CASADIINTERFACE_H
#define SCALY_CODEGEN_CASADIINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace scaly::codegen {

/// A float64 port as CasADi sees it.
struct CasadiPort {
  std::string name;
  /// Scaly's shape (rank 0, 1 or 2); for a sparse output, (nnz,).
  std::vector<int64_t> shape;
  /// A sparse output's compressed-column pattern (empty colind: dense).
  int64_t nrow = 0, ncol = 0;
  std::vector<int64_t> colind = {}, row = {};
};

struct CasadiEntry {
  std::string name;       ///< CasADi's name for the function (the entry's)
  std::string scalyEntry; ///< the five-argument Scaly entry it calls
  int64_t scalyWorkDoubles = 0;
  std::vector<CasadiPort> ins, outs;
};

/// The EmitC module defining CasADi's API for `entries`: static tables
/// (emitc.global) and functions (emitc.func), which the C printer prints
/// after the model's module.
mlir::OwningOpRef<mlir::ModuleOp> casadiModule(mlir::MLIRContext *ctx,
                                               const std::vector<CasadiEntry> &entries);
/// The declarations of that API, built at `b` (the end of the header's
/// include guard): CasADi's default types, and the prototypes of `casadi`'s
/// functions (bodiless emitc.func) in an extern "C" block.
void appendCasadiDeclarations(mlir::OpBuilder &b, mlir::ModuleOp casadi);

} // namespace scaly::codegen

#endif
