//===- DiagnosticCollector.h - MLIR diagnostics into one message -*- C++ -*-===//
//
// Errors reach Python as exceptions whose message is what MLIR reported:
// while a collector is alive, the context's diagnostics (and their notes)
// are gathered into one string instead of being printed.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_SUPPORT_DIAGNOSTICCOLLECTOR_H
#define SCALY_SUPPORT_DIAGNOSTICCOLLECTOR_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <utility>

namespace scaly {

/// Gathers the diagnostics of `ctx` while alive, joined by `separator`.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx, std::string joiner = "\n")
      : separator(std::move(joiner)), handler(ctx, [this](mlir::Diagnostic &d) {
          add(d.str());
          for (mlir::Diagnostic &note : d.getNotes())
            add("note: " + note.str());
          return mlir::success();
        }) {}

  // The handler holds `this`: the collector stays where it was made.
  DiagnosticCollector(const DiagnosticCollector &) = delete;
  DiagnosticCollector &operator=(const DiagnosticCollector &) = delete;

  /// Everything reported so far ("" when nothing was).
  const std::string &str() const { return text; }

private:
  std::string separator, text;
  mlir::ScopedDiagnosticHandler handler;

  void add(const std::string &message) {
    if (!text.empty())
      text += separator;
    text += message;
  }
};

} // namespace scaly

#endif
