//===- Kernel.cpp - the fast numerical call type --------------------------===//
//
// A Kernel wraps the exported entry of a compiled module. Calling it takes
// the CPython vectorcall path, not pybind11's overload machinery: NumPy's C
// API checks dtype, shape and contiguity and gives the data pointer (no copy
// for a contiguous array of the right dtype), one PyArray_SimpleNew per
// output (64-byte aligned from 1 MiB, AlignedOutputs.cpp), then one C
// call. The GIL is released around calls that move many elements.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL scaly_ARRAY_API
#include "Kernel.h"
#include "AlignedOutputs.h"

#include <numpy/arrayobject.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace scaly::python {
namespace {

using Entry = int (*)(const void **, void **, int *, void *, int);

struct Port {
  std::string name;
  std::vector<npy_intp> shape;
  int typenum;
  npy_intp size;
  /// At least kAlignedOutputBytes: as an output, made on a cache line.
  bool large = false;
};

/// Ports handled with buffers on the stack; more use the heap.
constexpr size_t kStackPorts = 64;

/// A per-call array of `n` entries, on the stack for up to kStackPorts.
template <typename T>
struct PortArray {
  explicit PortArray(size_t n) : data(n > kStackPorts ? (heap.resize(n), heap.data()) : stack) {}
  T &operator[](size_t i) { return data[i]; }
  T stack[kStackPorts];
  std::vector<T> heap;
  T *data;
};
/// The largest workspace a kernel keeps between calls; a larger one is
/// allocated per call, so that idle kernels do not pin more than this each.
constexpr size_t kKeptWorkspaceLimit = size_t(64) << 20;
/// Calls that move at least this many elements release the GIL.
constexpr npy_intp kReleaseGilElements = 1 << 14;

struct KernelObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  Entry entry;
  PyObject *owner; // keeps the code alive (JIT object or shared library)
  std::vector<Port> *inputs;
  std::vector<Port> *outputs;
  std::string *name;
  size_t workspaceBytes;
  // A heap workspace kept between calls (up to kKeptWorkspaceLimit): on
  // this kind of VM a fresh allocation of megabytes costs a page fault per
  // 4 KiB at every call (an 8 MB workspace: ~30 ms, against ~0.3 ms of
  // arithmetic). A call that finds it in use (another thread, the GIL
  // released) allocates its own. Both fields are read and written with the
  // GIL held.
  void *keptWorkspace;
  bool keptWorkspaceInUse;
  npy_intp totalElements;
  long long copies; // inputs that had to be converted (tests prove zero-copy with it)
};

