/* scaly_qp.h: Scaly's quadratic-programming solver, a C interface.
 *
 *   minimize    1/2 x'Px + c'x
 *   subject to  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
 *
 * The method is PIQP's (Schwan, Jiang, Kuhn, Jones, 2023): a proximal method
 * of multipliers around an interior-point method with Mehrotra's
 * predictor-corrector, whose regularized quasi-definite KKT systems are
 * factored by LDL^T (sparse backend, AMD ordering) or, condensed, by Cholesky
 * (dense backend). See docs/solvers.md.
 *
 * Matrices are compressed-column (CSC) with 32-bit indices. Only the upper
 * triangle of P (row <= column) is read. A bound at or beyond
 * +-SCALY_QP_INFINITY (to within a relative 1e-12, as data sets round it),
 * or an infinity, is absent; a null bound array means
 * every entry is absent. Rows with h_l == h_u and variables with
 * x_l == x_u are treated as equalities.
 *
 * Multipliers follow one sign convention: P x + c + A'y + G'z + z_box = 0 at
 * a solution, where z_j > 0 when row j rests on its upper bound and z_j < 0
 * when it rests on its lower bound (z_box likewise for the variables).
 *
 * A solver object is not thread-safe; distinct objects may be used from
 * distinct threads.
 */
#ifndef SCALY_QP_H
#define SCALY_QP_H

#include <stddef.h>
#include <stdint.h>

#include "scaly_solver_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCALY_QP_INFINITY 1e20

/* Native statuses (PIQP's numbering). */
#define SCALY_QP_SOLVED 1
/* Stopped unconverged (iteration limit, numerical trouble or a doubtful
 * infeasibility) with a best iterate within 1e3 of every tolerance: that
 * iterate is returned. */
#define SCALY_QP_ACCEPTABLE 2
#define SCALY_QP_MAX_ITER_REACHED (-1)
#define SCALY_QP_PRIMAL_INFEASIBLE (-2)
#define SCALY_QP_DUAL_INFEASIBLE (-3)
#define SCALY_QP_NUMERICS (-8)
#define SCALY_QP_UNSOLVED (-9)
#define SCALY_QP_INVALID_SETTINGS (-10)
#define SCALY_QP_INVALID_DATA (-11)

/* Backends: a structural choice, fixed at setup. */
#define SCALY_QP_SPARSE 0
#define SCALY_QP_DENSE 1

typedef struct {
  int32_t nrow;
  int32_t ncol;
  const int32_t *colptr; /* ncol + 1 entries, colptr[0] == 0 */
  const int32_t *rowind; /* colptr[ncol] entries, ascending in each column */
  const double *values;  /* colptr[ncol] entries */
} scaly_qp_csc;

typedef struct {
  int32_t n; /* variables */
  int32_t p; /* rows of A */
  int32_t m; /* rows of G */
  scaly_qp_csc P;
  const double *c;
  scaly_qp_csc A;
  const double *b;
  scaly_qp_csc G;
  const double *h_l, *h_u; /* m entries each, or NULL */
  const double *x_l, *x_u; /* n entries each, or NULL */
} scaly_qp_data;

/* Every tuning option. Numerical options only: none changes the structure. */
typedef struct {
  double eps_abs;             /* absolute tolerance on residuals (1e-8) */
  double eps_rel;             /* relative tolerance on residuals (1e-9) */
  int32_t check_duality_gap;  /* require the duality gap test too (1) */
  double eps_duality_gap_abs; /* (1e-8) */
  double eps_duality_gap_rel; /* (1e-13: 1e-9 of a 1e11 objective is a gap of 100) */
  int32_t max_iter;           /* interior-point iterations (250) */
  double rho_init;            /* primal proximal penalty, first value (1e-6) */
  double delta_init;          /* augmented-Lagrangian penalty, first value (1e-4) */
  double reg_lower_limit;     /* floor of rho and delta (1e-10) */
  double reg_finetune_lower_limit; /* floor once progress stalls (1e-13) */
  int32_t max_factor_retries; /* regularization raises after a failed factorization (10) */
  int32_t preconditioner_iter;       /* Ruiz equilibration sweeps, 0 = none (10) */
  int32_t preconditioner_scale_cost; /* also scale the cost (0) */
  double tau;                        /* fraction to the boundary (0.99) */
  int32_t iterative_refinement_max_iter; /* refinement steps per KKT solve (10) */
  double iterative_refinement_eps;       /* refinement stops below this residual (1e-12) */
  int32_t verbose;                       /* print one line per iteration to stdout (0) */
  int32_t warm_start; /* a solve given no starting point starts from the previous solution
                         when that one was solved (0) */
  double preconditioner_reuse; /* 0: an update of the matrices' values is equilibrated
                                  afresh; r >= 1: it keeps the previous scaling when every
                                  row and column norm that gives lies within a factor r of
                                  those it was made for (0) */
  int32_t duality_gap_extended; /* sum the duality gap's terms in extended precision
                                   (long double); 0: in double, faster, for gap tolerances
                                   far above the objective's rounding (1) */
  int32_t polish;     /* polish a point near convergence: the active set's KKT system
                         solved without regularization (1) */
} scaly_qp_settings;

