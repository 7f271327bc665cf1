/* rtapp_json: read an rt-app use case with jansson (see rtapp.h).
 *
 * rt-app names events by key prefix, so that a phase can hold several of a
 * kind ("run0", "run1": JSON keys must be unique; rt-app's workgen numbers
 * repeated keys, pmlab asks the user to). Prefixes are tried longest-first
 * where one is a prefix of another ("runtime" before "run"). Objects keep
 * file order (jansson keeps insertion order), which is the event order. */
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonerr.h"
#include "util/xalloc.h"
#include "workload/rtapp.h"

#define RTAPP_METRIC_NAME_MAX 24  /* task names in metric names: "task.NAME.wu_lat_p99_us" */
/* Bounds that keep a run's memory and ns arithmetic sane, far beyond use. */
#define RTAPP_USEC_MAX 10000000000LL   /* any duration or period, us (2.8 h) */
#define RTAPP_INSTANCE_MAX 4096        /* threads of one task */
#define RTAPP_COUNT_MAX 1000000000LL   /* loops, priorities, ns per loop */

struct rtapp_parse {
    struct rtapp_prog *p;
    struct diag *d;
    bool warn;
};

static int rp_error(struct rtapp_parse *st, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int rp_error(struct rtapp_parse *st, const char *where, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_error(st->d, st->p->path, 0, "%s: %s", where, msg);
}

static void rp_warn(const struct rtapp_parse *st, const char *where, const char *what)
{
    if (st->warn)
        fprintf(stderr, "%s: warning: %s: %s, ignored\n", st->p->path, where, what);
}

static int rp_int(struct rtapp_parse *st, const json_t *v, const char *where, int64_t min,
                  int64_t max, int64_t *out)
{
    if (!json_is_integer(v))
        return rp_error(st, where, "expected an integer");
    *out = (int64_t)json_integer_value(v);
    if (*out < min || *out > max)
        return rp_error(st, where, "%lld is out of range [%lld, %lld]", (long long)*out,
                        (long long)min, (long long)max);
    return 0;
}

static int rp_string(struct rtapp_parse *st, const json_t *v, const char *where, const char **out)
{
    if (!json_is_string(v))
        return rp_error(st, where, "expected a string");
    *out = json_string_value(v);
    return 0;
}

/* The resource (name, kind), added if new. */
static int rp_res(struct rtapp_prog *p, const char *name, enum rtapp_res_kind kind)
{
    for (int i = 0; i < p->nres; i++)
        if (p->res[i].kind == kind && strcmp(p->res[i].name, name) == 0)
            return i;
    p->res = xrealloc(p->res, (size_t)(p->nres + 1) * sizeof *p->res);
    p->res[p->nres] = (struct rtapp_res){ .name = xstrdup(name), .kind = kind };
    return p->nres++;
}

static int rp_task_index(const struct rtapp_prog *p, const char *name)
{
    for (int i = 0; i < p->ntasks; i++)
        if (strcmp(p->task[i].name, name) == 0)
            return i;
    return -1;
}

static int rp_cpus(struct rtapp_parse *st, const json_t *v, const char *where, int **cpus, int *n)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return rp_error(st, where, "expected a non-empty array of CPU numbers");
    *n = (int)json_array_size(v);
    *cpus = xcalloc((size_t)*n, sizeof **cpus);
    for (int i = 0; i < *n; i++) {
        int64_t cpu;
        if (rp_int(st, json_array_get(v, (size_t)i), where, 0, 65535, &cpu) != 0)
            return -1;
        (*cpus)[i] = (int)cpu;
        if (cpu > st->p->max_cpu)
            st->p->max_cpu = (int)cpu;
    }
    return 0;
}

static int rp_policy(struct rtapp_parse *st, const json_t *v, const char *where, char **out)
{
    static const char *const policies[] = { "SCHED_OTHER", "SCHED_IDLE", "SCHED_RR",
                                            "SCHED_FIFO", "SCHED_DEADLINE" };
    const char *s = NULL;
    if (rp_string(st, v, where, &s) != 0)
        return -1;
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        if (strcmp(s, policies[i]) == 0) {
            free(*out);
            *out = xstrdup(s);
            return 0;
        }
    }
    return rp_error(st, where, "unknown policy '%s' (SCHED_OTHER, SCHED_IDLE, SCHED_RR, "
                    "SCHED_FIFO or SCHED_DEADLINE)", s);
}

