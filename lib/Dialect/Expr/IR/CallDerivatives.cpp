//===- CallDerivatives.cpp - derivative rules of calls, maps and scans ----===//
//
// These rules do not differentiate an op in place: they ask the
// Differentiator for the forward or reverse derivative function of the
// callee and call it the way the op called the callee, so the derivative of
// a call is a call, of a map a map, of a scan a scan (or two).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace scaly::expr;

//===----------------------------------------------------------------------===//
// Calls and maps: derivative functions of the callee
//===----------------------------------------------------------------------===//

static FuncOp calleeOf(Operation *op, FlatSymbolRefAttr callee) {
  return SymbolTable::lookupNearestSymbolFrom<FuncOp>(op, callee);
}

static FlatSymbolRefAttr symbolOf(FuncOp f) { return FlatSymbolRefAttr::get(f.getSymNameAttr()); }

/// Whether each operand of a map is sliced along its leading axis.
static SmallVector<bool> mappedFlags(MapOp map) {
  SmallVector<bool> mapped;
  for (unsigned i = 0; i < map.getNumOperands(); ++i)
    mapped.push_back(map.isMapped(i));
  return mapped;
}

/// Flags of the operands with a tangent, and those tangents.
static std::pair<SmallVector<bool>, SmallVector<Value>> presentTangents(ArrayRef<Value> t) {
  SmallVector<bool> flags;
  SmallVector<Value> values;
  for (Value v : t) {
    flags.push_back(bool(v));
    if (v)
      values.push_back(v);
  }
  return {flags, values};
}

/// The operands of a derivative function's call: the op's, then `extra`.
static SmallVector<Value> withExtra(Operation *op, ArrayRef<Value> extra) {
  SmallVector<Value> args(op->getOperands());
  args.append(extra.begin(), extra.end());
  return args;
}

/// One value per operand: the next of `results` for each flagged operand
/// (passed through `place`), null for the others.
template <typename Fn>
static SmallVector<Value> perOperand(ArrayRef<bool> flags, ValueRange results, Fn place) {
  SmallVector<Value> out(flags.size(), Value());
  unsigned k = 0;
  for (unsigned i = 0; i < flags.size(); ++i)
    if (flags[i])
      out[i] = place(i, results[k++]);
  return out;
}

/// Flags of the float operands (the inputs a reverse sweep gives cotangents).
static SmallVector<bool> floatFlags(ValueRange values) {
  return llvm::to_vector(
      llvm::map_range(values, [](Value v) { return Differentiator::isFloat(v); }));
}

SmallVector<Value> CallOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [wrt, tangents] = presentTangents(t);
  FuncOp g = d.jvpFunction(fn, wrt);
  if (!g)
    return SmallVector<Value>(getNumResults(), Value());
  auto call = d.b.create<CallOp>(d.loc, getResultTypes(), symbolOf(g),
                                 withExtra(*this, tangents), getBlockAttr(), nullptr, nullptr);
  return SmallVector<Value>(call.getResults());
}

SmallVector<Value> CallOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [of, cotangents] = presentTangents(c);
  SmallVector<bool> wrt = floatFlags(getOperands());
  FuncOp g = d.vjpFunction(fn, wrt, of);
  if (!g)
    return SmallVector<Value>(getNumOperands(), Value());
  auto call = d.b.create<CallOp>(d.loc, g.getResultTypes(), symbolOf(g),
                                 withExtra(*this, cotangents), getBlockAttr(), nullptr, nullptr);
  return perOperand(wrt, call.getResults(), [](unsigned, Value v) { return v; });
}

SmallVector<Value> MapOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [wrt, tangents] = presentTangents(t);
  FuncOp g = d.jvpFunction(fn, wrt);
  if (!g)
    return SmallVector<Value>(getNumResults(), Value());
  SmallVector<bool> mapped = mappedFlags(*this);
  for (unsigned i = 0; i < getNumOperands(); ++i)
    if (wrt[i])
      mapped.push_back(isMapped(i));
  auto map = d.b.create<MapOp>(d.loc, getResultTypes(), symbolOf(g), getCountAttr(),
                               withExtra(*this, tangents), getBlockAttr(),
                               d.b.getDenseBoolArrayAttr(mapped));
  return SmallVector<Value>(map.getResults());
}

