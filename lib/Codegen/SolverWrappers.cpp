//===- SolverWrappers.cpp - the QP wrappers of <module>_solvers.c ---------===//
//
// The wrapper unit is an EmitC module that the C printer prints like the
// model: emitc.global statics (index tables, each wrapper's solver object,
// statistics, defaults and call options, the lock), emitc.func functions,
// emitc.include, and cdecl ops for what EmitC 19 cannot say (comments,
// #define). Each wrapper keeps its state in statics behind one recursive
// lock: `_with_options` holds it around the entry, whose body takes it
// again per solve.
//
// EmitC 19 has no `else if`, no `&&` that the printer promises to keep
// short-circuit, no early return, no compound initializer of a struct and
// no comment among statements: the solve's branches nest, the problem data
// are assigned field by field, and what a statement's comment said is said
// above its function.
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/SolverWrappers.h"
#include "WrapperBuilder.h"
#include "scaly/Codegen/RenderModule.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace scaly;
using namespace scaly::codegen;
using c::CParam;
using llvm::formatv;

std::string codegen::initializer(const std::vector<int64_t> &values) {
  std::string s;
  for (int64_t v : values)
    s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "{" + (s.empty() ? "0" : s) + "}";
}

void codegen::indexTable(WrapperBuilder &b, StringRef name, const std::vector<int64_t> &values) {
  int64_t length = std::max<int64_t>(values.size(), 1);
  b.defineStatic(name, emitc::ArrayType::get({length}, b.i32), true, initializer(values));
}

namespace {

/// The prologue: what the unit is, its includes, the lock and the clock;
/// returns `scaly_wrapper_now`.
emitc::FuncOp prologue(WrapperBuilder &b, const SolverWrappersSpec &spec) {
  const std::string &m = spec.module;
  bool nlp = llvm::any_of(spec.wrappers, [](const SolverWrapper &w) { return w.isNlp; });
  b.comment(formatv("Scaly solver wrappers of {0}: compiled as their own translation unit\n"
                    " * and linked with the module to the solver libraries (see {0}.build.json):\n"
                    " *   cc -O2 -fPIC -shared {0}.c {0}_solvers.c -I<include> -L<lib> {1} -lm\n",
                    m, nlp ? "-lscaly_nlp -lscaly_qp" : "-lscaly_qp")
                .str());
  // Before any include: glibc's headers read it.
  b.comment("PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP is a GNU extension.");
  b.define("_GNU_SOURCE");
  for (StringRef header : {"math.h", "pthread.h", "stddef.h", "stdint.h", "string.h", "time.h"})
    b.include(header, true);
  b.blankLine();
  b.include("scaly_qp.h", false);
  if (nlp)
    b.include("scaly_nlp.h", false);
  b.define("SCALY_WRAPPER_HIDDEN", "__attribute__((visibility(\"hidden\")))");
  b.blankLine();
  b.comment("Each wrapper keeps its solver, statistics and call options in statics: one\n"
            " * lock serializes the module's solves (recursive: _with_options holds it\n"
            " * around the entry, whose body takes it again per solve).");
  // A static initializer EmitC cannot build: glibc's macro, as opaque text.
  b.defineStatic("scaly_solvers_lock", b.mutex, false, "PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP");
  b.blankLine();
  emitc::FuncOp now =
      b.function("scaly_wrapper_now", {"static"}, {}, {b.f64}, [&](ArrayRef<BlockArgument>) {
        Type timespec = b.opaque("struct timespec");
        Value ts = b.variable(timespec, "ts");
        b.callOpaque({}, "clock_gettime", {b.integer("CLOCK_MONOTONIC"), b.address(ts)});
        Value seconds = b.castTo(b.f64, b.field(ts, "tv_sec", b.opaque("time_t")));
        Value nanoseconds = b.castTo(b.f64, b.field(ts, "tv_nsec", b.opaque("long")));
        b.ret(b.add(seconds, b.mul(b.constant(b.f64, "1e-9"), nanoseconds)));
      });
  b.blankLine();
  return now;
}

/// One QP wrapper `w`: its index tables and statics, `<w>_ready`,
/// `<w>_set_option`, `<w>_stats` and the solve `<w>`.
struct QpWrapperBuilder {
  WrapperBuilder &b;
  emitc::FuncOp now;
  const std::string &w;
  const QpWrapper &qp;
  Type settings = b.opaque("scaly_qp_settings");
  Type solverP = emitc::PointerType::get(b.opaque("scaly_qp_solver"));
  Type doubleP = emitc::PointerType::get(b.f64);

