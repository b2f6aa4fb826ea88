//===- Inspection.cpp - the extension's views of a traced function ------===//

#include "Inspection.h"

#include "scaly/Dialect/Expr/MathFunctions.h"
#include "scaly/Dialect/Expr/Passes.h"
#include "scaly/Dialect/Expr/Sparsity.h"
#include "scaly/Trace/BuildModule.h"
#include "scaly/Trace/Graph.h"
#include "scaly/Support/DiagnosticCollector.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include <algorithm>
#include <map>
#include <set>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace scaly;

namespace {

std::string exprModuleText(const trace::Function &fn) {
  python::ContextGuard lock;
  auto module = trace::buildExprModule(python::context(), fn);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// One function's graph as data: nodes (id, op, shape, dtype, file, line,
/// callee, attrs) and edges (from, to).
py::dict functionGraph(expr::FuncOp f) {
  llvm::DenseMap<mlir::Value, int64_t> ids;
  py::list nodes, edges;
  auto typeInfo = [](mlir::Type t, py::dict &node) {
    py::list shape;
    mlir::Type elem = t;
    if (auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(t)) {
      for (int64_t d : ranked.getShape())
        shape.append(d);
      elem = ranked.getElementType();
    }
    std::string dtype;
    llvm::raw_string_ostream os(dtype);
    elem.print(os);
    node["shape"] = shape;
    node["dtype"] = dtype;
  };
  auto names = f->getAttrOfType<mlir::ArrayAttr>("arg_names");
  for (auto [i, arg] : llvm::enumerate(f.getBody().getArguments())) {
    py::dict node;
    node["id"] = static_cast<int64_t>(nodes.size());
    node["op"] = "input";
    node["name"] = names && i < names.size()
                       ? llvm::cast<mlir::StringAttr>(names[i]).getValue().str()
                       : std::string();
    typeInfo(arg.getType(), node);
    node["file"] = py::none();
    node["line"] = py::none();
    ids[arg] = static_cast<int64_t>(nodes.size());
    nodes.append(node);
  }
  for (mlir::Operation &op : f.getBody().front()) {
    py::dict node;
    int64_t id = static_cast<int64_t>(nodes.size());
    node["id"] = id;
    node["op"] = op.getName().getStringRef().str();
    if (op.getNumResults())
      typeInfo(op.getResult(0).getType(), node);
    else {
      node["shape"] = py::list();
      node["dtype"] = py::none();
    }
    node["results"] = op.getNumResults();
    if (auto callee = op.getAttrOfType<mlir::FlatSymbolRefAttr>("callee"))
      node["callee"] = callee.getValue().str();
    // The op's other attributes as text (a math function, axes, a
    // predicate); long ones (gather indices, constants) are cut short.
    py::dict attrs;
    for (mlir::NamedAttribute a : op.getAttrs()) {
      if (a.getName() == "callee")
        continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      a.getValue().print(os);
      if (text.size() > 60)
        text = text.substr(0, 57) + "...";
      attrs[py::str(a.getName().str())] = text;
    }
    node["attrs"] = attrs;
    node["file"] = py::none();
    node["line"] = py::none();
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op.getLoc())) {
      node["file"] = loc.getFilename().str();
      node["line"] = loc.getLine();
    }
    for (mlir::Value v : op.getOperands())
      if (auto it = ids.find(v); it != ids.end())
        edges.append(py::make_tuple(it->second, id));
    for (mlir::Value r : op.getResults())
      ids[r] = id;
    nodes.append(node);
  }
  py::dict g;
  g["function"] = f.getSymName().str();
  g["nodes"] = nodes;
  g["edges"] = edges;
  return g;
}

