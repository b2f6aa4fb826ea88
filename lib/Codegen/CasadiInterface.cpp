//===- CasadiInterface.cpp - CasADi's external function API ---------------===//
//
// CasADi's contract (casadi/core/external.cpp, casadi_common.hpp): every
// symbol is optional except the evaluation function; `f_work` reports the
// lengths of arg, res, iw (casadi_int) and w (casadi_real) CasADi allocates;
// sparsities are (nrow, ncol, colind[ncol + 1], row[nnz]); dense matrices are
// column-major; a null arg[i] is an input of zeros and a null res[j] an
// output nobody wants; a nonzero return is a failure.
//
// The layer is an EmitC module (emitc.global tables, emitc.func query and
// evaluation functions in a cdecl.extern_c block, cdecl.comment comments)
// that the C printer prints after the model. CasADi's types stay C's
// `casadi_int`/`casadi_real` (opaque types).
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/CasadiInterface.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace scaly::codegen {
namespace {

int64_t sizeOf(const CasadiPort &p) {
  int64_t n = 1;
  for (int64_t d : p.shape)
    n *= d;
  return n;
}

bool isSparse(const CasadiPort &p) { return !p.colind.empty(); }

/// A dense matrix CasADi stores column-major and Scaly row-major.
bool needsTranspose(const CasadiPort &p) {
  return !isSparse(p) && p.shape.size() == 2 && p.shape[0] > 1 && p.shape[1] > 1;
}

/// CasADi's compressed sparsity of a port: a scalar is 1 x 1, a vector of n
/// an n x 1 column (n = 0 included), a matrix keeps its dimensions.
std::vector<int64_t> sparsityOf(const CasadiPort &p) {
  if (isSparse(p)) {
    std::vector<int64_t> s{p.nrow, p.ncol};
    s.insert(s.end(), p.colind.begin(), p.colind.end());
    s.insert(s.end(), p.row.begin(), p.row.end());
    return s;
  }
  int64_t nrow = p.shape.empty() ? 1 : p.shape[0];
  int64_t ncol = p.shape.size() == 2 ? p.shape[1] : 1;
  std::vector<int64_t> s{nrow, ncol};
  for (int64_t c = 0; c <= ncol; ++c)
    s.push_back(c * nrow);
  for (int64_t c = 0; c < ncol; ++c)
    for (int64_t r = 0; r < nrow; ++r)
      s.push_back(r);
  return s;
}

/// A table's initializer, 16 values a line.
std::string list(const std::vector<int64_t> &values) {
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    s += (i % 16 == 0) ? (i ? ",\n  " : "\n  ") : ", ";
    s += std::to_string(values[i]);
  }
  return s + "\n}";
}

/// Builds the layer's ops: c::EmitCBuilder's and the layer's own.
struct Builder : c::EmitCBuilder {
  MLIRContext *ctx = b.getContext();
  Type cInt = emitc::OpaqueType::get(ctx, "casadi_int");
  Type cReal = emitc::OpaqueType::get(ctx, "casadi_real");
  Type cIntP = emitc::PointerType::get(cInt);
  Type realP = emitc::PointerType::get(cReal);
  Type spP = emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const casadi_int"));
  Type nameP = emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const char"));
  Type cInt32 = emitc::OpaqueType::get(ctx, "int");

  /// `p != 0` for a pointer.
  Value nonNull(Value p) { return cmp(emitc::CmpPredicate::ne, p, literal(p.getType(), "0")); }
  using EmitCBuilder::at;
  Value at(Value p, int64_t i) { return at(p, index(i)); }

  /// Loops of the function being built, by counter name (k, k1, k2, ...:
  /// the printer keeps a name taken for the whole function).
  llvm::StringMap<int> loops = {};
  void loop(int64_t upper, StringRef name, function_ref<void(Value)> body) {
    int n = loops[name]++;
    c::buildLoop(b, loc, index(0), index(upper), index(1),
                 n ? (name + Twine(n)).str() : name.str(), body);
  }

  /// An external function `name(params)` returning `result` (none: void);
  /// `body` builds its ops from the arguments.
  void function(const Twine &name, ArrayRef<std::pair<Type, StringRef>> params, Type result,
                function_ref<void(ArrayRef<BlockArgument>)> body) {
    SmallVector<c::CParam> named;
    for (auto &[type, pname] : params)
      named.push_back({type, false, pname.str()});
    loops.clear();
    EmitCBuilder::function(name.str(), {}, named, {result}, body);
  }

  /// `static const T name[n] = init;`
  void table(const Twine &name, Type elem, int64_t n, const std::string &init) {
    staticVariable(name.str(), emitc::ArrayType::get({n}, elem), /*isConst=*/true, init);
  }
  Value global(const Twine &name, Type elem, int64_t n) {
    return EmitCBuilder::global(name.str(), emitc::ArrayType::get({n}, elem));
  }
};

/// Static tables and the query functions of one entry.
void queries(Builder &b, const CasadiEntry &e) {
  const std::string &f = e.name;
  auto tables = [&](const std::vector<CasadiPort> &ports, const char *dir) {
    for (size_t i = 0; i < ports.size(); ++i) {
      std::vector<int64_t> sparsity = sparsityOf(ports[i]);
      b.table(f + "_sp_" + dir + std::to_string(i), b.cInt, sparsity.size(), list(sparsity));
    }
    std::string names = "{", sps = "{";
    for (size_t i = 0; i < ports.size(); ++i) {
      names += "\"" + ports[i].name + "\", ";
      sps += f + "_sp_" + dir + std::to_string(i) + ", ";
    }
    b.table(f + "_names_" + dir, b.nameP, ports.size() + 1, names + "0}");
    b.table(f + "_sps_" + dir, b.spP, ports.size() + 1, sps + "0}");
  };
  tables(e.ins, "in");
  tables(e.outs, "out");
  int64_t szW = e.scalyWorkDoubles;
  for (const CasadiPort &p : e.ins)
    szW += sizeOf(p);
  for (const CasadiPort &p : e.outs)
    szW += sizeOf(p);
  b.blankLine();
  auto nothing = [&](ArrayRef<BlockArgument>) { b.ret(); };
  b.function(f + "_incref", {}, {}, nothing);
  b.function(f + "_decref", {}, {}, nothing);
  int64_t nIn = e.ins.size(), nOut = e.outs.size();
  for (auto [suffix, n] : {std::pair{"_n_in", nIn}, std::pair{"_n_out", nOut}})
    b.function(f + suffix, {}, b.cInt, [&](ArrayRef<BlockArgument>) {
      b.ret(b.constant(b.cInt, Twine(n)));
    });
  b.function(f + "_default_in", {{b.cInt, "i"}}, b.cReal, [&](ArrayRef<BlockArgument> a) {
    b.discard(a[0]);
    b.ret(b.constant(b.cReal, "0.0"));
  });
  // `i >= 0 && i < n ? table[i] : 0`
  auto lookup = [&](const char *suffix, const char *tableName, Type elem, int64_t n) {
    b.function(f + suffix, {{b.cInt, "i"}}, elem, [&](ArrayRef<BlockArgument> a) {
      Value inRange = b.b.create<emitc::LogicalAndOp>(
          b.loc, b.i1, b.cmp(emitc::CmpPredicate::ge, a[0], b.constant(b.cInt, "0")),
          b.cmp(emitc::CmpPredicate::lt, a[0], b.constant(b.cInt, Twine(n))));
      Value entry = b.at(b.global(f + tableName, elem, n + 1), a[0]);
      b.ret(b.select(elem, inRange, entry, b.literal(elem, "0")));
    });
  };
  lookup("_name_in", "_names_in", b.nameP, nIn);
  lookup("_name_out", "_names_out", b.nameP, nOut);
  lookup("_sparsity_in", "_sps_in", b.spP, nIn);
  lookup("_sparsity_out", "_sps_out", b.spP, nOut);
  b.function(f + "_work",
             {{b.cIntP, "sz_arg"}, {b.cIntP, "sz_res"}, {b.cIntP, "sz_iw"}, {b.cIntP, "sz_w"}},
             b.cInt32, [&](ArrayRef<BlockArgument> a) {
               int64_t sizes[] = {nIn, nOut, 0, szW};
               for (auto [sz, n] : llvm::zip(a, sizes))
                 b.ifElse(b.nonNull(sz), [&] { b.assign(b.at(sz, 0), b.constant(b.cInt, Twine(n))); });
               b.ret(b.constant(b.cInt32, "0"));
             });
  b.comment("The module keeps no state: one memory slot serves every thread.");
  auto zero = [&](ArrayRef<BlockArgument> a) {
    if (!a.empty())
      b.discard(a[0]);
    b.ret(b.constant(b.cInt32, "0"));
  };
  auto release = [&](ArrayRef<BlockArgument> a) {
    b.discard(a[0]);
    b.ret();
  };
  b.function(f + "_alloc_mem", {}, b.cInt32, zero);
  b.function(f + "_init_mem", {{b.cInt32, "mem"}}, b.cInt32, zero);
  b.function(f + "_free_mem", {{b.cInt32, "mem"}}, {}, release);
  b.function(f + "_checkout", {}, b.cInt32, zero);
  b.function(f + "_release", {{b.cInt32, "mem"}}, {}, release);
}

/// CasADi's evaluation function: adapts arg and res, calls Scaly's entry.
/// Each port CasADi's pointers cannot serve (a transposed matrix, a null
/// one) has its own slot in `w` after Scaly's workspace, at a fixed offset.
/// Scaly's status is returned once, after the transposed outputs are copied
/// on success (EmitC 19's return belongs to the function, not to a branch).
void evaluation(Builder &b, const CasadiEntry &e) {
  b.function(
      e.name,
      {{emitc::PointerType::get(b.realP), "arg"},
       {emitc::PointerType::get(b.realP), "res"},
       {b.cIntP, "iw"},
       {b.realP, "w"},
       {b.cInt32, "mem"}},
      b.cInt32, [&](ArrayRef<BlockArgument> p) {
        Value arg = p[0], res = p[1], w = p[3];
        // `const casadi_real** arg`
        cast<emitc::FuncOp>(p[0].getOwner()->getParentOp())
            .setArgAttr(0, c::kConstAttr, b.b.getUnitAttr());
        int64_t nIn = std::max<size_t>(e.ins.size(), 1), nOut = std::max<size_t>(e.outs.size(), 1);
        auto array = [&](Type elem, int64_t n, StringRef name) {
          return b.variable(emitc::ArrayType::get({n}, elem), name);
        };
        // Scaly's inputs are const: `const casadi_real* a[n]`.
        Value a = array(b.realP, nIn, "a"), r = array(b.realP, nOut, "r");
        a.getDefiningOp()->setAttr(c::kConstAttr, b.b.getUnitAttr());
        b.discard(p[2]);
        b.discard(p[4]);
        int64_t offset = e.scalyWorkDoubles;
        // The next slot of `n` values in w (its offset); `w + offset` is a
        // fresh op at each use, so it prints in place.
        auto slot = [&](int64_t n) {
          offset += n;
          return offset - n;
        };
        auto place = [&](int64_t at) { return at ? b.add(w, b.index(at)) : w; };
        auto zeros = [&](int64_t at, int64_t n) {
          b.loop(n, "k", [&](Value k) { b.assign(b.at(place(at), k), b.constant(b.cReal, "0.0")); });
        };
        // A rows x cols matrix copied between CasADi's column-major order
        // and Scaly's row-major one, one way or the other.
        auto transpose = [&](function_ref<Value()> to, function_ref<Value()> from,
                             const CasadiPort &port, bool toRowMajor) {
          int64_t rows = port.shape[0], cols = port.shape[1];
          b.loop(rows, "k", [&](Value k) {
            b.loop(cols, "c", [&](Value c) {
              auto rowMajor = [&] { return b.add(b.mul(k, b.index(cols)), c); };
              auto colMajor = [&] { return b.add(b.mul(c, b.index(rows)), k); };
              b.assign(b.at(to(), toRowMajor ? rowMajor() : colMajor()),
                       b.at(from(), toRowMajor ? colMajor() : rowMajor()));
            });
          });
        };
        for (auto [i, port] : llvm::enumerate(e.ins)) {
          int64_t n = sizeOf(port);
          if (n == 0) {
            b.assign(b.at(a, i), b.at(arg, i));
          } else if (needsTranspose(port)) {
            int64_t s = slot(n);
            b.ifElse(
                b.nonNull(b.at(arg, i)),
                [&] {
                  transpose([&] { return place(s); }, [&] { return b.at(arg, i); }, port, true);
                },
                [&] { zeros(s, n); });
            b.assign(b.at(a, i), place(s));
          } else {
            b.ifElse(
                b.nonNull(b.at(arg, i)), [&] { b.assign(b.at(a, i), b.at(arg, i)); },
                [&] {
                  int64_t s = slot(n);
                  zeros(s, n);
                  b.assign(b.at(a, i), place(s));
                });
          }
        }
        for (auto [j, port] : llvm::enumerate(e.outs)) {
          int64_t n = sizeOf(port);
          Value to = b.at(res, j);
          if (n == 0)
            b.assign(b.at(r, j), to);
          else if (needsTranspose(port))
            b.assign(b.at(r, j), place(slot(n)));
          else
            b.ifElse(
                b.nonNull(to), [&] { b.assign(b.at(r, j), b.at(res, j)); },
                [&] { b.assign(b.at(r, j), place(slot(n))); });
        }
        Value status = b.named(
            b.callOpaque(b.cInt32, e.scalyEntry,
                         {a, r, b.literal(b.cIntP, "0"), w, b.constant(b.cInt32, "0")}),
            "status");
        bool transposed = llvm::any_of(e.outs, needsTranspose);
        if (transposed)
          b.ifElse(b.cmp(emitc::CmpPredicate::eq, status, b.constant(b.cInt32, "0")), [&] {
            for (auto [j, port] : llvm::enumerate(e.outs)) {
              if (!needsTranspose(port))
                continue;
              b.ifElse(b.nonNull(b.at(res, j)), [&] {
                transpose([&] { return b.at(res, j); }, [&] { return b.at(r, j); }, port, false);
              });
            }
          });
        b.ret(status);
      });
}

} // namespace

