/* libFuzzer target: an rt-app JSON use case. Reads it as the rtapp
 * workload's `file =` does (rtapp_load through the workload's file
 * parameter) and, when it loads and is small (at most 32 threads, CPUs on
 * skx-2s), runs it for 5 ms of simulated time on skx-2s. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_common.h"
#include "kernel/params.h"
#include "workload/rtapp.h"
#include "workload/workload.h"
#include "world.h"

#include <stdlib.h>

/* Whether p is small enough to simulate per input. */
static int fuzz_small(const struct rtapp_prog *p, const struct hw_machine *m)
{
    int64_t threads = 0;
    for (int i = 0; i < p->ntasks; i++)
        threads += p->task[i].instance;
    return threads <= 32 && p->max_cpu < m->ncpus;
}

static void fuzz_run(const struct wl_ops *ops, void *cfg)
{
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load("machines/skx-2s.ini", &d);
    if (!m)
        abort(); /* the fixture itself must load */
    struct kparams kp;
    kparams_init(&kp);
    struct world w;
    struct world_key key = { .seed = 1 };
    world_init(&w, m, &kp, &key);
    struct rpt_metric_set out = { 0 };
    char msg[300];
    ops->run(&w, cfg, 0, &out, msg, sizeof msg);
    rpt_set_free(&out);
    world_destroy(&w);
    kparams_destroy(&kp);
    hw_machine_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    const struct wl_ops *ops = wl_find("rtapp");
    void *cfg = calloc(1, ops->config_size);
    wl_config_defaults(ops, cfg);
    struct diag d = { 0 };
    if (wl_config_set(ops, cfg, "file", path, "fuzz.ini", 1, &d) == 0 &&
        wl_config_set(ops, cfg, "duration_ms", "5", "fuzz.ini", 2, &d) == 0) {
        struct rtapp_prog *p = rtapp_parse((const char *)data, size, "fuzz.json", false, &d);
        struct diag dm = { 0 };
        struct hw_machine *m = hw_machine_load("machines/skx-2s.ini", &dm);
        if (p && m && fuzz_small(p, m))
            fuzz_run(ops, cfg);
        hw_machine_free(m);
        rtapp_free(p);
    }
    wl_config_release(ops, cfg);
    free(cfg);
    close(fd);
    return 0;
}
