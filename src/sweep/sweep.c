/* sweep: grids, points and running one point, see sweep.h. */
#include "sweep/sweep.h"

#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner/runner.h"
#include "sim/rng.h"
#include "util/inifile.h"
#include "util/strutil.h"
#include "util/xalloc.h"

/* text with the blanks around it removed (allocated). */
static char *sweep_trim(const char *text, size_t len)
{
    while (len && (*text == ' ' || *text == '\t')) {
        text++;
        len--;
    }
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    return xasprintf("%.*s", (int)len, text);
}

static void sweep_axis_free(struct sweep_axis *a)
{
    for (int i = 0; i < a->nvalues; i++)
        free(a->values[i]);
    free(a->values);
    free(a->key);
    memset(a, 0, sizeof *a);
}

/* Fill a from KEY and "V1,V2,...". */
static int sweep_axis_parse(struct sweep_axis *a, const char *key, const char *list, char *msg,
                            size_t msgsize)
{
    memset(a, 0, sizeof *a);
    a->key = sweep_trim(key, strlen(key));
    if (!a->key[0] || !strchr(a->key, '.')) {
        snprintf(msg, msgsize, "'%s': expected SECTION.KEY=V1,V2,... (e.g. workload.load=0.1,0.5)",
                 key);
        return -1;
    }
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        char *v = sweep_trim(p, len);
        if (!v[0]) {
            free(v);
            snprintf(msg, msgsize, "%s: an empty value in '%s'", a->key, list);
            return -1;
        }
        for (int i = 0; i < a->nvalues; i++)
            if (strcmp(a->values[i], v) == 0) {
                snprintf(msg, msgsize, "%s: value '%s' given twice", a->key, v);
                free(v);
                return -1;
            }
        a->values = xreallocarray(a->values, (size_t)a->nvalues + 1, sizeof *a->values);
        a->values[a->nvalues++] = v;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* Put a into g, replacing an axis of the same key. */
static int sweep_grid_put(struct sweep_grid *g, struct sweep_axis *a, bool keep_existing,
                          char *msg, size_t msgsize)
{
    for (int i = 0; i < g->naxes; i++) {
        if (strcmp(g->axes[i].key, a->key) != 0)
            continue;
        if (keep_existing) {
            sweep_axis_free(a);
        } else {
            sweep_axis_free(&g->axes[i]);
            g->axes[i] = *a;
        }
        return 0;
    }
    if (g->naxes == SWEEP_MAX_AXES) {
        snprintf(msg, msgsize, "at most %d grid keys", SWEEP_MAX_AXES);
        sweep_axis_free(a);
        return -1;
    }
    g->axes[g->naxes++] = *a;
    return 0;
}

int sweep_grid_add(struct sweep_grid *g, const char *spec, char *msg, size_t msgsize)
{
    const char *eq = strchr(spec, '=');
    if (!eq) {
        snprintf(msg, msgsize, "'%s': expected SECTION.KEY=V1,V2,... (e.g. workload.load=0.1,0.5)",
                 spec);
        return -1;
    }
    char *key = xasprintf("%.*s", (int)(eq - spec), spec);
    struct sweep_axis a;
    int rc = sweep_axis_parse(&a, key, eq + 1, msg, msgsize);
    free(key);
    if (rc != 0) {
        sweep_axis_free(&a);
        return -1;
    }
    return sweep_grid_put(g, &a, false, msg, msgsize);
}

struct sweep_file_parse {
    struct sweep_grid *g;
    const char *path;
    bool in_sweep;
};

static int sweep_on_section(void *ctx, const char *name, int line, struct diag *d)
{
    (void)line;
    (void)d;
    struct sweep_file_parse *st = ctx;
    st->in_sweep = strcmp(name, "sweep") == 0;
    return 0;
}

static int sweep_on_key(void *ctx, const char *section, const char *key, const char *value,
                        bool continuation, int line, struct diag *d)
{
    (void)section;
    struct sweep_file_parse *st = ctx;
    if (!st->in_sweep)
        return 0;
    char msg[300];
    struct sweep_axis a;
    if (continuation)
        return diag_error(d, st->path, line, "%s: [sweep] keys take no continuation lines", key);
    if (sweep_axis_parse(&a, key, value, msg, sizeof msg) != 0 ||
        sweep_grid_put(st->g, &a, true, msg, sizeof msg) != 0) {
        if (a.key)
            sweep_axis_free(&a);
        return diag_error(d, st->path, line, "[sweep] %s", msg);
    }
    return 0;
}

int sweep_grid_from_file(struct sweep_grid *g, const char *path, struct diag *d)
{
    struct sweep_file_parse st = { .g = g, .path = path };
    static const struct inifile_ops ops = { .section = sweep_on_section, .key = sweep_on_key };
    return inifile_parse(path, &ops, &st, d);
}

void sweep_grid_free(struct sweep_grid *g)
{
    for (int i = 0; i < g->naxes; i++)
        sweep_axis_free(&g->axes[i]);
    g->naxes = 0;
}

long sweep_grid_npoints(const struct sweep_grid *g)
{
    long n = 1;
    for (int i = 0; i < g->naxes; i++) {
        /* Saturated past the bound: 16 keys of 16 values are 2^64 points,
         * which a long cannot count. */
        if (n > SWEEP_MAX_POINTS / (g->axes[i].nvalues > 0 ? g->axes[i].nvalues : 1))
            return SWEEP_MAX_POINTS + 1;
        n *= g->axes[i].nvalues;
    }
    return n;
}

int sweep_grid_check_size(const struct sweep_grid *g, char *msg, size_t msgsize)
{
    if (sweep_grid_npoints(g) <= SWEEP_MAX_POINTS)
        return 0;
    char sizes[SWEEP_MAX_AXES * 12] = "";
    for (int i = 0; i < g->naxes; i++) {
        size_t len = strlen(sizes);
        snprintf(sizes + len, sizeof sizes - len, "%s%d", i ? " x " : "", g->axes[i].nvalues);
    }
    snprintf(msg, msgsize, "the grid has more than %ld points (%s values): at most %ld; split it "
             "into several sweeps", SWEEP_MAX_POINTS, sizes, SWEEP_MAX_POINTS);
    return -1;
}

void sweep_point_coords(const struct sweep_grid *g, long p, int *coords)
{
    for (int i = g->naxes - 1; i >= 0; i--) {
        coords[i] = (int)(p % g->axes[i].nvalues);
        p /= g->axes[i].nvalues;
    }
}

char *sweep_point_label(const struct sweep_grid *g, long p)
{
    int coords[SWEEP_MAX_AXES];
    sweep_point_coords(g, p, coords);
    char *label = xstrdup("");
    for (int i = 0; i < g->naxes; i++) {
        char *next = xasprintf("%s%s%s=%s", label, i ? " " : "", g->axes[i].key,
                               g->axes[i].values[coords[i]]);
        free(label);
        label = next;
    }
    return label;
}

uint64_t sweep_point_seed(const struct sweep_grid *g, long p, uint64_t base_seed)
{
    char *label = sweep_point_label(g, p);
    uint8_t digest[SHA256_DIGEST_SIZE];
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, strlen(label), (const uint8_t *)label);
    sha256_digest(&ctx, sizeof digest, digest);
    free(label);
    uint64_t h = 0;
    for (int i = 0; i < 8; i++)
        h = h << 8 | digest[i];
    struct sim_rng_key key = { .scenario_seed = base_seed ^ h };
    return sim_rng_seed_of(&key) >> 1; /* [0, 2^63): what --seed accepts */
}

