//===- HelperFunctions.cpp - the C helpers of reductions and products -----===//
//
// Each helper is an emitc.func of EmitC ops: loops (emitc.for), variables
// (emitc.variable / emitc.assign), branches (emitc.if), the pairwise sum's
// recursion (emitc.call). Values print where they are used once, so an op
// built just before its use reads in C as one expression; a value used
// several times, or inside a nested loop, is named (c::kNameAttr).
//
//===----------------------------------------------------------------------===//

#include "HelperFunctions.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace scaly;

namespace {

std::string suffix(Type t) {
  if (t.isF64()) return "f64";
  if (t.isF32()) return "f32";
  return t.isInteger(64) ? "i64" : "i32";
}

std::string helperName(StringRef kind, Type elem) {
  return ("scaly_" + kind + "_" + suffix(elem)).str();
}

/// Builds one helper's body: c::EmitCBuilder's ops and the helpers' own.
struct Builder : c::EmitCBuilder {
  Value constant(Type t, double v) {
    Attribute a = isa<FloatType>(t) ? Attribute(b.getFloatAttr(t, v))
                                    : Attribute(b.getIntegerAttr(t, static_cast<int64_t>(v)));
    return b.create<emitc::ConstantOp>(loc, t, cast<TypedAttr>(a));
  }
  Value div(Value x, Value y) { return b.create<emitc::DivOp>(loc, x.getType(), x, y); }
  Value rem(Value x, Value y) { return b.create<emitc::RemOp>(loc, x.getType(), x, y); }
  /// A call of the module's helper `fn`, returning a `result`.
  Value call(StringRef fn, Type result, ArrayRef<Value> args) {
    return b.create<emitc::CallOp>(loc, fn, TypeRange{result}, args).getResult(0);
  }
  Value convert(Type t, Value v) { return b.create<emitc::CastOp>(loc, t, v); }
  /// `T name = init;` (a constant, or no initializer).
  Value variable(Type t, StringRef name, Attribute init = {}) {
    if (!init)
      init = emitc::OpaqueAttr::get(b.getContext(), "");
    return named(b.create<emitc::VariableOp>(loc, t, init), name);
  }
  /// `T name = value;`: the printer puts an assignment that follows its
  /// variable into the declaration.
  Value declare(StringRef name, Value value) {
    Value var = variable(value.getType(), name);
    assign(var, value);
    return var;
  }
  /// `var = var op value;`
  void accumulate(Value var, Value value, bool product = false) {
    assign(var, product ? mul(var, value) : add(var, value));
  }

  /// A loop whose body `body(counter)` builds; `scalar`: Clang neither
  /// vectorizes nor unrolls it (a `#pragma clang loop` before it).
  void loop(Value lower, Value upper, int64_t step, StringRef name, bool scalar,
            function_ref<void(Value)> body) {
    auto loop = c::buildLoop(b, loc, lower, upper, index(step), name, body);
    if (scalar)
      c::hintClangLoop(b, loop, {"vectorize(disable)", "unroll(disable)"});
  }

