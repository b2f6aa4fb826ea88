//===- EmitCBuilders.h - building C statements as EmitC ops --------*- C++ -*-===//
//
// What every hand-built EmitC function (the module's C helpers, the CasADi
// layer) is made of: a counted loop whose counter the C printer names (and
// the hints placed before one), an if / else whose branches are filled by
// callbacks, and short names for the ops in between (EmitCBuilder).
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_EMITCBUILDERS_H
#define SCALY_TARGET_EMITCBUILDERS_H

#include "scaly/Target/CEmitter.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"

namespace scaly::c {

/// An empty module for C built by hand (the header, the CasADi layer, the
/// WebAssembly shim, the solver wrappers), with the EmitC and cdecl
/// dialects loaded.
inline mlir::OwningOpRef<mlir::ModuleOp> newCModule(mlir::MLIRContext *ctx) {
  ctx->getOrLoadDialect<mlir::emitc::EmitCDialect>();
  ctx->getOrLoadDialect<cdecl::CDeclDialect>();
  return mlir::ModuleOp::create(mlir::UnknownLoc::get(ctx));
}

/// `for (name = lower; name < upper; name += step) { body(name) }`, built at
/// the builder's insertion point; the builder stays after the loop.
inline mlir::emitc::ForOp buildLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lower,
                                    mlir::Value upper, mlir::Value step, llvm::StringRef name,
                                    llvm::function_ref<void(mlir::Value)> body) {
  auto loop = b.create<mlir::emitc::ForOp>(loc, lower, upper, step);
  loop->setAttr(kNameAttr, b.getStringAttr(name));
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
  return loop;
}

/// Clang's loop hints for `loop` (`vectorize(disable)`, ...), placed right
/// before it: `#pragma clang loop <options>` under `#if defined(__clang__)`
/// (other compilers see nothing).
inline void hintClangLoop(mlir::OpBuilder &b, mlir::emitc::ForOp loop,
                          llvm::ArrayRef<llvm::StringRef> options) {
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  auto clang = b.create<cdecl::IfDefinedOp>(loop.getLoc(), "__clang__");
  b.setInsertionPointToStart(&clang.getThenBody().emplaceBlock());
  b.create<cdecl::PragmaOp>(loop.getLoc(), "clang loop", b.getStrArrayAttr(options));
}

/// The line `macro` right before `loop`: a macro the module defines as a
/// loop pragma for some compilers (SCALY_NO_UNROLL).
inline void hintLoopByMacro(mlir::OpBuilder &b, mlir::emitc::ForOp loop, llvm::StringRef macro) {
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  b.create<cdecl::MacroLineOp>(loop.getLoc(), macro);
}

/// `if (cond) { then() } else { otherwise() }` (no else without
/// `otherwise`); the builder stays after it.
inline void buildIfElse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
                        llvm::function_ref<void()> then,
                        llvm::function_ref<void()> otherwise = {}) {
  auto branch = b.create<mlir::emitc::IfOp>(loc, cond, /*addThenBlock=*/true,
                                            /*addElseBlock=*/static_cast<bool>(otherwise));
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&branch.getThenRegion().front());
  then();
  b.create<mlir::emitc::YieldOp>(loc);
  if (otherwise) {
    b.setInsertionPointToEnd(&branch.getElseRegion().front());
    otherwise();
    b.create<mlir::emitc::YieldOp>(loc);
  }
}

/// A parameter or the result of a hand-built C function: its type, whether
/// its innermost element is const (c::kConstAttr), its name in C (none for
/// a result or an unnamed parameter of a declaration).
struct CParam {
  mlir::Type type;
  bool isConst = false;
  std::string name = "";
};

/// The five parameters of an entry's C ABI for the workspace pointer type
/// `w` (`T*`): `const T** arg, T** res, int* iw, T* w, int mem`. The
/// entry's definition, its header's declaration and the WebAssembly shim's
/// pointer export all take these.
inline llvm::SmallVector<CParam, 5> entryParams(mlir::Type w) {
  mlir::Type cInt = mlir::emitc::OpaqueType::get(w.getContext(), "int");
  auto pointer = [](mlir::Type t) -> mlir::Type { return mlir::emitc::PointerType::get(t); };
  return {{pointer(w), true, "arg"},
          {pointer(w), false, "res"},
          {pointer(cInt), false, "iw"},
          {w, false, "w"},
          {cInt, false, "mem"}};
}

