//===- NlpWrappers.cpp - the NLP wrappers of <module>_solvers.c -----------===//
//
// Per NLP wrapper `w`: the declarations of its oracles (their definitions,
// a normal render of the traced f, g and derivatives, follow the unit),
// its index tables and statics, the callbacks the NLP library calls (each
// evaluates one oracle at x and the call's parameters `w_p`), `<w>_ready`,
// which creates the solver once, and the exports (see nlp_wrapper.py).
//
// Const pointers are `!emitc.ptr<!emitc.opaque<"const double">>`: a
// static's type has no other way to say it, and one type lets the oracles'
// argument arrays take x, w_p and w_zero without casts. The oracles are
// called with emitc.call_opaque (their declarations' `const double**`
// differs from such an array's type, which C converts and EmitC does not).
//
// EmitC 19 has no `break`, no reverse loop and no early return: the option
// lookup by name keeps the last match of a forward loop (the same option:
// names are unique), and `<w>_ready` tests the solver it created instead of
// returning.
//
//===----------------------------------------------------------------------===//

#include "WrapperBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace scaly;
using namespace scaly::codegen;
using c::CParam;
using llvm::formatv;

namespace {

struct NlpWrapperBuilder {
  WrapperBuilder &b;
  emitc::FuncOp now;
  const std::string &w;
  const NlpWrapper &nlp;
  Type constDoubleP = b.options; // const double*
  Type doubleP = emitc::PointerType::get(b.f64);
  Type solverP = emitc::PointerType::get(b.opaque("scaly_nlp_solver"));
  Type voidP = emitc::PointerType::get(b.opaque("void"));
  const char *backend = nlp.solver == "ipopt" ? "SCALY_NLP_IPOPT" : "SCALY_NLP_SQP";

  std::string name(StringRef suffix) const { return w + suffix.str(); }
  Type arrayOf(int64_t n, Type elem) const { return emitc::ArrayType::get({n}, elem); }
  int64_t workLength() const { return (std::max<int64_t>(nlp.workspaceBytes, 8) + 7) / 8 + 1; }
  Value solver() { return b.staticValue(name("_solver")); }
  Value last() { return b.staticValue(name("_last")); }
  Value parameters() { return b.staticValue(name("_p")); }
  Value defaults() { return b.staticValue(name("_defaults")); }
  Value callOptions() { return b.staticValue(name("_call_options")); }
  Value first(Value array) { return b.address(b.at(array, b.index(0))); }
  Value work() { return first(b.staticValue(name("_work"))); }
  Value hessFull() { return b.staticValue(name("_hess_full")); }
  Value zero() { return first(b.staticValue(name("_zero"))); }

  void declarationsTablesAndStatics() {
    b.comment(formatv("{0}: NLP with n = {1}, m = {2}, {3}{4}", w, nlp.n, nlp.m, nlp.solver,
                      nlp.solver == "sqp" ? (nlp.denseQp ? " (dense QPs)" : " (sparse QPs)") : "")
                  .str());
    // Hidden: the definitions (after the unit) take the declaration's
    // visibility.
    for (const std::string &oracle : nlp.oracles)
      if (!oracle.empty())
        b.function(oracle, {"SCALY_WRAPPER_HIDDEN"}, c::entryParams(doubleP), {b.cInt});
    indexTable(b, name("_jac_colptr"), nlp.jacColptr);
    indexTable(b, name("_jac_rowind"), nlp.jacRowind);
    indexTable(b, name("_hess_colptr"), nlp.hessColptr);
    indexTable(b, name("_hess_rowind"), nlp.hessRowind);
    indexTable(b, name("_hess_pick"), nlp.hessPick);
    b.defineStatic(name("_work"), arrayOf(workLength(), b.f64));
    b.defineStatic(name("_hess_full"), arrayOf(std::max<int64_t>(nlp.hessFull, 1), b.f64));
    b.defineStatic(name("_zero"), arrayOf(1, b.opaque("const double")));
    b.defineStatic(name("_p"), constDoubleP);
    b.defineStatic(name("_solver"), solverP);
    b.defineStatic(name("_last"), b.stats);
    b.defineStatic(name("_defaults"), arrayOf(nlp.optionCount, b.f64));
    b.defineStatic(name("_call_options"), b.options);
    b.blankLine();
  }