// Iteration i's cotangents of its inputs; an input passed whole to every
// iteration (in_axes None) gets the sum over iterations.
SmallVector<Value> MapOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [of, cotangents] = presentTangents(c);
  SmallVector<bool> wrt = floatFlags(getOperands());
  FuncOp g = d.vjpFunction(fn, wrt, of);
  if (!g)
    return SmallVector<Value>(getNumOperands(), Value());
  SmallVector<bool> mapped = mappedFlags(*this);
  mapped.append(cotangents.size(), true);
  SmallVector<Type> types;
  for (Type t : g.getResultTypes())
    types.push_back(withLeadingAxis(t, getCount()));
  auto map = d.b.create<MapOp>(d.loc, types, symbolOf(g), getCountAttr(),
                               withExtra(*this, cotangents), getBlockAttr(),
                               d.b.getDenseBoolArrayAttr(mapped));
  return perOperand(wrt, map.getResults(), [&](unsigned i, Value stacked) {
    return isMapped(i) ? stacked : d.reduce("sum", stacked, {0});
  });
}


static SmallVector<std::string> portNames(ArrayAttr names, StringRef prefix = "") {
  SmallVector<std::string> out;
  for (Attribute n : names)
    out.push_back((prefix + cast<StringAttr>(n).getValue()).str());
  return out;
}

// Forward mode through a scan: a scan of the pair (state, state tangent),
// stacked into one carried array of shape (2, ...) so that the loop still
// carries one value; its step calls the step function and its jvp.
SmallVector<Value> ScanOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  SmallVector<Value> none(getNumResults(), Value());
  Value s0 = getOperand(0);
  if (!Differentiator::isFloat(s0)) {
    d.fail(*this, "differentiates a scan whose state is not float");
    return none;
  }
  auto [wrt, tangents] = presentTangents(t);
  wrt[0] = true; // the state's tangent evolves even from a zero start
  FuncOp jf = d.jvpFunction(fn, wrt);
  if (!jf)
    return none;
  unsigned nin = getNumOperands();
  Type stateType = s0.getType();
  auto pairType = withLeadingAxis(stateType, 2);
  ArrayRef<int64_t> stateShape = cast<RankedTensorType>(stateType).getShape();
  SmallVector<int64_t> one{1}; // the state as one row of the pair
  one.append(stateShape.begin(), stateShape.end());

  // step(pair, x..., tx...) -> (pair', y..., ty...)
  SmallVector<Type> ins{pairType}, outs{pairType};
  SmallVector<std::string> inNames{"pair"}, outNames{"pair_next"};
  for (unsigned i = 1; i < nin; ++i) {
    ins.push_back(fn.getArgumentTypes()[i]);
    inNames.push_back(portNames(fn.getArgNames())[i]);
  }
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      ins.push_back(fn.getArgumentTypes()[i]);
      inNames.push_back("d_" + portNames(fn.getArgNames())[i]);
    }
  auto resNames = portNames(fn.getResNames());
  for (unsigned j = 1; j < fn.getResultTypes().size(); ++j) {
    outs.push_back(fn.getResultTypes()[j]);
    outNames.push_back(resNames[j]);
  }
  for (unsigned j = 1; j < fn.getResultTypes().size(); ++j) {
    outs.push_back(fn.getResultTypes()[j]);
    outNames.push_back("d_" + resNames[j]);
  }
  FuncOp step = d.newFunction(fn, (fn.getSymName() + "_scan_jvp").str(), ins, inNames, outs,
                              outNames);
  {
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = step.getBody().front();
    d.b.setInsertionPointToStart(&body);
    Value pair = body.getArgument(0);
    Value s = d.takeLeading(pair, 0), ds = d.takeLeading(pair, 1);
    SmallVector<Value> primalArgs{s}, jvpArgs{s};
    for (unsigned i = 1; i < nin; ++i) {
      primalArgs.push_back(body.getArgument(i));
      jvpArgs.push_back(body.getArgument(i));
    }
    jvpArgs.push_back(ds);
    for (unsigned k = nin; k < body.getNumArguments(); ++k)
      jvpArgs.push_back(body.getArgument(k));
    auto primal = d.b.create<CallOp>(d.loc, fn.getResultTypes(), getCalleeAttr(), primalArgs,
                                     getBlockAttr(), nullptr, nullptr);
    auto tangent = d.b.create<CallOp>(d.loc, jf.getResultTypes(),
                                      symbolOf(jf), jvpArgs,
                                      getBlockAttr(), nullptr, nullptr);
    SmallVector<Value> results{d.concat({d.reshape(primal.getResult(0), one),
                                         d.reshape(tangent.getResult(0), one)},
                                        0, pairType)};
    for (unsigned j = 1; j < primal.getNumResults(); ++j)
      results.push_back(primal.getResult(j));
    for (unsigned j = 1; j < tangent.getNumResults(); ++j)
      results.push_back(tangent.getResult(j));
    d.b.create<ReturnOp>(d.loc, results);
  }

  Value pair0 = d.concat({d.reshape(s0, one), d.reshape(d.orZeros(t[0], stateType), one)}, 0,
                         pairType);
  SmallVector<Value> args{pair0};
  SmallVector<bool> mapped{false};
  for (unsigned i = 1; i < nin; ++i) {
    args.push_back(getOperand(i));
    mapped.push_back(isMapped(i));
  }
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      args.push_back(t[i]);
      mapped.push_back(isMapped(i));
    }
  SmallVector<Type> types{pairType};
  for (unsigned j = 1; j < outs.size(); ++j)
    types.push_back(withLeadingAxis(outs[j], getCount()));
  auto scan = d.b.create<ScanOp>(d.loc, types, symbolOf(step),
                                 getCountAttr(), args, getBlockAttr(),
                                 d.b.getDenseBoolArrayAttr(mapped));
  SmallVector<Value> out{d.takeLeading(scan.getResult(0), 1)};
  unsigned others = getNumResults() - 1;
  for (unsigned j = 0; j < others; ++j)
    out.push_back(scan.getResult(1 + others + j));
  return out;
}

