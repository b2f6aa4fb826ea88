/*===- scaly-capi-test.c - Scaly's C API from a C program -----------------===*\
|*                                                                            *|
|* Written against MLIR's C API only (mlir-c/) plus scaly-c/, linked against  *|
|* libScalyCAPI alone: loads Scaly's dialects through their handles, parses   *|
|* an expr module, runs the registered `scaly-lower` pipeline and then        *|
|* `scaly-program-to-emitc` through pass managers, verifies and checks the    *|
|* printed IR; diagnostics of a module with an invalid op reach the handler.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "mlir-c/Transforms.h"
#include "scaly-c/Dialects.h"
#include "scaly-c/Passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A growing text buffer, for printing IR and collecting diagnostics. */
typedef struct {
  char *data;
  size_t size;
} Text;

static void appendText(MlirStringRef s, void *userData) {
  Text *t = (Text *)userData;
  char *grown = realloc(t->data, t->size + s.length + 1);
  if (!grown)
    abort();
  t->data = grown;
  memcpy(t->data + t->size, s.data, s.length);
  t->size += s.length;
  t->data[t->size] = '\0';
}

static void clearText(Text *t) {
  free(t->data);
  t->data = NULL;
  t->size = 0;
}

static MlirLogicalResult collectDiagnostic(MlirDiagnostic d, void *userData) {
  Text *t = (Text *)userData;
  mlirDiagnosticPrint(d, appendText, t);
  MlirStringRef nl = {"\n", 1};
  appendText(nl, t);
  return mlirLogicalResultSuccess();
}

static int equals(MlirStringRef s, const char *c) {
  return s.length == strlen(c) && memcmp(s.data, c, s.length) == 0;
}

static char *printOp(MlirOperation op) {
  Text t = {NULL, 0};
  mlirOperationPrint(op, appendText, &t);
  return t.data;
}

/* The rollout of test/Conversion/ExprToProgram/lower-pipeline.mlir: a map of
   a block function over 10 steps. */
static const char *kRollout =
    "expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64>"
    "    attributes {arg_names = [\"zs\", \"us\"], res_names = [\"zn\"]} {\n"
    "  %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>\n"
    "  %1 = expr.map @euler(%0, %us) count 10 {block} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>\n"
    "  %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>\n"
    "  expr.return %2 : tensor<20xf64>\n"
    "}\n"
    "expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64>"
    "    attributes {arg_names = [\"z\", \"u\"], res_names = [\"znext\"], block} {\n"
    "  %c = expr.constant dense<0.1> : tensor<f64>\n"
    "  %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>\n"
    "  %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>\n"
    "  %a = expr.mul %c, %z1 : tensor<f64>\n"
    "  %b = expr.add %z0, %a : tensor<f64>\n"
    "  %s = expr.math sin %u : tensor<f64>\n"
    "  %d = expr.mul %c, %s : tensor<f64>\n"
    "  %e = expr.add %z1, %d : tensor<f64>\n"
    "  %r = expr.concat %b, %e : (tensor<f64>, tensor<f64>) -> tensor<2xf64>\n"
    "  expr.return %r : tensor<2xf64>\n"
    "}\n";