  /// A `static` function `name(params)` returning `result` (none: void),
  /// its parameters named and attributed as `argAttrs` says; the builder is
  /// left in its body.
  emitc::FuncOp function(StringRef name, ArrayRef<Type> params, ArrayRef<Type> results,
                         ArrayRef<DictionaryAttr> argAttrs) {
    auto fn = b.create<emitc::FuncOp>(loc, name, b.getFunctionType(params, results));
    fn.setSpecifiersAttr(b.getStrArrayAttr({"static"}));
    fn.setAllArgAttrs(argAttrs);
    b.setInsertionPointToEnd(fn.addEntryBlock());
    return fn;
  }
  DictionaryAttr param(StringRef name, bool isConst = false, bool restrict = false) {
    SmallVector<NamedAttribute> attrs{b.getNamedAttr(c::kNameAttr, b.getStringAttr(name))};
    if (isConst)
      attrs.push_back(b.getNamedAttr(c::kConstAttr, b.getUnitAttr()));
    if (restrict)
      attrs.push_back(b.getNamedAttr(c::kRestrictAttr, b.getUnitAttr()));
    return b.getDictionaryAttr(attrs);
  }
  /// `static T name(const T* x, long long n, long long s)`: a reduction of
  /// n elements of x, s apart. Returns (x, n, s).
  std::tuple<Value, Value, Value> reduction(StringRef name, Type elem) {
    emitc::FuncOp fn = function(name, {emitc::PointerType::get(elem), idx, idx}, {elem},
                                {param("x", true), param("n"), param("s")});
    return {fn.getArgument(0), fn.getArgument(1), fn.getArgument(2)};
  }
};

/// NumPy's pairwise summation of n <= 8192 elements (its reductions' block):
/// under 8 elements one by one; up to 128 in eight accumulators, combined as
/// a tree, then the rest one by one; above, two halves (the first a multiple
/// of 8), recursively. EmitC 19 has no return inside emitc.if, so each branch
/// assigns the result `r` (the under-8 branch adds to its 0.0) and the
/// remainder loop starts at n - n % 8, where the block loop ended: the same
/// additions in the same order as NumPy's. The short loops stay scalar under
/// Clang and the eight accumulators are eight variables: about half the Clang
/// time the helper cost in the JIT (nothing left to unroll, scalarize and
/// version). The halves come first: with the short cases first and one
/// return, GCC -O3 inlined fewer levels of the recursion and a block of 8192
/// took 13% longer (NumPy's order, with early returns, is not EmitC 19's).
void pairwise(Builder &h, StringRef name, Type T) {
  Value x, n, s;
  std::tie(x, n, s) = h.reduction(name, T);
  using P = emitc::CmpPredicate;
  auto tail = [&] { return h.sub(n, h.rem(n, h.index(8))); }; // n - n % 8
  Value r = h.variable(T, "r", h.b.getFloatAttr(T, 0.0));
  auto oneByOne = [&](Value from, StringRef counter) {
    h.loop(from, n, 1, counter, /*scalar=*/true,
           [&](Value i) { h.accumulate(r, h.at(x, h.mul(i, s))); });
  };
  auto blocks = [&] {
    // Accumulator k starts at x[k * s] and adds p[k * s].
    auto offset = [&](int k) { return k ? h.mul(h.index(k), s) : h.index(0); };
    SmallVector<Value, 8> acc;
    for (int k = 0; k < 8; ++k)
      acc.push_back(h.declare("r" + std::to_string(k), h.at(x, offset(k))));
    h.loop(h.index(8), tail(), 8, "j", /*scalar=*/true, [&](Value j) {
      Value p = h.named(h.add(x, h.mul(j, s)), "p");
      for (int k = 0; k < 8; ++k)
        h.accumulate(acc[k], h.at(p, offset(k)));
    });
    auto pair = [&](int k) { return h.add(acc[k], acc[k + 1]); };
    Value low = h.add(pair(0), pair(2));
    Value high = h.add(pair(4), pair(6));
    h.assign(r, h.add(low, high));
    oneByOne(tail(), "k");
  };
  auto halves = [&] {
    Value n2 = h.declare("n2", h.div(n, h.index(2)));
    h.assign(n2, h.sub(n2, h.rem(n2, h.index(8))));
    Value first = h.call(name, T, {x, n2, s});
    Value rest = h.call(name, T, {h.add(x, h.mul(n2, s)), h.sub(n, n2), s});
    h.assign(r, h.add(first, rest));
  };
  h.ifElse(h.cmp(P::gt, n, h.index(128)), halves, [&] {
    h.ifElse(h.cmp(P::lt, n, h.index(8)), [&] { oneByOne(h.index(0), "i"); }, blocks);
  });
  h.ret(r);
}

/// A float sum: NumPy's pairwise sums of blocks of 8192, added in order, so
/// a contiguous sum rounds exactly as np.sum.
void floatSum(Builder &h, StringRef name, Type T) {
  Value x, n, s;
  std::tie(x, n, s) = h.reduction(name, T);
  using P = emitc::CmpPredicate;
  Value r = h.variable(T, "r", h.b.getFloatAttr(T, 0.0));
  h.loop(h.index(0), n, 8192, "k", /*scalar=*/false, [&](Value k) {
    Value block = h.b.create<emitc::ConditionalOp>(
        h.loc, h.idx, h.cmp(P::lt, h.sub(n, k), h.index(8192)), h.sub(n, k), h.index(8192));
    Value part = h.call(helperName("pairwise", T), T, {h.add(x, h.mul(k, s)), block, s});
    h.accumulate(r, part);
  });
  h.ret(r);
}

/// A sum or product in order; integers wrap around as NumPy's do, computed
/// in the unsigned type of the same width.
void inOrder(Builder &h, StringRef name, Type T, bool product) {
  Value x, n, s;
  std::tie(x, n, s) = h.reduction(name, T);
  bool isFloat = isa<FloatType>(T);
  Type acc = isFloat ? T : h.b.getIntegerType(T.getIntOrFloatBitWidth(), /*isSigned=*/false);
  Value r = h.variable(acc, "r", isFloat ? Attribute(h.b.getFloatAttr(T, product ? 1.0 : 0.0))
                                         : Attribute(h.b.getIntegerAttr(acc, product ? 1 : 0)));
  h.loop(h.index(0), n, 1, "i", /*scalar=*/false, [&](Value i) {
    Value v = h.at(x, h.mul(i, s));
    h.accumulate(r, isFloat ? v : h.convert(acc, v), product);
  });
  h.ret(isFloat ? r : h.convert(T, r));
}

/// The largest (smallest) element. NaN propagates: once r is NaN it stays
/// (every comparison with it is false); a NaN element replaces r.
void extremum(Builder &h, StringRef name, Type T, bool isMax) {
  Value x, n, s;
  std::tie(x, n, s) = h.reduction(name, T);
  using P = emitc::CmpPredicate;
  Value r = h.declare("r", h.at(x, h.index(0)));
  h.loop(h.index(1), n, 1, "i", /*scalar=*/false, [&](Value i) {
    Value v = h.named(h.at(x, h.mul(i, s)), "v");
    Value better = h.cmp(isMax ? P::gt : P::lt, v, r);
    if (isa<FloatType>(T))
      better = h.b.create<emitc::LogicalOrOp>(h.loc, h.i1, better, h.cmp(P::ne, v, v));
    h.ifElse(better, [&] { h.assign(r, v); });
  });
  h.ret(r);
}

/// c (m x n) = a (m x k) times b (k x n), row by row, the inner loop over
/// contiguous columns; integers wrap around as NumPy's do.
void matmul(Builder &h, StringRef name, Type T) {
  Type ptr = emitc::PointerType::get(T), idx = h.idx;
  emitc::FuncOp fn =
      h.function(name, {ptr, ptr, ptr, idx, idx, idx}, {},
                 {h.param("a", true, true), h.param("b", true, true), h.param("c", false, true),
                  h.param("m"), h.param("k"), h.param("n")});
  Value a = fn.getArgument(0), bm = fn.getArgument(1), c = fn.getArgument(2);
  Value m = fn.getArgument(3), k = fn.getArgument(4), n = fn.getArgument(5);
  bool isFloat = isa<FloatType>(T);
  Type U = isFloat ? T : h.b.getIntegerType(T.getIntOrFloatBitWidth(), /*isSigned=*/false);
  h.loop(h.index(0), m, 1, "i", false, [&](Value i) {
    Value ci = h.named(h.add(c, h.mul(i, n)), "ci");
    h.loop(h.index(0), n, 1, "j", false,
           [&](Value j) { h.assign(h.at(ci, j), h.constant(T, 0.0)); });
    h.loop(h.index(0), k, 1, "p", false, [&](Value p) {
      Value aip = h.named(h.at(a, h.add(h.mul(i, k), p)), "aip");
      Value bp = h.named(h.add(bm, h.mul(p, n)), "bp");
      h.loop(h.index(0), n, 1, "q", false, [&](Value q) {
        Value sum;
        if (isFloat) {
          sum = h.add(h.at(ci, q), h.mul(aip, h.at(bp, q)));
        } else {
          Value product = h.mul(h.convert(U, aip), h.convert(U, h.at(bp, q)));
          sum = h.convert(T, h.add(h.convert(U, h.at(ci, q)), product));
        }
        h.assign(h.at(ci, q), sum);
      });
    });
  });
  h.ret();
}

/// c = a b for a vector b (matmul with n == 1): four rows' dot products at
/// once, each summed in matmul's order (0, + a[i][0] b[0], + a[i][1] b[1],
/// ...), so the results are matmul's bit for bit. One sum waits on its own
/// last addition at every step; four independent ones keep the FPU busy
/// (a 256 x 256 float64 product through the JIT: 24 -> 10 us).
void matvec(Builder &h, StringRef name, Type T) {
  Type ptr = emitc::PointerType::get(T), idx = h.idx;
  emitc::FuncOp fn = h.function(name, {ptr, ptr, ptr, idx, idx}, {},
                                {h.param("a", true, true), h.param("b", true, true),
                                 h.param("c", false, true), h.param("m"), h.param("k")});
  Value a = fn.getArgument(0), bv = fn.getArgument(1), c = fn.getArgument(2);
  Value m = fn.getArgument(3), k = fn.getArgument(4);
  constexpr int64_t kRows = 4;
  Attribute zero = h.b.getFloatAttr(T, 0.0);
  Value full = h.named(h.mul(h.div(m, h.index(kRows)), h.index(kRows)), "full");
  h.loop(h.index(0), full, kRows, "i", false, [&](Value i) {
    SmallVector<Value> rows, sums;
    for (int64_t r = 0; r < kRows; ++r) {
      std::string suffix = std::to_string(r);
      rows.push_back(h.named(r ? h.add(rows.back(), k) : h.add(a, h.mul(i, k)), "a" + suffix));
      sums.push_back(h.variable(T, "s" + suffix, zero));
    }
    h.loop(h.index(0), k, 1, "p", false, [&](Value p) {
      Value bp = h.named(h.at(bv, p), "bp");
      for (int64_t r = 0; r < kRows; ++r)
        h.accumulate(sums[r], h.mul(h.at(rows[r], p), bp));
    });
    for (int64_t r = 0; r < kRows; ++r)
      h.assign(h.at(c, r ? h.add(i, h.index(r)) : i), sums[r]);
  });
  h.loop(full, m, 1, "i", false, [&](Value i) { // the rows left over
    Value sum = h.variable(T, "s", zero);
    h.loop(h.index(0), k, 1, "p", false, [&](Value p) {
      h.accumulate(sum, h.mul(h.at(a, h.add(h.mul(i, k), p)), h.at(bv, p)));
    });
    h.assign(h.at(c, i), sum);
  });
  h.ret();
}

void build(OpBuilder &b, Location loc, StringRef kind, Type elem, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  Builder h{{b, loc}};
  if (kind == "pairwise")
    pairwise(h, name, elem);
  else if (kind == "sum" && isa<FloatType>(elem))
    floatSum(h, name, elem);
  else if (kind == "sum" || kind == "prod")
    inOrder(h, name, elem, kind == "prod");
  else if (kind == "max" || kind == "min")
    extremum(h, name, elem, kind == "max");
  else if (kind == "matvec")
    matvec(h, name, elem);
  else
    matmul(h, name, elem);
}

/// `#if defined(__clang__)` the loop macro `name` as Clang's pragma against
/// unrolling, `#else` as nothing: other compilers have no such pragma.
void defineNoUnroll(OpBuilder &b, Location loc, StringRef name) {
  auto conditional = b.create<cdecl::IfDefinedOp>(loc, "__clang__");
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&conditional.getThenBody().emplaceBlock());
  b.create<cdecl::DefineOp>(loc, name, b.getStringAttr("_Pragma(\"clang loop unroll(disable)\")"));
  b.setInsertionPointToStart(&conditional.getElseBody().emplaceBlock());
  b.create<cdecl::DefineOp>(loc, name, Attribute());
}

