//===- LazyValues.cpp - int indexes and calls recorded, built when needed ===//
//
// A model unrolled in Python, `for k in range(n): x = step(x, u[k])`, traces
// one index and one call per step. Built at once, that is 3n ops (slice,
// reshape, call), which scaly-roll-call-chains then folds back into one
// expr.scan: at n = 10^4 some 60 ms of op building, hashing and rolling. So
// Graph::index and Graph::call record what they were asked for; while only
// such records are traced, nothing is built. Then:
//
//  * any other op, or a value asked of a record's id, builds the pending
//    records in order, before that op: the graph is the one eager tracing
//    makes;
//  * but when the value asked for is the final state of a chain the pending
//    records form (the pass's rule: at least kMinRolledChain calls of one
//    function, each taking the previous call's first result first, and
//    otherwise the same values or rows of one array, with a floating-point
//    state) or a record after the chain, the chain becomes one expr.scan,
//    built where the chain's first call would have been, walking each
//    array's rows as one strided slice when they are evenly spaced
//    (k0, k0 + d, k0 + 2d, ...) and as one gather otherwise.
//
// A record of a rolled chain is built if it is asked for later (a Python
// variable kept from inside the loop): a call's other results are rows of
// the scan's stacked outputs; an intermediate state builds the chain's calls,
// whose last state then replaces the scan's: the graph eager tracing makes
// (scaly-roll-call-chains leaves a chain whose states are used alone).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Trace/Graph.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"

#include <climits>
#include <optional>

using namespace mlir;

namespace scaly::trace {

namespace {
/// Sets a location for a scope and restores the one before, also when the
/// scope is left by an exception.
struct LocationScope {
  mlir::Location &loc;
  mlir::Location saved;
  LocationScope(mlir::Location &loc, mlir::Location at) : loc(loc), saved(loc) { loc = at; }
  ~LocationScope() { loc = saved; }
  LocationScope(const LocationScope &) = delete;
  LocationScope &operator=(const LocationScope &) = delete;
};
} // namespace

unsigned Graph::LazyRecord::results() const {
  return isCall ? static_cast<unsigned>(fn->outputs.size()) : 1;
}

Type Graph::resultType(const LazyRecord &r, unsigned result) const {
  return r.isCall ? r.fn->portTypes(ctx_, true)[result] : r.type;
}

int32_t Graph::recordLazily(LazyRecord record) {
  static_assert(sizeof(LazyRecord) <= 64, "two records per step of an unrolled loop");
  size_t count = record.results();
  if (values_.size() + count >= static_cast<size_t>(INT32_MAX) ||
      records_.size() >= kNotLazy - 1)
    throw std::length_error("expression graph exceeds 2^31 values");
  auto first = static_cast<int32_t>(values_.size());
  auto index = static_cast<uint32_t>(records_.size());
  record.id = first;
  values_.resize(values_.size() + count);
  lazy_.resize(values_.size(), kNotLazy);
  for (size_t k = 0; k < count; ++k)
    lazy_[first + k] = index;
  records_.push_back(record);
  return first;
}

bool Graph::isPending(int32_t id) const {
  uint32_t k = recordOf(id);
  return k != kNotLazy && k >= pendingBegin_;
}

Type Graph::typeOf(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= values_.size())
    throw std::out_of_range("expression node " + std::to_string(id) + " is not in this graph");
  if (values_[id])
    return values_[id].getType();
  const LazyRecord &r = records_[recordOf(id)];
  return resultType(r, static_cast<unsigned>(id - r.id));
}

void Graph::materialize(int32_t id) {
  uint32_t k = recordOf(id);
  if (k == kNotLazy)
    throw std::logic_error("expression node " + std::to_string(id) + " has no value");
  auto result = static_cast<unsigned>(id - records_[k].id);
  if (k >= pendingBegin_)
    flushPending(id);
  if (values_[id])
    return;
  // A record of a rolled chain, asked for after the roll.
  const LazyRecord &r = records_[k];
  if (r.rolled && result > 0) {
    // Call `step`'s other result: row `step` of the scan's stacked output.
    LocationScope at(loc_, r.loc);
    int32_t row = indexNow(r.base + static_cast<int32_t>(result), r.row);
    values_[id] = values_[row];
    return;
  }
  if (r.rolled)
    unrollChain(k);
  else if (r.isCall)
    buildChainUpTo(k);
  else
    build(k);
}