/// The expression graph of a traced function as data, for scaly.viz: one
/// dict per function of its module (the entry first, then its callees), each
/// with nodes (id, op, shape, dtype, file, line, callee) and edges (from, to).
/// With `derivatives`, the module is also run through scaly-differentiate:
/// each expr.jvp / expr.vjp node gets "derivative", the function the pass made
/// for it, and those functions (and the ones they call) follow, with
/// "derived": true. A module the pass refuses gets "derivative_error" on its
/// entry instead.
py::list exprGraph(const trace::Function &fn, bool derivatives) {
  python::ContextGuard lock;
  auto module = trace::buildExprModule(python::context(), fn, /*tableValues=*/false);
  py::list functions;
  std::set<std::string> before;
  for (expr::FuncOp f : module->getOps<expr::FuncOp>()) {
    functions.append(functionGraph(f));
    before.insert(f.getSymName().str());
  }
  if (!derivatives || functions.empty())
    return functions;
  bool any = false;
  module->walk([&](mlir::Operation *op) {
    any |= llvm::isa<expr::JvpOp, expr::VjpOp>(op);
  });
  if (!any)
    return functions;
  DiagnosticCollector diags(&python::context());
  mlir::PassManager pm(&python::context());
  pm.addPass(expr::createDifferentiate());
  if (mlir::failed(pm.run(*module))) {
    functions[0].cast<py::dict>()["derivative_error"] = diags.str();
    return functions;
  }
  // The k-th derivative op of a function became its k-th call of a new function.
  std::map<std::string, std::vector<std::string>> made;
  for (expr::FuncOp f : module->getOps<expr::FuncOp>()) {
    if (!before.count(f.getSymName().str()))
      continue;
    for (mlir::Operation &op : f.getBody().front())
      if (auto callee = op.getAttrOfType<mlir::FlatSymbolRefAttr>("callee"))
        if (!before.count(callee.getValue().str()))
          made[f.getSymName().str()].push_back(callee.getValue().str());
  }
  for (py::handle g : functions) {
    auto name = g["function"].cast<std::string>();
    auto it = made.find(name);
    size_t k = 0;
    for (py::handle node : g["nodes"].cast<py::list>()) {
      auto op = node["op"].cast<std::string>();
      if ((op == "expr.jvp" || op == "expr.vjp") && it != made.end() && k < it->second.size())
        node.cast<py::dict>()["derivative"] = it->second[k++];
    }
  }
  for (expr::FuncOp f : module->getOps<expr::FuncOp>())
    if (!before.count(f.getSymName().str())) {
      py::dict g = functionGraph(f);
      g["derived"] = true;
      functions.append(g);
    }
  return functions;
}

/// Index tables cross as NumPy arrays of int32 (as SciPy keeps them): at n =
/// 10^5 a list of Python ints each way costs more than the colouring itself.
using IndexArray = py::array_t<int32_t, py::array::c_style>;

/// `values` (a NumPy array or a list of integers) as a one-dimensional int32
/// array: an int32 array as it is, anything else converted once its values
/// are checked to fit (never wrapped around).
IndexArray indexArray(const std::string &what, py::handle values) {
  if (py::isinstance<IndexArray>(values)) {
    auto array = py::reinterpret_borrow<IndexArray>(values);
    if (array.ndim() != 1)
      throw std::invalid_argument(what + " must be one-dimensional");
    return array;
  }
  py::module_ np = py::module_::import("numpy");
  py::array array = np.attr("asarray")(values);
  if (array.ndim() != 1)
    throw std::invalid_argument(what + " must be one-dimensional");
  if (array.size() == 0)
    return IndexArray(0);
  char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw std::invalid_argument(what + " must hold integers, got " +
                                std::string(py::str(array.dtype())));
  auto fits = [&](const char *extreme, int64_t bound, bool above) {
    py::object v = array.attr(extreme)();
    return above ? v.cast<py::int_>() <= py::int_(bound) : v.cast<py::int_>() >= py::int_(bound);
  };
  if (!fits("max", INT32_MAX, true) || !fits("min", INT32_MIN, false))
    throw std::invalid_argument(what + " holds values outside 32 bits (index tables are int32)");
  return py::reinterpret_steal<IndexArray>(
      array.attr("astype")(np.attr("int32")).release());
}