// Reverse mode through a scan: a forward scan that also stacks the state
// each step starts from, then a scan over the reversed steps carrying the
// state's cotangent; each reverse step calls the step function's vjp.
SmallVector<Value> ScanOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  unsigned nin = getNumOperands(), nout = getNumResults();
  SmallVector<Value> none(nin, Value());
  Value s0 = getOperand(0);
  if (!Differentiator::isFloat(s0)) {
    d.fail(*this, "differentiates a scan whose state is not float");
    return none;
  }
  Type stateType = s0.getType();
  int64_t n = getCount();
  SmallVector<bool> wrt = floatFlags(getOperands());
  SmallVector<bool> of{true};
  for (unsigned j = 1; j < nout; ++j)
    of.push_back(bool(c[j]));
  auto argNames = portNames(fn.getArgNames());

  // 1. Forward, stacking the state each step starts from.
  SmallVector<Type> fwdIns(fn.getArgumentTypes());
  FuncOp fwd = d.newFunction(fn, (fn.getSymName() + "_states").str(), fwdIns, argNames,
                             {stateType, stateType}, {"state_next", "state"});
  {
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = fwd.getBody().front();
    d.b.setInsertionPointToStart(&body);
    auto call = d.b.create<CallOp>(d.loc, fn.getResultTypes(), getCalleeAttr(),
                                   ValueRange(body.getArguments()), getBlockAttr(), nullptr,
                                   nullptr);
    d.b.create<ReturnOp>(d.loc, ValueRange{call.getResult(0), body.getArgument(0)});
  }
  SmallVector<bool> mapped;
  for (unsigned i = 0; i < nin; ++i)
    mapped.push_back(isMapped(i));
  auto states = d.b.create<ScanOp>(
      d.loc, TypeRange{stateType, withLeadingAxis(stateType, n)},
      symbolOf(fwd), getCountAttr(), getOperands(), getBlockAttr(),
      d.b.getDenseBoolArrayAttr(mapped));

  // 2. Backward: step(sbar, s_i, x_i..., ybar_i...) -> (sbar_prev, xbar_i...).
  SmallVector<Type> ins{stateType, stateType};
  SmallVector<std::string> inNames{"adj_state", "state"};
  for (unsigned i = 1; i < nin; ++i) {
    ins.push_back(fn.getArgumentTypes()[i]);
    inNames.push_back(argNames[i]);
  }
  auto resNames = portNames(fn.getResNames(), "adj_");
  for (unsigned j = 1; j < nout; ++j)
    if (of[j]) {
      ins.push_back(fn.getResultTypes()[j]);
      inNames.push_back(resNames[j]);
    }
  SmallVector<Type> outs{stateType};
  SmallVector<std::string> outNames{"adj_state_prev"};
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      outs.push_back(fn.getArgumentTypes()[i]);
      outNames.push_back("adj_" + argNames[i]);
    }
  // Built only when a reverse scan runs (not for one step whose final state
  // is unused).
  auto makeBack = [&]() -> FuncOp {
    FuncOp vf = d.vjpFunction(fn, wrt, of);
    if (!vf)
      return nullptr;
    FuncOp back = d.newFunction(fn, (fn.getSymName() + "_scan_vjp").str(), ins, inNames, outs,
                                outNames);
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = back.getBody().front();
    d.b.setInsertionPointToStart(&body);
    SmallVector<Value> args{body.getArgument(1)};
    for (unsigned i = 1; i < nin; ++i)
      args.push_back(body.getArgument(i + 1));
    args.push_back(body.getArgument(0));
    for (unsigned k = nin + 1; k < body.getNumArguments(); ++k)
      args.push_back(body.getArgument(k));
    auto call = d.b.create<CallOp>(d.loc, vf.getResultTypes(),
                                   symbolOf(vf), args,
                                   getBlockAttr(), nullptr, nullptr);
    d.b.create<ReturnOp>(d.loc, call.getResults());
    return back;
  };
  // 3. When the final state is unused its cotangent is zero: the last step
  //    is then differentiated on its own, without it (its state cotangent
  //    not asked for), so no product with that zero reaches the C or the
  //    derivative's sparsity pattern, which stays exact; the reverse scan
  //    runs over the other steps.
  bool peel = !c[0] && n > 0;
  int64_t steps = peel ? n - 1 : n;
  SmallVector<Value> lastAdj(outs.size());
  Value carry = c[0];
  if (peel) {
    SmallVector<bool> ofLast(of);
    ofLast[0] = false;
    if (llvm::none_of(ofLast, [](bool b) { return b; }))
      return none; // nothing of the scan is used
    FuncOp vfLast = d.vjpFunction(fn, wrt, ofLast);
    if (!vfLast)
      return none;
    SmallVector<Value> lastArgs{d.takeLeading(states.getResult(1), n - 1)};
    for (unsigned i = 1; i < nin; ++i)
      lastArgs.push_back(isMapped(i) ? d.takeLeading(getOperand(i), n - 1) : getOperand(i));
    for (unsigned j = 1; j < nout; ++j)
      if (of[j])
        lastArgs.push_back(d.takeLeading(c[j], n - 1));
    auto last = d.b.create<CallOp>(d.loc, vfLast.getResultTypes(), symbolOf(vfLast), lastArgs,
                                   getBlockAttr(), nullptr, nullptr);
    for (unsigned k = 0; k < outs.size(); ++k)
      lastAdj[k] = last.getResult(k);
    carry = lastAdj[0];
  }
  // Stacked adjoints of the inputs per step, in step order (null: none yet).
  SmallVector<Value> stackedAdj(outs.size());
  if (steps > 0) {
    FuncOp back = makeBack();
    if (!back)
      return none;
    // The first `steps` elements of x's leading axis, last first.
    auto firstSteps = [&](Value x) {
      ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
      SmallVector<int64_t> starts(shape.size(), 0), strides(shape.size(), 1), sizes(shape);
      starts[0] = steps - 1;
      strides[0] = -1;
      sizes[0] = steps;
      return d.slice(x, starts, strides, sizes);
    };
    SmallVector<Value> args{d.orZeros(carry, stateType), firstSteps(states.getResult(1))};
    SmallVector<bool> backMapped{false, true};
    for (unsigned i = 1; i < nin; ++i) {
      args.push_back(isMapped(i) ? firstSteps(getOperand(i)) : getOperand(i));
      backMapped.push_back(isMapped(i));
    }
    for (unsigned j = 1; j < nout; ++j)
      if (of[j]) {
        args.push_back(firstSteps(c[j]));
        backMapped.push_back(true);
      }
    SmallVector<Type> types{stateType};
    for (unsigned k = 1; k < outs.size(); ++k)
      types.push_back(withLeadingAxis(outs[k], steps));
    auto reversed = d.b.create<ScanOp>(d.loc, types, symbolOf(back),
                                       d.b.getI64IntegerAttr(steps), args, getBlockAttr(),
                                       d.b.getDenseBoolArrayAttr(backMapped));
    carry = reversed.getResult(0);
    for (unsigned k = 1; k < outs.size(); ++k)
      stackedAdj[k] = d.reverseLeading(reversed.getResult(k));
  }
  SmallVector<Value> out{carry};
  unsigned k = 1;
  for (unsigned i = 1; i < nin; ++i) {
    if (!wrt[i]) {
      out.push_back(Value());
      continue;
    }
    Value stacked = stackedAdj[k], lastOne = lastAdj[k];
    ++k;
    if (lastOne && isMapped(i)) { // the last step's adjoint ends the stack
      SmallVector<int64_t> one{1};
      llvm::append_range(one, cast<RankedTensorType>(lastOne.getType()).getShape());
      Value row = d.reshape(lastOne, one);
      out.push_back(stacked ? d.concat({stacked, row}, 0, withLeadingAxis(outs[k - 1], n))
                            : row);
    } else if (isMapped(i)) {
      out.push_back(stacked);
    } else {
      out.push_back(d.add(stacked ? d.reduce("sum", stacked, {0}) : Value(), lastOne));
    }
  }
  return out;
}
