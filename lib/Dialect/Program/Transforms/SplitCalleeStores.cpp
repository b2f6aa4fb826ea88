//===- SplitCalleeStores.cpp - element stores in called procedures --------===//
//
// A procedure other than the entry is `static inline` in C, and a C
// compiler inlines it into its caller, often into the loop of a vmap. A
// store of several floats is printed through a vector type (`*(double4*)p =
// (double4){...}`), and a loop holding a vector-typed instruction is one
// LLVM's loop vectorizer gives up on: the whole loop, libm calls included,
// stays scalar. Scaly's own widening (scaly-widen-lanes) leaves loops with
// calls alone, so with lanes the callee's stores become one store per
// element, which the vectorizer widens with the rest of the inlined body
// (and the SLP vectorizer merges again where the procedure stays scalar).
// Streaming stores need their vectors and are left as they are.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace scaly::prog {
#define GEN_PASS_DEF_SPLITCALLEESTORES
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

/// A store this pass splits: several float scalars, consecutive, not
/// streaming.
bool splits(StoreOp store) {
  return store.getValues().size() > 1 && store.getStride() == 1 && !store.getStreaming() &&
         isa<FloatType>(store.getValues().front().getType());
}

struct SplitCalleeStores : public scaly::prog::impl::SplitCalleeStoresBase<SplitCalleeStores> {
  void runOnOperation() override {
    getOperation()->walk([&](ProcOp proc) {
      if (proc.getEntry())
        return;
      SmallVector<StoreOp> stores;
      proc.walk([&](StoreOp store) {
        if (splits(store))
          stores.push_back(store);
      });
      for (StoreOp store : stores) {
        OpBuilder b(store);
        for (auto [k, value] : llvm::enumerate(store.getValues()))
          b.create<StoreOp>(store.getLoc(), ValueRange{value}, store.getPtr(),
                            b.getI64IntegerAttr(store.getOffset() + static_cast<int64_t>(k)));
        store.erase();
      }
    });
  }
};

} // namespace
