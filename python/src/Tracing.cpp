//===- Tracing.cpp - the tracing graph's bindings -------------------------===//

#include "Tracing.h"
#include "Inspection.h"

#include "scaly/Trace/Graph.h"

#include "mlir/IR/Builders.h"

#include <pybind11/stl.h>
#include <structmember.h>

#include <string>
#include <string_view>

namespace py = pybind11;
using namespace scaly;
using trace::Graph;

namespace {

trace::BinaryKind binaryKind(const std::string &op) {
  if (op == "add") return trace::BinaryKind::Add;
  if (op == "sub") return trace::BinaryKind::Sub;
  if (op == "mul") return trace::BinaryKind::Mul;
  if (op == "div") return trace::BinaryKind::Div;
  throw std::invalid_argument("unknown binary operator '" + op + "'");
}


/// The folder of the scaly package: frames there are not the user's.
std::string scalyPackageDir;

/// Finds scalyPackageDir once (it imports scaly: not under the context lock
/// when it can be helped, so Exprs' registration does it first).
void findPackageDir() {
  if (!scalyPackageDir.empty())
    return;
  std::string path = py::module_::import("scaly").attr("__file__").cast<std::string>();
  scalyPackageDir = path.substr(0, path.rfind('/') + 1);
}

/// The line `frame` (running `code`) is at. Cached for the last few places
/// asked about (a reference to each code object is kept, so an entry cannot
/// outlive its code): the lookup scans the code's line table, and a step of
/// an unrolled loop asks from the same few places (its index, its call).
int lineOf(PyFrameObject *frame, PyCodeObject *code) {
  struct Place {
    PyCodeObject *code = nullptr;
    int instruction = -1, line = 0;
  };
  static Place places[4];
  static unsigned next = 0;
  int instruction = PyFrame_GetLasti(frame);
  for (const Place &p : places)
    if (p.code == code && p.instruction == instruction)
      return p.line;
  Place &p = places[next++ % 4];
  PyCodeObject *old = p.code;
  p = {reinterpret_cast<PyCodeObject *>(Py_NewRef(code)), instruction,
       PyFrame_GetLineNumber(frame)};
  Py_XDECREF(old); // last: freeing it may run Python code, which finds the cache whole
  return p.line;
}

/// A code object's file and whether it is the scaly package's. Cached for
/// the last few code objects (each kept alive by a reference): the same few
/// functions of the package sit between the user's code and a binding.
struct CodeInfo {
  PyCodeObject *code = nullptr;
  const char *file = nullptr; // its co_filename's text, alive with `code`
  bool scaly = false;
};
const CodeInfo *codeInfo(PyCodeObject *code) {
  static CodeInfo cache[8];
  static unsigned next = 0;
  for (const CodeInfo &c : cache)
    if (c.code == code)
      return &c;
  const char *file = PyUnicode_AsUTF8(code->co_filename);
  if (!file) {
    PyErr_Clear();
    return nullptr;
  }
  CodeInfo &c = cache[next++ % 8];
  PyCodeObject *old = c.code;
  c = {reinterpret_cast<PyCodeObject *>(Py_NewRef(code)), file,
       !scalyPackageDir.empty() &&
           std::string_view(file).substr(0, scalyPackageDir.size()) == scalyPackageDir};
  Py_XDECREF(old); // last: freeing it may run Python code, which finds the cache whole
  return &c;
}

/// Sets `g`'s location to the innermost Python frame outside the scaly
/// package: where the user wrote the operation being traced (file:line
/// locations in the IR).
void here(Graph &g) {
  findPackageDir(); // a Graph used before any Expr was registered
  PyFrameObject *frame = PyEval_GetFrame(); // borrowed
  Py_XINCREF(frame);
  while (frame) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    if (const CodeInfo *info = codeInfo(code); info && !info->scaly) {
      int line = lineOf(frame, code);
      Py_DECREF(code);
      Py_DECREF(frame);
      g.setLocation(info->file, line);
      return;
    }
    Py_DECREF(code);
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  g.setLocation("", 0);
}

/// `trace()` run on `g` holding the shared context (the graph builds ops in
/// it), after recording the caller's location.
template <typename Trace>
auto atCaller(Graph &g, Trace trace) {
  python::ContextGuard lock;
  here(g);
  return trace();
}

/// A Graph method as a binding that traces at the caller's location.
template <typename R, typename... A>
auto located(R (Graph::*method)(A...)) {
  return [method](Graph &g, A... args) -> R {
    return atCaller(g, [&] { return (g.*method)(std::forward<A>(args)...); });
  };
}

/// The same for a binding body that converts its arguments first (dtype
/// and op names, callee Functions).
template <typename R, typename... A>
auto located(R (*body)(Graph &, A...)) {
  return [body](Graph &g, A... args) -> R {
    return atCaller(g, [&] { return body(g, std::forward<A>(args)...); });
  };
}

/// The class of Python's Exprs (scaly._trace.Expr), registered when the
/// Function class is defined (install_fast_methods): calls and int indexes
/// make their results.
py::object *exprClass = nullptr;
/// Where an Expr keeps its three slots (_g, _id, _blocked): an unrolled
/// step makes two Exprs, filled here as Expr.__init__ fills them, without
/// running it (0.1 us each).
Py_ssize_t graphSlot = -1, idSlot = -1, blockedSlot = -1;

/// The graph object and the node of Expr `x` (its _g and _id): from its
/// slots when x is exactly an Expr whose slots were found, else by interned
/// names (made once, kept past the interpreter's end).
std::pair<py::object, int32_t> exprParts(py::handle x) {
  if (exprClass && Py_TYPE(x.ptr()) == reinterpret_cast<PyTypeObject *>(exprClass->ptr()) &&
      graphSlot >= 0 && idSlot >= 0) {
    auto slot = [&](Py_ssize_t offset) {
      return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(x.ptr()) + offset);
    };
    PyObject *graph = slot(graphSlot), *id = slot(idSlot);
    if (graph && id && PyLong_CheckExact(id)) {
      long value = PyLong_AsLong(id);
      if (value >= 0 && value <= INT32_MAX)
        return {py::reinterpret_borrow<py::object>(graph), static_cast<int32_t>(value)};
      PyErr_Clear();
    }
  }
  static py::handle graphName = PyUnicode_InternFromString("_g");
  static py::handle idName = PyUnicode_InternFromString("_id");
  return {x.attr(graphName), py::cast<int32_t>(x.attr(idName))};
}

