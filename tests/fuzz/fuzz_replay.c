/* libFuzzer target: the replay model (src/trace/replay.c) of an arbitrary
 * scheduler event list (8 bytes an event: time step in us, CPU, kind, a pid
 * or CPU, another pid, a state or context), checked for what the replay
 * workload relies on (every wake-up, wait and fork names a real step of a
 * real task; busy time is the bursts' sum), then, when small, replayed twice
 * on tests/data/machines/flat8.ini. The trace.dat decoding is libtracecmd's;
 * tests/cli/replay.sh reads a real file. */
#define _GNU_SOURCE /* memfd_create, in fuzz_common.h */
#include "fuzz_common.h"
#include "kernel/params.h"
#include "trace/replay.h"
#include "workload/workload.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NCPUS 3

static void check_step(const struct trace_model *m, int t, int i)
{
    const struct trace_step *s = &m->task[t].step[i];
    switch (s->kind) {
    case TRACE_STEP_RUN:
        if (s->ns <= 0 || s->work_ns < 0 || s->work_ns > (double)s->ns + 1)
            abort();
        break;
    case TRACE_STEP_SLEEP:
        if (s->ns < 0)
            abort();
        break;
    case TRACE_STEP_WAIT:
    case TRACE_STEP_WAKE: {
        if (s->peer < 0 || s->peer >= m->ntasks || s->peer_step < 0 ||
            s->peer_step >= m->task[s->peer].nsteps)
            abort();
        const struct trace_step *o = &m->task[s->peer].step[s->peer_step];
        enum trace_step_kind want = s->kind == TRACE_STEP_WAIT ? TRACE_STEP_WAKE : TRACE_STEP_WAIT;
        if (o->kind != want || o->peer != t || o->peer_step != i)
            abort();
        break;
    }
    case TRACE_STEP_FORK:
        if (s->peer < 0 || s->peer >= m->ntasks || m->task[s->peer].parent != t)
            abort();
        break;
    }
}

static void check_model(const struct trace_model *m)
{
    double busy = 0;
    for (int t = 0; t < m->ntasks; t++)
        for (int i = 0; i < m->task[t].nsteps; i++) {
            check_step(m, t, i);
            if (m->task[t].step[i].kind == TRACE_STEP_RUN)
                busy += (double)m->task[t].step[i].ns;
        }
    if (fabs(busy - m->busy_ns) > 1e-6 * (busy + 1))
        abort();
}

static void replay(struct trace_model *m)
{
    const struct wl_ops *ops = wl_find("replay");
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct wl_file file = { .refs = 1, .path = m->path, .data = m };
    for (const struct wl_param *p = ops->params; p->name; p++)
        if (strcmp(p->name, "trace") == 0)
            *(struct wl_file **)((char *)cfg + p->offset) = &file;
    struct diag d = { 0 };
    char msg[300];
    if (wl_config_set(ops, cfg, "cpu_map", "1,3,5", "fuzz.ini", 1, &d) != 0 ||
        wl_config_set(ops, cfg, "loop", "2", "fuzz.ini", 2, &d) != 0 ||
        ops->validate(cfg, msg, sizeof msg) != 0) {
        free(cfg);
        return;
    }
    struct hw_machine *mc = hw_machine_load("tests/data/machines/flat8.ini", &d);
    if (!mc)
        abort(); /* the fixture itself must load */
    struct kparams kp;
    kparams_init(&kp);
    struct world w;
    struct world_key key = { .seed = 1 };
    world_init(&w, mc, &kp, &key);
    struct rpt_metric_set out = { 0 };
    ops->run(&w, cfg, 0, &out, msg, sizeof msg);
    rpt_set_free(&out);
    world_destroy(&w);
    kparams_destroy(&kp);
    hw_machine_free(mc);
    free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int64_t states[] = { 0, 1, 2, 0x100, 0x20, 0x80 };
    struct trace_data td;
    memset(&td, 0, sizeof td);
    td.ncpus = FUZZ_NCPUS;
    td.path = strdup("fuzz.dat");
    uint64_t ts = 1000;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        const uint8_t *p = data + i;
        ts += ((uint64_t)p[0] | (uint64_t)p[1] << 8) * 1000;
        int cpu = p[2] % (FUZZ_NCPUS + 2) - (p[2] % (FUZZ_NCPUS + 2) == FUZZ_NCPUS + 1 ? 9 : 0);
        enum trace_ev_kind kind = (enum trace_ev_kind)(p[3] % TRACE_EV_NKINDS);
        int64_t value = kind == TRACE_EV_FREQ ? (int64_t)(p[4] + 1) * 100000 : p[4] % 9;
        int32_t pid = p[5] == 255 ? -1 : p[5] % 9;
        int64_t aux = kind == TRACE_EV_SWITCH ? states[p[6] % 6]
                                              : p[6] & (TRACE_CTX_HARDIRQ | TRACE_CTX_SOFTIRQ);
        if (p[7] & 1)
            trace_set_comm(&td, pid, "task");
        if (td.n == 0)
            td.first_ts_ns = ts;
        td.last_ts_ns = ts;
        trace_add_sched(&td, ts, cpu, kind, value, pid, aux);
    }
    struct trace_model m;
    struct diag d = { 0 };
    if (trace_model_extract(&td, &m, &d) == 0) {
        check_model(&m);
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            trace_model_print(null, &m);
            fclose(null);
        }
        if (m.ntasks <= 16 && td.n <= 512)
            replay(&m);
    }
    trace_model_free(&m);
    trace_data_free(&td);
    return 0;
}
