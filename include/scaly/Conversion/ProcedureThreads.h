//===- ProcedureThreads.h - which thread built each procedure ------*- C++ -*-===//
//
// A render that lowers several entries in parallel lowers each entry's
// module on one thread of the context's pool, so that thread's malloc arena
// holds most of the module's ops. Converting a procedure to EmitC erases every one
// of its ops; glibc frees a chunk of another thread's arena under that
// arena's lock, which its owner takes for its own allocations, and two
// threads converting at once then spent 40 % more time than one (the same
// conversions, bench/entries.py). scaly-program-to-emitc, given the
// threads, lets each of its tasks convert its own thread's procedures first.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROCEDURETHREADS_H
#define SCALY_CONVERSION_PROCEDURETHREADS_H

#include "scaly/Conversion/Passes.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <thread>

namespace scaly {

/// The thread that built each procedure (a `prog.proc` operation).
using ProcedureThreads = llvm::DenseMap<mlir::Operation *, std::thread::id>;

/// The number of operations of each C function's procedure (an
/// `emitc.func` operation): how long it takes to print, which the printer
/// reads to print the longest first on a threaded context.
using FunctionSizes = llvm::DenseMap<mlir::Operation *, size_t>;

/// scaly-program-to-emitc converting, on a threaded context, each
/// procedure in `threads` on its thread when that thread is free to, and
/// recording in `sizes` (when given) each function's size.
std::unique_ptr<mlir::Pass>
createProgramToEmitC(const ProgramToEmitCOptions &options,
                     std::shared_ptr<const ProcedureThreads> threads,
                     std::shared_ptr<FunctionSizes> sizes = nullptr);

} // namespace scaly

#endif