std::string shapeText(int ndim, const npy_intp *dims) {
  std::string s = "(";
  for (int i = 0; i < ndim; ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  if (ndim == 1)
    s += ",";
  return s + ")";
}

int typenumOf(const std::string &dtype) {
  if (dtype == "float64") return NPY_FLOAT64;
  if (dtype == "float32") return NPY_FLOAT32;
  if (dtype == "int32") return NPY_INT32;
  if (dtype == "int64") return NPY_INT64;
  if (dtype == "bool") return NPY_BOOL;
  return -1;
}

const char *dtypeText(int typenum) {
  switch (typenum) {
  case NPY_FLOAT64: return "float64";
  case NPY_FLOAT32: return "float32";
  case NPY_INT32: return "int32";
  case NPY_INT64: return "int64";
  case NPY_BOOL: return "bool";
  }
  return "?";
}

PyArrayObject *wrongInput(KernelObject *k, const Port &port, PyObject *obj, const char *why) {
  PyErr_Format(PyExc_TypeError, "%s(): input '%s' expects a %s array of shape %s%s, got %s",
               k->name->c_str(), port.name.c_str(), dtypeText(port.typenum),
               shapeText(static_cast<int>(port.shape.size()), port.shape.data()).c_str(), why,
               Py_TYPE(obj)->tp_name);
  return nullptr;
}

PyArrayObject *lossyInput(KernelObject *k, const Port &port, PyObject *obj, const char *what) {
  PyErr_Format(PyExc_TypeError, "%s(): input '%s' expects %s values (%s), got %s that do not convert exactly",
               k->name->c_str(), port.name.c_str(), dtypeText(port.typenum), what,
               Py_TYPE(obj)->tp_name);
  return nullptr;
}

bool sameShape(const Port &port, int ndim, const npy_intp *dims) {
  if (ndim != static_cast<int>(port.shape.size()))
    return false;
  for (int i = 0; i < ndim; ++i)
    if (dims[i] != port.shape[i])
      return false;
  return true;
}

/// Checks `dims` against the port's shape; raises ValueError when they differ.
bool checkShape(KernelObject *k, const Port &port, int ndim, const npy_intp *dims) {
  if (sameShape(port, ndim, dims))
    return true;
  PyErr_Format(PyExc_ValueError, "%s(): input '%s' expects shape %s, got %s", k->name->c_str(),
               port.name.c_str(),
               shapeText(static_cast<int>(port.shape.size()), port.shape.data()).c_str(),
               shapeText(ndim, dims).c_str());
  return false;
}

PyArrayObject *outOfRange(KernelObject *k, const Port &port, PyObject *obj) {
  bool is32 = port.typenum == NPY_INT32;
  long long lo = is32 ? static_cast<long long>(INT32_MIN) : static_cast<long long>(INT64_MIN);
  long long hi = is32 ? static_cast<long long>(INT32_MAX) : static_cast<long long>(INT64_MAX);
  if (PyLong_Check(obj) || PyArray_IsScalar(obj, Integer))
    PyErr_Format(PyExc_OverflowError, "%s(): input '%s' expects %s values in [%lld, %lld], got %R",
                 k->name->c_str(), port.name.c_str(), dtypeText(port.typenum), lo, hi, obj);
  else
    PyErr_Format(PyExc_OverflowError,
                 "%s(): input '%s' expects %s values in [%lld, %lld], got %s with an integer "
                 "outside that range",
                 k->name->c_str(), port.name.c_str(), dtypeText(port.typenum), lo, hi,
                 Py_TYPE(obj)->tp_name);
  return nullptr;
}

/// `obj` (a list, tuple or scalar) as an object array when it holds only
/// Python or NumPy integers (bools count), else null. NumPy gives such a list
/// an object or float64 dtype when its integers do not fit one 64-bit type
/// together ([2**70], [-1, 2**63], [-1, np.uint64(5)]).
PyArrayObject *integerObjects(PyObject *obj) {
  auto *objects = reinterpret_cast<PyArrayObject *>(
      PyArray_FromAny(obj, PyArray_DescrFromType(NPY_OBJECT), 0, 0, NPY_ARRAY_C_CONTIGUOUS,
                      nullptr));
  if (!objects) {
    PyErr_Clear();
    return nullptr;
  }
  bool ints = true;
  auto **items = static_cast<PyObject **>(PyArray_DATA(objects));
  for (npy_intp i = 0, n = PyArray_SIZE(objects); ints && i < n; ++i)
    ints = PyLong_Check(items[i]) || PyArray_IsScalar(items[i], Integer) ||
           PyArray_IsScalar(items[i], Bool);
  if (!ints)
    Py_CLEAR(objects);
  return objects;
}

/// The integers of `objects` (from integerObjects) as an array of the
/// integer port's dtype; OverflowError when one is outside its range.
PyArrayObject *exactIntegers(KernelObject *k, const Port &port, PyObject *obj,
                             PyArrayObject *objects) {
  const long long lo = port.typenum == NPY_INT32 ? INT32_MIN : INT64_MIN;
  const long long hi = port.typenum == NPY_INT32 ? INT32_MAX : INT64_MAX;
  auto *out = reinterpret_cast<PyArrayObject *>(
      PyArray_SimpleNew(PyArray_NDIM(objects), PyArray_DIMS(objects), port.typenum));
  if (!out)
    return nullptr;
  auto **items = static_cast<PyObject **>(PyArray_DATA(objects));
  for (npy_intp i = 0, n = PyArray_SIZE(objects); i < n; ++i) {
    PyObject *index = PyNumber_Index(items[i]);
    int overflow = 0;
    long long v = index ? PyLong_AsLongLongAndOverflow(index, &overflow) : -1;
    Py_XDECREF(index);
    if (PyErr_Occurred()) {
      Py_DECREF(out);
      return nullptr;
    }
    if (overflow || v < lo || v > hi) {
      Py_DECREF(out);
      return outOfRange(k, port, obj);
    }
    if (port.typenum == NPY_INT32)
      static_cast<int32_t *>(PyArray_DATA(out))[i] = static_cast<int32_t>(v);
    else
      static_cast<int64_t *>(PyArray_DATA(out))[i] = static_cast<int64_t>(v);
  }
  return out;
}

/// Whether every value of the integer array `a` (kind 'i' or 'u') fits the
/// integer port's dtype.
bool integersFit(PyArrayObject *a, int typenum) {
  bool isUnsigned = PyArray_DESCR(a)->kind == 'u';
  auto *wide = reinterpret_cast<PyArrayObject *>(
      PyArray_FromAny(reinterpret_cast<PyObject *>(a),
                      PyArray_DescrFromType(isUnsigned ? NPY_UINT64 : NPY_INT64), 0, 0,
                      NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr));
  if (!wide) {
    PyErr_Clear();
    return false;
  }
  const long long lo = typenum == NPY_INT32 ? INT32_MIN : INT64_MIN;
  const long long hi = typenum == NPY_INT32 ? INT32_MAX : INT64_MAX;
  bool fits = true;
  npy_intp n = PyArray_SIZE(wide);
  if (isUnsigned) {
    const auto *v = static_cast<const uint64_t *>(PyArray_DATA(wide));
    for (npy_intp i = 0; fits && i < n; ++i)
      fits = v[i] <= static_cast<uint64_t>(hi);
  } else {
    const auto *v = static_cast<const int64_t *>(PyArray_DATA(wide));
    for (npy_intp i = 0; fits && i < n; ++i)
      fits = v[i] >= lo && v[i] <= hi;
  }
  Py_DECREF(wide);
  return fits;
}

/// A list or scalar for input `port`, converted with NumPy's rules but never
/// lossily: None and strings are refused, an integer input takes only
/// integers, a bool input only bools; integers outside an integer input's
/// range raise OverflowError (as NumPy does). The shape is checked after the
/// kind of the values and before they are copied or converted.
PyArrayObject *convertSequence(KernelObject *k, const Port &port, PyObject *obj) {
  if (obj == Py_None || PyUnicode_Check(obj) || PyBytes_Check(obj))
    return wrongInput(k, port, obj, "");
  auto *natural =
      reinterpret_cast<PyArrayObject *>(PyArray_FromAny(obj, nullptr, 0, 0, 0, nullptr));
  if (!natural) {
    PyErr_Clear();
    return wrongInput(k, port, obj, "");
  }
  char kind = PyArray_DESCR(natural)->kind;
  bool isFloatPort = port.typenum == NPY_FLOAT64 || port.typenum == NPY_FLOAT32;
  bool isIntPort = port.typenum == NPY_INT32 || port.typenum == NPY_INT64;
  // Integers that do not fit one 64-bit type together.
  PyArrayObject *objects = nullptr;
  if (kind == 'O' || (kind == 'f' && isIntPort))
    objects = integerObjects(obj);
  if (!objects) {
    bool ok = isFloatPort ? (kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f')
                          : (port.typenum == NPY_BOOL ? kind == 'b' : (kind == 'b' || kind == 'i' || kind == 'u'));
    if (!ok) {
      Py_DECREF(natural);
      if (kind == 'f' || kind == 'i' || kind == 'u' || kind == 'b')
        return lossyInput(k, port, obj, port.typenum == NPY_BOOL ? "bools" : "integers");
      return wrongInput(k, port, obj, "");
    }
  } else if (port.typenum == NPY_BOOL) {
    Py_DECREF(objects);
    Py_DECREF(natural);
    return lossyInput(k, port, obj, "bools");
  }
  if (!checkShape(k, port, PyArray_NDIM(natural), PyArray_DIMS(natural))) {
    Py_XDECREF(objects);
    Py_DECREF(natural);
    return nullptr;
  }
  if (objects) {
    Py_DECREF(natural);
    PyArrayObject *arr;
    if (isIntPort)
      arr = exactIntegers(k, port, obj, objects);
    else // rounded as NumPy rounds them (OverflowError past the float range)
      arr = reinterpret_cast<PyArrayObject *>(PyArray_FromAny(
          obj, PyArray_DescrFromType(port.typenum), 0, 0,
          NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, nullptr));
    Py_DECREF(objects);
    return arr;
  }
  if (isIntPort && (kind == 'i' || kind == 'u') && !integersFit(natural, port.typenum)) {
    Py_DECREF(natural);
    return outOfRange(k, port, obj);
  }
  auto *arr = reinterpret_cast<PyArrayObject *>(
      PyArray_FromAny(reinterpret_cast<PyObject *>(natural), PyArray_DescrFromType(port.typenum),
                      0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST,
                      nullptr));
  Py_DECREF(natural);
  return arr;
}

/// The array to pass for input `port`: `obj` itself when it already fits,
/// else a converted copy (new reference). Null with an exception set when it
/// cannot be converted safely or has the wrong shape. Dtype and shape are
/// checked before anything is copied, so a wrong-shape view of a huge
/// broadcast array fails at once.
PyArrayObject *prepareInput(KernelObject *k, const Port &port, PyObject *obj) {
  if (!PyArray_Check(obj))
    return convertSequence(k, port, obj);
  auto *given = reinterpret_cast<PyArrayObject *>(obj);
  PyArray_Descr *want = PyArray_DescrFromType(port.typenum);
  if (PyArray_TYPE(given) != port.typenum &&
      !PyArray_CanCastTypeTo(PyArray_DESCR(given), want, NPY_SAFE_CASTING)) {
    Py_DECREF(want);
    PyErr_Format(PyExc_TypeError,
                 "%s(): input '%s' expects dtype %s, got %s (cast it explicitly with .astype())",
                 k->name->c_str(), port.name.c_str(), dtypeText(port.typenum),
                 PyArray_DESCR(given)->typeobj->tp_name);
    return nullptr;
  }
  if (!checkShape(k, port, PyArray_NDIM(given), PyArray_DIMS(given))) {
    Py_DECREF(want);
    return nullptr;
  }
  // Steals `want`; returns `obj` itself when it is contiguous, aligned and of that dtype.
  return reinterpret_cast<PyArrayObject *>(
      PyArray_FromAny(obj, want, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr));
}

PyObject *kernelCall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  auto *k = reinterpret_cast<KernelObject *>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const auto &ins = *k->inputs;
  const auto &outs = *k->outputs;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    PyErr_Format(PyExc_TypeError, "%s() takes inputs by position only", k->name->c_str());
    return nullptr;
  }
  if (nargs != static_cast<Py_ssize_t>(ins.size())) {
    PyErr_Format(PyExc_TypeError, "%s() takes %zu inputs, got %zd", k->name->c_str(), ins.size(),
                 nargs);
    return nullptr;
  }
  PortArray<PyArrayObject *> inArrays(ins.size());
  PortArray<PyObject *> outArrays(outs.size());
  PortArray<const void *> argPtrs(ins.size());
  PortArray<void *> resPtrs(outs.size());
  Py_ssize_t done = 0, made = 0;
  PyObject *result = nullptr;
  for (; done < nargs; ++done) {
    inArrays[done] = prepareInput(k, ins[done], args[done]);
    if (!inArrays[done])
      goto cleanup;
    if (reinterpret_cast<PyObject *>(inArrays[done]) != args[done])
      ++k->copies;
    argPtrs[done] = PyArray_DATA(inArrays[done]);
  }
  for (; made < static_cast<Py_ssize_t>(outs.size()); ++made) {
    const Port &p = outs[made];
    int nd = static_cast<int>(p.shape.size());
    outArrays[made] = p.large ? newAlignedArray(nd, p.shape.data(), p.typenum)
                              : PyArray_SimpleNew(nd, const_cast<npy_intp *>(p.shape.data()),
                                                  p.typenum);
    if (!outArrays[made])
      goto cleanup;
    resPtrs[made] = PyArray_DATA(reinterpret_cast<PyArrayObject *>(outArrays[made]));
  }
  {
    // The workspace: on the stack when small, else 64-byte aligned heap.
    alignas(64) unsigned char small[4096];
    void *w = nullptr;
    void *heap = nullptr;
    bool kept = false;
    if (k->workspaceBytes > sizeof small) {
      if (!k->keptWorkspaceInUse && k->workspaceBytes <= kKeptWorkspaceLimit) {
        if (!k->keptWorkspace)
          k->keptWorkspace = std::aligned_alloc(64, (k->workspaceBytes + 63) / 64 * 64);
        kept = k->keptWorkspace != nullptr;
      }
      if (kept) {
        k->keptWorkspaceInUse = true;
        w = k->keptWorkspace;
      } else {
        heap = std::aligned_alloc(64, (k->workspaceBytes + 63) / 64 * 64);
        if (!heap) {
          PyErr_NoMemory();
          goto cleanup;
        }
        w = heap;
      }
    } else if (k->workspaceBytes) {
      w = small;
    }
    int status;
    if (k->totalElements >= kReleaseGilElements) {
      Py_BEGIN_ALLOW_THREADS
      status = k->entry(argPtrs.data, resPtrs.data, nullptr, w, 0);
      Py_END_ALLOW_THREADS
    } else {
      status = k->entry(argPtrs.data, resPtrs.data, nullptr, w, 0);
    }
    std::free(heap);
    if (kept)
      k->keptWorkspaceInUse = false;
    if (status != 0) {
      PyErr_Format(PyExc_RuntimeError, "%s() returned status %d", k->name->c_str(), status);
      goto cleanup;
    }
  }
  if (outs.size() == 1) {
    result = outArrays[0];
    made = 0;
  } else {
    result = PyTuple_New(static_cast<Py_ssize_t>(outs.size()));
    if (result) {
      for (Py_ssize_t i = 0; i < made; ++i)
        PyTuple_SET_ITEM(result, i, outArrays[i]);
      made = 0;
    }
  }
cleanup:
  for (Py_ssize_t i = 0; i < done; ++i)
    Py_DECREF(inArrays[i]);
  for (Py_ssize_t i = 0; i < made; ++i)
    Py_DECREF(outArrays[i]);
  return result;
}

