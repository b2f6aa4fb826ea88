//===- ScalyModule.cpp - Python bindings of the Scaly core ----------------===//
//
// The `scaly._scaly` extension: the tracing graph (one call per Python
// operator), traced Functions, and code generation. C++ exceptions map to
// Python ones: std::invalid_argument -> ValueError, std::out_of_range ->
// IndexError.
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/RenderModule.h"
#include "scaly/Codegen/SolverWrappers.h"
#include "scaly/Dialect/Expr/Sparsity.h"
#include "scaly/InitScaly.h"
#include "scaly/Target/ReservedNames.h"
#include "scaly/Trace/BuildModule.h"
#include "scaly/Trace/Digest.h"
#include "scaly/Trace/Graph.h"
#include "scaly/JIT/ClangCompiler.h"
#include "scaly/JIT/ObjectLoader.h"
#include "clang/Basic/Version.h"

#include "Inspection.h"
#include "RenderConversions.h"
#include "Tracing.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"

#include <link.h>
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <pthread.h>
#include <thread>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace scaly;
using trace::DType;
using trace::Graph;

namespace {

/// The process's MLIR context, with exactly Scaly's dialects loaded, made
/// on first use and kept: building it is a large part of rendering a small
/// module. Single-threaded (one small module gains nothing from a thread
/// pool), so every use holds `contextLock`. Each render builds and erases
/// its own module; only uniqued types and attributes stay behind.
///
/// The lock is a flag any thread may release, not a std::mutex: a render
/// starts on the calling thread (which reads the traced graph with the GIL)
/// and finishes on a worker thread that may outlive an interrupted call.
class ContextLock {
public:
  void lock() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return !held; });
    held = true;
  }
  /// Take the lock if it is free, without waiting (and without reading a
  /// clock: tracing takes it twice per unrolled step).
  bool tryLock() {
    std::lock_guard<std::mutex> l(m);
    if (held)
      return false;
    held = true;
    return true;
  }
  template <class Duration> bool tryLockFor(Duration d) {
    std::unique_lock<std::mutex> l(m);
    if (!cv.wait_for(l, d, [&] { return !held; }))
      return false;
    held = true;
    return true;
  }
  void unlock() {
    {
      std::lock_guard<std::mutex> l(m);
      held = false;
    }
    cv.notify_all();
  }
  /// A fork waits for the context and keeps `m` locked across it, so the
  /// child inherits neither a half-used context nor a locked mutex.
  void forkPrepare() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return !held; });
    l.release();
  }
  void forkParent() { m.unlock(); }
  void forkChild() {
    // Waiters of the parent do not exist here: start with a fresh condition.
    new (&cv) std::condition_variable();
    m.unlock();
  }

private:
  std::mutex m;
  std::condition_variable cv;
  bool held = false;
};
ContextLock contextLock;

void joinWarmup();

/// A fork while another thread renders would leave the child's context half
/// used: forks wait for the warm-up, the workers and the context.
void registerForkHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The warm-up and the workers first (they may need the context), then
    // the context itself.
    pthread_atfork(
        [] {
          joinWarmup();
          contextLock.forkPrepare();
        },
        [] { contextLock.forkParent(); }, [] { contextLock.forkChild(); });
  });
}

/// Work that Python waits for (rendering, compiling) runs on a worker thread
/// while the calling thread, without the GIL, checks for signals every 20 ms.
/// When a signal handler raises (Ctrl-C: KeyboardInterrupt), the work is told
/// to stop (renders stop between stages, compiles skip their remaining
/// passes) and the exception propagates at once; the worker ends on its own
/// and its result, which nothing reads, is dropped. Nothing is written to
/// the cache before the work returns, so an interrupted build leaves nothing.
struct Job {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::atomic<bool> cancel{false};
};
std::mutex jobsMutex;
std::condition_variable jobsCv;
int runningJobs = 0;
/// Workers whose caller was interrupted: joined at exit and before a fork, so
/// no worker thread is still ending (its thread-local MLIR and LLVM state
/// being torn down) while the process tears down the shared context.
std::vector<std::thread> pendingWorkers;

/// Wait until no worker runs and every worker thread has ended (interpreter
/// exit and forks).
void joinJobs() {
  std::vector<std::thread> pending;
  {
    std::unique_lock<std::mutex> l(jobsMutex);
    jobsCv.wait(l, [] { return runningJobs == 0; });
    pending.swap(pendingWorkers);
  }
  for (std::thread &t : pending)
    if (t.joinable())
      t.join();
}