/// The name of the capsules that hold the vectors of NumPy arrays made here:
/// set_output_sparsity recognizes such an array and shares its vector.
template <typename T>
constexpr const char *kVectorCapsule = nullptr;
template <>
constexpr const char *kVectorCapsule<int32_t> = "scaly.vector<int32_t>";
template <>
constexpr const char *kVectorCapsule<uint8_t> = "scaly.vector<uint8_t>";

/// `v` as a NumPy array of `Element` (T's own type unless given) that owns
/// its buffer (handed over, not copied), read-only. A bool array is stored as
/// bytes (std::vector<bool> would be bits).
template <typename Given = void, typename T,
          typename Element = std::conditional_t<std::is_void_v<Given>, T, Given>>
py::array_t<Element> toArray(std::vector<T> &&v) {
  static_assert(sizeof(Element) == sizeof(T), "an array reads the vector's bytes as they are");
  using Shared = std::shared_ptr<const std::vector<T>>;
  auto *owned = new Shared(std::make_shared<const std::vector<T>>(std::move(v)));
  py::capsule release(owned, kVectorCapsule<T>, [](PyObject *capsule) {
    delete static_cast<Shared *>(PyCapsule_GetPointer(capsule, kVectorCapsule<T>));
  });
  py::array_t<Element> array(static_cast<py::ssize_t>((*owned)->size()),
                             reinterpret_cast<const Element *>((*owned)->data()), release);
  // Read-only: the vector may become a Function's index table, shared.
  array.attr("setflags")(py::arg("write") = false);
  return array;
}

/// `values` as an index table: the vector under a whole array that toArray
/// made (shared, not copied), else a copy of its values.
trace::IndexTable indexTable(const std::string &name, py::handle values) {
  if (py::isinstance<py::array_t<int32_t>>(values)) {
    auto array = py::reinterpret_borrow<py::array_t<int32_t>>(values);
    py::object base = array.base();
    if (base && PyCapsule_IsValid(base.ptr(), kVectorCapsule<int32_t>)) {
      auto *shared = static_cast<trace::IndexTable *>(
          PyCapsule_GetPointer(base.ptr(), kVectorCapsule<int32_t>));
      if (array.ndim() == 1 && array.data() == (*shared)->data() &&
          static_cast<size_t>(array.size()) == (*shared)->size() &&
          (array.size() < 2 || array.strides(0) == sizeof(int32_t)))
        return *shared;
    }
  }
  auto array = indexArray("set_output_sparsity: table '" + name + "'", values);
  return std::make_shared<const std::vector<int32_t>>(array.data(), array.data() + array.size());
}

/// The structural pattern of d(output `of`) / d(input `wrt`) of `fn`, in
/// compressed-column form: (nrow, ncol, colind, row); united with its
/// transpose when `symmetric`.
py::tuple jacobianPattern(const trace::Function &fn, unsigned wrt, unsigned of, bool symmetric) {
  if (wrt >= fn.inputs.size() || of >= fn.outputs.size())
    throw std::invalid_argument("jacobian_pattern: no such input or output");
  python::ContextGuard lock;
  mlir::MLIRContext &ctx = python::context();
  scaly::DiagnosticCollector messages(&ctx);
  auto module = trace::buildExprModule(ctx, fn, /*tableValues=*/false);
  auto f = *module->getOps<expr::FuncOp>().begin();
  auto p = expr::jacobianPattern(*module, f, wrt, of, symmetric);
  if (mlir::failed(p))
    throw std::invalid_argument("sparsity of " + fn.name + "(): " + messages.str());
  return py::make_tuple(p->nrow, p->ncol, toArray(std::move(p->colind)),
                        toArray(std::move(p->row)));
}

