//===- CEmitter.cpp - print an EmitC module as C (types and literals: CTypes.cpp) ===//

#include "scaly/Target/CEmitter.h"
#include "scaly/Target/ReservedNames.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "SourceOrigins.h"
#include "WriteOrder.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include <algorithm>

using namespace mlir;
using namespace scaly;

namespace {
using scaly::c::formatFloat;

using c::typeName;

class CPrinter {
public:
  CPrinter(llvm::raw_ostream &os, const c::PrintOptions &options)
      : os(os), options(options), tracking(options.lineComments || options.origins) {}

  /// Prints every top-level op in order. Functions share no printer state,
  /// so they are printed first, each into its own text (in parallel on a
  /// threaded context), then put in place with their line records moved.
  LogicalResult printModule(ModuleOp module) {
    std::vector<emitc::FuncOp> functions = c::functionsIn(*module.getBody());
    printed.resize(functions.size());
    for (auto [p, fn] : llvm::zip(printed, functions))
      p.fn = fn;
    std::vector<Printed *> order;
    for (Printed &p : printed)
      order.push_back(&p);
    if (const auto *sizes = options.functionSizes)
      llvm::stable_sort(order, [&](Printed *a, Printed *b) {
        return sizes->lookup(a->fn) > sizes->lookup(b->fn);
      });
    if (failed(failableParallelForEach(module.getContext(), order, [&](Printed *each) {
          Printed &p = *each;
          llvm::raw_string_ostream out(p.text);
          c::PrintOptions own = options;
          own.origins = options.origins ? &p.origins : nullptr;
          CPrinter printer(out, own);
          LogicalResult ok = printer.printFunc(p.fn);
          p.lines = printer.lineNo - 1;
          return ok;
        })))
      return failure();
    next = printed.begin();
    for (Operation &op : module.getBody()->getOperations())
      if (failed(printTopLevel(op)))
        return failure();
    return success();
  }

private:
  /// A function definition printed on its own, waiting for its place.
  struct Printed {
    emitc::FuncOp fn;
    std::string text;
    std::vector<c::StatementOrigin> origins;
    int64_t lines = 0; // counted by its printer when tracking
  };
  std::vector<Printed> printed;
  std::vector<Printed>::iterator next;

  /// Writes text at the top level, counting its lines when they are read.
  void emitLines(StringRef text) {
    os << text;
    if (tracking)
      lineNo += llvm::count(text, '\n');
  }

  /// An op at the top level of the module or inside a declaration's region.
  LogicalResult printTopLevel(Operation &op) {
    if (isa_and_nonnull<cdecl::CDeclDialect>(op.getDialect()))
      return c::printDeclaration(
          &op, [&](StringRef text) { emitLines(text); },
          [&](Operation &inner) { return printTopLevel(inner); });
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        // A blank line between parts; C text in a verbatim op would be
        // meaning only the printer sees, so there is none (cdecl says it).
        .Case([&](emitc::VerbatimOp v) -> LogicalResult {
          if (!v.getValue().empty())
            return v.emitOpError("holds C text; Scaly's C printer prints emitc.verbatim only "
                                 "as a blank line (\"\")");
          os << "\n";
          ++lineNo;
          return success();
        })
        .Case([&](emitc::IncludeOp inc) {
          if (inc.getIsStandardInclude())
            os << "#include <" << inc.getInclude() << ">\n";
          else
            os << "#include \"" << inc.getInclude() << "\"\n";
          ++lineNo;
          return success();
        })
        .Case([&](emitc::GlobalOp g) -> LogicalResult {
          std::string text = c::globalDefinition(g);
          if (text.empty())
            return g.emitOpError("has no C form (its type or initial value)");
          os << text << "\n";
          lineNo += 1 + llvm::count(text, '\n');
          return success();
        })
        .Case([&](emitc::FuncOp) {
          Printed &p = *next++;
          os << p.text;
          for (c::StatementOrigin &o : p.origins)
            options.origins->push_back({o.cLine + lineNo - 1, std::move(o.from)});
          lineNo += p.lines;
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitOpError("cannot be printed at the top level of a C module");
        });
  }