typedef struct {
  int32_t status;        /* SCALY_SOLVE_* */
  int32_t native_status; /* SCALY_QP_* */
  int32_t iter;
  int32_t factorizations;
  double obj;         /* 1/2 x'Px + c'x */
  double primal_res;  /* max violation of Ax = b, h_l <= Gx <= h_u, x_l <= x <= x_u */
  double dual_res;    /* || P x + c + A'y + G'z + z_box ||_inf */
  double duality_gap; /* | x'Px + c'x + b'y + support terms of the bounds | */
  double rho, delta, mu;
  double t_setup, t_update, t_solve; /* seconds */
} scaly_qp_info;

typedef struct scaly_qp_solver scaly_qp_solver;

void scaly_qp_default_settings(scaly_qp_settings *settings);

/* Sets the option called `name`. Integer and flag options take integral
 * values. Returns 0, or -1 with a message naming the option in err. */
int scaly_qp_set_option(scaly_qp_settings *settings, const char *name, double value, char *err,
                        size_t err_len);

/* Returns 0 when every option is in range, else -1 with a message. */
int scaly_qp_check_settings(const scaly_qp_settings *settings, char *err, size_t err_len);

/* Number of options, and the name of option i (NULL past the end). */
int scaly_qp_option_count(void);
const char *scaly_qp_option_name(int i);

/* Checks and copies the data, equilibrates it and analyses the KKT pattern.
 * NULL settings means the defaults. Returns NULL, with a message in err,
 * for inconsistent dimensions, bad index tables or non-finite values. */
scaly_qp_solver *scaly_qp_setup(const scaly_qp_data *data, int32_t backend,
                                const scaly_qp_settings *settings, char *err, size_t err_len);

/* New values for a problem of the same dimensions and matrix patterns
 * (bounds may become finite or infinite: the structure is then rebuilt).
 * Returns 0, or -1 with a message (the solver keeps its previous data). */
int scaly_qp_update(scaly_qp_solver *solver, const scaly_qp_data *data, char *err,
                    size_t err_len);

/* As scaly_qp_update; known_convex nonzero skips the convexity check of a
 * changed P (a factorization), for a caller that knows P is positive
 * semidefinite (Scaly SQP, which has just factored it). */
int scaly_qp_update_convex(scaly_qp_solver *solver, const scaly_qp_data *data,
                           int32_t known_convex, char *err, size_t err_len);

int scaly_qp_update_settings(scaly_qp_solver *solver, const scaly_qp_settings *settings,
                             char *err, size_t err_len);

/* Solves. Any of x0 (n), y0 (p), z0 (m), z_box0 (n) may be given to start
 * from them (a warm start); NULL entries start cold. Returns the SCALY_SOLVE_*
 * status (also in the info). */
int scaly_qp_solve(scaly_qp_solver *solver, const double *x0, const double *y0, const double *z0,
                   const double *z_box0);

/* Copies the latest solution; any pointer may be NULL. */
void scaly_qp_solution(const scaly_qp_solver *solver, double *x, double *y, double *z,
                       double *z_box);
void scaly_qp_get_info(const scaly_qp_solver *solver, scaly_qp_info *info);

/* Fills the solver statistics of the latest solve: the QP's time in t_qp. */
void scaly_qp_get_stats(const scaly_qp_solver *solver, scaly_solver_stats *stats);

void scaly_qp_free(scaly_qp_solver *solver);

/* The library's version string, also part of Scaly's cache fingerprints. */
const char *scaly_qp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SCALY_QP_H */
