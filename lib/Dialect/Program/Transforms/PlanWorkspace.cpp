//===- PlanWorkspace.cpp - place spilled temporaries in the workspace -----===//
//
// Each prog.window of a procedure gets an offset that is a multiple of 64
// bytes from w, with its padding counted. A callee that needs workspace is
// passed w advanced past the caller's own windows; a callee that needs none
// gets NULL. A procedure's `workspace` attribute becomes the number of
// elements it needs including its callees: the entry's is the header's SZ_W.
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

int64_t elementBytes(Type t) { return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8; }

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
    Type elem = cast<PtrType>(proc.getWorkspaceArg().getType()).getElementType();
    int64_t align = kWorkspaceAlignBytes / elementBytes(elem);
    int64_t own = 0;
    proc.walk([&](WindowOp window) {
      if (window.getWorkspace() != proc.getWorkspaceArg())
        return;
      window.setOffset(own);
      own += roundUp(window.getSize(), align);
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
      if (wArg != proc.getWorkspaceArg())
        return; // already planned
      OpBuilder b(call);
      int64_t need = callee.getWorkspace();
      auto calleeW = cast<PtrType>(callee.getWorkspaceArg().getType());
      if (calleeW.getElementType() != elem && need > 0) {
        result = call.emitOpError("callee workspace of another element type is not supported");
        return;
      }
      Value passed;
      if (need == 0)
        passed = b.create<NullOp>(call.getLoc(), calleeW);
      else
        passed = b.create<WindowOp>(call.getLoc(), calleeW, wArg, b.getI64IntegerAttr(need),
                                    b.getI64IntegerAttr(own));
      call->setOperand(call.getNumOperands() - 1, passed);
      calleeNeed = std::max(calleeNeed, need);
    });
    proc.setWorkspace(own + calleeNeed);
    return result;
  }
};

} // namespace