  llvm::raw_ostream &os;
  const c::PrintOptions &options;
  /// Whether statements' source lines are wanted (comments or records).
  bool tracking;
  /// The line the next output starts on.
  int64_t lineNo = 1;
  /// The locations of the ops printed since the last statement: what the
  /// statement being built prints.
  SmallVector<Location> pendingLocs;
  /// The last origin comment printed in this function.
  std::string lastComment;
  /// The lines of the loop hints (cdecl.pragma, cdecl.macro_line, a
  /// cdecl.if_defined of them) since the last statement, printed with the
  /// next: the loop they precede (the verifier sees to that).
  std::string hintLines;
  int indent = 0;
  DenseMap<Value, std::string> names;
  /// The memory-writing statements of the blocks printed (WriteOrder.cpp).
  c::WriteOrder writes;
  DenseMap<Operation *, Operation *> printedAtMemo;
  DenseMap<Operation *, bool> inlinedMemo;
  DenseMap<Operation *, int> inlineDepth;
  DenseSet<Value> constPointers;
  /// Assignments printed as the initializer of their variable's declaration.
  DenseSet<Operation *> declaredWith;
  llvm::StringSet<> taken;
  int nextScalar = 0, nextPointer = 0;

  void line(const Twine &text) {
    os.indent(2 * indent);
    if (!tracking) { // nothing reads line numbers: print the Twine as it is
      os << text << "\n";
      return;
    }
    std::string s = text.str();
    os << s << "\n";
    lineNo += 1 + llvm::count(s, '\n');
  }

  /// A line printing `op` and what was inlined into it since the last
  /// statement (after the lines of the loop hints before it): its source
  /// lines recorded, and with line comments a comment above both when they
  /// changed.
  void statement(Operation *op, const Twine &text) {
    std::vector<c::SourceLine> from;
    if (tracking) {
      pendingLocs.push_back(op->getLoc());
      from = c::sourceLines(pendingLocs);
      pendingLocs.clear();
      if (options.lineComments && !from.empty()) {
        std::string comment = c::originComment(from);
        if (comment != lastComment)
          line("/* " + comment + " */");
        lastComment = std::move(comment);
      }
    }
    // The loop hints before the statement, under its origin comment (they
    // belong to it); preprocessor lines start at the margin.
    for (StringRef rest = hintLines; !rest.empty();) {
      auto [first, next] = rest.split('\n');
      if (first.starts_with("#")) {
        os << first << "\n";
        lineNo += tracking;
      } else {
        line(first);
      }
      rest = next;
    }
    hintLines.clear();
    if (options.origins && !from.empty())
      options.origins->push_back({lineNo, std::move(from)});
    line(text);
  }

  /// `want` made safe (no C or C++ keyword) and unused in this function.
  std::string claim(llvm::StringRef want) {
    std::string name = c::safeIdentifier(want);
    while (!taken.insert(name).second)
      name += "_";
    return name;
  }

  std::string fresh(bool pointer) {
    while (true) {
      std::string n = pointer ? "t" + std::to_string(nextPointer++)
                              : "v" + std::to_string(nextScalar++);
      if (taken.insert(n).second)
        return n;
    }
  }


