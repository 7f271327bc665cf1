/* fio: random reads from inside a VM (fio --rw=randread --direct=1 on a
 * virtio-blk disk backed by an NVMe drive), the seed-004 workload.
 *
 * Each fio job runs on one vCPU of the scenario's first VM (job j on vCPU
 * j mod vcpus) and keeps iodepth reads in flight. One read:
 *   guest: fio issues it and kicks the virtqueue (guest_submit_us of work);
 *   host:  the I/O thread (QEMU iothread) submits it to the drive
 *          (host_submit_us), on whatever host CPU the scheduler gives it;
 *   drive: completes after a lognormal service time (dev_lat_us, dev_lat_cv)
 *          plus the transfer at dev_bw_mbps;
 *   host:  the I/O thread reaps it and injects the completion interrupt
 *          (host_complete_us): kvm_vcpu_post, which ends the vCPU's halt poll
 *          or wakes its blocked thread;
 *   guest: the interrupt handler and fio reap it and issue the next read
 *          (guest_complete_us + guest_submit_us, one piece of work).
 * Latency is from the issue (virtqueue kick) to the reap, as fio's clat.
 * So with iodepth 1 the guest idles for about the drive's latency between
 * reads: the idle periods KVM halt polling is made for. With many reads in
 * flight the single I/O thread (one FIFO) can saturate and set the
 * throughput, as one QEMU iothread does (the seed-004 scenario).
 *
 * Dropped: the host NVMe interrupt and block layer (folded into
 * host_complete_us), QEMU's own aio polling, the guest's block layer queues,
 * read-ahead; the drive has no queueing (it is far from saturation here),
 * the guest's virtqueue kick exit is folded into guest_submit_us.
 *
 * Metrics: read_mbps (MB = 10^6 bytes), iops, lat_mean_us, lat_p99_us, then
 * the machine, idle and KVM metrics of world_collect_metrics. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/kvm/kvm.h"
#include "sim/hist.h"
#include "sim/steady.h"
#include "util/xalloc.h"
#include "workload/workload.h"
#include "world.h"
#include "util/container.h"


struct fio_config {
    int64_t bs_kb;            /* block size, KiB */
    int64_t iodepth;          /* reads in flight per job */
    int64_t jobs;             /* fio jobs (numjobs), one per vCPU */
    double dev_lat_us;        /* drive service time, mean */
    double dev_lat_cv;
    double dev_bw_mbps;       /* drive transfer rate, MB/s */
    double guest_submit_us, guest_complete_us;
    double host_submit_us, host_complete_us;
    double warmup_ms, duration_ms;
};

/* One read slot of one job: alternates between guest work, host work and
 * the drive. */
struct fio_io {
    struct kvm_guest_work gw;
    struct kvm_io_req req;
    struct sim_event dev_ev;
    struct kvm_vcpu *vcpu;
    bool reaping;             /* req is the completion half */
    int irq_cpu;              /* where the drive's completion interrupt lands: the
                               * submitting CPU (blk-mq's per-CPU queues and their
                               * managed interrupt affinity) */
    bool issued;              /* a read of this slot is in flight */
    sim_time_t issue_ns;
};

struct fio_run {
    const struct fio_config *cfg;
    struct fio_io *io;        /* [jobs * iodepth] */
    struct kvm_iothread iothread;
    struct sim_lognormal dev_lat;  /* drive service time, ns (dev_lat_us, dev_lat_cv) */
    struct sim_hist *lat;
    struct sim_steady steady;  /* completions over the whole run, for MSER-5 */
    sim_time_t measure_start_ns;
    uint64_t completed;
    struct sim_event warmup_ev;
};

