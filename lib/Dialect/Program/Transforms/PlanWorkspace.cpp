//===- PlanWorkspace.cpp - place spilled temporaries in the workspace -----===//
//
// Each prog.window of a procedure gets an offset that is a multiple of 64
// bytes from w, with its padding counted. A callee that needs workspace is
// passed w advanced past the caller's own windows; a callee that needs none
// gets NULL. A procedure's `workspace` attribute becomes the number of bytes
// it needs including its callees: the entry's gives the header's SZ_W.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace scaly::prog {
#define GEN_PASS_DEF_PLANWORKSPACE
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {


int64_t roundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

struct PlanWorkspacePass : scaly::prog::impl::PlanWorkspaceBase<PlanWorkspacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Procedures are defined before their callers, so one pass in order sees
    // every callee's total before its callers need it.
    for (ProcOp proc : module.getOps<ProcOp>()) {
      if (failed(plan(proc, symbols)))
        return signalPassFailure();
    }
  }

  LogicalResult plan(ProcOp proc, SymbolTable &symbols) {
    // Windows handed to callees are planned below; a second run keeps the
    // offsets already given and only places new windows after them.
    // A callee's window is the workspace operand (the last) of its calls.
    auto isCalleeWindow = [](WindowOp window) {
      return !window->use_empty() && llvm::all_of(window->getUses(), [](OpOperand &use) {
        return isa<CallOp>(use.getOwner()) &&
               use.getOperandNumber() + 1 == use.getOwner()->getNumOperands();
      });
    };
    auto bytesOf = [](WindowOp window) {
      Type t = cast<PtrType>(window.getResult().getType()).getElementType();
      return roundUp(window.getSize() * elementBytes(t), kWorkspaceAlignBytes);
    };
    int64_t own = 0;
    proc.walk([&](WindowOp window) {
      if (window.getWorkspace() == proc.getWorkspaceArg() && window.getOffset() >= 0 &&
          !isCalleeWindow(window))
        own = std::max(own, window.getOffset() + bytesOf(window));
    });
    proc.walk([&](WindowOp window) {
      if (window.getWorkspace() != proc.getWorkspaceArg() || window.getOffset() >= 0 ||
          isCalleeWindow(window))
        return;
      window.setOffset(own);
      own += bytesOf(window);
    });
    int64_t calleeNeed = 0;
    LogicalResult result = success();
    proc.walk([&](CallOp call) {
      auto callee = symbols.lookup<ProcOp>(call.getCallee());
      if (!callee) {
        result = call.emitOpError("calls unknown procedure @") << call.getCallee();
        return;
      }
      Value wArg = call.getOperands().back();
      int64_t need = callee.getWorkspace();
      if (wArg != proc.getWorkspaceArg()) {
        // Planned by an earlier run: keep it, and keep counting its need.
        if (auto window = wArg.getDefiningOp<WindowOp>()) {
          window.setOffset(own);
          calleeNeed = std::max(calleeNeed, need);
        }
        return;
      }
      OpBuilder b(call);
      auto calleeW = cast<PtrType>(callee.getWorkspaceArg().getType());
      Value passed;
      if (need == 0) {
        passed = b.create<NullOp>(call.getLoc(), calleeW);
      } else {
        int64_t calleeElem = elementBytes(calleeW.getElementType());
        auto window = b.create<WindowOp>(call.getLoc(), calleeW, wArg,
                                         b.getI64IntegerAttr((need + calleeElem - 1) / calleeElem),
                                         b.getI64IntegerAttr(own));
        passed = window;
      }
      call->setOperand(call.getNumOperands() - 1, passed);
      calleeNeed = std::max(calleeNeed, need);
    });
    proc.setWorkspace(own + calleeNeed);
    return result;
  }
};

} // namespace