bool parsePorts(PyObject *list, std::vector<Port> &ports, const char *what) {
  PyObject *seq = PySequence_Fast(list, what);
  if (!seq)
    return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    const char *name, *dtype;
    PyObject *shape;
    if (!PyArg_ParseTuple(item, "sOs", &name, &shape, &dtype)) {
      Py_DECREF(seq);
      return false;
    }
    Port p{name, {}, typenumOf(dtype), 1};
    if (p.typenum < 0) {
      PyErr_Format(PyExc_ValueError, "unknown dtype '%s'", dtype);
      Py_DECREF(seq);
      return false;
    }
    PyObject *dims = PySequence_Fast(shape, "shape must be a sequence");
    if (!dims) {
      Py_DECREF(seq);
      return false;
    }
    for (Py_ssize_t d = 0; d < PySequence_Fast_GET_SIZE(dims); ++d) {
      npy_intp v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(dims, d));
      p.shape.push_back(v);
      p.size *= v;
    }
    Py_DECREF(dims);
    if (PyErr_Occurred()) {
      Py_DECREF(seq);
      return false;
    }
    PyArray_Descr *descr = PyArray_DescrFromType(p.typenum);
    p.large = p.size * descr->elsize >= static_cast<npy_intp>(kAlignedOutputBytes);
    Py_DECREF(descr);
    ports.push_back(std::move(p));
  }
  Py_DECREF(seq);
  return true;
}

