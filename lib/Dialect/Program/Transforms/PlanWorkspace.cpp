//===- PlanWorkspace.cpp - place spilled temporaries in the workspace -----===//
//
// Each prog.window of a procedure gets an offset that is a multiple of 64
// bytes from w, with its padding counted. Windows whose lifetimes do not
// overlap share bytes: a window is live from its definition to its last use
// (a use inside a loop keeps it live for the whole loop), and a window of the
// same size whose lifetime has ended is reused, so an unrolled model's
// workspace stays the size of one step. A callee that needs workspace is
// passed w advanced past the caller's own windows; a callee that needs none
// gets NULL. A procedure's `workspace` attribute becomes the number of bytes
// it needs including its callees: the entry's gives the header's SZ_W.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <queue>

namespace scaly::prog {
#define GEN_PASS_DEF_PLANWORKSPACE
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {


int64_t roundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

/// Lifetimes of the windows of one procedure, on a pre-order numbering of
/// its operations.
struct Lifetimes {
  DenseMap<Operation *, int64_t> pos, end;

  explicit Lifetimes(ProcOp proc) {
    int64_t n = 0;
    proc.walk<WalkOrder::PreOrder>([&](Operation *op) { pos[op] = n++; });
    proc.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = pos[op];
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (Operation &inner : b)
            last = std::max(last, end[&inner]);
      end[op] = last;
    });
  }

  /// The last position at which `window` (or a pointer derived from it) is
  /// used, a use lifted to the operation of the window's own block that
  /// contains it (a whole loop when the use is in its body).
  int64_t lastUse(WindowOp window) {
    int64_t last = pos[window];
    SmallVector<Value> work{window.getResult()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        Operation *a = user;
        while (a && a->getBlock() != window->getBlock())
          a = a->getParentOp();
        last = std::max(last, a ? end[a] : end[user]);
        for (Value r : user->getResults())
          if (isa<PtrType>(r.getType()))
            work.push_back(r);
      }
    }
    return last;
  }
};

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

  /// Place `windows` (in program order) so that two whose lifetimes overlap
  /// never share a byte; a window takes the bytes of an earlier one of the
  /// same size whose lifetime has ended. Returns the bytes used.
  template <typename BytesOf>
  int64_t placeSharing(ProcOp proc, ArrayRef<WindowOp> windows, BytesOf bytesOf) {
    Lifetimes life(proc);
    // (last use, offset, bytes) of the windows placed so far, ended first.
    using Live = std::tuple<int64_t, int64_t, int64_t>;
    std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
    std::map<int64_t, SmallVector<int64_t>> freeBySize;
    int64_t top = 0;
    for (WindowOp window : windows) {
      int64_t start = life.pos[window], bytes = bytesOf(window);
      while (!live.empty() && std::get<0>(live.top()) < start) {
        auto [last, offset, size] = live.top();
        live.pop();
        freeBySize[size].push_back(offset);
      }
      int64_t offset;
      auto &reusable = freeBySize[bytes];
      if (!reusable.empty()) {
        offset = reusable.pop_back_val();
      } else {
        offset = top;
        top += bytes;
      }
      window.setOffset(offset);
      live.push({life.lastUse(window), offset, bytes});
    }
    return top;
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
    SmallVector<WindowOp> fresh;
    proc.walk([&](WindowOp window) {
      if (window.getWorkspace() == proc.getWorkspaceArg() && window.getOffset() < 0 &&
          !isCalleeWindow(window))
        fresh.push_back(window);
    });
    if (own == 0) {
      own = placeSharing(proc, fresh, bytesOf);
    } else {
      // A second run keeps the windows already placed; new ones go after them.
      for (WindowOp window : fresh) {
        window.setOffset(own);
        own += bytesOf(window);
      }
    }
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
