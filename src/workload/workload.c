/* workload: registry and generic parameter handling, see workload.h. */
#include "workload/workload.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/strutil.h"
#include "util/xalloc.h"
#include "world.h"

extern const struct wl_ops wl_rr_ops;
extern const struct wl_ops wl_jbb_ops;
extern const struct wl_ops wl_fio_ops;
extern const struct wl_ops wl_netrr_ops;
extern const struct wl_ops wl_compute_ops;
extern const struct wl_ops wl_cyclictest_ops;
extern const struct wl_ops wl_rtapp_ops;
extern const struct wl_ops wl_idle_ops;
extern const struct wl_ops wl_replay_ops;

const struct wl_ops *const wl_registry[] = {
    &wl_rr_ops,
    &wl_jbb_ops,
    &wl_fio_ops,
    &wl_netrr_ops,
    &wl_compute_ops,
    &wl_cyclictest_ops,
    &wl_rtapp_ops,
    &wl_idle_ops,
    &wl_replay_ops,
    NULL,
};

void wl_task_affinity(const struct world *w, struct task *t)
{
    if (w->wl_affinity)
        task_set_cpus_allowed(t, w->wl_affinity, w->machine->ncpus);
}

void wl_task_spawn_named(struct world *w, struct task *t, const char *comm, task_done_fn done,
                         double work_ns, int parent_cpu)
{
    task_init(t, done, parent_cpu);
    t->comm = comm;
    wl_task_affinity(w, t);
    task_fork(w, t, work_ns, parent_cpu);
}

void wl_task_spawn(struct world *w, struct task *t, task_done_fn done, double work_ns,
                   int parent_cpu)
{
    wl_task_spawn_named(w, t, NULL, done, work_ns, parent_cpu);
}

double wl_cpu_top_speed(const struct hw_machine *m, int cpu)
{
    const struct hw_core_type *t = &m->types[m->cpus[cpu].type];
    uint32_t top_mhz = t->nturbo > 0 ? t->turbo_mhz[0] : t->max_mhz;
    return t->ipc_factor / m->types[0].ipc_factor * (double)top_mhz / (double)m->types[0].base_mhz;
}

const struct wl_ops *wl_find(const char *name)
{
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        if (strcmp((*w)->name, name) == 0)
            return *w;
    return NULL;
}

double wl_cpu_value(const struct wl_cpu_values *cv, int cpu, double def)
{
    if (cv->n == 0)
        return def;
    return cv->v[cv->n == 1 ? 0 : cpu];
}

/* Blank-separated numbers, each in p's range, into cv. -1 with msg on error. */
static int wl_cpu_values_store(const struct wl_param *p, struct wl_cpu_values *cv,
                               const char *text, char *msg, size_t msgsize)
{
    char *copy = xstrdup(text), *save = NULL;
    int n = 0, rc = 0;
    for (char *tok = strtok_r(copy, " \t", &save); tok && rc == 0;
         tok = strtok_r(NULL, " \t", &save)) {
        double v;
        rc = -1;
        if (n == WL_CPU_VALUES_MAX)
            snprintf(msg, msgsize, "more than %d values", WL_CPU_VALUES_MAX);
        else if (str_to_double(tok, &v) != 0)
            snprintf(msg, msgsize, "value %d: expected a number, got '%s'", n + 1, tok);
        else if (v < p->min || v > p->max)
            snprintf(msg, msgsize, "value %d: %s out of range [%g, %g]", n + 1, tok, p->min, p->max);
        else {
            cv->v[n++] = v;
            rc = 0;
        }
    }
    free(copy);
    if (rc == 0)
        cv->n = n;
    return rc;
}

/* Parse and range-check text for p, storing it in cfg. -1 with msg on error. */
static int wl_param_store(const struct wl_param *p, void *cfg, const char *text, char *msg,
                          size_t msgsize)
{
    char *field = (char *)cfg + p->offset;
    if (p->type == WL_PARAM_CPU_VALUES)
        return wl_cpu_values_store(p, (struct wl_cpu_values *)(void *)field, text, msg, msgsize);
    if (p->type == WL_PARAM_TEXT) {
        if (strlen(text) >= WL_TEXT_MAX)
            return snprintf(msg, msgsize, "longer than %d characters", WL_TEXT_MAX - 1), -1;
        snprintf(field, WL_TEXT_MAX, "%s", text);
        return 0;
    }
    if (p->type == WL_PARAM_INT) {
        int64_t v;
        if (str_to_i64(text, &v) != 0)
            return snprintf(msg, msgsize, "expected an integer, got '%s'", text), -1;
        if ((double)v < p->min || (double)v > p->max)
            return snprintf(msg, msgsize, "%s out of range [%g, %g]", text, p->min, p->max), -1;
        memcpy(field, &v, sizeof v);
        return 0;
    }
    double v;
    if (str_to_double(text, &v) != 0)
        return snprintf(msg, msgsize, "expected a number, got '%s'", text), -1;
    if (v < p->min || v > p->max)
        return snprintf(msg, msgsize, "%s out of range [%g, %g]", text, p->min, p->max), -1;
    memcpy(field, &v, sizeof v);
    return 0;
}