/// `colind` and `row` checked as a compressed-column pattern and read in
/// place (the arrays outlive the call that uses the view).
expr::PatternView patternFrom(int64_t nrow, int64_t ncol, const IndexArray &colindArray,
                              const IndexArray &rowArray) {
  llvm::ArrayRef<int32_t> colind(colindArray.data(), colindArray.size());
  llvm::ArrayRef<int32_t> row(rowArray.data(), rowArray.size());
  if (nrow < 0 || ncol < 0)
    throw std::invalid_argument("pattern: nrow and ncol must not be negative");
  if (nrow > INT32_MAX || ncol > INT32_MAX)
    throw std::invalid_argument("pattern: nrow and ncol must fit 32 bits");
  if (static_cast<int64_t>(colind.size()) != ncol + 1 || colind.front() != 0 ||
      colind.back() != static_cast<int64_t>(row.size()))
    throw std::invalid_argument("pattern: colind must have ncol + 1 entries from 0 to nnz");
  for (size_t c = 1; c < colind.size(); ++c)
    if (colind[c] < colind[c - 1])
      throw std::invalid_argument("pattern: colind must not decrease");
  for (int32_t r : row)
    if (r < 0 || r >= nrow)
      throw std::invalid_argument("pattern: row index out of range");
  return {nrow, ncol, colind, row};
}

/// A pattern passed from Python: its tables as int32 arrays (kept alive
/// here) and the checked view of them.
struct Pattern {
  IndexArray colind, row;
  expr::PatternView view;
  Pattern(int64_t nrow, int64_t ncol, py::handle colindValues, py::handle rowValues)
      : colind(indexArray("pattern: colind", colindValues)),
        row(indexArray("pattern: row", rowValues)),
        view(patternFrom(nrow, ncol, colind, row)) {}
};

/// `values` unchanged when it is a read-only NumPy array (Scaly's own tables
/// are), else a read-only copy: what is checked once and read later must not
/// change in between.
py::object frozen(py::handle values) {
  if (py::isinstance<py::array>(values) &&
      !py::reinterpret_borrow<py::array>(values).writeable())
    return py::reinterpret_borrow<py::object>(values);
  py::array copy = py::module_::import("numpy").attr("array")(values);
  copy.attr("setflags")(py::arg("write") = false);
  return copy;
}