/* "timer": { "ref": NAME, "period": USEC, "mode": "relative" | "absolute" } */
static int rp_timer(struct rtapp_parse *st, const json_t *v, struct rtapp_event *e)
{
    if (!json_is_object(v))
        return rp_error(st, e->where, "expected an object { \"ref\", \"period\", \"mode\" }");
    const char *key;
    const json_t *val;
    const char *ref = NULL;
    bool have_period = false;
    json_object_foreach((json_t *)v, key, val) {
        if (strcmp(key, "ref") == 0) {
            if (rp_string(st, val, e->where, &ref) != 0)
                return -1;
        } else if (strcmp(key, "period") == 0) {
            if (rp_int(st, val, e->where, 1, RTAPP_USEC_MAX, &e->usec) != 0)
                return -1;
            have_period = true;
        } else if (strcmp(key, "mode") == 0) {
            const char *mode = NULL;
            if (rp_string(st, val, e->where, &mode) != 0)
                return -1;
            if (strcmp(mode, "absolute") != 0 && strcmp(mode, "relative") != 0)
                return rp_error(st, e->where, "mode '%s': expected relative or absolute", mode);
            e->absolute = strcmp(mode, "absolute") == 0;
        } else {
            rp_warn(st, e->where, key);
        }
    }
    if (!ref || !have_period)
        return rp_error(st, e->where, "a timer needs \"ref\" and \"period\"");
    e->ref = rp_res(st->p, ref, RTAPP_RES_TIMER);
    return 0;
}

/* "wait": { "ref": COND, "mutex": MUTEX } */
static int rp_wait(struct rtapp_parse *st, const json_t *v, struct rtapp_event *e)
{
    const json_t *ref = json_object_get(v, "ref"), *mutex = json_object_get(v, "mutex");
    if (!json_is_object(v) || !json_is_string(ref) || !json_is_string(mutex))
        return rp_error(st, e->where, "expected an object { \"ref\": COND, \"mutex\": MUTEX }");
    e->ref = rp_res(st->p, json_string_value(ref), RTAPP_RES_COND);
    e->mutex = rp_res(st->p, json_string_value(mutex), RTAPP_RES_MUTEX);
    return 0;
}

struct rp_event_kind {
    const char *prefix;
    int type;               /* enum rtapp_ev_type, or -1: known to rt-app, not modelled */
};

/* Longest first where one prefix starts another. */
static const struct rp_event_kind rp_events[] = {
    { "runtime", RTAPP_RUNTIME }, { "run", RTAPP_RUN }, { "sleep", RTAPP_SLEEP },
    { "timer", RTAPP_TIMER }, { "suspend", RTAPP_SUSPEND }, { "resume", RTAPP_RESUME },
    { "barrier", RTAPP_BARRIER }, { "yield", RTAPP_YIELD }, { "lock", RTAPP_LOCK },
    { "unlock", RTAPP_UNLOCK }, { "wait", RTAPP_WAIT }, { "signal", RTAPP_SIGNAL },
    { "broad", RTAPP_BROAD }, { "mem", -1 }, { "iorun", -1 }, { "fork", -1 }, { "sync", -1 },
};

