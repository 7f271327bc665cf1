/* sweep: a scenario run over the cartesian product of knob values.
 *
 * A grid is a list of axes, each a SECTION.KEY (the --set syntax,
 * scenario/scenario.h) and its values. A point is one value per axis, in
 * row-major order (the last axis varies fastest); each point is the scenario
 * loaded with the user's --set texts and then the point's KEY=VALUE texts,
 * run for every variant and replication.
 *
 * A point's random streams are keyed by the point itself, not by its index:
 * its seed is a hash of the base seed and its label ("KEY=VALUE ..." in axis
 * order), so the same point in a bigger or smaller grid, in another shard or
 * on another MPI rank gives the same numbers, and `pmlab run --set ...
 * --seed POINT_SEED` reproduces it. Inside a point, the variants share their
 * workload streams by replication as in any run (common random numbers,
 * world.h). */
#ifndef PMLAB_SWEEP_SWEEP_H
#define PMLAB_SWEEP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/results.h"
#include "scenario/scenario.h"
#include "util/diag.h"

#define SWEEP_MAX_AXES 16
/* The most points a grid may have: a million runs of every variant is past
 * what a cluster runs in a week, and the count, the database's point ids
 * and merge's table of them stay far from overflow. */
#define SWEEP_MAX_POINTS 1000000L

struct sweep_axis {
    char *key;            /* SECTION.KEY */
    char **values;        /* [nvalues] */
    int nvalues;
};

struct sweep_grid {
    struct sweep_axis axes[SWEEP_MAX_AXES];
    int naxes;
};

/* Add the axis "KEY=V1,V2,..." (spaces around values dropped); an axis of a
 * key already in g replaces it. Returns 0, or -1 with msg. */
int sweep_grid_add(struct sweep_grid *g, const char *spec, char *msg, size_t msgsize);
/* The [sweep] lines of the scenario at path, as axes of g (keys already in
 * g, from --grid, win). Returns 0 (no [sweep] is no axis) or -1 with d. */
int sweep_grid_from_file(struct sweep_grid *g, const char *path, struct diag *d);
void sweep_grid_free(struct sweep_grid *g);
/* The number of points (1 with no axis); SWEEP_MAX_POINTS + 1 for any
 * grid past the bound. */
long sweep_grid_npoints(const struct sweep_grid *g);
/* 0, or -1 with msg when g has more than SWEEP_MAX_POINTS points. */
int sweep_grid_check_size(const struct sweep_grid *g, char *msg, size_t msgsize);
/* Point p's value index on each axis. */
void sweep_point_coords(const struct sweep_grid *g, long p, int *coords);
/* "KEY=VALUE KEY=VALUE" of point p (allocated). */
char *sweep_point_label(const struct sweep_grid *g, long p);
/* Point p's seed from the base seed: in [0, 2^63), so --seed takes it. */
uint64_t sweep_point_seed(const struct sweep_grid *g, long p, uint64_t base_seed);
/* "AXIS=V1,V2 AXIS=..." of g (allocated): the grid's identity. */
char *sweep_grid_describe(const struct sweep_grid *g);

/* What every point shares. */
struct sweep_spec {
    const char *scenario;          /* path */
    const char *const *sets;       /* the user's --set texts */
    int nsets;
    struct sweep_grid grid;
    uint64_t seed;                 /* base seed */
    int reps;                      /* 0: the scenario's (or [quick]) */
    bool quick;
    const char *primary;           /* NULL: the workload's headline */
};

/* One stored number: a metric of a variant in a replication. */
struct sweep_row {
    int32_t variant, replication;  /* index in the scenario, replication number */
    char variant_name[SCN_NAME_MAX];
    char metric[RPT_NAME_MAX];
    char unit[RPT_UNIT_MAX];
    double value;                  /* NaN: no value (nothing to measure) */
};

struct sweep_result {
    long point;
    uint64_t seed;
    int reps;
    struct sweep_row *rows;
    int nrows;
    char *primary;                 /* the primary metric's name */
    char *machine;                 /* the machine file's path */
    double wall_s;
};

/* Load point p of spec (for checking, or to run). NULL with d set. */
struct scenario *sweep_point_load(const struct sweep_spec *spec, long p, struct diag *d);
/* Load every point once, so a bad grid value fails before anything runs.
 * Returns 0 or -1 with d ("--grid KEY=VALUE: why"). */
int sweep_check(const struct sweep_spec *spec, struct diag *d);
/* Run point p on jobs threads into *out (free with sweep_result_free).
 * Returns 0, or -1 with err (a failed run: exit status 1), or
 * RUNNER_BAD_PRIMARY. */
int sweep_run_point(const struct sweep_spec *spec, long p, int jobs, struct sweep_result *out,
                    char *err, size_t errsize);
void sweep_result_free(struct sweep_result *r);

#endif
