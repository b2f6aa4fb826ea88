//===- Applications.cpp - calls, maps, scans and derivatives of Functions -===//
//
// The graph's ops that apply a traced Function: expr.call, expr.map,
// expr.scan, expr.jvp and expr.vjp. Each names its Function by a placeholder
// symbol of this graph (bound to a module's symbol by BuildModule.cpp) and
// is never merged with another application.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Trace/Graph.h"

#include <algorithm>

using namespace mlir;

namespace scaly::trace {

/// Check `args` against `fn`'s inputs; an argument with its `mapped` flag
/// set (or every one, when `leading` >= 0 and `mapped` is empty) needs an
/// extra leading axis of length `leading`.
static void checkArgs(const Function &fn, const std::vector<int32_t> &args, const Graph &g,
                      int64_t leading, const std::vector<bool> &mapped = {}) {
  if (args.size() != fn.inputs.size())
    throw std::invalid_argument(fn.name + "() takes " + std::to_string(fn.inputs.size()) +
                                " inputs, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    Shape got = g.shape(args[i]);
    DType gotType = g.dtype(args[i]);
    Shape want = fn.inputs[i].shape;
    if (leading >= 0 && (mapped.empty() || mapped[i]))
      want.insert(want.begin(), leading);
    if (got != want)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects shape " +
                                  shapeString(want) + ", got " + shapeString(got));
    if (gotType != fn.inputs[i].dtype)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects dtype " +
                                  dtypeName(fn.inputs[i].dtype) + ", got " + dtypeName(gotType));
  }
}

/// The values of `ids`.
static SmallVector<Value> valuesOf(const Graph &g, const std::vector<int32_t> &ids) {
  SmallVector<Value> out;
  for (int32_t id : ids)
    out.push_back(g.value(id));
  return out;
}

/// The result types of `fn`'s outputs, with a leading axis of `count` on
/// those flagged by `stacked` (all when `stacked` is empty and count >= 0).
static SmallVector<Type> outputTypes(MLIRContext &ctx, const Function &fn, int64_t count,
                                     bool stateFirst) {
  SmallVector<Type> types;
  for (size_t k = 0; k < fn.outputs.size(); ++k) {
    Shape s = fn.outputs[k].shape;
    if (count >= 0 && !(stateFirst && k == 0))
      s.insert(s.begin(), count);
    types.push_back(tensorType(ctx, s, fn.outputs[k].dtype));
  }
  return types;
}

std::vector<int32_t> Graph::applied(Operation *op) {
  add(op, /*intern=*/false);
  return resultIds(op);
}

const std::vector<Type> &Function::portTypes(MLIRContext &ctx, bool outputs) const {
  std::vector<Type> &types = outputs ? outputTypes_ : inputTypes_;
  const std::vector<Port> &ports = outputs ? this->outputs : inputs;
  if (types.size() != ports.size()) {
    types.clear();
    for (const Port &p : ports)
      types.push_back(tensorType(ctx, p.shape, p.dtype));
  }
  return types;
}

std::vector<int32_t> Graph::call(std::shared_ptr<const Function> fn, std::vector<int32_t> args) {
  // Operands of the inputs' types (no value is asked for); checked again
  // for the message when they are not.
  const std::vector<Type> &want = fn->portTypes(ctx_, false);
  bool typed = args.size() == want.size();
  for (size_t i = 0; typed && i < args.size(); ++i)
    typed = typeOf(args[i]) == want[i];
  if (!typed)
    checkArgs(*fn, args, *this, -1);
  const std::vector<Type> &types = fn->portTypes(ctx_, true);
  // Recorded lazily when it may continue the pending records: its operands
  // are built values or pending records (a rolled chain's record is built
  // first, by value() below).
  bool lazy = !types.empty() && std::all_of(args.begin(), args.end(), [&](int32_t a) {
    return values_[a] || isPending(a);
  });
  if (lazy && args.size() <= UINT16_MAX && lazyArgs_.size() + args.size() < UINT32_MAX) {
    LazyRecord r(loc_);
    r.isCall = true;
    r.fn = fn.get();
    lazyCallees_.try_emplace(r.fn, std::move(fn));
    r.argsBegin = static_cast<uint32_t>(lazyArgs_.size());
    r.argsCount = static_cast<uint16_t>(args.size());
    lazyArgs_.insert(lazyArgs_.end(), args.begin(), args.end());
    int32_t first = recordLazily(std::move(r));
    std::vector<int32_t> ids(types.size());
    for (size_t k = 0; k < ids.size(); ++k)
      ids[k] = first + static_cast<int32_t>(k);
    return ids;
  }
  return applied(createCall(fn, valuesOf(*this, args)));
}