/* The value of event e (its type set). */
static int rp_event_value(struct rtapp_parse *st, const json_t *v, struct rtapp_event *e)
{
    const char *s = NULL;
    int t;
    switch (e->type) {
    case RTAPP_RUN:
    case RTAPP_RUNTIME:
    case RTAPP_SLEEP:
        return rp_int(st, v, e->where, 0, RTAPP_USEC_MAX, &e->usec);
    case RTAPP_TIMER:
        return rp_timer(st, v, e);
    case RTAPP_WAIT:
        return rp_wait(st, v, e);
    case RTAPP_SUSPEND:
    case RTAPP_YIELD:
        return json_is_string(v) ? 0 : rp_error(st, e->where, "expected a string");
    case RTAPP_RESUME:
        if (rp_string(st, v, e->where, &s) != 0)
            return -1;
        if ((t = rp_task_index(st->p, s)) < 0)
            return rp_error(st, e->where, "resume '%s': no such task", s);
        e->ref = t;
        return 0;
    case RTAPP_BARRIER:
    case RTAPP_LOCK:
    case RTAPP_UNLOCK:
    case RTAPP_SIGNAL:
    case RTAPP_BROAD:
        if (rp_string(st, v, e->where, &s) != 0)
            return -1;
        e->ref = rp_res(st->p, s, e->type == RTAPP_BARRIER ? RTAPP_RES_BARRIER
                                  : e->type == RTAPP_LOCK || e->type == RTAPP_UNLOCK
                                      ? RTAPP_RES_MUTEX
                                      : RTAPP_RES_COND);
        return 0;
    }
    return 0;
}

/* Whether an event can make simulated time pass (a phase needs one, or its
 * loop would spin at one instant). */
static bool rp_event_takes_time(const struct rtapp_event *e)
{
    switch (e->type) {
    case RTAPP_RUN:
    case RTAPP_RUNTIME:
    case RTAPP_SLEEP:
    case RTAPP_TIMER:
        return e->usec > 0;
    case RTAPP_SUSPEND:
    case RTAPP_WAIT:
    case RTAPP_BARRIER:
    case RTAPP_LOCK:
        return true;
    default:
        return false;
    }
}

