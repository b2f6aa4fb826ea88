//===- CasadiInterface.cpp - CasADi's external function API ---------------===//
//
// CasADi's contract (casadi/core/external.cpp, casadi_common.hpp): every
// symbol is optional except the evaluation function; `f_work` reports the
// lengths of arg, res, iw (casadi_int) and w (casadi_real) CasADi allocates;
// sparsities are (nrow, ncol, colind[ncol + 1], row[nnz]); dense matrices are
// column-major; a null arg[i] is an input of zeros and a null res[j] an
// output nobody wants; a nonzero return is a failure.
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/CasadiInterface.h"

#include "llvm/Support/FormatVariadic.h"

namespace scaly::codegen {
namespace {

int64_t sizeOf(const CasadiPort &p) {
  int64_t n = 1;
  for (int64_t d : p.shape)
    n *= d;
  return n;
}

bool isSparse(const CasadiPort &p) { return !p.colind.empty(); }

/// A dense matrix CasADi stores column-major and Scaly row-major.
bool needsTranspose(const CasadiPort &p) {
  return !isSparse(p) && p.shape.size() == 2 && p.shape[0] > 1 && p.shape[1] > 1;
}

/// CasADi's compressed sparsity of a port: a scalar is 1 x 1, a vector of n
/// an n x 1 column (n = 0 included), a matrix keeps its dimensions.
std::vector<int64_t> sparsityOf(const CasadiPort &p) {
  if (isSparse(p)) {
    std::vector<int64_t> s{p.nrow, p.ncol};
    s.insert(s.end(), p.colind.begin(), p.colind.end());
    s.insert(s.end(), p.row.begin(), p.row.end());
    return s;
  }
  int64_t nrow = p.shape.empty() ? 1 : p.shape[0];
  int64_t ncol = p.shape.size() == 2 ? p.shape[1] : 1;
  std::vector<int64_t> s{nrow, ncol};
  for (int64_t c = 0; c <= ncol; ++c)
    s.push_back(c * nrow);
  for (int64_t c = 0; c < ncol; ++c)
    for (int64_t r = 0; r < nrow; ++r)
      s.push_back(r);
  return s;
}

std::string list(const std::vector<int64_t> &values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) {
    s += (i % 16 == 0) ? (i ? ",\n  " : "\n  ") : ", ";
    s += std::to_string(values[i]);
  }
  return s + "\n";
}

/// Static tables and the query functions of one entry.
std::string queries(const CasadiEntry &e) {
  std::string f = e.name, s;
  auto tables = [&](const std::vector<CasadiPort> &ports, const char *dir) {
    for (size_t i = 0; i < ports.size(); ++i)
      s += llvm::formatv("static const casadi_int {0}_sp_{1}{2}[] = {{{3}};\n", f, dir, i,
                         list(sparsityOf(ports[i])))
               .str();
    s += llvm::formatv("static const char *const {0}_names_{1}[] = {{", f, dir).str();
    for (const CasadiPort &p : ports)
      s += "\"" + p.name + "\", ";
    s += "0};\nstatic const casadi_int *const " + f + "_sps_" + dir + "[] = {";
    for (size_t i = 0; i < ports.size(); ++i)
      s += f + "_sp_" + dir + std::to_string(i) + ", ";
    s += "0};\n";
  };
  tables(e.ins, "in");
  tables(e.outs, "out");
  int64_t szW = e.scalyWorkDoubles;
  for (const CasadiPort &p : e.ins)
    szW += sizeOf(p);
  for (const CasadiPort &p : e.outs)
    szW += sizeOf(p);
  s += llvm::formatv(R"(
void {0}_incref(void) {{}
void {0}_decref(void) {{}
casadi_int {0}_n_in(void) {{ return {1}; }
casadi_int {0}_n_out(void) {{ return {2}; }
casadi_real {0}_default_in(casadi_int i) {{ (void)i; return 0.0; }
const char* {0}_name_in(casadi_int i) {{ return i >= 0 && i < {1} ? {0}_names_in[i] : 0; }
const char* {0}_name_out(casadi_int i) {{ return i >= 0 && i < {2} ? {0}_names_out[i] : 0; }
const casadi_int* {0}_sparsity_in(casadi_int i) {{ return i >= 0 && i < {1} ? {0}_sps_in[i] : 0; }
const casadi_int* {0}_sparsity_out(casadi_int i) {{ return i >= 0 && i < {2} ? {0}_sps_out[i] : 0; }
int {0}_work(casadi_int* sz_arg, casadi_int* sz_res, casadi_int* sz_iw, casadi_int* sz_w) {{
  if (sz_arg) *sz_arg = {1};
  if (sz_res) *sz_res = {2};
  if (sz_iw) *sz_iw = 0;
  if (sz_w) *sz_w = {3};
  return 0;
}
/* The module keeps no state: one memory slot serves every thread. */
int {0}_alloc_mem(void) {{ return 0; }
int {0}_init_mem(int mem) {{ (void)mem; return 0; }
void {0}_free_mem(int mem) {{ (void)mem; }
int {0}_checkout(void) {{ return 0; }
void {0}_release(int mem) {{ (void)mem; }
)",
                     f, e.ins.size(), e.outs.size(), szW)
           .str();
  return s;
}

/// CasADi's evaluation function: adapts arg and res, calls Scaly's entry.
std::string evaluation(const CasadiEntry &e) {
  std::string s = llvm::formatv(
                      "int {0}(const casadi_real** arg, casadi_real** res, casadi_int* iw, "
                      "casadi_real* w, int mem) {{\n"
                      "  const double* a[{1}];\n  double* r[{2}];\n"
                      "  double* t = w + {3};\n  long long k, c;\n  int status;\n"
                      "  (void)iw;\n  (void)mem;\n  (void)k;\n  (void)c;\n  (void)t;\n",
                      e.name, std::max<size_t>(e.ins.size(), 1), std::max<size_t>(e.outs.size(), 1),
                      e.scalyWorkDoubles)
                      .str();
  for (size_t i = 0; i < e.ins.size(); ++i) {
    const CasadiPort &p = e.ins[i];
    int64_t n = sizeOf(p);
    std::string at = "arg[" + std::to_string(i) + "]", to = "a[" + std::to_string(i) + "]";
    if (n == 0) {
      s += "  " + to + " = " + at + ";\n";
    } else if (needsTranspose(p)) {
      int64_t rows = p.shape[0], cols = p.shape[1];
      s += llvm::formatv("  for (k = 0; k < {0}; ++k)\n"
                         "    for (c = 0; c < {1}; ++c)\n"
                         "      t[k * {1} + c] = {2} ? {2}[c * {0} + k] : 0.0;\n"
                         "  {3} = t;\n  t += {4};\n",
                         rows, cols, at, to, n)
               .str();
    } else {
      s += llvm::formatv("  if ({0}) {{\n    {1} = {0};\n  } else {{\n"
                         "    for (k = 0; k < {2}; ++k)\n      t[k] = 0.0;\n"
                         "    {1} = t;\n    t += {2};\n  }\n",
                         at, to, n)
               .str();
    }
  }
  for (size_t j = 0; j < e.outs.size(); ++j) {
    const CasadiPort &p = e.outs[j];
    int64_t n = sizeOf(p);
    std::string at = "res[" + std::to_string(j) + "]", to = "r[" + std::to_string(j) + "]";
    if (n == 0)
      s += "  " + to + " = " + at + ";\n";
    else if (needsTranspose(p))
      s += llvm::formatv("  {0} = t;\n  t += {1};\n", to, n).str();
    else
      s += llvm::formatv("  if ({0}) {{\n    {1} = {0};\n  } else {{\n    {1} = t;\n"
                         "    t += {2};\n  }\n",
                         at, to, n)
               .str();
  }
  s += "  status = " + e.scalyEntry + "(a, r, 0, w, 0);\n  if (status)\n    return status;\n";
  for (size_t j = 0; j < e.outs.size(); ++j) {
    const CasadiPort &p = e.outs[j];
    if (!needsTranspose(p))
      continue;
    s += llvm::formatv("  if (res[{0}])\n    for (k = 0; k < {1}; ++k)\n"
                       "      for (c = 0; c < {2}; ++c)\n"
                       "        res[{0}][c * {1} + k] = r[{0}][k * {2} + c];\n",
                       j, p.shape[0], p.shape[1])
             .str();
  }
  return s + "  return 0;\n}\n";
}

} // namespace

std::string casadiSource(const std::vector<CasadiEntry> &entries) {
  std::string s = "\n/* CasADi's external function API (render_c_module(casadi=True)):\n"
                  " * casadi.external(\"<entry>\", \"<library>.so\") loads and evaluates each entry.\n"
                  " * Dense matrices are column-major here, as CasADi stores them. */\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const CasadiEntry &e : entries)
    s += "\n" + queries(e) + "\n" + evaluation(e);
  return s + "\n#ifdef __cplusplus\n}\n#endif\n";
}

std::string casadiDeclarations(const std::vector<CasadiEntry> &entries) {
  std::string s = "/* CasADi's external function API (see the module's source). */\n"
                  "#ifndef casadi_real\n#define casadi_real double\n#endif\n"
                  "#ifndef casadi_int\n#define casadi_int long long int\n#endif\n\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const CasadiEntry &e : entries)
    s += llvm::formatv(R"(int {0}(const casadi_real** arg, casadi_real** res, casadi_int* iw, casadi_real* w, int mem);
void {0}_incref(void);
void {0}_decref(void);
casadi_int {0}_n_in(void);
casadi_int {0}_n_out(void);
casadi_real {0}_default_in(casadi_int i);
const char* {0}_name_in(casadi_int i);
const char* {0}_name_out(casadi_int i);
const casadi_int* {0}_sparsity_in(casadi_int i);
const casadi_int* {0}_sparsity_out(casadi_int i);
int {0}_work(casadi_int* sz_arg, casadi_int* sz_res, casadi_int* sz_iw, casadi_int* sz_w);
int {0}_alloc_mem(void);
int {0}_init_mem(int mem);
void {0}_free_mem(int mem);
int {0}_checkout(void);
void {0}_release(int mem);
)",
                       e.name)
             .str();
  return s + "#ifdef __cplusplus\n}\n#endif\n\n";
}

} // namespace scaly::codegen
