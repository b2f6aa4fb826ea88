//===- AlignedOutputs.cpp - large output arrays on 64-byte boundaries -----===//
//
// glibc's malloc aligns to 16 bytes, and NumPy has no alignment option. The
// generated C streams a large transposed result with nontemporal stores of
// whole cache lines (docs/design.md, "Lowering"), which needs the result to
// start on a line. So large outputs are allocated through a NumPy memory
// handler (NEP 49) of our own, set only around their creation: NumPy records
// the handler in each array and frees the data through it, so the arrays own
// their data as np.empty's do.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL scaly_ARRAY_API
#define NO_IMPORT_ARRAY
#include "AlignedOutputs.h"

#include <numpy/arrayobject.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace scaly::python {
namespace {

/// The block starts kLine bytes before the data, its size stored there (for
/// realloc, which NumPy calls without the old size).
constexpr std::size_t kLine = 64;

void *alignedMalloc(void *, std::size_t size) {
  std::size_t total = (size + 2 * kLine - 1) / kLine * kLine;
  auto *block = static_cast<unsigned char *>(std::aligned_alloc(kLine, total));
  if (!block)
    return nullptr;
  std::memcpy(block, &size, sizeof size);
  return block + kLine;
}

void alignedFree(void *, void *data, std::size_t) {
  if (data)
    std::free(static_cast<unsigned char *>(data) - kLine);
}

void *alignedCalloc(void *ctx, std::size_t count, std::size_t each) {
  if (each && count > SIZE_MAX / each)
    return nullptr;
  void *data = alignedMalloc(ctx, count * each);
  if (data)
    std::memset(data, 0, count * each);
  return data;
}

void *alignedRealloc(void *ctx, void *data, std::size_t size) {
  void *moved = alignedMalloc(ctx, size);
  if (!moved || !data)
    return moved;
  std::size_t old;
  std::memcpy(&old, static_cast<unsigned char *>(data) - kLine, sizeof old);
  std::memcpy(moved, data, std::min(old, size));
  alignedFree(ctx, data, old);
  return moved;
}

PyDataMem_Handler alignedHandler = {
    "scaly_aligned_64", 1, {nullptr, alignedMalloc, alignedCalloc, alignedRealloc, alignedFree}};

/// The handler's capsule, made once and kept for the process's life (arrays
/// hold references to it).
PyObject *handlerCapsule() {
  static PyObject *capsule = PyCapsule_New(&alignedHandler, "mem_handler", nullptr);
  return capsule;
}

} // namespace

PyObject *newAlignedArray(int nd, const Py_intptr_t *dims, int typenum) {
  PyObject *capsule = handlerCapsule();
  if (!capsule)
    return nullptr;
  PyObject *previous = PyDataMem_SetHandler(capsule);
  if (!previous)
    return nullptr;
  PyObject *array = PyArray_SimpleNew(nd, const_cast<npy_intp *>(dims), typenum);
  // Restore the caller's handler even when the allocation failed, keeping
  // the allocation's error if there is one.
  PyObject *error_type, *error_value, *error_trace;
  PyErr_Fetch(&error_type, &error_value, &error_trace);
  PyObject *ours = PyDataMem_SetHandler(previous);
  Py_DECREF(previous);
  Py_XDECREF(ours);
  if (error_type)
    PyErr_Restore(error_type, error_value, error_trace);
  else if (!ours)
    Py_CLEAR(array);
  return array;
}

} // namespace scaly::python