/// The shared_ptr that `obj`, a pybind11 instance of exactly T, holds, read
/// without pybind11's type lookup (which hashes T's name on every cast: a
/// sixth of an unrolled step's time); null for anything else (then cast).
/// Both classes are bound with std::shared_ptr holders (bindGraph, and
/// TracedFunction in ScalyModule.cpp); a class whose holder is not that
/// size (another holder type) is never read this way.
template <class T>
const std::shared_ptr<T> *heldBy(PyObject *obj) {
  static const py::detail::type_info *info = py::detail::get_type_info(typeid(T));
  if (!info || Py_TYPE(obj) != info->type ||
      info->holder_size_in_ptrs != py::detail::size_in_ptrs(sizeof(std::shared_ptr<T>)))
    return nullptr;
  auto held = reinterpret_cast<py::detail::instance *>(obj)->get_value_and_holder(info, false);
  if (!held || !held.holder_constructed())
    return nullptr;
  const auto &holder = held.template holder<std::shared_ptr<T>>();
  return holder ? &holder : nullptr;
}

/// The Graph of a graph object: its held pointer, else by pybind11's cast.
Graph &graphOf(const py::object &graphObject) {
  if (const std::shared_ptr<Graph> *held = heldBy<Graph>(graphObject.ptr()))
    return **held;
  return py::cast<Graph &>(graphObject);
}

/// The offset of slot `name` of `cls` (a __slots__ member), or -1.
Py_ssize_t slotOffset(py::handle cls, const char *name) {
  py::object member = py::getattr(cls, name, py::none());
  if (!Py_IS_TYPE(member.ptr(), &PyMemberDescr_Type))
    return -1;
  auto *descr = reinterpret_cast<PyMemberDescrObject *>(member.ptr());
  if (reinterpret_cast<PyObject *>(descr->d_common.d_type) != cls.ptr()) // not inherited
    return -1;
  return descr->d_member->type == T_OBJECT_EX ? descr->d_member->offset : -1;
}

/// Expr(graph, id): the slots set directly when they were found, else by
/// calling the class.
py::object makeExpr(const py::object &graph, int32_t id) {
  // Read once: nothing below may see another class's layout.
  py::object cls = *exprClass;
  Py_ssize_t graphAt = graphSlot, idAt = idSlot, blockedAt = blockedSlot;
  if (graphAt < 0 || idAt < 0 || blockedAt < 0)
    return cls(graph, id);
  auto *type = reinterpret_cast<PyTypeObject *>(cls.ptr());
  PyObject *value = PyLong_FromLong(id);
  if (!value)
    throw py::error_already_set();
  PyObject *expr = type->tp_alloc(type, 0);
  if (!expr) {
    Py_DECREF(value);
    throw py::error_already_set();
  }
  auto slot = [&](Py_ssize_t offset) -> PyObject *& {
    return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(expr) + offset);
  };
  slot(graphAt) = Py_NewRef(graph.ptr());
  slot(idAt) = value;
  slot(blockedAt) = Py_NewRef(Py_False);
  return py::reinterpret_steal<py::object>(expr);
}