/// `#if defined(__clang__)` the streaming store macro `name` as Clang's
/// nontemporal store builtin, `#else` as a plain store.
void defineStreamStore(OpBuilder &b, Location loc, StringRef name) {
  auto conditional = b.create<cdecl::IfDefinedOp>(loc, "__clang__");
  OpBuilder::InsertionGuard guard(b);
  ArrayAttr params = b.getStrArrayAttr({"address", "..."});
  b.setInsertionPointToStart(&conditional.getThenBody().emplaceBlock());
  b.create<cdecl::DefineOp>(loc, name,
                            b.getStringAttr("__builtin_nontemporal_store((__VA_ARGS__), (address))"),
                            params);
  b.setInsertionPointToStart(&conditional.getElseBody().emplaceBlock());
  b.create<cdecl::DefineOp>(loc, name, b.getStringAttr("(*(address) = (__VA_ARGS__))"), params);
}

} // namespace

void c::Helpers::add(Item item) {
  if (seen.insert(item.name).second)
    items.push_back(std::move(item));
}

std::string c::Helpers::use(StringRef kind, Type elem) {
  if (kind == "sum" && isa<FloatType>(elem))
    add({helperName("pairwise", elem), "pairwise", elem});
  std::string name = helperName(kind, elem);
  add({name, kind.str(), elem});
  return name;
}

StringRef c::Helpers::useNoUnroll() {
  static constexpr const char *kName = "SCALY_NO_UNROLL";
  add({kName, "", Type()});
  return kName;
}

void c::Helpers::useStreamStore() { add({"SCALY_STREAM_STORE", "", Type()}); }

void c::Helpers::append(const Helpers &other) {
  for (const Item &item : other.items)
    add(item);
}

std::vector<std::string> c::Helpers::functionNames() const {
  std::vector<std::string> names;
  for (const Item &item : items)
    if (!item.kind.empty())
      names.push_back(item.name);
  return names;
}

void c::Helpers::define(OpBuilder &b, Location loc, bool blankLineFirst) const {
  auto blankLine = [&] { b.create<emitc::VerbatimOp>(loc, ""); };
  if (blankLineFirst)
    blankLine();
  for (const Item &item : items) {
    if (item.kind.empty()) // a macro: which one its name says
      (item.name == "SCALY_STREAM_STORE" ? defineStreamStore : defineNoUnroll)(b, loc, item.name);
    else
      build(b, loc, item.kind, item.elem, item.name);
    blankLine();
  }
}
