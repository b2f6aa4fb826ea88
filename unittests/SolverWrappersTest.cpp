//===- SolverWrappersTest.cpp - the solver wrapper unit built as EmitC ----===//

#include "scaly/Codegen/SolverWrappers.h"
#include "scaly/InitScaly.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace scaly;
using namespace scaly::codegen;

namespace {

/// Two entries; a sparse QP with n = 2 and no equality rows (p = 0, its
/// tables empty), then an NLP without constraints (no g or jac_g oracle).
SolverWrappersSpec twoWrappers() {
  SolverWrappersSpec spec;
  spec.module = "m";
  QpWrapper qp;
  qp.n = 2, qp.p = 0, qp.m = 1;
  qp.colptr = {{{0, 1, 2}, {0, 0, 0}, {0, 1, 1}}};
  qp.rowind = {{{0, 1}, {}, {0}}};
  NlpWrapper nlp;
  nlp.n = 2, nlp.m = 0, nlp.solver = "sqp", nlp.denseQp = true, nlp.optionCount = 3;
  nlp.traceOptions = {{1, 0.5}};
  nlp.oracles = {"m_nlp1_oracle_f", "", "m_nlp1_oracle_grad_f", "", "m_nlp1_oracle_hess_l"};
  nlp.workspaceBytes = 24, nlp.hessFull = 4;
  nlp.jacColptr = {0, 0, 0};
  nlp.hessColptr = {0, 2, 3}, nlp.hessRowind = {0, 1, 1}, nlp.hessPick = {0, 1, 3};
  spec.wrappers = {{"m_qp0", false, qp, {}}, {"m_nlp1", true, {}, nlp}};
  std::vector<std::pair<std::string, std::string>> params = {{"const double**", "arg"},
                                                             {"double**", "res"},
                                                             {"int*", "iw"},
                                                             {"double*", "w"},
                                                             {"int", "mem"}};
  spec.entries = {{"m", params}, {"m_b", params}};
  return spec;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(SolverWrappers, ModuleVerifies) {
  mlir::DialectRegistry registry;
  registerScalyDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module = buildSolverWrappers(&ctx, twoWrappers());
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
}

TEST(SolverWrappers, PrintsEachWrapperAndEntry) {
  std::string error;
  std::string text = renderSolverWrappers(twoWrappers(), error);
  ASSERT_EQ(error, "");
  // The lock comes after _GNU_SOURCE, which comes before every include.
  EXPECT_LT(text.find("#define _GNU_SOURCE\n"), text.find("#include <math.h>"));
  EXPECT_NE(text.find("-lscaly_nlp -lscaly_qp -lm"), std::string::npos);
  EXPECT_NE(text.find("#include \"scaly_nlp.h\""), std::string::npos);
  EXPECT_NE(text.find("static pthread_mutex_t scaly_solvers_lock = "
                      "PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;"),
            std::string::npos);
  // An empty table holds one 0 (C has no zero-length arrays).
  EXPECT_NE(text.find("static const int32_t m_qp0_A_rowind[1] = {0};"), std::string::npos);
  EXPECT_NE(text.find("static const int32_t m_qp0_P_colptr[3] = {0, 1, 2};"), std::string::npos);
  EXPECT_NE(text.find("SCALY_WRAPPER_HIDDEN void m_qp0(const double* P,"), std::string::npos);
  EXPECT_NE(text.find("int m_qp0_set_option(const char* name, double value) {"), std::string::npos);
  EXPECT_NE(text.find("void m_qp0_stats(scaly_solver_stats* out) {"), std::string::npos);
  EXPECT_NE(text.find("scaly_qp_setup(&data, SCALY_QP_SPARSE, &settings, NULL, 0)"),
            std::string::npos);
  // No loop fills the p = 0 multipliers of A.
  EXPECT_EQ(text.find("y[i_y] = NAN"), std::string::npos);
  EXPECT_NE(text.find("z[i_z] = NAN;"), std::string::npos);
  // The NLP wrapper: its oracles declared hidden (defined after the unit),
  // no g to evaluate, lam not read, the traced default set once.
  EXPECT_EQ(count(text, "static const double* m_nlp1_call_options;"), 1u);
  EXPECT_NE(text.find("SCALY_WRAPPER_HIDDEN int m_nlp1_oracle_f(const double** arg, double** "
                      "res, int* iw, double* w, int mem);"),
            std::string::npos);
  EXPECT_EQ(text.find("m_nlp1_oracle_g("), std::string::npos);
  EXPECT_NE(text.find("static int m_nlp1_g(void* context, const double* x, double* g) {\n"
                      "  (void)context;\n  (void)x;\n  (void)g;\n  return 0;\n}"),
            std::string::npos);
  EXPECT_NE(text.find("(void)lam;"), std::string::npos);
  EXPECT_NE(text.find("static double m_nlp1_work[4];"), std::string::npos);
  EXPECT_NE(text.find("m_nlp1_defaults[1] = 0.5;"), std::string::npos);
  EXPECT_NE(text.find("scaly_nlp_create(&problem, SCALY_NLP_SQP, SCALY_QP_DENSE, NULL, 0)"),
            std::string::npos);
  EXPECT_NE(text.find("SCALY_WRAPPER_HIDDEN void m_nlp1(const double* x0, const double* p,"),
            std::string::npos);
  EXPECT_NE(text.find("scaly_nlp_solve(m_nlp1_solver, options, lbx, ubx, lbg, ubg, x0, lam_g0, "
                      "lam_x0, x, lam_g, lam_x);"),
            std::string::npos);
  // Each entry sets every wrapper's options around its call, and clears them.
  for (std::string entry : {"m", "m_b"}) {
    EXPECT_NE(text.find("int " + entry +
                        "(const double** arg, double** res, int* iw, "
                        "double* w, int mem);"),
              std::string::npos);
    EXPECT_NE(text.find("int " + entry +
                        "_with_options(const double** arg, double** res, "
                        "int* iw, double* w, int mem, const double* const* options) {"),
              std::string::npos);
    EXPECT_NE(text.find("int status = " + entry + "(arg, res, iw, w, mem);"), std::string::npos);
  }
  EXPECT_EQ(count(text, "m_nlp1_call_options = (options != NULL) ? "
                        "((const double*)options[1]) : NULL;"),
            2u);
  EXPECT_EQ(count(text, "m_qp0_call_options = NULL;"), 2u);
}

} // namespace