  std::string name(StringRef suffix) const { return w + suffix.str(); }
  Value solver() { return b.staticValue(name("_solver")); }
  Value last() { return b.staticValue(name("_last")); }
  Value defaults() { return b.staticValue(name("_defaults")); }
  Value callOptions() { return b.staticValue(name("_call_options")); }
  Value lastField(StringRef field, Type t) { return b.field(last(), field, t); }

  void tablesAndStatics() {
    b.comment(formatv("{0}: QP with n = {1}, p = {2}, m = {3}, {4} backend", w, qp.n, qp.p, qp.m,
                      qp.dense ? "dense" : "sparse")
                  .str());
    for (auto [k, matrix] : llvm::enumerate(StringRef("PAG"))) {
      for (auto [table, values] :
           {std::pair{"colptr", &qp.colptr[k]}, std::pair{"rowind", &qp.rowind[k]}})
        indexTable(b, formatv("{0}_{1}_{2}", w, matrix, table).str(), *values);
    }
    b.defineStatic(name("_solver"), solverP);
    b.defineStatic(name("_last"), b.stats);
    b.defineStatic(name("_defaults"), settings);
    b.defineStatic(name("_defaults_ready"), b.cInt);
    b.defineStatic(name("_call_options"), b.options);
    b.blankLine();
  }

  /// `static void <w>_ready(void)`: the defaults, set once.
  emitc::FuncOp ready() {
    return b.function(name("_ready"), {"static"}, {}, {}, [&](ArrayRef<BlockArgument>) {
      Value flag = b.staticValue(name("_defaults_ready"));
      b.ifElse(b.negate(flag), [&] {
        b.callOpaque({}, "scaly_qp_default_settings", b.address(defaults()));
        b.assign(b.staticValue(name("_defaults_ready")), b.integer("1"));
      });
      b.ret();
    });
  }

  /// `int <w>_set_option(const char* name, double value)`: a default for
  /// later calls.
  void setOption(emitc::FuncOp readyFn) {
    CParam params[] = {{b.chars, true, "name"}, {b.f64, false, "value"}};
    b.function(name("_set_option"), {}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
      b.lock();
      b.call(readyFn, {});
      Value status = b.named(
          b.callOpaque(b.cInt, "scaly_qp_set_option",
                       {b.address(defaults()), a[0], a[1], b.null(b.chars), b.integer("0")}),
          "status");
      b.unlock();
      b.ret(status);
    });
  }

  /// `data.<field>`'s fields: a matrix's pattern and values.
  void assignMatrix(Value data, StringRef matrix, int64_t rows, Value values) {
    Type csc = b.opaque("scaly_qp_csc");
    Type i32P = emitc::PointerType::get(b.i32);
    auto set = [&](StringRef field, Type t, Value v) {
      b.assign(b.field(b.field(data, matrix, csc), field, t), v);
    };
    auto table = [&](StringRef what) {
      return b.address(
          b.at(b.staticValue(formatv("{0}_{1}_{2}", w, matrix, what).str()), b.index(0)));
    };
    set("nrow", b.i32, b.constant(b.i32, Twine(rows)));
    set("ncol", b.i32, b.constant(b.i32, Twine(qp.n)));
    set("colptr", i32P, table("colptr"));
    set("rowind", i32P, table("rowind"));
    set("values", doubleP, values);
  }

  /// `scaly_qp_data data;` and its fields: the sizes, the patterns and the
  /// arguments' values.
  Value problemData(ArrayRef<BlockArgument> a) {
    Value data = b.variable(b.opaque("scaly_qp_data"), "data");
    for (auto [field, size] : {std::pair{"n", qp.n}, std::pair{"p", qp.p}, std::pair{"m", qp.m}})
      b.assign(b.field(data, field, b.i32), b.constant(b.i32, Twine(size)));
    assignMatrix(data, "P", qp.n, a[0]);
    b.assign(b.field(data, "c", doubleP), a[1]);
    assignMatrix(data, "A", qp.p, a[2]);
    b.assign(b.field(data, "b", doubleP), a[3]);
    assignMatrix(data, "G", qp.m, a[4]);
    const char *bounds[] = {"h_l", "h_u", "x_l", "x_u"};
    for (auto [k, field] : llvm::enumerate(bounds))
      b.assign(b.field(data, field, doubleP), a[5 + k]);
    return data;
  }