int kernelInit(PyObject *self, PyObject *args, PyObject *kwargs) {
  auto *k = reinterpret_cast<KernelObject *>(self);
  static const char *keywords[] = {"address", "owner", "name", "inputs", "outputs",
                                   "workspace_bytes", nullptr};
  unsigned long long address;
  PyObject *owner, *ins, *outs;
  const char *name;
  Py_ssize_t workspace;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KOsOOn", const_cast<char **>(keywords),
                                   &address, &owner, &name, &ins, &outs, &workspace))
    return -1;
  if (k->entry) {
    // Another thread may be inside a call of this kernel: never swap its code.
    PyErr_SetString(PyExc_TypeError, "Kernel: already initialized");
    return -1;
  }
  if (!address) {
    PyErr_SetString(PyExc_ValueError, "Kernel: null entry address");
    return -1;
  }
  if (workspace < 0) {
    PyErr_Format(PyExc_ValueError, "Kernel: workspace_bytes must not be negative, got %zd",
                 workspace);
    return -1;
  }
  auto inputs = std::make_unique<std::vector<Port>>();
  auto outputs = std::make_unique<std::vector<Port>>();
  if (!parsePorts(ins, *inputs, "inputs") || !parsePorts(outs, *outputs, "outputs"))
    return -1;
  k->entry = reinterpret_cast<Entry>(static_cast<uintptr_t>(address));
  Py_INCREF(owner);
  Py_XSETREF(k->owner, owner);
  delete k->inputs;
  delete k->outputs;
  delete k->name;
  k->totalElements = 0;
  for (auto &p : *inputs) k->totalElements += p.size;
  for (auto &p : *outputs) k->totalElements += p.size;
  k->inputs = inputs.release();
  k->outputs = outputs.release();
  k->name = new std::string(name);
  k->workspaceBytes = static_cast<size_t>(workspace);
  k->vectorcall = kernelCall;
  return 0;
}