static const struct wl_param fio_params[] = {
    { "bs_kb", WL_PARAM_INT, offsetof(struct fio_config, bs_kb), 1, 16384, "16",
      "block size, KiB" },
    { "iodepth", WL_PARAM_INT, offsetof(struct fio_config, iodepth), 1, 1024, "1",
      "reads in flight per job" },
    { "jobs", WL_PARAM_INT, offsetof(struct fio_config, jobs), 1, 256, "4",
      "fio jobs; job j runs on vCPU j mod vcpus of the first [vm]" },
    { "dev_lat_us", WL_PARAM_DOUBLE, offsetof(struct fio_config, dev_lat_us), 1, 1e6, "120",
      "drive read service time, mean, us (estimate: an NVMe 4k-16k random read)" },
    { "dev_lat_cv", WL_PARAM_DOUBLE, offsetof(struct fio_config, dev_lat_cv), 0, 10, "0.3",
      "coefficient of variation of the lognormal drive service time" },
    { "dev_bw_mbps", WL_PARAM_DOUBLE, offsetof(struct fio_config, dev_bw_mbps), 1, 1e6, "3500",
      "drive transfer rate, MB/s (adds bs / rate to every read)" },
    { "guest_submit_us", WL_PARAM_DOUBLE, offsetof(struct fio_config, guest_submit_us), 0, 1e5,
      "6", "guest CPU to issue a read (fio, syscall, virtio-blk), reference-core us" },
    { "guest_complete_us", WL_PARAM_DOUBLE, offsetof(struct fio_config, guest_complete_us), 0,
      1e5, "5", "guest CPU to reap a read (interrupt, block layer, fio), reference-core us" },
    { "host_submit_us", WL_PARAM_DOUBLE, offsetof(struct fio_config, host_submit_us), 0, 1e5, "4",
      "host I/O thread work per submission, reference-core us" },
    { "host_complete_us", WL_PARAM_DOUBLE, offsetof(struct fio_config, host_complete_us), 0, 1e5,
      "4", "host I/O thread work per completion (incl. interrupt injection), reference-core us" },
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct fio_config, warmup_ms), 0, 1e6, "50",
      "simulated warm-up discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct fio_config, duration_ms), 0.1, 1e7, "2000",
      "simulated measurement window, ms" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

static void fio_guest_issue_done(struct world *w, struct kvm_guest_work *gw);

/* Guest: issue (and, after the first, reap the previous read first); the
 * interrupt comes from waker_cpu. */
static void fio_post_issue(struct world *w, struct fio_io *io, double work_us, int waker_cpu)
{
    io->gw.work_ns = work_us * 1000.0;
    io->gw.fn = fio_guest_issue_done;
    kvm_vcpu_post(w, io->vcpu, &io->gw, waker_cpu);
}

static void fio_host_done(struct world *w, struct kvm_io_req *r)
{
    struct fio_io *io = container_of(r, struct fio_io, req);
    struct fio_run *run = w->wl_state;
    const struct fio_config *cfg = run->cfg;
    if (io->reaping) {
        /* Completion injected: the guest reaps this read, then issues the next. */
        fio_post_issue(w, io, cfg->guest_complete_us + cfg->guest_submit_us,
                       kvm_iothread_cpu(&run->iothread));
        return;
    }
    io->irq_cpu = kvm_iothread_cpu(&run->iothread);
    double lat_ns = sim_rng_lognormal(&w->rng[WORLD_STREAM_SERVICE], &run->dev_lat);
    lat_ns += (double)cfg->bs_kb * 1024.0 / (cfg->dev_bw_mbps * 1e6) * 1e9;
    sim_event_schedule(&w->q, &io->dev_ev, w->q.now_ns + 1 + (sim_time_t)lat_ns);
}

static void fio_guest_issue_done(struct world *w, struct kvm_guest_work *gw)
{
    struct fio_io *io = container_of(gw, struct fio_io, gw);
    struct fio_run *run = w->wl_state;
    /* The previous read of this slot is reaped now; reads issued in the
     * warm-up are not counted. */
    if (io->issued)
        sim_steady_add(&run->steady, w->q.now_ns, 1);
    if (io->issued && io->issue_ns >= run->measure_start_ns) {
        sim_hist_add(run->lat, w->q.now_ns - io->issue_ns);
        run->completed++;
    }
    io->issued = true;
    io->issue_ns = w->q.now_ns;
    io->reaping = false;
    io->req.work_ns = run->cfg->host_submit_us * 1000.0;
    io->req.fn = fio_host_done;
    kvm_iothread_submit(w, &run->iothread, &io->req, kvm_vcpu_cpu(io->vcpu));
}