  /// A pointer value whose innermost element is const.
  bool isConstPointer(Value v) {
    if (constPointers.count(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (isa<emitc::CastOp>(def) && def->hasAttr(c::kConstAttr))
      return true;
    if (isa<emitc::AddOp, emitc::SubscriptOp, emitc::CastOp>(def) && isa<emitc::PointerType>(v.getType()))
      return isConstPointer(def->getOperand(0));
    return false;
  }

  LogicalResult printFunc(emitc::FuncOp fn) {
    names.clear();
    inlinedMemo.clear();
    inlineDepth.clear();
    writes.clear();
    printedAtMemo.clear();
    constPointers.clear();
    declaredWith.clear();
    taken.clear();
    pendingLocs.clear();
    lastComment.clear();
    hintLines.clear();
    nextScalar = nextPointer = 0;
    for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
      if (fn.getArgAttr(i, c::kRestrictAttr) && !isa<emitc::PointerType>(type))
        return fn.emitOpError("has ") << c::kRestrictAttr << " on argument " << i
                                      << ", which is not a pointer";
    if (fn.isExternal()) { // a declaration: its prototype
      line(c::declaration(fn));
      return success();
    }
    line(c::prototype(fn, [&](unsigned i) {
           BlockArgument arg = fn.getArgument(i);
           auto nameAttr = fn.getArgAttrOfType<StringAttr>(i, c::kNameAttr);
           std::string name = nameAttr ? claim(nameAttr.getValue()) : fresh(false);
           names[arg] = name;
           if (fn.getArgAttr(i, c::kConstAttr))
             constPointers.insert(arg);
           return name;
         }) +
         " {");
    ++indent;
    LogicalResult ok = printBlock(fn.getBody().front(), /*isFunctionBody=*/true);
    --indent;
    line("}");
    return ok;
  }

  static bool isExpression(Operation *op) {
    return isa<emitc::AddOp, emitc::SubOp, emitc::MulOp, emitc::DivOp, emitc::UnaryMinusOp,
               emitc::LogicalNotOp, emitc::LogicalAndOp, emitc::LogicalOrOp, emitc::BitwiseXorOp,
               emitc::BitwiseAndOp, emitc::BitwiseOrOp, emitc::RemOp, emitc::CmpOp,
               emitc::ConditionalOp, emitc::CastOp, emitc::SubscriptOp, emitc::CallOpaqueOp,
               emitc::ApplyOp, emitc::MemberOfPtrOp, emitc::MemberOp,
               cdecl::CompoundLiteralOp>(op) ||
           (isa<emitc::CallOp>(op) && op->getNumResults() == 1);
  }

  /// Constants, literals and globals' addresses: always printed where they
  /// are used, at any nesting depth.
  static bool isLeaf(Operation *op) {
    return isa<emitc::ConstantOp, emitc::LiteralOp, emitc::GetGlobalOp>(op);
  }

  /// Whether `op`'s single result is printed at its use instead of being
  /// given a name. Decided for a whole block before it is printed.
  bool inlined(Operation *op) { return inlinedMemo.lookup(op); }

  /// Whether `op` could be printed at its use, by its kind and its use alone.
  bool inlinable(Operation *op) {
    if (isLeaf(op))
      return true;
    if (op->hasAttr(c::kNameAttr))
      return false; // named on purpose, e.g. an input cast from void*
    if (op->getNumResults() != 1)
      return false;
    Value r = op->getResult(0);
    bool pointer = isa<emitc::PointerType>(r.getType());
    if (isa<emitc::SubscriptOp>(op) && pointer)
      return true; // arg[0]: cheaper to read than a name
    if (isa<emitc::CastOp>(op) && pointer && r.hasOneUse())
      return true;
    if (!r.hasOneUse() || !isExpression(op))
      return false;
    return (*r.getUsers().begin())->getBlock() == op->getBlock();
  }

  /// The statement that prints `op` if every inlinable op on the way is
  /// inlined (the latest it can be printed).
  /// Memoized along the way: a chain of single uses is walked once.
  Operation *printedAt(Operation *op) {
    SmallVector<Operation *> path;
    Operation *at = op;
    while (true) {
      if (Operation *known = printedAtMemo.lookup(at)) {
        at = known;
        break;
      }
      if (!(at->getNumResults() == 1 && at->getResult(0).hasOneUse() && inlinable(at) &&
            !isLeaf(at)))
        break;
      path.push_back(at);
      at = *at->getResult(0).getUsers().begin();
    }
    for (Operation *p : path)
      printedAtMemo[p] = at;
    return at;
  }

  /// The pointer `op` reads memory through: `*p` and `p->f` (and the struct
  /// `s` of `s.f`), but not a member whose address is taken (`&p->f` reads
  /// nothing); else null.
  static Value pointerRead(Operation *op) {
    if (auto apply = dyn_cast<emitc::ApplyOp>(op))
      return apply.getApplicableOperator() == "*" ? apply.getOperand() : Value();
    // `s.f` reads the struct `s` as `p->f` reads through `p`.
    if (!isa<emitc::MemberOfPtrOp, emitc::MemberOp>(op))
      return Value();
    bool addressed = llvm::all_of(op->getUsers(), [](Operation *user) {
      auto apply = dyn_cast<emitc::ApplyOp>(user);
      return apply && apply.getApplicableOperator() == "&";
    });
    return addressed ? Value() : op->getOperand(0);
  }

  /// Expressions nest at most this deep; deeper parts get a name (C
  /// compilers limit nesting, and the C stays readable).
  static constexpr int kMaxInlineDepth = 32;

  void decideInlining(Block &block) {
    for (Operation &op : block) {
      bool inl = inlinable(&op);
      // A read stays in place when anything may write its buffer before the
      // statement that finally prints it. Inputs are exempt: the ABI has
      // them read-only and never overlapping an output.
      if (auto read = dyn_cast<emitc::SubscriptOp>(&op); inl && read &&
          !isa<emitc::PointerType>(read.getType()) && !isConstPointer(read.getValue())) {
        Operation *user = *op.getResult(0).getUsers().begin();
        inl = !writes.writtenBetween(&block, writes.epoch(&op), writes.epoch(printedAt(user)),
                              c::WriteOrder::bufferOf(read.getValue()));
      }
      // So does a read through `*p` or `p->f` (not `&p->f`, an address).
      if (Value ptr = pointerRead(&op); inl && ptr && !isConstPointer(ptr)) {
        Operation *user = *op.getResult(0).getUsers().begin();
        inl = !writes.writtenBetween(&block, writes.epoch(&op), writes.epoch(printedAt(user)),
                              c::WriteOrder::bufferOf(ptr));
      }
      // A call that reads memory through a pointer argument (a reduction
      // helper) is a read too: it stays in place when its buffer may be
      // written before the statement that would print it.
      if (inl && isa<emitc::CallOpaqueOp, emitc::CallOp>(op) && op.getNumResults() == 1) {
        Operation *user = *op.getResult(0).getUsers().begin();
        int64_t from = writes.epoch(&op), to = writes.epoch(printedAt(user));
        for (Value arg : op.getOperands())
          if (isa<emitc::PointerType>(arg.getType()) && !isConstPointer(arg) &&
              writes.writtenBetween(&block, from, to, c::WriteOrder::bufferOf(arg)))
            inl = false;
      }
      int depth = 1;
      for (Value v : op.getOperands())
        if (Operation *def = v.getDefiningOp(); def && inlinedMemo.lookup(def))
          depth = std::max(depth, 1 + inlineDepth.lookup(def));
      if (depth > kMaxInlineDepth && !isLeaf(&op))
        inl = false;
      inlinedMemo[&op] = inl;
      inlineDepth[&op] = inl ? depth : 0;
    }
  }

  std::string expr(Value v) {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    Operation *op = v.getDefiningOp();
    return exprOf(op);
  }

  std::string binary(Operation *op, StringRef sym) {
    return "(" + expr(op->getOperand(0)) + " " + sym.str() + " " + expr(op->getOperand(1)) + ")";
  }

  /// + - *. On unsigned integers (the wrap-around form program-to-emitc
  /// gives signed model arithmetic) the operands are casts, printed without
  /// their own parentheses: `(uint64_t)a + (uint64_t)b`.
  std::string arithmetic(Operation *op, StringRef sym) {
    if (!op->getResult(0).getType().isUnsignedInteger())
      return binary(op, sym);
    auto operand = [&](Value v) {
      std::string s = expr(v);
      if (isa_and_nonnull<emitc::CastOp>(v.getDefiningOp()) && !names.count(v))
        s = s.substr(1, s.size() - 2);
      return s;
    };
    return "(" + operand(op->getOperand(0)) + " " + sym.str() + " " + operand(op->getOperand(1)) +
           ")";
  }

  std::string exprOf(Operation *op) {
    if (tracking)
      pendingLocs.push_back(op->getLoc());
    return llvm::TypeSwitch<Operation *, std::string>(op)
        .Case([&](emitc::ConstantOp c) { return constant(c.getValue()); })
        .Case([&](emitc::LiteralOp l) { return l.getValue().str(); })
        .Case([&](emitc::GetGlobalOp g) { return g.getName().str(); })
        .Case([&](emitc::AddOp o) {
          return isa<emitc::PointerType>(o.getType()) ? binary(o, "+") : arithmetic(o, "+");
        })
        .Case([&](emitc::SubOp o) { return arithmetic(o, "-"); })
        .Case([&](emitc::MulOp o) { return arithmetic(o, "*"); })
        .Case([&](emitc::DivOp o) { return binary(o, "/"); })
        .Case([&](emitc::UnaryMinusOp o) { return "(-" + expr(o.getOperand()) + ")"; })
        .Case([&](emitc::LogicalNotOp o) { return "(!" + expr(o.getOperand()) + ")"; })
        .Case([&](emitc::LogicalAndOp o) { return binary(o, "&&"); })
        .Case([&](emitc::LogicalOrOp o) { return binary(o, "||"); })
        .Case([&](emitc::BitwiseXorOp o) { return binary(o, "^"); })
        .Case([&](emitc::BitwiseAndOp o) { return binary(o, "&"); })
        .Case([&](emitc::BitwiseOrOp o) { return binary(o, "|"); })
        .Case([&](emitc::RemOp o) { return binary(o, "%"); })
        .Case([&](emitc::CmpOp o) {
          static const char *syms[] = {"==", "!=", "<", "<=", ">", ">=", "<=>"};
          return binary(o, syms[static_cast<int>(o.getPredicate())]);
        })
        .Case([&](emitc::ConditionalOp o) {
          return "(" + expr(o.getCondition()) + " ? " + expr(o.getTrueValue()) + " : " +
                 expr(o.getFalseValue()) + ")";
        })
        .Case([&](emitc::CastOp o) {
          Value src = o.getSource();
          bool isConst = isa<emitc::PointerType>(o.getType()) &&
                         (o->hasAttr(c::kConstAttr) || isConstPointer(src));
          return "((" + typeName(o.getType(), isConst) + ")" + expr(src) + ")";
        })
        .Case([&](emitc::SubscriptOp o) { return subscript(o); })
        // `&x` and `*p` bind looser than what they apply to (a name, `a[i]`,
        // `p->f`, a parenthesized expression), so they need no parentheses
        // of their own; a postfix operator on them adds some (postfix()).
        .Case([&](emitc::ApplyOp o) {
          return o.getApplicableOperator().str() + expr(o.getOperand());
        })
        .Case([&](emitc::MemberOfPtrOp o) {
          return postfix(o.getOperand()) + "->" + o.getMember().str();
        })
        // `s.f` of a struct value (a wrapper's variable or static).
        .Case([&](emitc::MemberOp o) { return postfix(o.getOperand()) + "." + o.getMember().str(); })
        .Case([&](emitc::CallOpaqueOp o) {
          return o.getCallee().str() + "(" + argList(o.getOperands()) + ")";
        })
        .Case([&](cdecl::CompoundLiteralOp o) {
          return "(" + typeName(o.getType(), false) + "){" + argList(o.getElements()) + "}";
        })
        .Case([&](emitc::CallOp o) { return callText(o); })
        .Default([&](Operation *other) {
          other->emitOpError("has no C expression form");
          return std::string("/*?*/");
        });
  }

  /// p[k]; (p + i)[0] reads better as p[i], and (p + i)[k] as p[i + k],
  /// when the sum is not named.
  std::string subscript(emitc::SubscriptOp o) {
    Value base = o.getValue(), idx = o.getIndices()[0];
    auto add = base.getDefiningOp<emitc::AddOp>();
    if (add && !names.count(base) && isa<emitc::PointerType>(add.getType())) {
      std::string offset = expr(add.getRhs());
      std::optional<int64_t> k = c::constantIndex(idx);
      if (k == 0)
        return expr(add.getLhs()) + "[" + stripParens(offset) + "]";
      return expr(add.getLhs()) + "[" + stripParens(offset) + " + " + expr(idx) + "]";
    }
    return postfix(base) + "[" + stripParens(expr(idx)) + "]";
  }

  /// `v` as the operand of a postfix operator (`v[i]`, `v->f`): an `&x` or
  /// `*p` printed in place is parenthesized.
  std::string postfix(Value v) {
    std::string s = expr(v);
    if (isa_and_nonnull<emitc::ApplyOp>(v.getDefiningOp()) && !names.count(v))
      return "(" + s + ")";
    return s;
  }

  /// "(a + b)" -> "a + b" when the outer parentheses enclose everything.
  static std::string stripParens(const std::string &s) {
    if (s.size() < 2 || s.front() != '(' || s.back() != ')')
      return s;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : (s[i] == ')' ? -1 : 0);
      if (depth == 0 && i + 1 < s.size())
        return s;
    }
    return s.substr(1, s.size() - 2);
  }

  std::string constant(Attribute attr) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return formatFloat(f.getValueAsDouble(), f.getType().isF32());
    if (auto i = dyn_cast<IntegerAttr>(attr)) {
      if (i.getType().isInteger(1))
        return i.getValue().isZero() ? "0" : "1";
      int64_t v = i.getValue().getSExtValue();
      return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    }
    if (auto o = dyn_cast<emitc::OpaqueAttr>(attr))
      return o.getValue().str();
    return "/*?*/";
  }