OwningOpRef<ModuleOp> casadiModule(MLIRContext *ctx, const std::vector<CasadiEntry> &entries) {
  OwningOpRef<ModuleOp> module = c::newCModule(ctx);
  Location loc = module->getLoc();
  OpBuilder ob(ctx);
  ob.setInsertionPointToEnd(module->getBody());
  Builder b{{ob, loc}};
  b.blankLine();
  ob.create<cdecl::CommentOp>(
      loc, "CasADi's external function API (render_c_module(casadi=True)):\n"
           " * casadi.external(\"<entry>\", \"<library>.so\") loads and evaluates each entry.\n"
           " * Dense matrices are column-major here, as CasADi stores them.");
  // The functions in the block, its symbol table (appendCasadiDeclarations
  // finds them there).
  auto externC = ob.create<cdecl::ExternCOp>(loc);
  ob.setInsertionPointToStart(&externC.getBody().emplaceBlock());
  for (const CasadiEntry &e : entries) {
    b.blankLine();
    queries(b, e);
    b.blankLine();
    evaluation(b, e);
  }
  b.blankLine();
  return module;
}

void appendCasadiDeclarations(OpBuilder &b, ModuleOp casadi) {
  Location loc = casadi.getLoc();
  auto region = [&](Operation *op, llvm::function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&op->getRegion(0).emplaceBlock());
    body();
  };
  b.create<cdecl::CommentOp>(loc, "CasADi's external function API (see the module's source).");
  // CasADi's own headers may have defined its types first.
  for (auto [type, spelling] : {std::pair{"casadi_real", "double"},
                                std::pair{"casadi_int", "long long int"}})
    region(b.create<cdecl::IfNotDefinedOp>(loc, type), [&] {
      b.create<cdecl::DefineOp>(loc, type, b.getStringAttr(spelling));
    });
  b.create<emitc::VerbatimOp>(loc, "");
  region(b.create<cdecl::ExternCOp>(loc), [&] {
    for (emitc::FuncOp fn : c::functionsIn(*casadi.getBody())) {
      // The function's prototype: its attributes (name, type, specifiers,
      // parameter names) without its body.
      auto declaration = b.create<emitc::FuncOp>(fn.getLoc(), fn.getSymName(), fn.getFunctionType());
      declaration->setAttrs(fn->getAttrDictionary());
      declaration.setPrivate();
    }
  });
  b.create<emitc::VerbatimOp>(loc, "");
}

} // namespace scaly::codegen