/// Raise the pending Python exception if a signal handler raised one.
void checkSignals(Job *job = nullptr) {
  if (PyErr_CheckSignals() != 0) {
    if (job)
      job->cancel = true;
    throw py::error_already_set();
  }
}

/// Run `work` on a worker thread (see Job). `work` must not throw and must
/// own everything it touches: it may outlive this call.
/// `*started` (when given) is set once the worker runs.
void runInterruptibly(std::function<void(const std::atomic<bool> &)> work,
                      bool *started = nullptr) {
  auto job = std::make_shared<Job>();
  {
    std::lock_guard<std::mutex> l(jobsMutex);
    ++runningJobs;
  }
  std::thread worker;
  try {
    worker = std::thread([job, work = std::move(work)]() mutable {
      work(job->cancel);
      work = nullptr; // what the work owns is released on this thread, now
      {
        std::lock_guard<std::mutex> l(job->m);
        job->done = true;
      }
      job->cv.notify_all();
      {
        std::lock_guard<std::mutex> l(jobsMutex);
        --runningJobs;
      }
      jobsCv.notify_all();
    });
    if (started)
      *started = true;
  } catch (...) {
    std::lock_guard<std::mutex> l(jobsMutex);
    --runningJobs;
    throw;
  }
  try {
    while (true) {
      {
        py::gil_scoped_release release;
        std::unique_lock<std::mutex> l(job->m);
        if (job->cv.wait_for(l, std::chrono::milliseconds(20), [&] { return job->done; }))
          break;
      }
      checkSignals(job.get());
    }
  } catch (...) {
    // Interrupted: the worker ends on its own; exit and forks join it.
    std::lock_guard<std::mutex> l(jobsMutex);
    pendingWorkers.push_back(std::move(worker));
    throw;
  }
  // Finished: wait until the thread itself has ended (its thread-local state
  // included) before returning.
  py::gil_scoped_release release;
  worker.join();
}

/// Take the context lock, checking for signals while waiting.
void lockContextInterruptibly() {
  // The common case (tracing: one lock per op) keeps the GIL.
  if (contextLock.tryLock())
    return;
  while (true) {
    {
      py::gil_scoped_release release;
      if (contextLock.tryLockFor(std::chrono::milliseconds(20)))
        return;
    }
    checkSignals();
  }
}

mlir::MLIRContext &sharedContext() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registerScalyDialects(registry);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    // An error names the op and says what is wrong; the op's generic form
    // ("see current operation: %4:4 = ...") would only bury that for a user.
    c->printOpOnDiagnostic(false);
    return c;
  }();
  return *ctx;
}

std::vector<trace::Port> ports(const std::vector<std::tuple<std::string, trace::Shape, std::string>> &in) {
  std::vector<trace::Port> out;
  for (auto &[name, shape, dtype] : in)
    out.push_back({name, shape, trace::parseDType(dtype)});
  return out;
}

py::tuple portTuple(const trace::Port &p) {
  return py::make_tuple(p.name, py::tuple(py::cast(p.shape)), trace::dtypeName(p.dtype));
}