static bool rp_is_task_key(const char *key)
{
    static const char *const keys[] = { "instance", "delay", "phases", "loop", "cpus",
                                        "priority", "policy", "util_min", "util_max" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* Keys rt-app reads that change nothing pmlab models. */
static bool rp_is_unmodelled_prop(const char *key)
{
    static const char *const keys[] = { "dl-runtime", "dl-period",
                                        "dl-deadline", "taskgroup", "membind_nodes", "nice" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* One key of a phase object: a property, an event, or warned and ignored.
 * in_task: the phase is the task object itself (its task keys are not ours). */
static int rp_phase_key(struct rtapp_parse *st, struct rtapp_task *t, struct rtapp_phase *ph,
                        const char *key, const json_t *v, const char *where, bool in_task)
{
    if (in_task && rp_is_task_key(key))
        return 0;
    if (strcmp(key, "loop") == 0)
        return rp_int(st, v, where, 1, RTAPP_COUNT_MAX, &ph->loop);
    if (strcmp(key, "cpus") == 0)
        return rp_cpus(st, v, where, &ph->cpus, &ph->ncpus);
    if (strcmp(key, "policy") == 0)
        return rp_policy(st, v, where, &t->policy);
    if (strcmp(key, "priority") == 0)
        return rp_int(st, v, where, -RTAPP_COUNT_MAX, RTAPP_COUNT_MAX, &t->priority);
    if (strcmp(key, "util_min") == 0)
        return rp_int(st, v, where, -1, RTAPP_UTIL_MAX, &ph->util_min);
    if (strcmp(key, "util_max") == 0)
        return rp_int(st, v, where, -1, RTAPP_UTIL_MAX, &ph->util_max);
    if (rp_is_unmodelled_prop(key)) {
        rp_warn(st, where, "not modelled by pmlab");
        return 0;
    }
    for (size_t i = 0; i < sizeof rp_events / sizeof *rp_events; i++) {
        if (strncmp(key, rp_events[i].prefix, strlen(rp_events[i].prefix)) != 0)
            continue;
        if (rp_events[i].type < 0) {
            rp_warn(st, where, "event not modelled by pmlab");
            return 0;
        }
        ph->ev = xrealloc(ph->ev, (size_t)(ph->nev + 1) * sizeof *ph->ev);
        struct rtapp_event *e = &ph->ev[ph->nev++];
        *e = (struct rtapp_event){ .type = (enum rtapp_ev_type)rp_events[i].type,
                                   .where = xstrdup(where), .ref = -1, .mutex = -1 };
        return rp_event_value(st, v, e);
    }
    rp_warn(st, where, "unknown key");
    return 0;
}

static int rp_phase(struct rtapp_parse *st, struct rtapp_task *t, const json_t *obj,
                    const char *where, bool in_task)
{
    if (!json_is_object(obj))
        return rp_error(st, where, "expected an object");
    t->ph = xrealloc(t->ph, (size_t)(t->nph + 1) * sizeof *t->ph);
    struct rtapp_phase *ph = &t->ph[t->nph++];
    *ph = (struct rtapp_phase){ .loop = 1, .util_min = -1, .util_max = -1 };
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        char *kw = xasprintf("%s.%s", where, key);
        int rc = rp_phase_key(st, t, ph, key, v, kw, in_task);
        free(kw);
        if (rc != 0)
            return -1;
    }
    bool takes_time = false;
    for (int i = 0; i < ph->nev; i++)
        takes_time |= rp_event_takes_time(&ph->ev[i]);
    if (!takes_time)
        return rp_error(st, where, "no event that takes time (run, runtime, sleep, timer, "
                        "suspend, wait, barrier, lock): the phase would loop at one instant");
    return 0;
}

static bool rp_clean_name(const char *s)
{
    if (!*s || strlen(s) > RTAPP_METRIC_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return false;
    return true;
}

static int rp_phases(struct rtapp_parse *st, struct rtapp_task *t, const json_t *phases,
                     const char *where)
{
    char *pw = xasprintf("%s.phases", where);
    int rc = 0;
    if (!json_is_object(phases) || json_object_size(phases) == 0)
        rc = rp_error(st, pw, "expected an object of phases");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)phases, key, v) {
        if (rc != 0)
            break;
        char *kw = xasprintf("%s.%s", pw, key);
        rc = rp_phase(st, t, v, kw, false);
        free(kw);
    }
    free(pw);
    return rc;
}

/* The task's policy and priority as sched_setscheduler would take them: an
 * RT priority is 1..99 (0: rt-app's default); the policies pmlab runs as fair
 * tasks are said. */
static int rp_check_policy(struct rtapp_parse *st, const struct rtapp_task *t, const char *where)
{
    bool rt = strcmp(t->policy, "SCHED_FIFO") == 0 || strcmp(t->policy, "SCHED_RR") == 0;
    if (rt && (t->priority < 0 || t->priority > RTAPP_RT_PRIO_MAX))
        return rp_error(st, where, "priority %" PRId64 " out of range for %s (1..99)",
                        t->priority, t->policy);
    if (strcmp(t->policy, "SCHED_IDLE") == 0 || strcmp(t->policy, "SCHED_DEADLINE") == 0)
        rp_warn(st, where, "SCHED_IDLE and SCHED_DEADLINE run as SCHED_OTHER in pmlab");
    return 0;
}

static int rp_task(struct rtapp_parse *st, struct rtapp_task *t, const json_t *obj)
{
    char *where = xasprintf("tasks.%s", t->name);
    int rc = -1;
    const json_t *v;
    t->instance = 1;
    t->loop = -1;
    t->policy = xstrdup(st->p->default_policy);
    t->util_min = t->util_max = -1;
    if (!json_is_object(obj)) {
        rp_error(st, where, "expected an object");
        goto out;
    }
    const char *key;
    json_object_foreach((json_t *)obj, key, v) {
        char *kw = xasprintf("%s.%s", where, key);
        int r = 0;
        if (strcmp(key, "instance") == 0)
            r = rp_int(st, v, kw, 0, RTAPP_INSTANCE_MAX, &t->instance);
        else if (strcmp(key, "delay") == 0)
            r = rp_int(st, v, kw, 0, RTAPP_USEC_MAX, &t->delay_us);
        else if (strcmp(key, "loop") == 0)
            r = json_is_integer(v) && json_integer_value(v) == -1 ? (t->loop = -1, 0)
                                                                  : rp_int(st, v, kw, 1, RTAPP_COUNT_MAX, &t->loop);
        else if (strcmp(key, "cpus") == 0)
            r = rp_cpus(st, v, kw, &t->cpus, &t->ncpus);
        else if (strcmp(key, "policy") == 0)
            r = rp_policy(st, v, kw, &t->policy);
        else if (strcmp(key, "priority") == 0)
            r = rp_int(st, v, kw, -RTAPP_COUNT_MAX, RTAPP_COUNT_MAX, &t->priority);
        else if (strcmp(key, "util_min") == 0)
            r = rp_int(st, v, kw, -1, RTAPP_UTIL_MAX, &t->util_min);
        else if (strcmp(key, "util_max") == 0)
            r = rp_int(st, v, kw, -1, RTAPP_UTIL_MAX, &t->util_max);
        free(kw);
        if (r != 0)
            goto out;
    }
    const json_t *phases = json_object_get(obj, "phases");
    if (phases && rp_phases(st, t, phases, where) != 0)
        goto out;
    if (!phases && rp_phase(st, t, obj, where, true) != 0)
        goto out;
    if (rp_check_policy(st, t, where) != 0)
        goto out;
    rc = 0;
out:
    free(where);
    return rc;
}

/* "calibration": "CPUn" or ns per loop. */
static int rp_calibration(struct rtapp_parse *st, const json_t *v)
{
    struct rtapp_prog *p = st->p;
    if (json_is_integer(v))
        return rp_int(st, v, "global.calibration", 1, RTAPP_COUNT_MAX, &p->calib_ns_per_loop);
    const char *s = NULL;
    if (rp_string(st, v, "global.calibration", &s) != 0)
        return -1;
    char *end;
    if (strncmp(s, "CPU", 3) != 0 || !isdigit((unsigned char)s[3]) ||
        (p->calib_cpu = (int)strtol(s + 3, &end, 10), *end) || p->calib_cpu > 65535)
        return rp_error(st, "global.calibration", "'%s': expected \"CPUn\" or ns per loop", s);
    if (p->calib_cpu > p->max_cpu)
        p->max_cpu = p->calib_cpu;
    return 0;
}

static int rp_global(struct rtapp_parse *st, const json_t *g)
{
    /* Output, logging and memory options: nothing for a simulation to do. */
    static const char *const quiet[] = { "logdir", "log_basename", "log_size", "ftrace",
                                         "gnuplot", "lock_pages", "io_device",
                                         "mem_buffer_size" };
    if (!json_is_object(g))
        return rp_error(st, "global", "expected an object");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)g, key, v) {
        char *kw = xasprintf("global.%s", key);
        int rc = 0;
        bool known = false;
        for (size_t i = 0; i < sizeof quiet / sizeof *quiet; i++)
            known |= strcmp(key, quiet[i]) == 0;
        if (strcmp(key, "duration") == 0) {
            rc = json_is_integer(v) && json_integer_value(v) == -1
                     ? (st->p->duration_s = -1, 0)
                     : rp_int(st, v, kw, 1, RTAPP_USEC_MAX / 1000000, &st->p->duration_s);
        } else if (strcmp(key, "calibration") == 0) {
            rc = rp_calibration(st, v);
        } else if (strcmp(key, "default_policy") == 0) {
            rc = rp_policy(st, v, kw, &st->p->default_policy);
        } else if (strcmp(key, "pi_enabled") == 0 || strcmp(key, "cumulative_slack") == 0) {
            rp_warn(st, kw, "not modelled by pmlab");
        } else if (!known) {
            rp_warn(st, kw, "unknown key");
        }
        free(kw);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int rp_tasks(struct rtapp_parse *st, const json_t *tasks)
{
    struct rtapp_prog *p = st->p;
    if (!json_is_object(tasks) || json_object_size(tasks) == 0)
        return rp_error(st, "tasks", "expected an object with at least one task");
    p->task = xcalloc(json_object_size(tasks), sizeof *p->task);
    const char *key;
    const json_t *v;
    /* Names first: a resume may name a task defined later. */
    json_object_foreach((json_t *)tasks, key, v) {
        struct rtapp_task *t = &p->task[p->ntasks];
        t->name = xstrdup(key);
        t->metric_name = rp_clean_name(key) ? xstrdup(key) : xasprintf("task%d", p->ntasks);
        if (!rp_clean_name(key) && st->warn)
            fprintf(stderr, "%s: warning: tasks.%s: metrics name it %s (metric names take "
                    "at most %d of A-Z a-z 0-9 _ -)\n", p->path, key, t->metric_name,
                    RTAPP_METRIC_NAME_MAX);
        p->ntasks++;
    }
    int i = 0;
    json_object_foreach((json_t *)tasks, key, v)
        if (rp_task(st, &p->task[i++], v) != 0)
            return -1;
    return 0;
}

static int rp_prog(struct rtapp_parse *st, const json_t *root)
{
    if (!json_is_object(root))
        return rp_error(st, "(top level)", "expected an object with \"tasks\"");
    const json_t *g = json_object_get(root, "global");
    if (g && rp_global(st, g) != 0)
        return -1;
    const json_t *tasks = json_object_get(root, "tasks");
    if (!tasks)
        return rp_error(st, "(top level)", "no \"tasks\" object");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)root, key, v)
        if (strcmp(key, "global") != 0 && strcmp(key, "tasks") != 0 &&
            strcmp(key, "resources") != 0)  /* kept by rt-app for old files, unused */
            rp_warn(st, key, "unknown key");
    return rp_tasks(st, tasks);
}

