//===- AlignedOutputs.cpp - large output arrays on 64-byte boundaries -----===//
//
// glibc's malloc aligns to 16 bytes, and NumPy has no alignment option. The
// generated C streams a large transposed result with nontemporal stores of
// whole cache lines (docs/design.md, "Lowering"), which needs the result to
// start on a line. So large outputs are allocated through a NumPy memory
// handler (NEP 49) of our own, set only around their creation: NumPy records
// the handler in each array and frees the data through it, so the arrays own
// their data as np.empty's do. Like NumPy's own allocator, arrays of 4 MiB
// or more ask Linux for transparent huge pages (unless NumPy's
// _set_madvise_hugepage turned that off): without them, a fresh 32 MB result
// took 8192 page faults, two thirds of a 2048 x 2048 transpose's time.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL scaly_ARRAY_API
#define NO_IMPORT_ARRAY
#include "AlignedOutputs.h"

#include <numpy/arrayobject.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

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

/// NumPy's threshold for huge pages (its default allocator's).
constexpr std::size_t kHugePageBytes = std::size_t(1) << 22;

/// NumPy's _get_madvise_hugepage, looked up once (numpy._core on NumPy 2,
/// numpy.core before it) and kept for the process's life; null when absent.
PyObject *madviseHugepageGetter() {
  static PyObject *getter = [] {
    for (const char *name : {"numpy._core.multiarray", "numpy.core.multiarray"}) {
      PyObject *module = PyImport_ImportModule(name);
      PyObject *found = module ? PyObject_GetAttrString(module, "_get_madvise_hugepage") : nullptr;
      Py_XDECREF(module);
      PyErr_Clear();
      if (found)
        return found;
    }
    return static_cast<PyObject *>(nullptr);
  }();
  return getter;
}

/// Whether NumPy asks for huge pages: _get_madvise_hugepage(), called on each
/// large allocation (the user may turn it off at any time); true when it
/// cannot be read (NumPy's default).
bool numpyWantsHugePages() {
  PyObject *getter = madviseHugepageGetter();
  PyObject *result = getter ? PyObject_CallNoArgs(getter) : nullptr;
  if (!result) {
    PyErr_Clear();
    return true;
  }
  bool wanted = PyObject_IsTrue(result) == 1;
  Py_DECREF(result);
  return wanted;
}

/// madvise(MADV_HUGEPAGE) on the whole pages of `data`, as NumPy does for
/// its own large arrays; errors (older kernels) are ignored, as NumPy's are.
void adviseHugePages(void *data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePageBytes || !numpyWantsHugePages())
    return;
  constexpr std::uintptr_t kPage = 4096;
  auto start = reinterpret_cast<std::uintptr_t>(data);
  std::uintptr_t first = (start + kPage - 1) & ~(kPage - 1);
  if (first < start + bytes)
    madvise(reinterpret_cast<void *>(first), start + bytes - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
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
  if (array)
    adviseHugePages(PyArray_DATA(reinterpret_cast<PyArrayObject *>(array)),
                    static_cast<std::size_t>(PyArray_NBYTES(reinterpret_cast<PyArrayObject *>(array))));
  return array;
}

} // namespace scaly::python