/// expr::entryPositions over a pattern, its colouring and (for a star
/// colouring) the per-entry rows, all checked once: Python's gather reads
/// it a slice at a time and keeps only its periodic stretches, so no table
/// of every entry is made (at n = 10^5, megabytes of first-touched memory).
/// Writable inputs are copied first, since they are read after the checks.
class EntryPositions {
public:
  EntryPositions(int64_t nrow, int64_t ncol, py::object colind, py::object row,
                 py::object colours, bool forward, py::object fromRow)
      : pattern(nrow, ncol, frozen(colind), frozen(row)),
        colours(indexArray("EntryPositions: colours", frozen(colours))), forward(forward) {
    bool star = !fromRow.is_none();
    int64_t vertices = forward || star ? ncol : nrow;
    if (this->colours.size() != vertices)
      throw std::invalid_argument("EntryPositions: expected one colour per " +
                                  std::string(forward || star ? "column" : "row") + " (" +
                                  std::to_string(vertices) + "), got " +
                                  std::to_string(this->colours.size()));
    // A colouring needs at most one colour per vertex: positions stay inside
    // nrow x ncol (no overflow either).
    for (int32_t c : colourView())
      if (c < 0 || c >= vertices)
        throw std::invalid_argument("EntryPositions: colour " + std::to_string(c) +
                                    " out of range [0, " + std::to_string(vertices) + ")");
    if (star) {
      py::array flags = py::array::ensure(frozen(fromRow));
      if (!flags || flags.ndim() != 1 || flags.itemsize() != 1 ||
          (flags.dtype().kind() != 'b' && flags.dtype().kind() != 'u') ||
          !(flags.flags() & py::array::c_style) || flags.size() != size())
        throw std::invalid_argument("EntryPositions: from_row must be one bool per stored "
                                    "entry (" + std::to_string(size()) + ")");
      if (nrow != ncol)
        throw std::invalid_argument("EntryPositions: a star colouring's pattern is square");
      rows = flags;
      this->star = true;
    }
  }
  int64_t size() const { return static_cast<int64_t>(pattern.view.row.size()); }
  /// Positions of entries start .. stop, as a new int64 array.
  py::array_t<int64_t> range(int64_t start, int64_t stop) const {
    py::array_t<int64_t> out(std::max<int64_t>(stop - start, 0));
    llvm::ArrayRef<uint8_t> fromRow;
    if (star)
      fromRow = llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(rows.data()), size());
    expr::entryPositions(pattern.view, colourView(), forward, fromRow, start,
                         llvm::MutableArrayRef<int64_t>(out.mutable_data(), out.size()));
    return out;
  }
  /// positions[key]: an int, or an array for a slice.
  py::object item(py::object key) const {
    if (py::isinstance<py::slice>(key)) {
      size_t start, stop, step, length;
      if (!py::reinterpret_borrow<py::slice>(key).compute(size(), &start, &stop, &step, &length))
        throw py::error_already_set();
      if (step == 1)
        return range(start, start + length);
      return range(0, size())[key];
    }
    int64_t k = py::cast<int64_t>(key);
    if (k < 0)
      k += size();
    if (k < 0 || k >= size())
      throw py::index_error("EntryPositions: entry " + std::to_string(k) + " of " +
                            std::to_string(size()));
    return py::int_(range(k, k + 1).at(0));
  }

private:
  llvm::ArrayRef<int32_t> colourView() const {
    return {colours.data(), static_cast<size_t>(colours.size())};
  }
  Pattern pattern;
  IndexArray colours;
  bool forward, star = false;
  py::array rows; ///< the star colouring's per-entry flags (`star`)
};

/// The names of an ODS enum, in value order.
template <typename E>
std::vector<std::string> enumNames(unsigned maxValue) {
  std::vector<std::string> names;
  for (unsigned i = 0; i <= maxValue; ++i)
    names.push_back(expr::stringifyEnum(static_cast<E>(i)).str());
  return names;
}

/// The expression dialect's enums (math functions, comparisons,
/// reductions), so the front end lists no names of its own.
py::dict exprEnums() {
  py::dict d;
  d["math"] = enumNames<expr::MathFn>(expr::getMaxEnumValForMathFn());
  d["math2"] = enumNames<expr::Math2Fn>(expr::getMaxEnumValForMath2Fn());
  d["compare"] = enumNames<expr::CmpPredicate>(expr::getMaxEnumValForCmpPredicate());
  d["reduce"] = enumNames<expr::ReduceKind>(expr::getMaxEnumValForReduceKind());
  return d;
}

/// The math-function table (MathFunctions.td), one dict per function.
py::list mathFunctionTable() {
  py::list rows;
  for (const expr::MathFunctionInfo &f : expr::mathFunctions()) {
    py::dict row;
    row["name"] = f.name;
    row["arity"] = f.arity;
    row["c_name"] = f.cName;
    row["upstream_op"] = f.upstreamOp;
    row["glibc_vector_since"] = f.glibcVectorSince;
    row["differentiable"] = f.differentiable;
    rows.append(row);
  }
  return rows;
}

} // namespace

/// A Python value as an attribute of expression op `op`: int, float and bool
/// as themselves, a list of ints or of bools as a dense array, a str as
/// MLIR attribute text (an enum such as "#expr<reduce_kind sum>").
/// Whether `v` is a bool: Python's or NumPy's.
static bool isBool(py::handle v) {
  if (py::isinstance<py::bool_>(v))
    return true;
  py::handle type = v.get_type();
  return py::str(type.attr("__module__")).cast<std::string>() == "numpy" &&
         py::str(type.attr("__name__")).cast<std::string>().rfind("bool", 0) == 0;
}