static struct rtapp_prog *rtapp_new(const char *path)
{
    struct rtapp_prog *p = xcalloc(1, sizeof *p);
    p->path = xstrdup(path);
    p->duration_s = -1;
    p->max_cpu = -1;
    p->default_policy = xstrdup("SCHED_OTHER");
    return p;
}

static struct rtapp_prog *rtapp_from_json(struct rtapp_prog *p, json_t *root,
                                          const json_error_t *err, bool warn, struct diag *d)
{
    if (!root) {
        /* rt-app's workgen numbers repeated keys; jansson rejects them. */
        bool dup = strstr(err->text, "duplicate") != NULL;
        char text[JSON_ERROR_TEXT_LENGTH];
        json_error_quiet(err->text, text, sizeof text);
        diag_error(d, p->path, err->line > 0 ? err->line : 0, "%s%s%s", text,
                   err->line > 0 && !dup ? " (not JSON, or not valid JSON there)" : "",
                   dup ? " (number repeated events: run0, run1, ...)" : "");
        rtapp_free(p);
        return NULL;
    }
    struct rtapp_parse st = { .p = p, .d = d, .warn = warn };
    int rc = rp_prog(&st, root);
    json_decref(root);
    if (rc != 0) {
        rtapp_free(p);
        return NULL;
    }
    return p;
}

