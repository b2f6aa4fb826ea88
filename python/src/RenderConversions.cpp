//===- RenderConversions.cpp - Python <-> render types, for _scaly.render -===//

#include "RenderConversions.h"

#include "scaly/Codegen/WasmShim.h"
#include "scaly/Target/StatusCodes.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace scaly;

namespace {

/// An entry's ports as the header declares them.
py::list portDicts(const std::vector<codegen::RenderedPort> &ports) {
  py::list out;
  for (const codegen::RenderedPort &p : ports) {
    py::dict d;
    d["name"] = p.name;
    d["field"] = p.field;
    d["c_type"] = p.cType;
    d["shape"] = py::tuple(py::cast(p.shape));
    d["tables"] = p.tables;
    out.append(d);
  }
  return out;
}

/// Each statement's (C line, ((file, line), ...)), as tuples. A large module
/// has tens of thousands of statements from a few hundred Python lines: each
/// distinct origin is converted once and its tuple shared (converting every
/// one took 20-30 ms of an 8-entry module's render, on one thread).
py::list originTuples(const std::vector<c::StatementOrigin> &origins) {
  std::map<std::vector<c::SourceLine>, py::tuple> converted;
  std::map<std::string, py::str> files;
  py::list list(origins.size());
  const std::vector<c::SourceLine> *previous = nullptr;
  py::tuple from;
  for (size_t k = 0; k < origins.size(); ++k) {
    const c::StatementOrigin &origin = origins[k];
    if (!previous || *previous != origin.from) {
      auto [at, fresh] = converted.try_emplace(origin.from);
      if (fresh) {
        py::tuple lines(origin.from.size());
        for (size_t i = 0; i < origin.from.size(); ++i) {
          const c::SourceLine &line = origin.from[i];
          auto [file, newFile] = files.try_emplace(line.file);
          if (newFile)
            file->second = py::str(line.file);
          lines[i] = py::make_tuple(file->second, line.line);
        }
        at->second = std::move(lines);
      }
      from = at->second;
      previous = &origin.from;
    }
    list[k] = py::make_tuple(origin.cLine, from);
  }
  return list;
}

} // namespace

namespace scaly::python {

RenderRequest parseRenderOptions(const py::dict &options) {
  RenderRequest request;
  codegen::RenderOptions &o = request.options;
  for (auto item : options) {
    std::string key = py::cast<std::string>(item.first);
    py::handle v = item.second;
    if (key == "cpu") o.cpu = py::cast<std::string>(v);
    else if (key == "lanes") o.lanes = py::cast<int>(v);
    else if (key == "dialect") o.dialect = py::cast<std::string>(v);
    else if (key == "vector_libm") o.vectorLibm = py::cast<std::string>(v);
    else if (key == "reciprocal") o.reciprocal = py::cast<bool>(v);
    else if (key == "lang") o.lang = py::cast<std::string>(v);
    else if (key == "scalarize_limit") o.scalarizeLimit = py::cast<int64_t>(v);
    else if (key == "fp_contract") o.fpContract = py::cast<std::string>(v);
    else if (key == "name") o.moduleName = py::cast<std::string>(v);
    else if (key == "record_stages") o.recordStages = py::cast<bool>(v);
    else if (key == "casadi") o.casadi = py::cast<bool>(v);
    else if (key == "sparse_tables") o.sparseTables = py::cast<bool>(v);
    else if (key == "line_comments") o.lineComments = py::cast<bool>(v);
    else if (key == "line_origins") o.lineOrigins = py::cast<bool>(v);
    else if (key == "entry_specifier") o.entrySpecifier = py::cast<std::string>(v);
    else if (key == "include_header") o.includeHeader = py::cast<bool>(v);
    else if (key == "entry_names")
      request.entryNames = py::cast<std::map<std::string, std::string>>(v);
    else if (key == "wasm_shim") request.wasmShim = py::cast<bool>(v);
    else throw std::invalid_argument("unknown render option '" + key + "'");
  }
  return request;
}

py::dict renderedModuleDict(const codegen::RenderedModule &out, bool wasmShim) {
  py::dict d;
  d["name"] = out.name;
  d["source"] = out.source;
  d["solver_names"] = out.solverNames;
  d["header"] = out.header;
  py::list entries;
  for (const codegen::RenderedEntry &e : out.entries) {
    py::dict entry;
    entry["name"] = e.name;
    entry["workspace_bytes"] = e.workspaceBytes;
    entry["pointer_type"] = e.pointerType;
    entry["inputs"] = portDicts(e.inputs);
    entry["outputs"] = portDicts(e.outputs);
    entries.append(entry);
  }
  py::list emitted;
  for (const c::FunctionSignature &sig : out.functions) {
    py::dict f;
    f["name"] = sig.name;
    f["specifiers"] = sig.specifiers;
    f["result"] = sig.result;
    f["params"] = sig.params;
    f["param_names"] = sig.paramNames;
    emitted.append(f);
  }
  d["functions"] = emitted;
  if (wasmShim) {
    std::string problem = codegen::wasmNameProblem(out);
    if (!problem.empty())
      throw std::invalid_argument("scaly.wasm: " + problem);
    codegen::WasmShimText wasm = codegen::renderWasm(out);
    if (!wasm.error.empty())
      throw std::runtime_error("scaly.wasm: " + wasm.error);
    d["wasm_shim"] = wasm.shim;
    d["wasm_header"] = wasm.header;
    d["wasm_alloc"] = wasm.alloc;
    py::list exports;
    for (const codegen::WasmExport &x : wasm.exports) {
      py::dict e;
      e["entry"] = x.entry;
      e["kind"] = codegen::kindName(x.kind);
      e["detail"] = x.detail;
      e["name"] = x.name;
      e["c_result"] = x.result;
      e["c_params"] = x.params;
      exports.append(e);
    }
    d["wasm_exports"] = exports;
    py::dict noScalar;
    for (const codegen::RenderedEntry &e : out.entries)
      noScalar[py::str(e.name)] = codegen::noScalarExportReason(e);
    d["wasm_no_scalar"] = noScalar;
    py::list statuses;
    for (const c::StatusCode &code : c::kStatusCodes)
      statuses.append(py::make_tuple(code.value, code.name, code.meaning));
    d["status_codes"] = statuses;
  }
  py::list stages;
  for (auto &[stage, text] : out.stages)
    stages.append(py::make_tuple(stage, text));
  d["stages"] = stages;
  py::list stageSeconds;
  for (double seconds : out.stageSeconds)
    stageSeconds.append(seconds);
  d["stage_seconds"] = stageSeconds;
  if (out.originsRecorded) // absent when the render did not record them
    d["line_origins"] = originTuples(out.origins);
  d["entries"] = entries;
  d["recipe"] = out.recipe;
  return d;
}

} // namespace scaly::python