Operation *Graph::createCall(const std::shared_ptr<const Function> &fn, ValueRange operands) {
  StringRef callee = calleeSymbol(fn).getValue();
  return builder_.create<expr::CallOp>(loc_, fn->portTypes(ctx_, true), callee, operands,
                                       fn->block, nullptr, nullptr);
}

/// Checks derivative operands: fn's inputs, then one extra value per port
/// flagged in `flags` (of `ports`), which must be float.
static void checkDerivativeArgs(const Function &fn, const std::vector<int32_t> &args,
                                const Graph &g, const std::vector<Port> &ports,
                                const std::vector<bool> &flags, const char *what) {
  if (flags.size() != ports.size())
    throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): " +
                                std::to_string(flags.size()) + " flags for " +
                                std::to_string(ports.size()) + " ports");
  std::vector<int32_t> primal(args.begin(), args.begin() + std::min(args.size(), fn.inputs.size()));
  checkArgs(fn, primal, g, -1);
  size_t k = fn.inputs.size();
  for (size_t i = 0; i < ports.size(); ++i) {
    if (!flags[i])
      continue;
    if (!isFloat(ports[i].dtype))
      throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): '" + ports[i].name +
                                  "' is " + dtypeName(ports[i].dtype) +
                                  "; only float64 and float32 values have derivatives");
    if (k >= args.size())
      throw std::invalid_argument(std::string(what) + " of " + fn.name +
                                  "(): missing the value for '" + ports[i].name + "'");
    Shape got = g.shape(args[k]);
    DType gotType = g.dtype(args[k++]);
    if (got != ports[i].shape || gotType != ports[i].dtype)
      throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): the value for '" +
                                  ports[i].name + "' must be " + dtypeName(ports[i].dtype) +
                                  shapeString(ports[i].shape) + ", got " + dtypeName(gotType) +
                                  shapeString(got));
  }
  if (k != args.size())
    throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): " +
                                std::to_string(args.size()) + " operands, expected " +
                                std::to_string(k));
}

std::vector<int32_t> Graph::jvp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                                std::vector<bool> wrt, bool exactZeros) {
  SmallVector<Value> operands = valuesOf(*this, args); // each id is checked here
  checkDerivativeArgs(*fn, args, *this, fn->inputs, wrt, "jvp");
  auto types = outputTypes(ctx_, *fn, -1, false);
  SmallVector<bool> flags(wrt.begin(), wrt.end());
  StringRef callee = calleeSymbol(fn).getValue();
  auto op = builder_.create<expr::JvpOp>(loc_, types, callee,
                                         operands, flags);
  op.setExactZeros(exactZeros);
  return applied(op);
}