  /// The left side of an assignment: *(T*)(p) for a vector slot.
  std::string lvalue(Value var) {
    if (auto sub = var.getDefiningOp<emitc::SubscriptOp>())
      if (auto cast = sub.getValue().getDefiningOp<emitc::CastOp>();
          cast && !names.count(cast.getResult())) {
        auto idx = sub.getIndices()[0].getDefiningOp<emitc::ConstantOp>();
        auto zero = idx ? dyn_cast<IntegerAttr>(idx.getValue()) : IntegerAttr();
        if (zero && zero.getValue().isZero())
          return "*(" + typeName(cast.getType(), false) + ")(" +
                 stripParens(expr(cast.getSource())) + ")";
      }
    return expr(var);
  }

  LogicalResult printBlock(Block &block, bool isFunctionBody) {
    writes.number(block);
    decideInlining(block);
    for (Operation &op : block) {
      if (failed(printStatement(&op, isFunctionBody && &op == &block.back())))
        return failure();
    }
    return success();
  }

  /// `T v = value;` for a variable whose next statement assigns it (a
  /// loop's carried value, or a temporary of its assignments), else
  /// `T v;` or `T v = constant;`.
  LogicalResult printVariable(emitc::VariableOp v) {
    Value r = v.getResult();
    bool pointer = isa<emitc::PointerType>(r.getType());
    auto nameAttr = v->getAttrOfType<StringAttr>(c::kNameAttr);
    std::string name = nameAttr ? claim(nameAttr.getValue()) : fresh(pointer);
    std::string decl = typeName(r.getType(), pointer && v->hasAttr(c::kConstAttr)) + " " + name;
    if (auto array = dyn_cast<emitc::ArrayType>(r.getType())) {
      decl = typeName(array.getElementType(), v->hasAttr(c::kConstAttr)) + " " + name +
             c::arrayDims(array);
    }
    std::string init;
    SmallVector<emitc::AssignOp> elements = elementAssignments(v);
    if (auto first = dyn_cast_or_null<emitc::AssignOp>(v->getNextNode());
        first && first.getVar() == r) {
      init = stripParens(expr(first.getValue())); // before the name exists
      declaredWith.insert(first.getOperation());
    } else if (!elements.empty()) {
      init = "{";
      for (auto [k, a] : llvm::enumerate(elements)) {
        init += (k ? ", " : "") + stripParens(expr(a.getValue()));
        declaredWith.insert(a.getOperation());
      }
      init += "}";
    } else if (auto o = dyn_cast<emitc::OpaqueAttr>(v.getValue()); !o || !o.getValue().empty()) {
      init = constant(v.getValue());
    }
    names[r] = name;
    statement(v, decl + (init.empty() ? "" : " = " + init) + ";");
    return success();
  }

