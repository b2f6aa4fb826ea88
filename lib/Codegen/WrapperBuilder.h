//===- WrapperBuilder.h - the ops of the solver wrapper unit ----*- C++ -*-===//
//
// What the QP wrappers (SolverWrappers.cpp) and the NLP wrappers
// (NlpWrappers.cpp) of <module>_solvers.c are built with.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_LIB_CODEGEN_WRAPPERBUILDER_H
#define SCALY_LIB_CODEGEN_WRAPPERBUILDER_H

#include "scaly/Codegen/SolverWrappers.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"

#include "llvm/ADT/StringMap.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"

namespace scaly::codegen {

using mlir::Type;
using mlir::Value;

/// Builds the unit's ops: c::EmitCBuilder's and the unit's own.
struct WrapperBuilder : c::EmitCBuilder {
  mlir::MLIRContext *ctx = b.getContext();
  Type cInt = opaque("int");
  Type f64 = b.getF64Type();
  Type i32 = b.getI32Type();
  Type chars = mlir::emitc::PointerType::get(opaque("char"));
  /// `const double*`: a call option array (the element type carries const:
  /// an emitc.global has no other way to say a pointer to const).
  Type options = mlir::emitc::PointerType::get(opaque("const double"));
  Type stats = opaque("scaly_solver_stats");
  Type mutex = opaque("pthread_mutex_t");

  Type opaque(llvm::StringRef name) { return mlir::emitc::OpaqueType::get(ctx, name); }
  void define(llvm::StringRef name, llvm::StringRef value = "") {
    b.create<cdecl::DefineOp>(loc, name,
                              value.empty() ? mlir::Attribute() : b.getStringAttr(value));
  }
  void include(llvm::StringRef file, bool standard) {
    b.create<mlir::emitc::IncludeOp>(loc, file, standard);
  }

  Value integer(llvm::StringRef text) { return constant(cInt, text); }
  /// `v.field` of a struct value, of type `t`.
  Value field(Value v, llvm::StringRef name, Type t) {
    return b.create<mlir::emitc::MemberOp>(loc, t, name, v);
  }
  Value negate(Value v) { return b.create<mlir::emitc::LogicalNotOp>(loc, i1, v); }
  /// The type each static of the unit was defined with, by name: a read
  /// takes it from here, so it cannot disagree with the definition.
  llvm::StringMap<Type> statics = {};
  /// `static [const] T name [= init];`, read back with staticValue.
  void defineStatic(llvm::StringRef name, Type t, bool isConst = false,
                    llvm::StringRef init = "") {
    staticVariable(name, t, isConst, init);
    statics[name] = t;
  }
  /// The static `name` that defineStatic defined.
  Value staticValue(llvm::StringRef name) {
    auto it = statics.find(name);
    assert(it != statics.end() && "a static read before its definition");
    return global(name, it->second);
  }
  Value lockAddress() { return address(staticValue("scaly_solvers_lock")); }
  void lock() { callOpaque({}, "pthread_mutex_lock", lockAddress()); }
  void unlock() { callOpaque({}, "pthread_mutex_unlock", lockAddress()); }
  /// `for (long long name = 0; name < count; ++name) body(name)`.
  void loop(Value count, llvm::StringRef name, llvm::function_ref<void(Value)> body) {
    c::buildLoop(b, loc, index(0), count, index(1), name, body);
  }
};

/// `{v0, v1, ...}`; `{0}` for no values (C has no zero-length arrays).
std::string initializer(const std::vector<int64_t> &values);

/// `static const int32_t name[n] = {...};`
void indexTable(WrapperBuilder &b, llvm::StringRef name, const std::vector<int64_t> &values);

/// `void <w>_stats(scaly_solver_stats* out)`: a copy of the latest
/// statistics.
inline void statsAccessor(WrapperBuilder &b, const std::string &w) {
  Type statsP = mlir::emitc::PointerType::get(b.stats);
  b.function(w + "_stats", {}, {{statsP, false, "out"}}, {},
             [&](llvm::ArrayRef<mlir::BlockArgument> a) {
               b.lock();
               b.ifElse(b.notNull(a[0]),
                        [&] { b.assign(b.at(a[0], b.index(0)), b.staticValue(w + "_last")); });
               b.unlock();
               b.ret();
             });
}

/// `for (long long counter = 0; counter < count; ++counter)` setting
/// element `counter` of each of `outputs` to NaN (nothing when `count` is 0):
/// the results of a solve that could not run.
inline void fillNaN(WrapperBuilder &b, int64_t count, llvm::StringRef counter,
                    std::initializer_list<Value> outputs) {
  if (count > 0)
    b.loop(b.index(count), counter, [&](Value i) {
      for (Value out : outputs)
        b.assign(b.at(out, i), b.constant(b.f64, "NAN"));
    });
}

/// `last()` cleared, its version set, its status SCALY_SOLVE_ERROR: the
/// statistics of a solve that could not run.
inline void errorStats(WrapperBuilder &b, llvm::function_ref<Value()> last) {
  b.callOpaque({}, "memset",
               {b.address(last()), b.integer("0"),
                b.callOpaque(b.opaque("size_t"), "sizeof", last())});
  b.assign(b.field(last(), "version", b.cInt), b.integer("SCALY_SOLVER_STATS_VERSION"));
  b.assign(b.field(last(), "status", b.cInt), b.integer("SCALY_SOLVE_ERROR"));
}

/// The end of a timed solve: the time since `start` into `last().t_total`,
/// and what the solver's own `parts` leave of it into `last().t_glue` (the
/// time spent outside them).
inline void recordTimes(WrapperBuilder &b, mlir::emitc::FuncOp now, Value start,
                        llvm::function_ref<Value()> last, llvm::ArrayRef<llvm::StringRef> parts) {
  Value elapsed = b.sub(b.call(now, {}), start);
  b.assign(b.field(last(), "t_total", b.f64), elapsed);
  Value glue = b.field(last(), "t_total", b.f64);
  for (llvm::StringRef part : parts)
    glue = b.sub(glue, b.field(last(), part, b.f64));
  b.assign(b.field(last(), "t_glue", b.f64), glue);
}

/// Each NLP wrapper: its oracles' declarations, index tables and statics,
/// the oracle callbacks the NLP library calls, `<w>_ready`, `<w>_kind`,
/// `<w>_set_option`, `<w>_set_ipopt_option`, `<w>_stats` and the solve.
void buildNlpWrapper(WrapperBuilder &b, mlir::emitc::FuncOp now, const std::string &w,
                     const NlpWrapper &nlp);

} // namespace scaly::codegen

#endif