static void fio_dev_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct fio_io *io = container_of(ev, struct fio_io, dev_ev);
    struct fio_run *run = w->wl_state;
    io->reaping = true;
    io->req.work_ns = run->cfg->host_complete_us * 1000.0;
    io->req.fn = fio_host_done;
    kvm_iothread_submit(w, &run->iothread, &io->req, io->irq_cpu);
}

static void fio_warmup_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct fio_run *run = container_of(ev, struct fio_run, warmup_ev);
    run->measure_start_ns = w->q.now_ns;
    world_measure_reset(w);
}

static void fio_collect(struct world *w, struct fio_run *run, struct rpt_metric_set *out)
{
    double window_s = run->cfg->duration_ms / 1000.0;
    double iops = (double)run->completed / window_s;
    rpt_set_put(out, "read_mbps", "MB/s", RPT_HIGHER_BETTER,
                iops * (double)run->cfg->bs_kb * 1024.0 / 1e6);
    wl_put_steady_state(out, sim_steady_end_ns(&run->steady, SIM_STEADY_COUNT),
                        run->measure_start_ns);
    rpt_set_put(out, "iops", "1/s", RPT_HIGHER_BETTER, iops);
    rpt_set_put(out, "lat_mean_us", "us", RPT_LOWER_BETTER, sim_hist_mean_us(run->lat));
    rpt_set_put(out, "lat_p99_us", "us", RPT_LOWER_BETTER,
                sim_hist_percentile_us(run->lat, 99));
    world_collect_metrics(w, out);
}

static int fio_run_point(struct world *w, const void *cfgp, int load_point,
                         struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct fio_config *cfg = cfgp;
    if (w->kvm.nvms == 0) {
        snprintf(msg, msgsize, "fio runs inside a VM: the scenario needs a [vm NAME] section");
        return -1;
    }
    struct fio_run run = { .cfg = cfg };
    sim_lognormal_init(&run.dev_lat, cfg->dev_lat_us * 1000.0, cfg->dev_lat_cv);
    int nio = (int)(cfg->jobs * cfg->iodepth);
    run.io = xcalloc((size_t)nio, sizeof *run.io);
    run.lat = xmalloc(sizeof *run.lat);
    sim_hist_init(run.lat);
    /* QEMU's main thread, started from WL_LAUNCH_CPU, creates it */
    kvm_iothread_start(w, &run.iothread, WL_LAUNCH_CPU);
    w->wl_state = &run;
    int nvcpus = w->kvm.vms[0].cfg.nvcpus;
    for (int i = 0; i < nio; i++) {
        struct fio_io *io = &run.io[i];
        io->vcpu = kvm_get_vcpu(w, 0, (int)(i / cfg->iodepth) % nvcpus);
        sim_event_init(&io->dev_ev, fio_dev_done);
        fio_post_issue(w, io, cfg->guest_submit_us, kvm_vcpu_cpu(io->vcpu));
    }
    sim_event_init(&run.warmup_ev, fio_warmup_done);
    sim_time_t warmup_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    sim_steady_init(&run.steady, 0, warmup_ns + (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS));
    run.measure_start_ns = warmup_ns > 0 ? warmup_ns : 1;
    sim_event_schedule(&w->q, &run.warmup_ev, warmup_ns > 0 ? warmup_ns : 1);
    world_run_until(w, warmup_ns + (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS));
    fio_collect(w, &run, out);
    w->wl_state = NULL;
    sim_steady_destroy(&run.steady);
    free(run.lat);
    free(run.io);
    return 0;
}

const struct wl_ops wl_fio_ops = {
    .name = "fio",
    .desc = "fio random reads in a VM: virtio-blk through a host I/O thread to an NVMe-like drive",
    .primary_metric = "read_mbps",
    .params = fio_params,
    .config_size = sizeof(struct fio_config),
    .nload_points = NULL,
    .run = fio_run_point,
    .combine = NULL,
    .needs_vm = true,
};