/// Render one Function, or a list of them exported from one module.
py::dict render(py::object functions, const py::dict &options) {
  std::vector<std::shared_ptr<trace::Function>> keep;
  if (py::isinstance<py::list>(functions) || py::isinstance<py::tuple>(functions)) {
    for (py::handle f : functions)
      keep.push_back(py::cast<std::shared_ptr<trace::Function>>(f));
  } else {
    keep.push_back(py::cast<std::shared_ptr<trace::Function>>(functions));
  }
  if (keep.empty())
    throw std::invalid_argument("render: no function to export");
  std::vector<const trace::Function *> roots;
  for (auto &f : keep)
    roots.push_back(f.get());
  const trace::Function &fn = *roots.front();
  python::RenderRequest request = python::parseRenderOptions(options);
  const codegen::RenderOptions &o = request.options;
  const std::map<std::string, std::string> &entryNames = request.entryNames;
  for (const trace::Function *f : roots) {
    auto renamed = entryNames.find(f->name);
    const std::string &name = renamed == entryNames.end() ? f->name : renamed->second;
    std::string problem = c::entryNameProblem(name);
    if (!problem.empty())
      throw std::invalid_argument("cannot export '" + name + "' as the entry of a C module: " +
                                  problem + "; rename the Python function");
  }
  // What the worker uses lives as long as it does.
  struct State {
    mlir::OwningOpRef<mlir::ModuleOp> module;
    codegen::RenderOptions options;
    codegen::RenderedModule out;
    std::string error;
    bool ok = false;
  };
  auto state = std::make_shared<State>();
  state->options = o;
  lockContextInterruptibly();
  bool started = false;
  try {
    // The graph is read with the GIL held: Python may still add nodes to it.
    // The index tables' values only where they are written (the header's
    // macros, CasADi's sparsity functions): the JIT's module has their lengths.
    state->module = trace::buildExprModule(sharedContext(), roots, o.sparseTables || o.casadi);
    for (auto &[from, to] : entryNames)
      if (mlir::Operation *entry = mlir::SymbolTable::lookupSymbolIn(*state->module, from)) {
        if (mlir::failed(mlir::SymbolTable::replaceAllSymbolUses(
                entry, mlir::StringAttr::get(entry->getContext(), to), *state->module)))
          throw std::runtime_error("entry_names: cannot rename '" + from + "'");
        mlir::SymbolTable::setSymbolName(entry, to);
      }
    runInterruptibly([state](const std::atomic<bool> &cancel) {
      // The worker owns the context lock from here and releases it.
      try {
        codegen::CancellableRenders cancellable(&cancel);
        state->ok = codegen::renderCModule(*state->module, state->options, state->out,
                                           state->error);
      } catch (const std::exception &e) {
        state->error = e.what();
        state->ok = false;
      }
      codegen::eraseRenderedModule(state->module); // while the context is ours
      contextLock.unlock();
    }, &started);
  } catch (...) {
    // Until a worker took the lock over (buildExprModule or starting the
    // thread failed), it is ours to release, with the module.
    if (!started) {
      state->module = nullptr;
      contextLock.unlock();
    }
    throw;
  }
  bool ok = state->ok;
  std::string error = state->error;
  codegen::RenderedModule out = std::move(state->out);
  if (!ok)
    throw std::runtime_error("code generation failed for '" + fn.name + "': " + error);
  return python::renderedModuleDict(out, request.wasmShim);
}

/// The background warm-up: the first compile in a process spends about half
/// its time resolving library symbols and building the target machine, and
/// the first render builds the MLIR context. A C++ thread started when the
/// extension loads (before NumPy is imported) does both while the rest of
/// the import and the user's tracing go on. Off with SCALY_JIT_WARMUP=0 and
/// when SCALY_CC selects an external compiler.
std::thread *warmupThread = nullptr;
std::mutex warmupMutex;

/// Builds a function with `define(graph, function)` and renders it under
/// the context lock, then compiles its module: no counter moves, nothing is
/// cached or loaded.
template <typename Define>
void compileUncounted(Define define, const codegen::RenderOptions &options,
                      const std::vector<std::string> &flags) {
  codegen::RenderedModule out;
  {
    std::lock_guard<ContextLock> lock(contextLock);
    auto g = std::make_shared<trace::Graph>(sharedContext());
    trace::Function fn;
    define(*g, fn);
    fn.graph = g;
    codegen::UncountedRenders uncounted;
    auto module = trace::buildExprModule(sharedContext(), fn);
    std::string error;
    if (!codegen::renderCModule(*module, options, out, error))
      return;
  }
  std::string object, diagnostics;
  jit::compileUncounted({{out.name + ".c", out.source}, {out.name + ".h", out.header}}, flags,
                        object, diagnostics);
}

/// The host recipe as runtime/jit.py derives it from the probe's macros.
codegen::RenderOptions hostRecipe(const std::string &macros, std::vector<std::string> &flags) {
  codegen::RenderOptions options;
  options.cpu = "native";
  options.lanes = macros.find("#define __AVX512F__ ") != std::string::npos ? 8
                  : macros.find("#define __AVX2__ ") != std::string::npos  ? 4
                  : macros.find("#define __SSE2__ ") != std::string::npos  ? 2
                                                                           : 1;
  options.scalarizeLimit = options.lanes == 1 ? 64 : 15;
  options.sparseTables = false;
#if defined(__x86_64__) && defined(__GLIBC__)
  if (options.lanes > 1) { // glibc's vector math, as the JIT uses it with lanes
    options.vectorLibm = "glibc";
    flags.push_back("-fveclib=libmvec");
  }
#endif
  return options;
}