  /// The call's options over the defaults: each that is not NaN; a bad one
  /// clears `ok`.
  void applyCallOptions(Value settingsVar, Value ok) {
    b.ifElse(b.notNull(callOptions()), [&] {
      Value count = b.castTo(b.idx, b.callOpaque(b.cInt, "scaly_qp_option_count", {}));
      b.loop(count, "k", [&](Value k) {
        Value given = b.callOpaque(b.cInt, "isnan", b.at(callOptions(), k));
        b.ifElse(b.negate(given), [&] {
          Value name = b.callOpaque(b.chars, "scaly_qp_option_name", k);
          Value status = b.callOpaque(b.cInt, "scaly_qp_set_option",
                                      {b.address(settingsVar), name, b.at(callOptions(), k),
                                       b.null(b.chars), b.integer("0")});
          clearIf(b.cmp(emitc::CmpPredicate::ne, status, b.integer("0")), ok);
        });
      });
    });
  }

  /// `if (cond) { ok = 0; }`.
  void clearIf(Value cond, Value ok) {
    b.ifElse(cond, [&] { b.assign(ok, b.integer("0")); });
  }

  /// The solver set up on the first call, updated after; a failure clears
  /// `ok`.
  void setUpOrUpdate(Value data, Value settingsVar, Value ok) {
    b.ifElse(
        b.isNull(solver()),
        [&] {
          Value made = b.callOpaque(solverP, "scaly_qp_setup",
                                    {b.address(data),
                                     b.integer(qp.dense ? "SCALY_QP_DENSE" : "SCALY_QP_SPARSE"),
                                     b.address(settingsVar), b.null(b.chars), b.integer("0")});
          b.assign(solver(), made);
          clearIf(b.isNull(solver()), ok);
        },
        [&] {
          Value updated =
              b.callOpaque(b.cInt, "scaly_qp_update_settings",
                           {solver(), b.address(settingsVar), b.null(b.chars), b.integer("0")});
          b.ifElse(
              b.cmp(emitc::CmpPredicate::ne, updated, b.integer("0")),
              [&] { b.assign(ok, b.integer("0")); },
              [&] {
                Value status =
                    b.callOpaque(b.cInt, "scaly_qp_update",
                                 {solver(), b.address(data), b.null(b.chars), b.integer("0")});
                clearIf(b.cmp(emitc::CmpPredicate::ne, status, b.integer("0")), ok);
              });
        });
  }

  /// NaN results and status ERROR, for bad data (NaN, a non-convex P) or
  /// options.
  void failed(ArrayRef<BlockArgument> a) {
    Value x = a[9], y = a[10], z = a[11], zBox = a[12];
    fillNaN(b, qp.n, "i", {x, zBox});
    fillNaN(b, qp.p, "i_y", {y});
    fillNaN(b, qp.m, "i_z", {z});
    errorStats(b, [&] { return last(); });
    b.assign(lastField("native_status", b.cInt), b.integer("SCALY_QP_INVALID_DATA"));
  }