  /// The assignments of every element of a one-dimensional array variable,
  /// in order, when they follow its declaration (each `a[k]` subscript
  /// right before its assignment): printed as its initializer list
  /// `T a[n] = {v0, v1};`. Empty otherwise.
  static SmallVector<emitc::AssignOp> elementAssignments(emitc::VariableOp v) {
    auto array = dyn_cast<emitc::ArrayType>(v.getType());
    if (!array || array.getRank() != 1)
      return {};
    SmallVector<emitc::AssignOp> out;
    Operation *next = v->getNextNode();
    for (int64_t k = 0; k < array.getShape()[0]; ++k) {
      auto sub = dyn_cast_or_null<emitc::SubscriptOp>(next);
      auto assign = sub ? dyn_cast_or_null<emitc::AssignOp>(sub->getNextNode()) : nullptr;
      if (!assign || sub.getValue() != v.getResult() || assign.getVar() != sub.getResult() ||
          c::constantIndex(sub.getIndices()[0]) != k || !sub.getResult().hasOneUse())
        return {};
      out.push_back(assign);
      next = assign->getNextNode();
    }
    return out;
  }

  LogicalResult printStatement(Operation *op, bool lastInFunction) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        // The loop's braces and `break` print as lines of their own: they
        // stand for no expression and no source line of the model.
        .Case([&](cdecl::LoopOp loop) {
          line("for (;;) {");
          ++indent;
          LogicalResult ok = printBlock(loop.getBody().front(), false);
          --indent;
          line("}");
          return ok;
        })
        .Case([&](cdecl::BreakOp) {
          line("break;");
          return success();
        })
        .Case<cdecl::PragmaOp, cdecl::MacroLineOp, cdecl::IfDefinedOp>(
            [&](Operation *hint) { return holdHint(*hint); })
        .Case([&](cdecl::ReturnIfOp r) {
          statement(r, returnIfText(r));
          return success();
        })
        .Case([&](emitc::VariableOp v) { return printVariable(v); })
        .Case([&](emitc::AssignOp a) {
          if (declaredWith.contains(a.getOperation()))
            return success(); // printed as the variable's initializer
          std::string target = lvalue(a.getVar());
          statement(a, target + " = " + stripParens(expr(a.getValue())) + ";");
          return success();
        })
        .Case([&](emitc::CallOp call) {
          if (call.getNumResults())
            return printValue(call);
          statement(call, callText(call) + ";");
          return success();
        })
        .Case([&](emitc::ForOp loop) -> LogicalResult {
          auto nameAttr = loop->getAttrOfType<StringAttr>(c::kNameAttr);
          std::string name = nameAttr ? claim(nameAttr.getValue()) : fresh(false);
          names[loop.getInductionVar()] = name;
          std::string step = expr(loop.getStep());
          std::string inc = step == "1" ? "++" + name : name + " += " + step;
          statement(loop,
                    "for (long long " + name + " = " + expr(loop.getLowerBound()) + "; " + name +
                        " < " + expr(loop.getUpperBound()) + "; " + inc + ") {");
          ++indent;
          LogicalResult ok = printBlock(*loop.getBody(), false);
          --indent;
          line("}");
          return ok;
        })
        .Case([&](emitc::IfOp branch) {
          statement(branch, "if (" + stripParens(expr(branch.getCondition())) + ") {");
          ++indent;
          LogicalResult ok = printBlock(branch.getThenRegion().front(), false);
          --indent;
          if (succeeded(ok) && !branch.getElseRegion().empty()) {
            line("} else {");
            ++indent;
            ok = printBlock(branch.getElseRegion().front(), false);
            --indent;
          }
          line("}");
          return ok;
        })
        .Case([&](emitc::YieldOp) { return success(); })
        .Case([&](emitc::ReturnOp r) {
          if (r.getOperand())
            statement(r, "return " + stripParens(expr(r.getOperand())) + ";");
          else if (!lastInFunction)
            line("return;");
          return success();
        })
        .Default([&](Operation *other) -> LogicalResult {
          if (other->getNumResults() == 0) {
            if (auto call = dyn_cast<emitc::CallOpaqueOp>(other)) {
              statement(call, exprOf(call) + ";");
              return success();
            }
            return other->emitOpError("has no C statement form");
          }
          return printValue(other);
        });
  }