void warmUp(std::vector<std::string> flags) {
  // A small function's module exercises the same paths as a real one.
  compileUncounted([](trace::Graph &g, trace::Function &fn) {
    fn.name = "scaly_warmup";
    fn.inputs = {{"x", {2}, DType::F64}};
    fn.outputs = {{"y", {2}, DType::F64}};
    fn.results = {g.math("sin", g.input(0, {2}, DType::F64))};
  }, {}, flags);
  std::string error, macros, diagnostics;
  jit::prepareJIT(error);
  // The host recipe probe the JIT's compiler fingerprint needs (memoized).
  jit::probeMacros({"-march=native"}, macros, diagnostics);
  // Then the structured code real models have (a fused elementwise loop
  // calling vector math, a blocked pairwise sum, a matrix product) with the
  // host recipe: the first compile of each kind in a process runs code of
  // Clang's and LLVM's that nothing has run yet, 5-10 ms of it, which this
  // moves off the user's first compile.
  codegen::RenderOptions host = hostRecipe(macros, flags);
  compileUncounted([](trace::Graph &g, trace::Function &fn) {
    fn.name = "scaly_warmup_loops";
    fn.inputs = {{"x", {256}, DType::F64}, {"a", {8, 8}, DType::F64}};
    fn.outputs = {{"y", {256}, DType::F64}, {"s", {}, DType::F64}, {"m", {8, 8}, DType::F64}};
    int32_t x = g.input(0, {256}, DType::F64), a = g.input(1, {8, 8}, DType::F64);
    int32_t wave = g.binary(trace::BinaryKind::Mul, g.math("sin", x), g.math("cos", x));
    fn.results = {g.binary(trace::BinaryKind::Add, wave, g.math("exp", x)), g.sum(x),
                  g.matmul(a, a)};
  }, host, flags);
}

void joinWarmup() {
  {
    std::lock_guard<std::mutex> lock(warmupMutex);
    if (warmupThread && warmupThread->joinable())
      warmupThread->join();
  }
  joinJobs(); // an interrupted render or compile may still be ending
}

void startWarmup() {
  const char *off = std::getenv("SCALY_JIT_WARMUP");
  const char *cc = std::getenv("SCALY_CC");
  if ((off && std::string(off) == "0") || (cc && *cc))
    return;
  const char *opt = std::getenv("SCALY_CC_OPT");
  // The JIT's own flags (runtime/jit.py), so the warmed target is the one used.
  std::vector<std::string> flags{opt && *opt ? opt : "-O2", "-march=native", "-ffp-contract=off",
                                 "-fno-math-errno"};
#if defined(__x86_64__)
  flags.insert(flags.end(), {"-mno-gather", "-mno-scatter"});
#endif
  flags.push_back("-fPIC");
  warmupThread = new std::thread(warmUp, std::move(flags));
  // A fork must not copy a half-built compiler: it waits for the thread
  // (registerForkHandlers).
}

} // namespace

python::ContextGuard::ContextGuard() { lockContextInterruptibly(); }
python::ContextGuard::~ContextGuard() { contextLock.unlock(); }
mlir::MLIRContext &python::context() { return sharedContext(); }