char *sweep_grid_describe(const struct sweep_grid *g)
{
    char *text = xstrdup("");
    for (int i = 0; i < g->naxes; i++) {
        const struct sweep_axis *a = &g->axes[i];
        char *next = xasprintf("%s%s%s=", text, i ? " " : "", a->key);
        free(text);
        text = next;
        for (int k = 0; k < a->nvalues; k++) {
            next = xasprintf("%s%s%s", text, k ? "," : "", a->values[k]);
            free(text);
            text = next;
        }
    }
    return text;
}

struct scenario *sweep_point_load(const struct sweep_spec *spec, long p, struct diag *d)
{
    const struct sweep_grid *g = &spec->grid;
    int n = spec->nsets + g->naxes;
    const char **sets = xcalloc((size_t)n + 1, sizeof *sets);
    const char **labels = xcalloc((size_t)n + 1, sizeof *labels);
    char **owned = xcalloc((size_t)g->naxes * 2 + 1, sizeof *owned);
    int coords[SWEEP_MAX_AXES];
    sweep_point_coords(g, p, coords);
    for (int i = 0; i < spec->nsets; i++)
        sets[i] = spec->sets[i];
    for (int i = 0; i < g->naxes; i++) {
        owned[2 * i] = xasprintf("%s=%s", g->axes[i].key, g->axes[i].values[coords[i]]);
        owned[2 * i + 1] = xasprintf("--grid %s", owned[2 * i]);
        sets[spec->nsets + i] = owned[2 * i];
        labels[spec->nsets + i] = owned[2 * i + 1];
    }
    struct scenario_load_opts lo = { .sets = sets, .nsets = n, .set_labels = labels };
    struct scenario *s = scenario_load(spec->scenario, &lo, d);
    for (int i = 0; i < g->naxes * 2; i++)
        free(owned[i]);
    free(owned);
    free(labels);
    free(sets);
    return s;
}

