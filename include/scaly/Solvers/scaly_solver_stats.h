/* scaly_solver_stats.h: the statistics every Scaly solver wrapper fills.
 *
 * The layout is fixed (136 bytes, version 3); new fields are only ever
 * appended with a version bump. Times are seconds from a monotonic clock and
 * t_total = t_fe + t_solver + t_qp + t_globalization + t_glue. Fields a
 * backend has no use for stay zero; version is zero until a wrapper ran once.
 * A generated module's header prints the same definitions, guarded by
 * SCALY_SOLVER_STATS_DEFINED so both may be included together.
 */
#ifndef SCALY_SOLVER_STATS_H
#define SCALY_SOLVER_STATS_H

#include <stdint.h>

#ifndef SCALY_SOLVER_STATS_DEFINED
#define SCALY_SOLVER_STATS_DEFINED
#define SCALY_SOLVER_STATS_VERSION 3
#define SCALY_SOLVE_OK 0
#define SCALY_SOLVE_ACCEPTABLE 1
#define SCALY_SOLVE_MAX_ITER 2
#define SCALY_SOLVE_PRIMAL_INFEASIBLE 3
#define SCALY_SOLVE_DUAL_INFEASIBLE 4
#define SCALY_SOLVE_NUMERICS 5
#define SCALY_SOLVE_USER_STOP 6
#define SCALY_SOLVE_ERROR 7
typedef struct {
  int32_t version;
  int32_t status;
  int32_t native_status;
  int32_t iter;
  double obj;
  double t_total;
  double t_fe;
  double t_solver;
  double t_qp;
  double t_globalization;
  double t_glue;
  int32_t n_eval_f;
  int32_t n_eval_grad_f;
  int32_t n_eval_g;
  int32_t n_eval_jac_g;
  int32_t n_eval_h;
  int32_t _pad0;
  double primal_viol;
  double step_inf;
  double alpha;
  double merit_penalty;
  int32_t backtracks;
  int32_t qp_iter;
} scaly_solver_stats;
#endif

#endif /* SCALY_SOLVER_STATS_H */
