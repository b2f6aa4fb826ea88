//===- RuntimeModule.cpp - scaly._runtime: calls without the compiler -----===//
//
// The part of Scaly's native code a process needs to call models that are
// already compiled: the Kernel call type, dlopen of a cached shared object,
// the heap policy, and a first Function.__call__ in C. It links Python and
// NumPy only. The compiler (scaly._scaly, which maps libLLVM, libMLIR and
// libclang-cpp: ~100 ms of loading) is imported only when something must be
// traced, lowered or compiled; it then installs its own Function.__call__,
// which also records calls inside traces.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "HeapPolicy.h"
#include "Kernel.h"

#include <dlfcn.h>

#include <cstdint>
#include <vector>

namespace {

// -- open_library ------------------------------------------------------------

/// open_library(path, symbol) -> (address, handle): the library is opened
/// with RTLD_NOW | RTLD_LOCAL and never closed (kernels may hold its code).
PyObject *openLibrary(PyObject *, PyObject *args) {
  const char *path = nullptr, *symbol = nullptr;
  if (!PyArg_ParseTuple(args, "ss:open_library", &path, &symbol))
    return nullptr;
  void *handle = nullptr;
  const char *error = nullptr;
  Py_BEGIN_ALLOW_THREADS;
  handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    error = dlerror();
  Py_END_ALLOW_THREADS;
  if (!handle) {
    PyErr_Format(PyExc_OSError, "cannot open %s: %s", path, error ? error : "unknown error");
    return nullptr;
  }
  dlerror();
  void *address = dlsym(handle, symbol);
  if (!address) {
    const char *why = dlerror();
    PyErr_Format(PyExc_OSError, "%s has no symbol %s%s%s", path, symbol, why ? ": " : "",
                 why ? why : "");
    return nullptr;
  }
  PyObject *owner = PyCapsule_New(handle, "scaly._runtime.library", nullptr);
  if (!owner)
    return nullptr;
  return Py_BuildValue("(KN)", static_cast<unsigned long long>(
                                   reinterpret_cast<uintptr_t>(address)), owner);
}

// -- Function.__call__ before the compiler is loaded --------------------------

PyObject *slowCall = nullptr, *kernelName = nullptr;

/// `slowCall(self, *args, **kwargs)` in vectorcall's convention.
PyObject *callSlow(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  std::vector<PyObject *> all{self};
  all.insert(all.end(), args, args + nargs + nkw);
  return PyObject_Vectorcall(slowCall, all.data(), nargs + 1, kwnames);
}

/// A compiled Function's call goes straight to its Kernel; anything else
/// (keywords, not compiled yet, Exprs) to Function._call.
PyObject *functionCall(PyObject *self, PyObject *const *args, size_t nargsf,
                       PyObject *kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames && PyTuple_GET_SIZE(kwnames))
    return callSlow(self, args, nargs, kwnames);
  PyObject *kernel = PyObject_GetAttr(self, kernelName);
  if (!kernel)
    return nullptr;
  if (kernel == Py_None) {
    Py_DECREF(kernel);
    return callSlow(self, args, nargs, nullptr);
  }
  PyObject *result = PyObject_Vectorcall(kernel, args, nargs, nullptr);
  Py_DECREF(kernel);
  if (result || !PyErr_ExceptionMatches(PyExc_TypeError))
    return result;
  // Perhaps Exprs (a call inside a trace): Function._call sorts it out, and
  // reports the kernel's error when it is not that.
  PyErr_Clear();
  return callSlow(self, args, nargs, nullptr);
}

PyMethodDef functionCallDef = {
    "__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&functionCall)),
    METH_FASTCALL | METH_KEYWORDS,
    "f(*inputs): the compiled function's results (compiled on first use); with Exprs, a call "
    "recorded in their graph"};

PyObject *installCall(PyObject *, PyObject *cls) {
  if (!PyType_Check(cls)) {
    PyErr_SetString(PyExc_TypeError, "install_call: expected the Function class");
    return nullptr;
  }
  PyObject *slow = PyObject_GetAttrString(cls, "_call");
  if (!slow)
    return nullptr;
  Py_XSETREF(slowCall, slow); // kept until exit, as the class itself
  if (!kernelName && !(kernelName = PyUnicode_InternFromString("_kernel")))
    return nullptr;
  PyObject *method = PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(cls), &functionCallDef);
  if (!method || PyObject_SetAttrString(cls, "__call__", method) < 0) {
    Py_XDECREF(method);
    return nullptr;
  }
  Py_DECREF(method);
  Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"open_library", openLibrary, METH_VARARGS,
     "open_library(path, symbol) -> (address, handle): dlopen a shared object (never closed) "
     "and look up `symbol`; OSError naming the path and the loader's reason"},
    {"install_call", installCall, METH_O,
     "Makes Function.__call__ a C method whose compiled case needs no Python frame (the rest "
     "goes to Function._call)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "_runtime",
                         "Scaly's runtime: compiled calls without the compiler", -1, methods,
                         nullptr, nullptr, nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__runtime() {
  // Before anything large is allocated (see HeapPolicy.cpp).
  bool heapPolicy = scaly::python::applyHeapPolicy();
  PyObject *m = PyModule_Create(&moduleDef);
  if (!m)
    return nullptr;
  if (scaly::python::registerKernelType(m) < 0 ||
      PyModule_AddObject(m, "heap_policy", PyBool_FromLong(heapPolicy)) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