PYBIND11_MODULE(_scaly, m) {
  // scaly._runtime (imported first) applied the heap policy.
  startWarmup();
  m.doc() = "Scaly core: tracing graph, traced functions, C code generation";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const std::length_error &e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  python::bindGraph(m);

  py::class_<trace::Function, std::shared_ptr<trace::Function>>(m, "TracedFunction")
      .def(py::init([](std::string name,
                       const std::vector<std::tuple<std::string, trace::Shape, std::string>> &inputs,
                       const std::vector<std::tuple<std::string, trace::Shape, std::string>> &outputs,
                       std::shared_ptr<Graph> graph, std::vector<int32_t> results, bool block) {
             auto fn = std::make_shared<trace::Function>();
             fn->name = std::move(name);
             fn->inputs = ports(inputs);
             fn->outputs = ports(outputs);
             if (results.size() != fn->outputs.size())
               throw std::invalid_argument("outputs and results differ in number");
             for (size_t k = 0; k < results.size(); ++k) {
               if (graph->shape(results[k]) != fn->outputs[k].shape ||
                   graph->dtype(results[k]) != fn->outputs[k].dtype)
                 throw std::invalid_argument("output '" + fn->outputs[k].name +
                                             "' does not match its traced value");
             }
             fn->graph = std::move(graph);
             fn->results = std::move(results);
             fn->block = block;
             return fn;
           }),
           py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("graph"),
           py::arg("results"), py::arg("block") = false)
      .def_readonly("name", &trace::Function::name)
      .def_readonly("block", &trace::Function::block)
      .def_property_readonly("inputs", [](const trace::Function &f) {
        py::list l;
        for (auto &p : f.inputs) l.append(portTuple(p));
        return l;
      })
      .def_property_readonly("outputs", [](const trace::Function &f) {
        py::list l;
        for (auto &p : f.outputs) l.append(portTuple(p));
        return l;
      })
      .def_property_readonly("num_nodes", [](const trace::Function &f) { return f.graph->size(); });

  m.def("graph_digest", [](const trace::Function &fn) {
          python::ContextGuard lock; // it prints types and attributes of the shared context
          return trace::graphDigest(fn);
        },
        "SHA-256 of a traced function's graph, names and types (the index key's first part)");

  py::class_<jit::LoadedObject>(m, "JitObject", "An object file linked into the process by ORC")
      .def("lookup", [](jit::LoadedObject &o, const std::string &symbol) {
        std::string error;
        uint64_t addr = o.lookup(symbol, error);
        if (!addr)
          throw std::runtime_error("symbol '" + symbol + "' not found: " + error);
        return addr;
      });
  m.def("jit_compile",
        [](const std::vector<std::pair<std::string, std::string>> &files,
           const std::vector<std::string> &flags) {
          struct State {
            jit::VirtualFiles files;
            std::vector<std::string> flags;
            std::string object, diagnostics;
            bool ok = false;
          };
          auto state = std::make_shared<State>();
          state->files = files;
          state->flags = flags;
          runInterruptibly([state](const std::atomic<bool> &cancel) {
            try {
              jit::CancellableCompiles cancellable(&cancel);
              state->ok = jit::compileToObject(state->files, state->flags, state->object,
                                               state->diagnostics);
            } catch (const std::exception &e) {
              state->diagnostics += e.what();
              state->ok = false;
            }
          });
          bool ok = state->ok;
          std::string object = std::move(state->object), diagnostics = state->diagnostics;
          if (!ok)
            throw std::runtime_error("in-process clang failed to compile " + files.at(0).first +
                                     ":\n" + diagnostics);
          return py::bytes(object);
        },
        "Compile files[0] (C) to an object with in-process Clang", py::arg("files"),
        py::arg("flags"));
  m.def("jit_load",
        [](const py::bytes &object, const std::string &name) {
          std::string error;
          auto loaded = jit::loadObject(std::string(object), name, error);
          if (!loaded)
            throw std::runtime_error("cannot load the object of '" + name + "': " + error);
          return loaded;
        },
        "Link an object file into the process with ORC LLJIT", py::arg("object"), py::arg("name"));
  m.def("probe_macros",
        [](const std::vector<std::string> &flags) {
          std::string macros, diagnostics;
          if (!jit::probeMacros(flags, macros, diagnostics))
            throw std::runtime_error("clang -dM -E failed:\n" + diagnostics);
          return macros;
        },
        "Predefined macros of in-process clang -dM -E with the given flags");
  m.def("library_paths", [] {
    // Where the code that renders and compiles lives: the loaded objects
    // named libScaly*, libclang-cpp and this extension (dl_iterate_phdr is
    // far cheaper than dladdr or reading /proc/self/maps).
    std::vector<std::string> names;
    dl_iterate_phdr(
        [](struct dl_phdr_info *info, size_t, void *data) {
          if (info->dlpi_name && *info->dlpi_name)
            static_cast<std::vector<std::string> *>(data)->push_back(info->dlpi_name);
          return 0;
        },
        &names);
    py::dict d;
    for (const std::string &n : names) {
      llvm::StringRef base = llvm::sys::path::filename(n);
      if (base.starts_with("libScalyJIT"))
        d["scaly_jit"] = n;
      else if (base.starts_with("libScaly"))
        d["scaly"] = n;
      else if (base.starts_with("libclang-cpp"))
        d["clang"] = n;
      else if (base.starts_with("_scaly"))
        d["extension"] = n;
    }
    return d;
  }, "Paths of libScaly, libScalyJIT, libclang-cpp and this extension");
  m.def("warmup_join", [] {
    py::gil_scoped_release release;
    joinWarmup();
  }, "Wait for the background warm-up (forks and interpreter exit do)");
  m.def("clang_version", &jit::clangVersion);
  m.def("host_cpu", &jit::hostCPU, "The host CPU name and features that -march=native selects");
  m.def("native_counters", [] {
    auto r = codegen::renderCounters();
    py::dict d;
    d["lowered"] = r.lowered;
    d["rendered"] = r.rendered;
    d["compiled"] = jit::compileCount();
    return d;
  }, "How often this process lowered, rendered and compiled in process (C++ side)");
  m.def("prelude_version", &jit::preludeVersion);

  registerForkHandlers();
  // Interpreter exit waits for the warm-up and the workers, however the
  // module was imported (scaly/runtime/warmup.py's hook only knows a load
  // through scaly._core): tearing the compiler down under the thread crashes.
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    py::gil_scoped_release release;
    joinWarmup();
  }));

  m.def(
      "render_solver_wrappers",
      [](const py::dict &d) {
        codegen::SolverWrappersSpec spec;
        spec.module = py::cast<std::string>(d["module"]);
        for (py::handle h : py::cast<py::list>(d["wrappers"])) {
          py::dict w = py::cast<py::dict>(h);
          codegen::SolverWrapper out{py::cast<std::string>(w["name"]),
                                     py::cast<bool>(w["nlp"])};
          if (out.isNlp) {
            codegen::NlpWrapper &nlp = out.nlp;
            nlp.n = py::cast<int64_t>(w["n"]);
            nlp.m = py::cast<int64_t>(w["m"]);
            nlp.solver = py::cast<std::string>(w["solver"]);
            nlp.denseQp = py::cast<bool>(w["dense_qp"]);
            nlp.optionCount = py::cast<int64_t>(w["option_count"]);
            nlp.traceOptions =
                py::cast<std::vector<std::pair<int64_t, double>>>(w["trace_options"]);
            nlp.ipoptOptions =
                py::cast<std::vector<std::pair<std::string, std::string>>>(w["ipopt_options"]);
            nlp.oracles = py::cast<std::array<std::string, 5>>(w["oracles"]);
            nlp.workspaceBytes = py::cast<int64_t>(w["workspace_bytes"]);
            nlp.hessFull = py::cast<int64_t>(w["hess_full"]);
            nlp.jacColptr = py::cast<std::vector<int64_t>>(w["jac_colptr"]);
            nlp.jacRowind = py::cast<std::vector<int64_t>>(w["jac_rowind"]);
            nlp.hessColptr = py::cast<std::vector<int64_t>>(w["hess_colptr"]);
            nlp.hessRowind = py::cast<std::vector<int64_t>>(w["hess_rowind"]);
            nlp.hessPick = py::cast<std::vector<int64_t>>(w["hess_pick"]);
          } else {
            out.qp.n = py::cast<int64_t>(w["n"]);
            out.qp.p = py::cast<int64_t>(w["p"]);
            out.qp.m = py::cast<int64_t>(w["m"]);
            out.qp.dense = py::cast<bool>(w["dense"]);
            out.qp.colptr = py::cast<std::array<std::vector<int64_t>, 3>>(w["colptr"]);
            out.qp.rowind = py::cast<std::array<std::vector<int64_t>, 3>>(w["rowind"]);
          }
          spec.wrappers.push_back(std::move(out));
        }
        for (py::handle h : py::cast<py::list>(d["entries"]))
          spec.entries.push_back(
              {py::cast<std::string>(h[py::int_(0)]),
               py::cast<std::vector<std::pair<std::string, std::string>>>(h[py::int_(1)])});
        std::string error;
        std::string text = codegen::renderSolverWrappers(spec, error);
        if (!error.empty())
          throw std::runtime_error(error);
        return text;
      },
      "The C of a module's solver wrapper unit (its prologue, QP and NLP wrappers and "
      "_with_options entries) from its description (python/scaly/solvers/wrapper.py)",
      py::arg("description"));
  python::bindInspection(m);
  m.def("render", &render, "Render the C module and header of a traced function",
        py::arg("fn"), py::arg("options") = py::dict());
}