/// `v` as an int64 when it is an integer (an int or anything with __index__,
/// as NumPy's integers), else nothing; out of range is an error.
static std::optional<int64_t> asInt(const std::string &what, py::handle v) {
  if (isBool(v) || !PyIndex_Check(v.ptr()))
    return std::nullopt;
  py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow)
    throw std::invalid_argument(what + " does not fit a 64-bit integer");
  return static_cast<int64_t>(value);
}

python::AttributeValue python::readAttribute(const std::string &op, const std::string &name,
                                             py::handle v) {
  std::string what = op + ": attribute '" + name + "'";
  AttributeValue a;
  if (isBool(v)) {
    a.kind = AttributeValue::Bool;
    a.ints = {v.cast<bool>()};
  } else if (std::optional<int64_t> i = asInt(what, v)) {
    a.kind = AttributeValue::Int;
    a.ints = {*i};
  } else if (PyFloat_Check(v.ptr())) {
    a.kind = AttributeValue::Float;
    a.real = v.cast<double>();
  } else if (py::isinstance<py::str>(v)) {
    a.kind = AttributeValue::Text;
    a.text = v.cast<std::string>();
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::sequence items = py::reinterpret_borrow<py::sequence>(v);
    bool bools = items.size() > 0, ints = true;
    for (py::handle item : items) {
      bools &= isBool(item);
      ints &= !isBool(item) && PyIndex_Check(item.ptr());
    }
    if (bools || ints) {
      a.kind = bools ? AttributeValue::Bools : AttributeValue::Ints;
      for (py::handle item : items)
        a.ints.push_back(bools ? item.cast<bool>() : *asInt(what, item));
      return a;
    }
  }
  if (a.kind == AttributeValue::None)
    throw std::invalid_argument(what + " is a Python " +
                                std::string(py::str(v.get_type().attr("__name__"))) +
                                ": expected an int, float, bool, a list of ints or of bools, or "
                                "MLIR attribute text");
  return a;
}

mlir::Attribute python::toAttribute(mlir::MLIRContext &ctx, const std::string &op,
                                    const std::string &name, const AttributeValue &a) {
  mlir::Builder b(&ctx);
  switch (a.kind) {
  case AttributeValue::Bool: return b.getBoolAttr(a.ints[0] != 0);
  case AttributeValue::Int: return b.getI64IntegerAttr(a.ints[0]);
  case AttributeValue::Float: return b.getF64FloatAttr(a.real);
  case AttributeValue::Ints: return b.getDenseI64ArrayAttr(a.ints);
  case AttributeValue::Bools: {
    llvm::SmallVector<bool> flags(a.ints.begin(), a.ints.end());
    return b.getDenseBoolArrayAttr(flags);
  }
  case AttributeValue::Text: {
    scaly::DiagnosticCollector messages(&ctx, "; ");
    if (mlir::Attribute parsed = mlir::parseAttribute(a.text, &ctx))
      return parsed;
    throw std::invalid_argument(op + ": attribute '" + name + "' is not MLIR attribute text: " +
                                messages.str());
  }
  case AttributeValue::None: break;
  }
  throw std::logic_error("an attribute value of no kind");
}