void Graph::unrollChain(size_t k) {
  // Records pending now are built where they are, at the end.
  if (pendingBegin_ < records_.size())
    flushPending(-1);
  // The calls go where the scan is: before every op using its values, which
  // then use theirs.
  Operation *scan = values_[records_[k].base].getDefiningOp();
  OpBuilder::InsertionGuard keep(builder_);
  builder_.setInsertionPoint(scan);
  bool wasUnrolling = unrolling_;
  unrolling_ = true;
  auto restore = llvm::make_scope_exit([&] { unrolling_ = wasUnrolling; });
  buildChainUpTo(records_[k].chainLast);
}

void Graph::flushPending(int32_t asked) {
  size_t begin = pendingBegin_, end = records_.size();
  // Taken: what is built from here on (by the records themselves) is not
  // held back again.
  pendingBegin_ = end;
  if (asked >= 0 && rollPending(begin, end, asked))
    return;
  for (size_t k = begin; k < end; ++k)
    build(k);
}

void Graph::build(size_t k) {
  if (records_[k].built)
    return;
  // Built where pending records would be built first (a rolled chain's
  // record asked for while others are pending).
  if (pendingBegin_ < records_.size())
    flushPending(-1);
  const LazyRecord &r = records_[k];
  LocationScope at(loc_, r.loc);
  if (!r.isCall) {
    int32_t v = indexNow(r.base, r.row);
    values_[r.id] = values_[v];
  } else {
    SmallVector<Value> operands;
    for (int32_t a : argsOf(r))
      operands.push_back(value(a));
    Operation *op = createCall(lazyCallees_.lookup(r.fn), operands);
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      int32_t id = r.id + static_cast<int32_t>(i);
      ids_[result] = id;
      // A rolled chain's value so far (the scan's state, a row of its
      // stacked output): the call's own replaces it.
      if (values_[id]) {
        values_[id].replaceAllUsesWith(result);
        unrolled_[values_[id]] = result;
      }
      values_[id] = result;
    }
    replaceUnrolled(op);
  }
  records_[k].built = true;
}

void Graph::replaceUnrolled(Operation *op) {
  if (unrolled_.empty())
    return;
  for (OpOperand &operand : op->getOpOperands())
    if (auto it = unrolled_.find(operand.get()); it != unrolled_.end())
      operand.set(it->second);
}

void Graph::buildChainUpTo(size_t k) {
  // The unbuilt calls feeding record k's state, back to a built value: built
  // first to last (no recursion as deep as the chain).
  SmallVector<size_t> chain{k};
  for (;;) {
    int32_t state = argsOf(records_[chain.back()]).front();
    if (values_[state])
      break;
    uint32_t c = recordOf(state);
    if (c == kNotLazy || !records_[c].isCall)
      break;
    chain.push_back(c);
  }
  for (size_t c : llvm::reverse(chain))
    build(c);
}

namespace {

/// How an operand after the state changes along a chain.
struct Walk {
  bool rows = false; ///< rows of `base` moving by `delta` (0: one row
  int32_t base = -1; ///< indexed again in each step); else the same value
  int64_t first = 0, delta = 0;
  std::vector<int64_t> at; ///< each step's row, once they are not evenly spaced
};

} // namespace

