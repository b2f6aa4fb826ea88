//===- RenderConversions.h - Python <-> render types, for _scaly.render -*- C++ -*-===//
//
// What `_scaly.render` reads from Python (its options dict) and gives back
// (the rendered module as the dict codegen.py reads), apart from the
// binding itself, which runs the render on the shared MLIR context
// (ScalyModule.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_PYTHON_RENDERCONVERSIONS_H
#define SCALY_PYTHON_RENDERCONVERSIONS_H

#include "scaly/Codegen/RenderModule.h"

#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace scaly::python {

/// A render's options as `_scaly.render` takes them.
struct RenderRequest {
  codegen::RenderOptions options;
  /// Entries renamed before rendering (the NLP oracles: traced under their
  /// wrapper's digest, rendered under the module's name for it).
  std::map<std::string, std::string> entryNames;
  /// Whether the WebAssembly shim, its header and scaly_alloc.c come too.
  bool wasmShim = false;
};

/// The options dict; an unknown key is refused by name.
RenderRequest parseRenderOptions(const pybind11::dict &options);

/// The rendered module as codegen.py reads it (with the WebAssembly shim
/// and its exports when `wasmShim`).
pybind11::dict renderedModuleDict(const codegen::RenderedModule &out, bool wasmShim);

} // namespace scaly::python

#endif