  /// A loop hint's lines (a conditional's with its body's), kept for the
  /// loop's statement: they go under the loop's origin comment.
  LogicalResult holdHint(Operation &hint) {
    return c::printDeclaration(
        &hint, [&](StringRef text) { hintLines += text; },
        [&](Operation &inner) { return holdHint(inner); });
  }

  /// An op with one result: nothing where it is inlined, else a named
  /// variable holding it.
  LogicalResult printValue(Operation *op) {
    if (inlined(op))
      return success();
    // `(void)x;`: a cast to void marks a parameter as deliberately unused.
    if (auto cast = dyn_cast<emitc::CastOp>(op); cast && c::isVoid(cast.getType())) {
      statement(op, stripParens(exprOf(op)) + ";");
      return success();
    }
    if (op->getResult(0).use_empty() && isExpression(op)) {
      // Nothing reads the value; a call is still made, its result dropped
      // (no variable that nothing reads).
      if (isa<emitc::CallOp, emitc::CallOpaqueOp>(op))
        statement(op, stripParens(exprOf(op)) + ";");
      return success();
    }
    Value r = op->getResult(0);
    bool pointer = isa<emitc::PointerType>(r.getType());
    auto nameAttr = op->getAttrOfType<StringAttr>(c::kNameAttr);
    std::string name = nameAttr ? claim(nameAttr.getValue()) : fresh(pointer);
    std::string init = exprOf(op);
    names[r] = name;
    statement(op, typeName(r.getType(), pointer && isConstPointer(r)) + " " + name + " = " +
                      stripParens(init) + ";");
    return success();
  }