/* Duplicate keys are an error: jansson would keep the last silently, and a
 * phase's second "run" would vanish (rt-app's workgen renames them). */
#define RTAPP_JSON_FLAGS JSON_REJECT_DUPLICATES

struct rtapp_prog *rtapp_load(const char *path, struct diag *d)
{
    struct rtapp_prog *p = rtapp_new(path);
    json_error_t err;
    json_t *root = json_load_file(path, RTAPP_JSON_FLAGS, &err);
    if (!root && err.line < 0) {
        char text[JSON_ERROR_TEXT_LENGTH];
        json_error_quiet(err.text, text, sizeof text);
        diag_error(d, path, 0, "%s", text);
        rtapp_free(p);
        return NULL;
    }
    return rtapp_from_json(p, root, &err, true, d);
}

struct rtapp_prog *rtapp_parse(const char *text, size_t len, const char *path, bool warn,
                               struct diag *d)
{
    struct rtapp_prog *p = rtapp_new(path);
    json_error_t err;
    json_t *root = json_loadb(text, len, RTAPP_JSON_FLAGS, &err);
    return rtapp_from_json(p, root, &err, warn, d);
}

void rtapp_free(struct rtapp_prog *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->ntasks; i++) {
        struct rtapp_task *t = &p->task[i];
        for (int k = 0; k < t->nph; k++) {
            for (int e = 0; e < t->ph[k].nev; e++)
                free(t->ph[k].ev[e].where);
            free(t->ph[k].ev);
            free(t->ph[k].cpus);
        }
        free(t->ph);
        free(t->cpus);
        free(t->name);
        free(t->metric_name);
        free(t->policy);
    }
    free(p->task);
    for (int i = 0; i < p->nres; i++)
        free(p->res[i].name);
    free(p->res);
    free(p->default_policy);
    free(p->path);
    free(p);
}