std::vector<int32_t> Graph::vjp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                                std::vector<bool> wrt, std::vector<bool> of,
                                bool exactZeros) {
  SmallVector<Value> operands = valuesOf(*this, args); // each id is checked here
  if (wrt.size() != fn->inputs.size())
    throw std::invalid_argument("vjp of " + fn->name + "(): " + std::to_string(wrt.size()) +
                                " wrt flags for " + std::to_string(fn->inputs.size()) + " inputs");
  checkDerivativeArgs(*fn, args, *this, fn->outputs, of, "vjp");
  SmallVector<Type> types;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (wrt[i]) {
      if (!isFloat(fn->inputs[i].dtype))
        throw std::invalid_argument("vjp of " + fn->name + "(): input '" + fn->inputs[i].name +
                                    "' is " + dtypeName(fn->inputs[i].dtype) +
                                    "; only float64 and float32 values have derivatives");
      types.push_back(tensorType(fn->inputs[i].shape, fn->inputs[i].dtype));
    }
  SmallVector<bool> wrtFlags(wrt.begin(), wrt.end()), ofFlags(of.begin(), of.end());
  StringRef callee = calleeSymbol(fn).getValue();
  auto op = builder_.create<expr::VjpOp>(loc_, types, callee,
                                         operands, wrtFlags, ofFlags);
  op.setExactZeros(exactZeros);
  return applied(op);
}

/// The checks a map and a scan share: at least one iteration, valid operand
/// ids, one `in_axes` flag per operand (none: all mapped).
static void checkLoop(const char *what, int64_t count, const std::vector<int32_t> &args,
                      const std::vector<bool> &mapped, const Graph &g) {
  if (count < 1)
    throw std::invalid_argument(std::string(what) + ": count must be at least 1, got " +
                                std::to_string(count));
  for (int32_t a : args)
    g.value(a);
  if (!mapped.empty() && mapped.size() != args.size())
    throw std::invalid_argument(std::string(what) + ": in_axes has " +
                                std::to_string(mapped.size()) + " entries for " +
                                std::to_string(args.size()) + " inputs");
}

std::vector<int32_t> Graph::map(std::shared_ptr<const Function> fn, int64_t count,
                                std::vector<int32_t> args, std::vector<bool> mapped) {
  checkLoop("vmap", count, args, mapped, *this);
  checkArgs(*fn, args, *this, count, mapped);
  // Flags only when some operand is passed whole.
  DenseBoolArrayAttr flags;
  if (std::find(mapped.begin(), mapped.end(), false) != mapped.end())
    flags = builder_.getDenseBoolArrayAttr(SmallVector<bool>(mapped.begin(), mapped.end()));
  auto types = outputTypes(ctx_, *fn, count, false);
  bool block = fn->block;
  StringRef callee = calleeSymbol(fn).getValue();
  auto op = builder_.create<expr::MapOp>(loc_, types, callee, count,
                                         valuesOf(*this, args), block, flags);
  return applied(op);
}

std::vector<int32_t> Graph::scan(std::shared_ptr<const Function> fn, int64_t count,
                                 std::vector<int32_t> args, std::vector<bool> mapped) {
  checkLoop("scan", count, args, mapped, *this);
  if (fn->inputs.empty() || fn->outputs.empty() ||
      fn->inputs[0].shape != fn->outputs[0].shape || fn->inputs[0].dtype != fn->outputs[0].dtype)
    throw std::invalid_argument("scan: " + fn->name +
                                "'s first input and first output are the state and must have "
                                "the same shape and dtype");
  if (args.empty())
    throw std::invalid_argument("scan: " + fn->name + " needs its initial state as the first "
                                "argument");
  if (mapped.empty())
    mapped.assign(args.size(), true);
  mapped[0] = false; // the state is never sliced
  checkArgs(*fn, args, *this, count, mapped);
  auto flags = builder_.getDenseBoolArrayAttr(SmallVector<bool>(mapped.begin(), mapped.end()));
  auto types = outputTypes(ctx_, *fn, count, true);
  bool block = fn->block;
  StringRef callee = calleeSymbol(fn).getValue();
  auto op = builder_.create<expr::ScanOp>(loc_, types, callee, count,
                                          valuesOf(*this, args), block, flags);
  return applied(op);
}

} // namespace scaly::trace