  /// `return <oracle>({x, w_p, extra...}, {result}, NULL, w_work, 0);`
  Value callOracle(StringRef oracle, ArrayRef<Value> args, Value result) {
    Value arg = b.arrayOf(constDoubleP, args, "arg");
    Value res = b.arrayOf(doubleP, {result}, "res");
    return b.callOpaque(
        b.cInt, oracle,
        {arg, res, b.null(emitc::PointerType::get(b.cInt)), work(), b.integer("0")});
  }

  /// `static int <w>_<what>(void* context, const double* x, double* out)`:
  /// `oracle` at x and the parameters (none: nothing to evaluate).
  emitc::FuncOp callback(StringRef what, StringRef oracle, StringRef out) {
    CParam params[] = {
        {voidP, false, "context"}, {constDoubleP, false, "x"}, {doubleP, false, out.str()}};
    return b.function(name(what), {"static"}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
      b.discard(a[0]);
      if (oracle.empty()) {
        b.discard(a[1]);
        b.discard(a[2]);
        b.ret(b.integer("0"));
        return;
      }
      b.ret(callOracle(oracle, {a[1], parameters()}, a[2]));
    });
  }

  /// `static int <w>_hess_l(context, x, sigma, lam, values)`: the lower
  /// triangle's entries picked from hess_l's symmetric values.
  emitc::FuncOp hessian() {
    CParam params[] = {{voidP, false, "context"},
                       {constDoubleP, false, "x"},
                       {b.f64, false, "sigma"},
                       {constDoubleP, false, "lam"},
                       {doubleP, false, "values"}};
    return b.function(
        name("_hess_l"), {"static"}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
          b.discard(a[0]);
          if (!nlp.m)
            b.discard(a[3]); // no constraints: lam is not read
          Value sigma = b.castTo(constDoubleP, b.address(a[2]));
          Value status = b.named(
              callOracle(nlp.oracles[4], {a[1], parameters(), sigma, nlp.m ? Value(a[3]) : zero()},
                         first(hessFull())),
              "status");
          int64_t picked = nlp.hessPick.size();
          if (picked)
            b.loop(b.index(picked), "k", [&](Value k) {
              Value at = b.at(b.staticValue(name("_hess_pick")), k);
              b.assign(b.at(a[4], k), b.at(hessFull(), at));
            });
          b.ret(status);
        });
  }

  /// `static void <w>_ready(void)`: creates the solver once, with the
  /// problem's patterns and callbacks and the defaults fixed when tracing.
  emitc::FuncOp ready(ArrayRef<emitc::FuncOp> callbacks) {
    return b.function(name("_ready"), {"static"}, {}, {}, [&](ArrayRef<BlockArgument>) {
      b.ifElse(b.isNull(solver()), [&] {
        Value problem = b.variable(b.opaque("scaly_nlp_problem"), "problem");
        auto set = [&](StringRef field, Value v) {
          b.assign(b.field(problem, field, v.getType()), v);
        };
        auto table = [&](StringRef suffix) { return first(b.staticValue(name(suffix))); };
        set("n", b.constant(b.i32, Twine(nlp.n)));
        set("m", b.constant(b.i32, Twine(nlp.m)));
        set("jac_nnz", b.constant(b.i32, Twine(nlp.jacRowind.size())));
        set("jac_colptr", table("_jac_colptr"));
        set("jac_rowind", table("_jac_rowind"));
        set("hess_nnz", b.constant(b.i32, Twine(nlp.hessRowind.size())));
        set("hess_colptr", table("_hess_colptr"));
        set("hess_rowind", table("_hess_rowind"));
        set("context", b.null(voidP));
        // A function's name is its address; EmitC 19 has no op that takes
        // it, so the callback is named by a literal (it is defined above).
        const char *fields[] = {"f", "grad_f", "g", "jac_g", "hess_l"};
        for (auto [field, fn] : llvm::zip(fields, callbacks))
          set(field, b.literal(b.opaque("scaly_nlp_oracle"), emitc::FuncOp(fn).getSymName()));
        b.loop(b.index(nlp.optionCount), "k",
               [&](Value k) { b.assign(b.at(defaults(), k), b.constant(b.f64, "NAN")); });
        for (auto [index, value] : nlp.traceOptions)
          b.assign(b.at(defaults(), b.index(index)),
                   b.constant(b.f64, c::formatFloat(value, /*isFloat=*/false)));
        Value made = b.callOpaque(solverP, "scaly_nlp_create",
                                  {b.address(problem), b.integer(backend),
                                   b.integer(nlp.denseQp ? "SCALY_QP_DENSE" : "SCALY_QP_SPARSE"),
                                   b.null(b.chars), b.integer("0")});
        b.assign(solver(), made);
        if (!nlp.ipoptOptions.empty())
          b.ifElse(b.notNull(solver()), [&] {
            for (auto &[option, value] : nlp.ipoptOptions)
              b.callOpaque({}, "scaly_nlp_set_ipopt_option",
                           {solver(), b.constant(b.chars, c::stringLiteral(option)),
                            b.constant(b.chars, c::stringLiteral(value))});
          });
      });
      b.ret();
    });
  }

  void kind() {
    b.function(name("_kind"), {}, {}, {b.chars, true}, [&](ArrayRef<BlockArgument>) {
      b.ret(b.constant(b.chars, c::stringLiteral(nlp.solver)));
    });
  }

  /// `int <w>_set_option(const char* name, double value)`: a default for
  /// later calls by the backend's option table (a choice by its index); NaN
  /// gives an option back to the backend's default.
  void setOption(emitc::FuncOp readyFn) {
    CParam params[] = {{b.chars, true, "name"}, {b.f64, false, "value"}};
    b.function(name("_set_option"), {}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
      Value found = b.variable(b.cInt, "found", b.constant(b.cInt, "(-1)"));
      b.lock();
      b.call(readyFn, {});
      b.ifElse(
          b.callOpaque(b.i1, "isnan", a[1]),
          [&] {
            b.ifElse(b.notNull(a[0]), [&] {
              b.loop(b.index(nlp.optionCount), "k", [&](Value k) {
                Value optionName =
                    b.callOpaque(b.chars, "scaly_nlp_option_name", {b.integer(backend), k});
                Value differs = b.callOpaque(b.cInt, "strcmp", {optionName, a[0]});
                b.ifElse(b.cmp(emitc::CmpPredicate::eq, differs, b.integer("0")),
                         [&] { b.assign(found, b.castTo(b.cInt, k)); });
              });
            });
          },
          [&] {
            b.assign(found, b.callOpaque(
                                b.cInt, "scaly_nlp_check_option",
                                {b.integer(backend), a[0], a[1], b.null(b.chars), b.integer("0")}));
          });
      Value known = b.cmp(emitc::CmpPredicate::ge, found, b.integer("0"));
      b.ifElse(known, [&] { b.assign(b.at(defaults(), found), a[1]); });
      b.unlock();
      b.ret(b.select(b.cInt, b.cmp(emitc::CmpPredicate::ge, found, b.integer("0")),
                     b.integer("0"), b.integer("(-1)")));
    });
  }

  /// `int <w>_set_ipopt_option(const char* name, const char* value)`: any
  /// IPOPT option as text (value NULL removes it); -1 for another backend.
  void setIpoptOption(emitc::FuncOp readyFn) {
    CParam params[] = {{b.chars, true, "name"}, {b.chars, true, "value"}};
    b.function(name("_set_ipopt_option"), {}, params, {b.cInt}, [&](ArrayRef<BlockArgument> a) {
      Value status = b.variable(b.cInt, "status", b.constant(b.cInt, "(-1)"));
      b.lock();
      b.call(readyFn, {});
      if (nlp.solver == "ipopt") {
        auto set = [&] {
          b.assign(status,
                   b.callOpaque(b.cInt, "scaly_nlp_set_ipopt_option", {solver(), a[0], a[1]}));
        };
        b.ifElse(b.notNull(solver()), [&] {
          b.ifElse(b.isNull(a[1]), set, [&] {
            Value checked = b.callOpaque(b.cInt, "scaly_nlp_check_ipopt_option",
                                         {a[0], a[1], b.null(b.chars), b.integer("0")});
            b.ifElse(b.cmp(emitc::CmpPredicate::eq, checked, b.integer("0")), set);
          });
        });
      } else {
        b.discard(a[0]);
        b.discard(a[1]);
      }
      b.unlock();
      b.ret(status);
    });
  }

  /// NaN results and status ERROR: the solver could not be created.
  void failed(ArrayRef<BlockArgument> a) {
    Value x = a[8], lamG = a[9], lamX = a[10];
    fillNaN(b, nlp.n, "i", {x, lamX});
    fillNaN(b, nlp.m, "i_g", {lamG});
    errorStats(b, [&] { return last(); });
  }

  /// The solve the module's body calls (hidden: only the module calls it).
  void solve(emitc::FuncOp readyFn) {
    SmallVector<CParam, 11> params;
    for (StringRef in : {"x0", "p", "lbx", "ubx", "lbg", "ubg", "lam_g0", "lam_x0"})
      params.push_back({constDoubleP, false, in.str()});
    for (StringRef out : {"x", "lam_g", "lam_x"})
      params.push_back({doubleP, false, out.str()});
    b.comment("The call's options over the defaults (NaN: the default); p NULL: no\n"
              " * parameters. Everything outside the oracles, the solver and its QPs is glue.");
    b.function(w, {"SCALY_WRAPPER_HIDDEN"}, params, {}, [&](ArrayRef<BlockArgument> a) {
      Value options = b.variable(arrayOf(nlp.optionCount, b.f64), "options");
      b.lock();
      Value start =
          b.named(b.call(now, {}), "start");
      b.call(readyFn, {});
      b.loop(b.index(nlp.optionCount), "k", [&](Value k) {
        b.assign(b.at(options, k), b.at(defaults(), k));
        b.ifElse(b.notNull(callOptions()), [&] {
          Value given = b.callOpaque(b.i1, "isnan", b.at(callOptions(), k));
          b.ifElse(b.negate(given),
                   [&] { b.assign(b.at(options, k), b.castTo(b.f64, b.at(callOptions(), k))); });
        });
      });
      Value p = a[1];
      b.assign(parameters(),
               b.select(constDoubleP, b.notNull(p), p, zero()));
      b.ifElse(
          b.notNull(solver()),
          [&] {
            SmallVector<Value> args{solver(), options};
            for (int k : {2, 3, 4, 5, 0, 6, 7, 8, 9, 10})
              args.push_back(a[k]);
            // Its status is in the statistics.
            b.callOpaque({}, "scaly_nlp_solve", args);
            b.callOpaque({}, "scaly_nlp_get_stats", {solver(), b.address(last())});
          },
          [&] { failed(a); });
      recordTimes(b, now, start, [&] { return last(); },
                  {"t_fe", "t_solver", "t_qp", "t_globalization"});
      b.unlock();
      b.ret();
    });
  }

  void build() {
    declarationsTablesAndStatics();
    SmallVector<emitc::FuncOp, 5> callbacks;
    callbacks.push_back(callback("_f", nlp.oracles[0], "f"));
    b.blankLine();
    callbacks.push_back(callback("_grad_f", nlp.oracles[2], "grad"));
    b.blankLine();
    callbacks.push_back(callback("_g", nlp.oracles[1], "g"));
    b.blankLine();
    callbacks.push_back(callback("_jac_g", nlp.oracles[3], "values"));
    b.blankLine();
    callbacks.push_back(hessian());
    b.blankLine();
    emitc::FuncOp readyFn = ready(callbacks);
    b.blankLine();
    kind();
    b.blankLine();
    setOption(readyFn);
    b.blankLine();
    setIpoptOption(readyFn);
    b.blankLine();
    statsAccessor(b, w);
    b.blankLine();
    solve(readyFn);
  }
};

} // namespace

void codegen::buildNlpWrapper(WrapperBuilder &b, emitc::FuncOp now, const std::string &w,
                              const NlpWrapper &nlp) {
  NlpWrapperBuilder{b, now, w, nlp}.build();
}