void python::bindInspection(py::module_ &m) {
  m.def("jacobian_pattern", &jacobianPattern,
        "Structural Jacobian pattern (nrow, ncol, colind, row) of output `of` by input `wrt`; "
        "with symmetric=True united with its transpose (a Hessian's, from its gradient)",
        py::arg("fn"), py::arg("wrt"), py::arg("of"), py::arg("symmetric") = false);
  m.def("set_output_sparsity", [](trace::Function &fn, size_t k, std::string layout,
                                  int64_t nrow, int64_t ncol, int64_t batch,
                                  std::vector<std::pair<std::string, py::object>> tables) {
    if (k >= fn.outputs.size())
      throw std::invalid_argument("set_output_sparsity: no output " + std::to_string(k));
    auto sparse = std::make_shared<trace::SparseLayout>();
    sparse->layout = std::move(layout);
    sparse->nrow = nrow;
    sparse->ncol = ncol;
    sparse->batch = batch;
    for (auto &[name, values] : tables)
      sparse->tables.emplace_back(name, indexTable(name, values));
    fn.outputs[k].sparse = std::move(sparse);
  }, "Declare output k sparse: its layout, dimensions and index tables (made by scaly.derivatives)");
  m.def("colour_columns", [](int64_t nrow, int64_t ncol, py::object colind, py::object row) {
    Pattern p(nrow, ncol, colind, row);
    return toArray(expr::colourColumns(p.view));
  }, "Greedy colouring of columns so that columns sharing a row differ");
  m.def("colour_rows", [](int64_t nrow, int64_t ncol, py::object colind, py::object row) {
    Pattern p(nrow, ncol, colind, row);
    return toArray(expr::colourRows(p.view));
  }, "Greedy colouring of rows so that rows sharing a column differ");
  m.def("compress_jacobian", [](int64_t nrow, int64_t ncol, py::object colind, py::object row) {
    Pattern p(nrow, ncol, colind, row);
    auto c = expr::compressJacobian(p.view);
    return py::make_tuple(toArray(std::move(c.colour)), c.forward);
  }, "(colours, forward): the colouring of columns (forward) or rows (reverse) that needs "
     "fewer sweeps");
  py::class_<EntryPositions>(m, "EntryPositions",
      "Where each stored entry of a pattern (compressed-column order) is read in a compressed "
      "product, computed a slice at a time; np.asarray(...) gives the whole int64 table")
      .def(py::init<int64_t, int64_t, py::object, py::object, py::object, bool, py::object>(),
           py::arg("nrow"), py::arg("ncol"), py::arg("colind"), py::arg("row"),
           py::arg("colours"), py::arg("forward"), py::arg("from_row") = py::none())
      .def("__len__", &EntryPositions::size)
      .def("__getitem__", &EntryPositions::item)
      .def("__array__", [](const EntryPositions &e, py::object, py::object) {
        return e.range(0, e.size());
      }, py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  m.def("symmetric_pattern", [](int64_t nrow, int64_t ncol, py::object colind, py::object row) {
    Pattern p(nrow, ncol, colind, row);
    auto s = expr::symmetricUnion(p.view);
    return py::make_tuple(s.nrow, s.ncol, toArray(std::move(s.colind)),
                          toArray(std::move(s.row)));
  }, "The union of a square pattern (rows ascending per column) and its transpose, as (nrow, ncol, colind, row)");
  m.def("star_colouring", [](int64_t n, py::object colind, py::object row) {
    Pattern p(n, n, colind, row);
    std::vector<uint8_t> fromRow;
    auto colour = expr::starColouring(p.view, &fromRow);
    return py::make_tuple(toArray(std::move(colour)), toArray<bool>(std::move(fromRow)));
  }, "(colours, from_row): a star colouring of a symmetric pattern, and per stored entry "
     "whether it is read from its own row of the compressed product (EntryPositions gives "
     "where)");
  m.def("expr_module", &exprModuleText, "The expression-dialect module of a traced function");
  m.def("expr_enums", &exprEnums,
        "The expression dialect's enum names (ODS): math, math2, compare and reduce");
  m.def("math_functions", &mathFunctionTable,
        "The math functions of expr.math and expr.math2 (MathFunctions.td): name, arity, "
        "c_name, upstream_op, glibc_vector_since, differentiable");
  m.def("expr_graph", &exprGraph, "The expression graph of a traced function, as data",
        py::arg("fn"), py::arg("derivatives") = false);
}