/* Index 4 of a 4-element operand: the verifier refuses it. */
static const char *kInvalid =
    "expr.func @f(%x: tensor<4xf64>) -> tensor<f64>"
    "    attributes {arg_names = [\"x\"], res_names = [\"y\"]} {\n"
    "  %0 = expr.gather %x [4] : tensor<4xf64> to tensor<f64>\n"
    "  expr.return %0 : tensor<f64>\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreateWithThreading(false);
  Text diagnostics = {NULL, 0};
  mlirContextAttachDiagnosticHandler(ctx, collectDiagnostic, &diagnostics, NULL);

  /* The handles, in MLIR's convention. */
  MlirDialectHandle exprHandle = mlirGetDialectHandle__scaly_expr__();
  MlirDialectHandle progHandle = mlirGetDialectHandle__scaly_prog__();
  CHECK(equals(mlirDialectHandleGetNamespace(exprHandle), "expr"));
  CHECK(equals(mlirDialectHandleGetNamespace(progHandle), "prog"));
  mlirDialectHandleRegisterDialect(exprHandle, ctx);
  mlirDialectHandleRegisterDialect(progHandle, ctx);
  MlirDialect expr = mlirDialectHandleLoadDialect(exprHandle, ctx);
  MlirDialect prog = mlirDialectHandleLoadDialect(progHandle, ctx);
  CHECK(!mlirDialectIsNull(expr) && !mlirDialectIsNull(prog));
  CHECK(equals(mlirDialectGetNamespace(expr), "expr"));
  CHECK(mlirDialectEqual(mlirContextGetOrLoadDialect(ctx, mlirStringRefCreateFromCString("prog")),
                         prog));

  /* Everything the pipeline produces, through a registry; arith's handle is
     MLIR's own, exported by libScalyCAPI too. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  scalyRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  CHECK(mlirContextGetNumRegisteredDialects(ctx) >= 7); /* builtin + 6 */

  /* Passes: MLIR's transforms next to Scaly's; registering twice is fine. */
  mlirRegisterTransformsPasses();
  scalyRegisterPasses();
  scalyRegisterPasses();

  /* An invalid op: no module, the verifier's message reaches the handler. */
  MlirModule bad = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kInvalid));
  CHECK(mlirModuleIsNull(bad));
  CHECK(diagnostics.data &&
        strstr(diagnostics.data, "index 4 is outside the operand's 4 elements") != NULL);
  clearText(&diagnostics);

  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kRollout));
  CHECK(!mlirModuleIsNull(module));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed:\n%s", diagnostics.data ? diagnostics.data : "");
    return 1;
  }
  MlirOperation op = mlirModuleGetOperation(module);
  CHECK(mlirOperationVerify(op));

  /* scaly-lower, added by name to a pass manager on builtin.module. */
  MlirPassManager lower =
      mlirPassManagerCreateOnOperation(ctx, mlirStringRefCreateFromCString("builtin.module"));
  Text errors = {NULL, 0};
  MlirLogicalResult added = mlirOpPassManagerAddPipeline(
      mlirPassManagerGetAsOpPassManager(lower), mlirStringRefCreateFromCString("scaly-lower"),
      appendText, &errors);
  CHECK(mlirLogicalResultIsSuccess(added));
  if (errors.data)
    fprintf(stderr, "pipeline: %s\n", errors.data);
  clearText(&errors);
  CHECK(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(lower, op)));
  mlirPassManagerDestroy(lower);
  CHECK(mlirOperationVerify(op));
  char *ir = printOp(op);
  CHECK(ir && strstr(ir, "prog.proc @rollout(") != NULL);
  CHECK(ir && strstr(ir, "prog.proc @euler_raw(") != NULL);
  CHECK(ir && strstr(ir, "scf.for") != NULL);
  CHECK(ir && strstr(ir, "expr.") == NULL);
  free(ir);

  /* Then to EmitC, from a textual pipeline as a tool's command line has it. */
  MlirPassManager toC = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(toC),
      mlirStringRefCreateFromCString("builtin.module(scaly-program-to-emitc,canonicalize)"),
      appendText, &errors);
  CHECK(mlirLogicalResultIsSuccess(parsed));
  if (errors.data)
    fprintf(stderr, "pipeline: %s\n", errors.data);
  clearText(&errors);
  CHECK(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(toC, op)));
  mlirPassManagerDestroy(toC);
  CHECK(mlirOperationVerify(op));
  ir = printOp(op);
  CHECK(ir && strstr(ir, "emitc.func") != NULL);
  CHECK(ir && strstr(ir, "prog.proc") == NULL);
  if (failures)
    fprintf(stderr, "final IR:\n%s\n", ir ? ir : "");
  free(ir);

  if (diagnostics.data)
    fprintf(stderr, "diagnostics:\n%s", diagnostics.data);
  CHECK(diagnostics.data == NULL);
  clearText(&diagnostics);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("scaly-capi-test: OK\n");
  return 0;
}