  /// `if (c1 || c2) return v;`. A condition binding tighter than `||` (a
  /// negation, a comparison) needs no parentheses of its own.
  std::string returnIfText(cdecl::ReturnIfOp r) {
    SmallVector<std::string> conditions;
    for (Value c : r.getConditions()) {
      std::string text = expr(c);
      if (isa_and_nonnull<emitc::LogicalNotOp, emitc::CmpOp>(c.getDefiningOp()) && !names.count(c))
        text = stripParens(text);
      conditions.push_back(std::move(text));
    }
    std::string result = r.getValue() ? " " + stripParens(expr(r.getValue())) : "";
    return "if (" + llvm::join(conditions, " || ") + ") return" + result + ";";
  }

  /// `a, b, ...`: the arguments of a call or the elements of a compound
  /// literal, each without its outer parentheses.
  std::string argList(ValueRange values) {
    std::string list;
    for (auto [i, v] : llvm::enumerate(values))
      list += (i ? ", " : "") + stripParens(expr(v));
    return list;
  }

  /// `f(a, b)` for an emitc.call.
  std::string callText(emitc::CallOp call) {
    return call.getCallee().str() + "(" + argList(call.getOperands()) + ")";
  }
};

} // namespace

LogicalResult c::printC(ModuleOp module, llvm::raw_ostream &os, const PrintOptions &options) {
  CPrinter printer(os, options);
  return printer.printModule(module);
}