/// Short names for the EmitC ops a hand-built C function (the module's C
/// helpers, the CasADi layer, the WebAssembly shim) is made of, at `loc`. Counts and positions are
/// C's `long long` (an opaque type: EmitC adds only integers and opaque
/// values to pointers, and `index` or `i64` would print as another type).
struct EmitCBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type idx = mlir::emitc::OpaqueType::get(b.getContext(), "long long");
  mlir::Type i1 = b.getI1Type();

  /// The `long long` constant `k`.
  mlir::Value index(int64_t k) { return constant(idx, llvm::Twine(k)); }
  /// A constant of type `t` spelled `text` in C (`0.0`, `SCALY_SUCCESS`).
  mlir::Value constant(mlir::Type t, const llvm::Twine &text) {
    return b.create<mlir::emitc::ConstantOp>(
        loc, t, mlir::emitc::OpaqueAttr::get(b.getContext(), text.str()));
  }
  mlir::Value literal(mlir::Type t, llvm::StringRef text) {
    return b.create<mlir::emitc::LiteralOp>(loc, t, text);
  }
  /// `(void)v;`
  void discard(mlir::Value v) {
    b.create<mlir::emitc::CastOp>(loc, mlir::emitc::OpaqueType::get(b.getContext(), "void"), v);
  }
  /// `(t)v`; `isConst`: a pointer to const (c::kConstAttr).
  mlir::Value castTo(mlir::Type t, mlir::Value v, bool isConst = false) {
    auto op = b.create<mlir::emitc::CastOp>(loc, t, v);
    if (isConst)
      op->setAttr(kConstAttr, b.getUnitAttr());
    return op;
  }
  /// An empty line (emitc.verbatim "", as the model's module has them).
  void blankLine() { b.create<mlir::emitc::VerbatimOp>(loc, ""); }
  /// `/* text */`; a text of several lines goes on with ` * `.
  void comment(llvm::StringRef text) { b.create<cdecl::CommentOp>(loc, text); }
  /// `static [_Alignas(align)] [const] T name [= init];`
  void staticVariable(llvm::StringRef name, mlir::Type t, bool isConst = false,
                      llvm::StringRef init = "", int64_t align = 0) {
    auto g = b.create<mlir::emitc::GlobalOp>(
        loc, name, t,
        init.empty() ? mlir::Attribute() : mlir::emitc::OpaqueAttr::get(b.getContext(), init),
        /*externSpecifier=*/false, /*staticSpecifier=*/true, isConst);
    if (align)
      g->setAttr(kAlignAttr, b.getI64IntegerAttr(align));
  }
  /// The global `name`, of type `t`.
  mlir::Value global(llvm::StringRef name, mlir::Type t) {
    return b.create<mlir::emitc::GetGlobalOp>(loc, t, name);
  }
  /// `T name = init;` (`isConst`: a pointer to const; no `init`: `T name;`,
  /// assigned later), the variable.
  mlir::Value variable(mlir::Type t, llvm::StringRef name, mlir::Value init = {},
                       bool isConst = false) {
    auto v = b.create<mlir::emitc::VariableOp>(loc, t,
                                               mlir::emitc::OpaqueAttr::get(b.getContext(), ""));
    v->setAttr(kNameAttr, b.getStringAttr(name));
    if (isConst)
      v->setAttr(kConstAttr, b.getUnitAttr());
    if (init)
      assign(v, init);
    return v;
  }
  mlir::Value null(mlir::Type pointer) { return literal(pointer, "NULL"); }
  /// `p == NULL`, `p != NULL`.
  mlir::Value isNull(mlir::Value p) {
    return cmp(mlir::emitc::CmpPredicate::eq, p, null(p.getType()));
  }
  mlir::Value notNull(mlir::Value p) {
    return cmp(mlir::emitc::CmpPredicate::ne, p, null(p.getType()));
  }
  /// `cond ? x : y`, of type `t`.
  mlir::Value select(mlir::Type t, mlir::Value cond, mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::ConditionalOp>(loc, t, cond, x, y);
  }
  /// A call of `fn` in the module; its result, if any.
  mlir::Value call(mlir::emitc::FuncOp fn, mlir::ValueRange args) {
    auto op = b.create<mlir::emitc::CallOp>(loc, fn, args);
    return op.getNumResults() ? op.getResult(0) : mlir::Value();
  }
  /// A call of C function `callee` by name; its result (of type `result`,
  /// none when null).
  mlir::Value callOpaque(mlir::Type result, llvm::StringRef callee, mlir::ValueRange args) {
    auto op = b.create<mlir::emitc::CallOpaqueOp>(
        loc, result ? mlir::TypeRange{result} : mlir::TypeRange{}, callee, args);
    return result ? op.getResult(0) : mlir::Value();
  }
  /// `&v`.
  mlir::Value address(mlir::Value v) {
    return b.create<mlir::emitc::ApplyOp>(loc, mlir::emitc::PointerType::get(v.getType()), "&", v);
  }
  /// `p->field`, of type `t`.
  mlir::Value member(mlir::Value p, llvm::StringRef field, mlir::Type t) {
    return b.create<mlir::emitc::MemberOfPtrOp>(loc, t, field, p);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::AddOp>(loc, x.getType(), x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::SubOp>(loc, x.getType(), x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::MulOp>(loc, x.getType(), x, y);
  }
  /// `v`, its op's result named `name` in C: `T name = value;`, the
  /// statement printed where it is built.
  mlir::Value named(mlir::Value v, llvm::StringRef name) {
    v.getDefiningOp()->setAttr(kNameAttr, b.getStringAttr(name));
    return v;
  }
  mlir::Value cmp(mlir::emitc::CmpPredicate p, mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::CmpOp>(loc, i1, p, x, y);
  }
  /// `p[i]` of a pointer or an array (a fresh op for each read and each
  /// write: a subscript used once prints in place).
  mlir::Value at(mlir::Value p, mlir::Value i) {
    mlir::Type t = p.getType();
    mlir::Type elem = mlir::isa<mlir::emitc::ArrayType>(t)
                          ? mlir::cast<mlir::emitc::ArrayType>(t).getElementType()
                          : mlir::cast<mlir::emitc::PointerType>(t).getPointee();
    return b.create<mlir::emitc::SubscriptOp>(loc, elem, p, mlir::ValueRange{i});
  }
  void assign(mlir::Value var, mlir::Value value) {
    b.create<mlir::emitc::AssignOp>(loc, var, value);
  }
  void ret(mlir::Value v = {}) { b.create<mlir::emitc::ReturnOp>(loc, v); }
  void ifElse(mlir::Value cond, llvm::function_ref<void()> then,
              llvm::function_ref<void()> otherwise = {}) {
    buildIfElse(b, loc, cond, then, otherwise);
  }

  /// A function `[specifiers] result name(params)` (a null result type:
  /// void); with `body` its definition, built from the arguments, else a
  /// declaration (printed as its prototype).
  using BodyBuilder = llvm::function_ref<void(llvm::ArrayRef<mlir::BlockArgument>)>;
  mlir::emitc::FuncOp function(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> specifiers,
                               llvm::ArrayRef<CParam> params, CParam result,
                               BodyBuilder body = nullptr) {
    llvm::SmallVector<mlir::Type> types;
    llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
    for (const CParam &p : params) {
      types.push_back(p.type);
      llvm::SmallVector<mlir::NamedAttribute> attrs;
      if (!p.name.empty())
        attrs.push_back(b.getNamedAttr(kNameAttr, b.getStringAttr(p.name)));
      if (p.isConst)
        attrs.push_back(b.getNamedAttr(kConstAttr, b.getUnitAttr()));
      argAttrs.push_back(b.getDictionaryAttr(attrs));
    }
    mlir::TypeRange results = result.type ? mlir::TypeRange{result.type} : mlir::TypeRange{};
    auto fn = b.create<mlir::emitc::FuncOp>(
        loc, name, mlir::FunctionType::get(b.getContext(), types, results),
        llvm::ArrayRef<mlir::NamedAttribute>{}, argAttrs);
    if (!specifiers.empty())
      fn.setSpecifiersAttr(b.getStrArrayAttr(specifiers));
    if (result.isConst)
      fn.setResultAttr(0, kConstAttr, b.getUnitAttr());
    if (!body) {
      fn.setPrivate(); // MLIR's rule for a declaration
      return fn;
    }
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fn.addEntryBlock());
    body(fn.getArguments());
    return fn;
  }

  /// `[const] T name[n] = {values...};`: an array of `elem` whose elements
  /// are assigned right after its declaration (the printer's initializer
  /// list), so their positions are built first.
  mlir::Value arrayOf(mlir::Type elem, llvm::ArrayRef<mlir::Value> values, llvm::StringRef name,
                      bool isConst = false) {
    llvm::SmallVector<mlir::Value> positions;
    for (size_t k = 0; k < values.size(); ++k)
      positions.push_back(
          b.create<mlir::emitc::ConstantOp>(loc, b.getI32Type(), b.getI32IntegerAttr(k)));
    mlir::Value v = variable(
        mlir::emitc::ArrayType::get({static_cast<int64_t>(values.size())}, elem), name, {},
        isConst);
    for (auto [k, value] : llvm::zip(positions, values))
      assign(at(v, k), value);
    return v;
  }
};

} // namespace scaly::c

#endif