int sweep_check(const struct sweep_spec *spec, struct diag *d)
{
    long n = sweep_grid_npoints(&spec->grid);
    for (long p = 0; p < n; p++) {
        struct scenario *s = sweep_point_load(spec, p, d);
        if (!s)
            return -1;
        scenario_free(s);
    }
    return 0;
}

static double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The rows of r: variant x replication x metric, in that order. */
static void sweep_rows_of(const struct scenario *s, const struct rpt_results *r,
                          struct sweep_result *out)
{
    int n = 0;
    for (int v = 0; v < r->nvariants; v++)
        for (int m = 0; m < r->variants[v].nmetrics; m++)
            n += r->variants[v].metrics[m].n;
    out->rows = xcalloc((size_t)n + 1, sizeof *out->rows);
    for (int v = 0; v < r->nvariants; v++) {
        const struct rpt_variant *rv = &r->variants[v];
        for (int rep = 0; rep < r->reps; rep++)
            for (int m = 0; m < rv->nmetrics; m++) {
                const struct rpt_metric *rm = &rv->metrics[m];
                if (rep >= rm->n)
                    continue;
                struct sweep_row *row = &out->rows[out->nrows++];
                row->variant = v; /* every variant runs, in scenario order */
                row->replication = rep;
                str_copy(row->variant_name, sizeof row->variant_name, s->variants[v].name);
                str_copy(row->metric, sizeof row->metric, rm->name);
                str_copy(row->unit, sizeof row->unit, rm->unit);
                row->value = rm->values[rep];
            }
    }
}

int sweep_run_point(const struct sweep_spec *spec, long p, int jobs, struct sweep_result *out,
                    char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    out->point = p;
    struct diag d = { 0 };
    struct scenario *s = sweep_point_load(spec, p, &d);
    if (!s) {
        snprintf(err, errsize, "%s", d.msg);
        return -1;
    }
    double t0 = sweep_now_s();
    out->seed = sweep_point_seed(&spec->grid, p, spec->seed);
    struct runner_opts o = {
        .jobs = jobs, .reps = spec->reps, .seed_set = true, .seed = out->seed,
        .quick = spec->quick, .primary = spec->primary,
    };
    struct rpt_results r;
    struct runner_stats st;
    int rc = runner_run(s, &o, &r, &st, err, errsize);
    if (rc == 0) {
        out->reps = r.reps;
        out->primary = xstrdup(r.primary ? r.primary : "");
        out->machine = xstrdup(s->machine->path);
        sweep_rows_of(s, &r, out);
        rpt_results_free(&r);
    }
    out->wall_s = sweep_now_s() - t0;
    scenario_free(s);
    return rc;
}

void sweep_result_free(struct sweep_result *r)
{
    free(r->rows);
    free(r->primary);
    free(r->machine);
    memset(r, 0, sizeof *r);
}
