//===- WriteOrder.h - which writes lie between a read and its use --------===//
//
// The C printer prints a single-use value at its use, inside the statement
// that uses it. A value that reads memory may move that way only when no
// statement in between may write what it reads: WriteOrder numbers the
// memory-writing statements of a block and answers that question.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_TARGET_C_WRITEORDER_H
#define SCALY_TARGET_C_WRITEORDER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <utility>
#include <vector>

namespace scaly::c {

/// The integer value of an emitc.constant index, else nothing.
std::optional<int64_t> constantIndex(mlir::Value v);

class WriteOrder {
public:
  /// A buffer: a pointer, and with it the constant index of `p[k]` when the
  /// pointer is an element of an array of pointers (`res[k]`), else -1.
  using Buffer = std::pair<mlir::Value, int64_t>;

  /// The buffer a pointer points into: a parameter, or `res[k]`/`arg[k]` of
  /// the entry. Distinct buffers never overlap (the ABI's rule for inputs and
  /// outputs; windows all belong to `w`).
  static Buffer bufferOf(mlir::Value ptr);

  /// Numbers each op of `block` with the count of memory-writing statements
  /// before it (assignments to memory, calls without results, loops, ifs,
  /// while loops), and remembers what each write may touch: a buffer, or
  /// everything.
  void number(mlir::Block &block);

  /// The number of memory-writing statements before `op` in its block.
  int64_t epoch(mlir::Operation *op) const { return epochs.lookup(op); }

  /// Whether a write of `block` between epochs [from, to) may touch `buffer`.
  bool writtenBetween(mlir::Block *block, int64_t from, int64_t to, Buffer buffer) const;

  /// Forgets every block (a new function).
  void clear();

private:
  llvm::DenseMap<mlir::Operation *, int64_t> epochs;
  /// Epochs (ascending) of the writes of each block that may touch anything,
  /// and of those that touch one buffer: a query is two binary searches.
  llvm::DenseMap<mlir::Block *, std::vector<int64_t>> anyWrites;
  llvm::DenseMap<std::pair<mlir::Block *, Buffer>, std::vector<int64_t>> bufferWrites;
};

} // namespace scaly::c

#endif
