/* scaly_nlp.h: Scaly's nonlinear-programming layer, a C interface.
 *
 *   minimize    f(x)
 *   subject to  lbg <= g(x) <= ubg,  lbx <= x <= ubx
 *
 * The problem is given by oracles (callbacks): f, its gradient, g, the
 * Jacobian of g in compressed-column order of a fixed pattern, and the
 * Hessian of the Lagrangian sigma f(x) + lam'g(x), lower triangle, also
 * compressed-column. Generated solver wrappers pass Scaly's own derivative
 * code here. Two backends solve it:
 *
 *   SCALY_NLP_IPOPT  IPOPT (COIN-OR), through its C interface;
 *   SCALY_NLP_SQP    Scaly SQP: exact Hessian made convex by a multiple of
 *                    the identity (or damped BFGS), QP subproblems by
 *                    scaly_qp (sparse or dense backend), l1-merit line search.
 *
 * Multipliers follow CasADi's convention: grad f + J'lam_g + lam_x = 0 at a
 * solution, lam positive on an active upper bound and negative on an active
 * lower bound. Infinite bounds (or beyond +-SCALY_NLP_INFINITY) are absent.
 *
 * Options are numbers in a table per backend (scaly_nlp_option_count/name):
 * an option array of that length, NaN meaning "the default", is passed to
 * every solve. Options with named choices (IPOPT's mu_strategy, say) take the
 * index of the choice in scaly_nlp_option_choices ("monotone|adaptive": 0, 1).
 * IPOPT's other options are set by name with scaly_nlp_set_ipopt_option.
 *
 * A solver object is not thread-safe; distinct objects may be used from
 * distinct threads (IPOPT's MUMPS itself is not re-entrant: serialize IPOPT
 * solves across objects when in doubt).
 */
#ifndef SCALY_NLP_H
#define SCALY_NLP_H

#include <stddef.h>
#include <stdint.h>

#include "scaly_solver_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCALY_NLP_INFINITY 1e20

/* Backends: a structural choice, fixed when the solver is created. */
#define SCALY_NLP_IPOPT 0
#define SCALY_NLP_SQP 1

/* Native statuses of Scaly SQP (IPOPT reports its own ApplicationReturnStatus). */
#define SCALY_SQP_SOLVED 0
#define SCALY_SQP_ACCEPTABLE 1
#define SCALY_SQP_RTI_STEP 2        /* real-time iteration: one step taken */
#define SCALY_SQP_MAX_ITER (-1)
#define SCALY_SQP_INFEASIBLE (-2)    /* stuck at a point of least infeasibility */
#define SCALY_SQP_UNBOUNDED (-3)     /* the objective fell below its limit */
#define SCALY_SQP_LINE_SEARCH (-4)   /* no acceptable step along a descent direction */
#define SCALY_SQP_QP_FAILED (-5)     /* a subproblem could not be solved */
#define SCALY_SQP_EVAL_ERROR (-6)    /* an oracle failed or gave NaN at the start */
#define SCALY_SQP_INVALID (-11)      /* bad dimensions, bounds or options */

typedef struct {
  int32_t n;                 /* variables */
  int32_t m;                 /* constraints */
  int32_t jac_nnz;           /* stored entries of dg/dx (m x n) */
  const int32_t *jac_colptr; /* n + 1 entries */
  const int32_t *jac_rowind; /* jac_nnz entries, ascending per column */
  int32_t hess_nnz;          /* stored entries of the Hessian's lower triangle (n x n) */
  const int32_t *hess_colptr;
  const int32_t *hess_rowind; /* row >= column */
  void *context;              /* handed to every oracle */
  /* Each returns 0 on success, nonzero when it could not evaluate. */
  int (*f)(void *context, const double *x, double *f);
  int (*grad_f)(void *context, const double *x, double *grad);
  int (*g)(void *context, const double *x, double *g);
  int (*jac_g)(void *context, const double *x, double *values);
  int (*hess_l)(void *context, const double *x, double sigma, const double *lam,
                double *values);
} scaly_nlp_problem;

typedef struct scaly_nlp_solver scaly_nlp_solver;

/* Options of a backend: their number, names (NULL past the end), defaults and
 * choices ("a|b|c" for an option with named choices, else NULL). */
int scaly_nlp_option_count(int32_t backend);
const char *scaly_nlp_option_name(int32_t backend, int i);
double scaly_nlp_option_default(int32_t backend, int i);
const char *scaly_nlp_option_choices(int32_t backend, int i);

/* The index of option `name` whose value `value` is valid, or -1 with a
 * message naming the option and what it expects in err. */
int scaly_nlp_check_option(int32_t backend, const char *name, double value, char *err,
                           size_t err_len);

/* Copies the problem's dimensions and patterns. qp_backend (SCALY_QP_SPARSE
 * or SCALY_QP_DENSE) is the SQP's subproblem backend. Returns NULL with a
 * message in err for bad dimensions or patterns. */
scaly_nlp_solver *scaly_nlp_create(const scaly_nlp_problem *problem, int32_t backend,
                                   int32_t qp_backend, char *err, size_t err_len);

/* An IPOPT option by name, kept for every later solve (value as text: "yes",
 * "1e-10", "5"); value NULL removes it. Returns 0, or -1 for a NULL name. */
int scaly_nlp_set_ipopt_option(scaly_nlp_solver *solver, const char *name, const char *value);

/* Whether IPOPT knows option `name` and takes `value` (text) for it: 0, or
 * -1 with IPOPT's refusal in err. Needs no solver object. */
int scaly_nlp_check_ipopt_option(const char *name, const char *value, char *err, size_t err_len);

/* Solves from x0 (n) and the multipliers lam_g0 (m), lam_x0 (n) (either may
 * be NULL: zeros). `options` holds scaly_nlp_option_count(backend) values or
 * is NULL. Writes x, lam_g, lam_x (any may be NULL) and returns the
 * SCALY_SOLVE_* status; a solve that fails still writes its last iterate. */
int scaly_nlp_solve(scaly_nlp_solver *solver, const double *options, const double *lbx,
                    const double *ubx, const double *lbg, const double *ubg, const double *x0,
                    const double *lam_g0, const double *lam_x0, double *x, double *lam_g,
                    double *lam_x);

/* Statistics of the latest solve (t_total and t_glue are the caller's). */
void scaly_nlp_get_stats(const scaly_nlp_solver *solver, scaly_solver_stats *stats);

void scaly_nlp_free(scaly_nlp_solver *solver);

/* The library's version string, also part of Scaly's cache fingerprints. */
const char *scaly_nlp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SCALY_NLP_H */