  /// The solve the module's body calls (hidden: only the module calls it).
  void solve(emitc::FuncOp readyFn) {
    SmallVector<CParam, 13> params;
    for (StringRef in : {"P", "c", "A", "b", "G", "h_l", "h_u", "x_l", "x_u"})
      params.push_back({doubleP, true, in.str()});
    for (StringRef out : {"x", "y", "z", "z_box"})
      params.push_back({doubleP, false, out.str()});
    b.comment("Bad data (NaN, a non-convex P) or options give NaN results and status ERROR.\n"
              " * The data were computed by the host body before the call: t_fe stays 0\n"
              " * and everything outside the QP library is glue.");
    b.function(w, {"SCALY_WRAPPER_HIDDEN"}, params, {}, [&](ArrayRef<BlockArgument> a) {
      b.lock();
      Value start =
          b.named(b.call(now, {}), "start");
      Value data = problemData(a);
      b.call(readyFn, {});
      Value settingsVar = b.variable(settings, "settings", defaults());
      Value ok = b.variable(b.cInt, "ok", b.integer("1"));
      applyCallOptions(settingsVar, ok);
      b.ifElse(b.cmp(emitc::CmpPredicate::ne, ok, b.integer("0")),
               [&] { setUpOrUpdate(data, settingsVar, ok); });
      b.ifElse(
          b.cmp(emitc::CmpPredicate::ne, ok, b.integer("0")),
          [&] {
            Value none = b.null(doubleP);
            b.callOpaque({}, "scaly_qp_solve", {solver(), none, none, none, none});
            b.callOpaque({}, "scaly_qp_solution", {solver(), a[9], a[10], a[11], a[12]});
            b.callOpaque({}, "scaly_qp_get_stats", {solver(), b.address(last())});
          },
          [&] { failed(a); });
      recordTimes(b, now, start, [&] { return last(); }, {"t_qp"});
      b.unlock();
      b.ret();
    });
  }

  void build() {
    tablesAndStatics();
    emitc::FuncOp readyFn = ready();
    b.blankLine();
    setOption(readyFn);
    b.blankLine();
    statsAccessor(b, w);
    b.blankLine();
    solve(readyFn);
  }
};

/// `<entry>_with_options`: the entry's arguments and `options`, the call
/// options of each wrapper (NULL: the defaults), set around the call.
void withOptions(WrapperBuilder &b, const WrapperEntry &entry, ArrayRef<SolverWrapper> wrappers) {
  SmallVector<CParam> params;
  for (auto &[type, pname] : entry.params) {
    auto [t, isConst] = c::typeFromName(b.ctx, type);
    params.push_back({t, isConst, pname});
  }
  emitc::FuncOp target = b.function(entry.name, {}, params, {b.cInt});
  b.blankLine();
  // `const double* const* options`: the element type spells the middle const.
  Type optionsArg = emitc::PointerType::get(b.opaque("const double* const"));
  params.push_back({optionsArg, false, "options"});
  b.comment(formatv("{0} with call-time options: options[k] for the module's k-th solver\n"
                    " * wrapper (the build manifest's order).",
                    entry.name)
                .str());
  b.function(entry.name + "_with_options", {}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
    Value options = a.back();
    auto callOptions = [&](const SolverWrapper &w) {
      return b.staticValue(w.name + "_call_options");
    };
    b.lock();
    for (auto [k, w] : llvm::enumerate(wrappers)) {
      Value mine = b.castTo(b.options, b.at(options, b.index(k)));
      b.assign(callOptions(w), b.select(b.options, b.notNull(options), mine, b.null(b.options)));
    }
    Value status = b.named(
        b.call(target, a.drop_back()), "status");
    for (const SolverWrapper &w : wrappers)
      b.assign(callOptions(w), b.null(b.options));
    b.unlock();
    b.ret(status);
  });
  b.blankLine();
}

} // namespace

OwningOpRef<ModuleOp> codegen::buildSolverWrappers(MLIRContext *ctx,
                                                   const SolverWrappersSpec &spec) {
  OwningOpRef<ModuleOp> module = c::newCModule(ctx);
  Location loc = module->getLoc();
  OpBuilder ob(ctx);
  ob.setInsertionPointToEnd(module->getBody());
  WrapperBuilder b{{ob, loc}};
  emitc::FuncOp now = prologue(b, spec);
  for (const SolverWrapper &w : spec.wrappers) {
    if (w.isNlp) {
      buildNlpWrapper(b, now, w.name, w.nlp);
    } else {
      QpWrapperBuilder{b, now, w.name, w.qp}.build();
    }
    b.blankLine();
  }
  for (const WrapperEntry &e : spec.entries)
    withOptions(b, e, spec.wrappers);
  return module;
}

std::string codegen::renderSolverWrappers(const SolverWrappersSpec &spec, std::string &error) {
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> module = buildSolverWrappers(&ctx, spec);
  return printBuiltC(*module, "the solver wrappers are invalid EmitC or have no C form", error);
}