void wl_config_defaults(const struct wl_ops *ops, void *cfg)
{
    char msg[128];
    memset(cfg, 0, ops->config_size);
    for (const struct wl_param *p = ops->params; p->name; p++)
        if (p->type != WL_PARAM_FILE && wl_param_store(p, cfg, p->def, msg, sizeof msg) != 0)
            abort(); /* a bad default is a programming error, caught by the tests */
}

static struct wl_file **wl_file_field(const struct wl_param *p, const void *cfg)
{
    return (struct wl_file **)((char *)cfg + p->offset);
}

static void wl_file_put(struct wl_file *f)
{
    if (!f || --f->refs > 0)
        return;
    f->free_data(f->data);
    free(f->path);
    free(f);
}

void wl_config_copy(const struct wl_ops *ops, void *dst, const void *src)
{
    memcpy(dst, src, ops->config_size);
    for (const struct wl_param *p = ops->params; p->name; p++)
        if (p->type == WL_PARAM_FILE && *wl_file_field(p, dst))
            (*wl_file_field(p, dst))->refs++;
}

void wl_config_release(const struct wl_ops *ops, void *cfg)
{
    for (const struct wl_param *p = ops->params; p->name; p++) {
        if (p->type != WL_PARAM_FILE)
            continue;
        wl_file_put(*wl_file_field(p, cfg));
        *wl_file_field(p, cfg) = NULL;
    }
}

int wl_config_files(const struct wl_ops *ops, const void *cfg, const char **paths, int max)
{
    int n = 0;
    for (const struct wl_param *p = ops->params; p->name && n < max; p++)
        if (p->type == WL_PARAM_FILE && *wl_file_field(p, cfg))
            paths[n++] = (*wl_file_field(p, cfg))->path;
    return n;
}

/* A path relative to the scenario file's directory (absolute ones as they are). */
static char *wl_file_resolve(const char *value, const char *scenario_path)
{
    const char *slash = scenario_path ? strrchr(scenario_path, '/') : NULL;
    if (value[0] == '/' || !slash)
        return xstrdup(value);
    return xasprintf("%.*s/%s", (int)(slash - scenario_path), scenario_path, value);
}

static int wl_file_set(const struct wl_ops *ops, const struct wl_param *p, void *cfg,
                       const char *value, const char *file, int line, struct diag *d)
{
    if (!*value)
        return diag_error(d, file, line, "%s: expected a file name", p->name);
    char *path = wl_file_resolve(value, file);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        /* Only regular files: a FIFO or a terminal would block the load. */
        diag_error(d, file, line, "%s: %s: %s", p->name, path,
                   stat(path, &sb) != 0 ? strerror(errno) : "not a regular file");
        free(path);
        return -1;
    }
    void *data = ops->load_file(path, d);
    if (!data) {
        free(path);
        return -1;
    }
    struct wl_file *f = xmalloc(sizeof *f);
    *f = (struct wl_file){ .refs = 1, .path = path, .data = data, .free_data = ops->free_file };
    wl_file_put(*wl_file_field(p, cfg));
    *wl_file_field(p, cfg) = f;
    return 0;
}

const struct wl_param *wl_param_find(const struct wl_ops *ops, const char *key)
{
    for (const struct wl_param *p = ops->params; p->name; p++)
        if (strcmp(p->name, key) == 0)
            return p;
    return NULL;
}

int wl_config_check_cpus(const struct wl_ops *ops, const void *cfg, int ncpus,
                         const char **bad_key, char *msg, size_t msgsize)
{
    for (const struct wl_param *p = ops->params; p->name; p++) {
        if (p->type != WL_PARAM_CPU_VALUES)
            continue;
        const struct wl_cpu_values *cv =
            (const struct wl_cpu_values *)(const void *)((const char *)cfg + p->offset);
        if (cv->n > 1 && cv->n != ncpus) {
            *bad_key = p->name;
            snprintf(msg, msgsize, "%s: %d values for %d CPUs (give one value for every CPU, "
                     "or one per CPU)", p->name, cv->n, ncpus);
            return -1;
        }
    }
    return 0;
}

int wl_config_set(const struct wl_ops *ops, void *cfg, const char *key, const char *value,
                  const char *file, int line, struct diag *d)
{
    for (const struct wl_param *p = ops->params; p->name; p++) {
        if (strcmp(p->name, key) != 0)
            continue;
        if (p->type == WL_PARAM_FILE)
            return wl_file_set(ops, p, cfg, value, file, line, d);
        char msg[160];
        if (wl_param_store(p, cfg, value, msg, sizeof msg) != 0)
            return diag_error(d, file, line, "%s: %s", key, msg);
        return 0;
    }
    return diag_error(d, file, line, "unknown key '%s' for workload '%s'", key, ops->name);
}

void wl_put_steady_state(struct rpt_metric_set *out, sim_time_t transient_end_ns,
                         sim_time_t warmup_ns)
{
    static const char *const cols[] = { "mser5_ms", "warmup_ms" };
    double row[2] = {
        transient_end_ns < 0 ? -1.0 : (double)transient_end_ns / SIM_NS_PER_MS,
        (double)warmup_ns / SIM_NS_PER_MS,
    };
    rpt_set_series_row(out, "steady_state", cols, 2, row);
}