/// `fn(*args)` recorded in the graph of `args`, all Exprs of one graph, as
/// Function._call_traced records it, in one call: the step of an unrolled
/// loop spends its time here. NotImplemented for anything else (Python then
/// converts the arguments, or reports what is wrong).
py::object traceCall(const std::shared_ptr<trace::Function> &fn, PyObject *const *args,
                     size_t n) {
  py::object notImplemented = py::reinterpret_borrow<py::object>(Py_NotImplemented);
  if (!exprClass || n == 0 || n != fn->inputs.size())
    return notImplemented;
  py::object graphObject;
  std::vector<int32_t> ids;
  for (size_t i = 0; i < n; ++i) {
    if (Py_TYPE(args[i]) != reinterpret_cast<PyTypeObject *>(exprClass->ptr()))
      return notImplemented;
    auto [g, id] = exprParts(args[i]);
    if (!graphObject)
      graphObject = g;
    else if (!g.is(graphObject))
      return notImplemented;
    ids.push_back(id);
  }
  Graph &graph = graphOf(graphObject);
  std::vector<int32_t> results = atCaller(graph, [&] { return graph.call(fn, std::move(ids)); });
  if (results.size() == 1)
    return makeExpr(graphObject, results[0]);
  py::tuple out(results.size());
  for (size_t k = 0; k < results.size(); ++k)
    out[k] = makeExpr(graphObject, results[k]);
  return out;
}

/// x[k] for an Expr `x` and an int k: the index of unrolled loops, in one
/// call. None when x is a scalar or k out of range (Python reports it).
py::object traceIndex(py::handle x, int64_t k) {
  if (!exprClass)
    return py::none();
  auto [graphObject, id] = exprParts(x);
  Graph &graph = graphOf(graphObject);
  int32_t row = atCaller(graph, [&] { return graph.index(id, k); });
  if (row < 0)
    return py::none();
  return makeExpr(graphObject, row);
}

/// Runs `body` as a Python function's body: C++ exceptions become the
/// Python ones pybind11 would raise (null returned).
template <typename Body>
PyObject *asPython(Body body) {
  try {
    return body().release().ptr();
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (const py::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "expected an Expr of a Graph, or a Function whose _traced "
                                     "is a traced function");
  } catch (const std::invalid_argument &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (py::builtin_exception &e) {
    e.set_error();
  } catch (const std::length_error &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::out_of_range &e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_SystemError, "scaly: an unknown C++ exception while tracing");
  }
  return nullptr;
}

// Expr.__getitem__ and Function.__call__ in C (install_fast_methods): the
// two operations of every step of an unrolled loop, and a Function's
// numerical call, without a Python frame each. Anything but their fast
// cases goes to the Python implementations, Expr._getitem and
// Function._call.
py::object *slowGetItem = nullptr, *slowCall = nullptr;
PyObject *kernelName = nullptr, *tracedName = nullptr;

/// `slow(self, *args, **kwargs)`, the keywords' names in `kwnames` and their
/// values after the positional arguments (vectorcall's convention).
PyObject *callSlow(const py::object *slow, PyObject *self, PyObject *const *args,
                   Py_ssize_t nargs, PyObject *kwnames = nullptr) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  std::vector<PyObject *> all{self};
  all.insert(all.end(), args, args + nargs + nkw);
  return PyObject_Vectorcall(slow->ptr(), all.data(), nargs + 1, kwnames);
}

PyObject *exprGetItem(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs == 1 && PyLong_CheckExact(args[0])) { // x[k]: one call, no key parsing
    long long k = PyLong_AsLongLong(args[0]);
    if (k != -1 || !PyErr_Occurred()) {
      PyObject *row = asPython([&] { return traceIndex(self, k); });
      if (row != Py_None)
        return row; // the row, or an error
      Py_DECREF(row);
    } else {
      PyErr_Clear(); // beyond 64 bits: Python reports it
    }
  }
  return callSlow(slowGetItem, self, args, nargs);
}