bool Graph::rollPending(size_t begin, size_t end, int32_t asked) {
  SmallVector<size_t> calls;
  for (size_t k = begin; k < end; ++k)
    if (records_[k].isCall)
      calls.push_back(k);
  if (calls.size() < expr::kMinRolledChain)
    return false;
  const LazyRecord &first = records_[calls.front()];
  const LazyRecord &last = records_[calls.back()];
  ArrayRef<int32_t> firstArgs = argsOf(first);
  // A float state, threaded through calls of one function.
  Type state = resultType(first, 0);
  if (firstArgs.empty() ||
      !llvm::isa<FloatType>(llvm::cast<RankedTensorType>(state).getElementType()) ||
      typeOf(firstArgs.front()) != state)
    return false;
  // The record of `id` when it is one of the pending ones.
  auto pendingRecord = [&](int32_t id) -> std::optional<size_t> {
    uint32_t k = recordOf(id);
    if (k == kNotLazy || k < begin)
      return std::nullopt;
    return k;
  };
  auto indexRecord = [&](int32_t id) -> const LazyRecord * {
    auto k = pendingRecord(id);
    return k && !records_[*k].isCall ? &records_[*k] : nullptr;
  };
  // How each operand moves, from the first two calls.
  ArrayRef<int32_t> secondArgs = argsOf(records_[calls[1]]);
  SmallVector<Walk> walks(firstArgs.size());
  for (size_t j = 1; j < firstArgs.size(); ++j) {
    int32_t a = firstArgs[j], b = secondArgs[j];
    if (a == b)
      continue;
    const LazyRecord *ra = indexRecord(a), *rb = indexRecord(b);
    if (!ra || !rb || ra->base != rb->base)
      return false;
    walks[j] = {true, ra->base, ra->row, rb->row - ra->row, {}};
  }
  // Every call follows; each walked row is used by its call alone and lies
  // between it and the call before; nothing else lies between the calls.
  // Uses of each pending index record by the chain's calls (the rows they walk).
  std::vector<uint8_t> uses(end - begin, 0);
  auto used = [&](size_t k) { return k >= begin && uses[k - begin] > 0; };
  for (size_t i = 0; i < calls.size(); ++i) {
    const LazyRecord &c = records_[calls[i]];
    ArrayRef<int32_t> args = argsOf(c);
    if (c.fn != first.fn || (i && args.front() != records_[calls[i - 1]].id))
      return false;
    size_t after = i ? calls[i - 1] : begin;
    for (size_t j = 1; j < args.size(); ++j) {
      Walk &w = walks[j];
      if (!w.rows) {
        if (args[j] != firstArgs[j])
          return false;
        continue;
      }
      auto k = pendingRecord(args[j]);
      if (!k || records_[*k].isCall || *k < after || *k > calls[i] ||
          records_[*k].base != w.base)
        return false;
      if (uses[*k - begin]++) // a row used twice is no walk
        return false;
      // Rows not evenly spaced (`u[k // 2]`, `u[idx[k]]`) are gathered.
      int64_t row = records_[*k].row;
      if (w.at.empty() && row != w.first + int64_t(i) * w.delta)
        for (size_t p = 0; p < i; ++p)
          w.at.push_back(w.first + int64_t(p) * w.delta);
      if (!w.at.empty())
        w.at.push_back(row);
    }
  }
  for (size_t k = calls.front(); k < calls.back(); ++k)
    if (!records_[k].isCall && !used(k))
      return false;
  // Every call of the run is the chain's; of its values, only the final
  // state may be used outside it.
  auto chainOwned = [&](int32_t id) {
    auto k = pendingRecord(id);
    return k && id != last.id && (records_[*k].isCall || used(*k));
  };
  auto usesChain = [&](const LazyRecord &r) {
    return r.isCall ? llvm::any_of(argsOf(r), chainOwned) : chainOwned(r.base);
  };
  for (size_t k = begin; k < calls.front(); ++k)
    if (!used(k) && usesChain(records_[k]))
      return false;
  for (size_t k = calls.back() + 1; k < end; ++k)
    if (usesChain(records_[k]))
      return false;
  // Asked for: the final state, or a record after the chain.
  auto askedRecord = pendingRecord(asked);
  if (!askedRecord || (asked != last.id && *askedRecord <= calls.back()))
    return false;

  // Roll: the records before the chain (but its rows), the walked rows as
  // strided slices, the scan, then the records after the chain.
  for (size_t k = begin; k < calls.front(); ++k)
    if (!used(k))
      build(k);
  int64_t n = static_cast<int64_t>(calls.size());
  std::vector<int32_t> args{firstArgs.front()};
  std::vector<bool> mapped{false};
  int32_t scanned;
  {
    // The slices and the scan stand for the whole chain: its first and last calls' places.
    LocationScope at(loc_, FusedLoc::get(&ctx_, {first.loc, last.loc}));
    for (size_t j = 1; j < firstArgs.size(); ++j) {
      const Walk &w = walks[j];
      bool gathered = !w.at.empty();
      mapped.push_back(w.rows && (w.delta != 0 || gathered));
      // The same row in every step is passed whole; evenly spaced rows as
      // one slice, others as one gather.
      args.push_back(!w.rows                      ? firstArgs[j]
                     : gathered                   ? gatherRows(w.base, w.at)
                     : w.delta == 0 ? indexNow(w.base, w.first)
                                    : rows(w.base, w.first, w.delta, n));
    }
    scanned = scan(lazyCallees_.lookup(first.fn), n, std::move(args), std::move(mapped)).front();
  }
  values_[last.id] = values_[scanned];
  for (size_t i = 0; i < calls.size(); ++i) {
    LazyRecord &c = records_[calls[i]];
    c.rolled = true;
    c.base = scanned;
    c.row = static_cast<int64_t>(i);
    c.chainLast = static_cast<uint32_t>(calls.back());
  }
  for (size_t k = calls.back() + 1; k < end; ++k)
    build(k);
  return true;
}

} // namespace scaly::trace