PyObject *kernelNew(PyTypeObject *type, PyObject *, PyObject *) {
  auto *k = reinterpret_cast<KernelObject *>(type->tp_alloc(type, 0));
  return reinterpret_cast<PyObject *>(k);
}

void kernelDealloc(PyObject *self) {
  auto *k = reinterpret_cast<KernelObject *>(self);
  delete k->inputs;
  delete k->outputs;
  delete k->name;
  std::free(k->keptWorkspace);
  Py_XDECREF(k->owner);
  Py_TYPE(self)->tp_free(self);
}

PyObject *kernelRepr(PyObject *self) {
  auto *k = reinterpret_cast<KernelObject *>(self);
  return PyUnicode_FromFormat("<scaly Kernel %s>", k->name ? k->name->c_str() : "?");
}

PyObject *kernelCopies(PyObject *self, void *) {
  return PyLong_FromLongLong(reinterpret_cast<KernelObject *>(self)->copies);
}

PyObject *kernelReleasesGil(PyObject *self, void *) {
  return PyBool_FromLong(reinterpret_cast<KernelObject *>(self)->totalElements >= kReleaseGilElements);
}

PyObject *kernelWorkspace(PyObject *self, void *) {
  return PyLong_FromSize_t(reinterpret_cast<KernelObject *>(self)->workspaceBytes);
}