PyObject *functionCall(PyObject *self, PyObject *const *args, size_t nargsf,
                       PyObject *kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames && PyTuple_GET_SIZE(kwnames)) // inputs go by position: Python reports it
    return callSlow(slowCall, self, args, nargs, kwnames);
  PyObject *kernel = PyObject_GetAttr(self, kernelName);
  if (!kernel)
    return nullptr;
  if (kernel == Py_None) {
    Py_DECREF(kernel);
    // Inside a trace, every argument an Expr of one graph (the step of an
    // unrolled loop): recorded in one call.
    PyObject *traced = PyObject_GetAttr(self, tracedName);
    if (!traced)
      return nullptr;
    PyObject *recorded = asPython([&] {
      if (const std::shared_ptr<trace::Function> *fn = heldBy<trace::Function>(traced))
        return traceCall(*fn, args, static_cast<size_t>(nargs));
      auto fn = py::cast<std::shared_ptr<trace::Function>>(py::handle(traced));
      return traceCall(fn, args, static_cast<size_t>(nargs));
    });
    Py_DECREF(traced);
    if (recorded != Py_NotImplemented)
      return recorded; // the results, or an error
    Py_DECREF(recorded);
    return callSlow(slowCall, self, args, nargs);
  }
  PyObject *result = PyObject_Vectorcall(kernel, args, nargs, nullptr);
  Py_DECREF(kernel);
  if (result || !PyErr_ExceptionMatches(PyExc_TypeError))
    return result;
  // A compiled Function called with Exprs is traced: Python sorts it out.
  // (The kernel's error is set aside while the arguments are looked at.)
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    int isExpr = PyObject_IsInstance(args[i], exprClass->ptr());
    if (isExpr != 0) {
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(traceback);
      return isExpr < 0 ? nullptr : callSlow(slowCall, self, args, nargs);
    }
  }
  PyErr_Restore(type, value, traceback);
  return nullptr;
}

PyMethodDef exprGetItemDef = {
    "__getitem__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&exprGetItem)),
    METH_FASTCALL,
    "x[key]: a slice, a row, an element, or a gather for an array of positions, as NumPy "
    "indexes (an int key is one call into the graph)"};

PyMethodDef functionCallDef = {
    "__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&functionCall)),
    METH_FASTCALL | METH_KEYWORDS,
    "f(*inputs): with Exprs, a call recorded in their graph; with numbers and arrays, the "
    "compiled function's results (compiled on first use)"};

/// Sets `cls.<def.ml_name>` to a C method of `cls`.
void installMethod(py::handle cls, PyMethodDef *def) {
  py::object method = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(cls.ptr()), def));
  if (!method || PyObject_SetAttrString(cls.ptr(), def->ml_name, method.ptr()) < 0)
    throw py::error_already_set();
}

} // namespace

void python::bindGraph(py::module_ &m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph", "A traced expression graph")
      .def(py::init([] {
        python::ContextGuard lock;
        return std::make_shared<Graph>(python::context());
      }))
      .def("__len__", &Graph::size)
      .def("shape", [](const Graph &g, int32_t id) { return py::tuple(py::cast(g.shape(id))); })
      .def("dtype", [](const Graph &g, int32_t id) { return trace::dtypeName(g.dtype(id)); })
      .def("input",
           located(+[](Graph &g, int32_t pos, trace::Shape shape, const std::string &dtype) {
             return g.input(pos, std::move(shape), trace::parseDType(dtype));
           }))
      .def("constant", located(+[](Graph &g, std::vector<double> values, trace::Shape shape,
                                   const std::string &dtype) {
             return g.constant(std::move(values), std::move(shape), trace::parseDType(dtype));
           }))
      .def("constant_ints", located(+[](Graph &g, std::vector<int64_t> values, trace::Shape shape,
                                        const std::string &dtype) {
             return g.constantInts(std::move(values), std::move(shape), trace::parseDType(dtype));
           }))
      .def("binary", located(+[](Graph &g, const std::string &op, int32_t a, int32_t b) {
             return g.binary(binaryKind(op), a, b);
           }))
      .def("neg", located(&Graph::neg))
      .def("math", located(&Graph::math))
      .def("math2", located(&Graph::math2))
      .def("compare", located(&Graph::compare))
      .def("select", located(&Graph::select))
      .def("cast", located(+[](Graph &g, int32_t a, const std::string &dtype) {
             return g.cast(a, trace::parseDType(dtype));
           }))
      .def("broadcast", located(&Graph::broadcast))
      .def("reshape", located(&Graph::reshape))
      .def("gather", located(&Graph::gather))
      .def("scatter", located(&Graph::scatter))
      .def("concat", located(&Graph::concat))
      .def("sum", located(&Graph::sum))
      .def("concat_axis", located(&Graph::concatAxis))
      .def("reduce", located(&Graph::reduce))
      .def("slice", located(&Graph::slice))
      .def("index", located(&Graph::index))
      .def("transpose", located(&Graph::transpose))
      .def("matmul", located(&Graph::matmul))
      .def("call",
           located(+[](Graph &g, std::shared_ptr<trace::Function> fn, std::vector<int32_t> args) {
             return g.call(std::move(fn), std::move(args));
           }))
      .def("map",
           located(+[](Graph &g, std::shared_ptr<trace::Function> fn, int64_t count,
                       std::vector<int32_t> args, std::vector<bool> mapped) {
             return g.map(std::move(fn), count, std::move(args), std::move(mapped));
           }),
           py::arg("fn"), py::arg("count"), py::arg("args"),
           py::arg("mapped") = std::vector<bool>{})
      .def("scan", located(+[](Graph &g, std::shared_ptr<trace::Function> fn, int64_t count,
                               std::vector<int32_t> args, std::vector<bool> mapped) {
             return g.scan(std::move(fn), count, std::move(args), std::move(mapped));
           }))
      .def("jvp", located(+[](Graph &g, std::shared_ptr<trace::Function> fn,
                              std::vector<int32_t> args, std::vector<bool> wrt, bool exact) {
             return g.jvp(std::move(fn), std::move(args), std::move(wrt), exact);
           }),
           py::arg("fn"), py::arg("args"), py::arg("wrt"), py::arg("exact_zeros") = false)
      .def("vjp",
           located(+[](Graph &g, std::shared_ptr<trace::Function> fn, std::vector<int32_t> args,
                       std::vector<bool> wrt, std::vector<bool> of, bool exact) {
             return g.vjp(std::move(fn), std::move(args), std::move(wrt), std::move(of), exact);
           }),
           py::arg("fn"), py::arg("args"), py::arg("wrt"), py::arg("of"),
           py::arg("exact_zeros") = false)
      .def(
          "op",
          [](Graph &g, const std::string &name, std::vector<int32_t> operands,
             py::dict attributes) {
            // Python values are read before the lock: reading them may run Python.
            std::vector<std::pair<std::string, python::AttributeValue>> values;
            for (auto [key, value] : attributes) {
              std::string k = py::cast<std::string>(key);
              values.emplace_back(k, python::readAttribute(name, k, value));
            }
            python::ContextGuard lock; // the graph builds ops in the shared context
            here(g);
            std::vector<mlir::NamedAttribute> attrs;
            mlir::Builder b(&g.context());
            for (const auto &[k, value] : values)
              attrs.push_back(b.getNamedAttr(k, python::toAttribute(g.context(), name, k, value)));
            return g.op(name, operands, b.getDictionaryAttr(attrs));
          },
          "Any op of the expression dialect by name, its result types inferred by the op")
      .def("inputs", &Graph::inputs);

  m.def("install_fast_methods", [](py::object exprCls, py::object functionCls) {
    if (!PyType_Check(exprCls.ptr()) || !PyType_Check(functionCls.ptr()))
      throw py::type_error("install_fast_methods: expected the Expr and Function classes");
    // Slots filled directly only while these, its own, are all an Expr has.
    py::object slots = py::reinterpret_borrow<py::dict>(
                           reinterpret_cast<PyTypeObject *>(exprCls.ptr())->tp_dict)
                           .attr("get")("__slots__");
    bool three = py::str(slots).cast<std::string>() == "('_g', '_id', '_blocked')";
    Py_ssize_t g = three ? slotOffset(exprCls, "_g") : -1,
               i = three ? slotOffset(exprCls, "_id") : -1,
               b = three ? slotOffset(exprCls, "_blocked") : -1;
    findPackageDir(); // for here(): now rather than under the context lock
    py::object getItem = exprCls.attr("_getitem"), call = functionCls.attr("_call");
    if (!exprClass) { // kept until exit, as the classes themselves
      exprClass = new py::object();
      slowGetItem = new py::object();
      slowCall = new py::object();
      kernelName = PyUnicode_InternFromString("_kernel");
      tracedName = PyUnicode_InternFromString("_traced");
    }
    *exprClass = exprCls;
    graphSlot = g, idSlot = i, blockedSlot = b;
    *slowGetItem = std::move(getItem);
    *slowCall = std::move(call);
    installMethod(exprCls, &exprGetItemDef);
    installMethod(functionCls, &functionCallDef);
  }, "Registers the Expr class (whose Exprs calls and indexes make) and makes "
     "Expr.__getitem__ and Function.__call__ C methods whose fast cases (an int index, a "
     "call of Exprs of one graph, a compiled call) need no Python frame; the rest goes to "
     "Expr._getitem and Function._call");
}