PyGetSetDef kernelGetSet[] = {
    {"copies", kernelCopies, nullptr, "inputs converted (copied) so far", nullptr},
    {"releases_gil", kernelReleasesGil, nullptr, "whether calls run without the GIL", nullptr},
    {"workspace_bytes", kernelWorkspace, nullptr, "the workspace one call needs", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject KernelType; // filled in by registerKernelType

} // namespace

int registerKernelType(PyObject *module) {
  if (_import_array() < 0)
    return -1;
  Py_SET_REFCNT(&KernelType, 1);
  KernelType.tp_name = "scaly._runtime.Kernel";
  KernelType.tp_basicsize = sizeof(KernelObject);
  KernelType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  KernelType.tp_doc = "A compiled entry: call it with NumPy arrays, lists or scalars.";
  KernelType.tp_new = kernelNew;
  KernelType.tp_init = kernelInit;
  KernelType.tp_dealloc = kernelDealloc;
  KernelType.tp_repr = kernelRepr;
  KernelType.tp_getset = kernelGetSet;
  KernelType.tp_call = PyVectorcall_Call;
  KernelType.tp_vectorcall_offset = offsetof(KernelObject, vectorcall);
  if (PyType_Ready(&KernelType) < 0)
    return -1;
  Py_INCREF(&KernelType);
  return PyModule_AddObject(module, "Kernel", reinterpret_cast<PyObject *>(&KernelType));
}

} // namespace scaly::python
