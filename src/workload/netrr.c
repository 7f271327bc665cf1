/* netrr: netperf UDP_RR from inside a VM to a remote peer, the seed-004
 * network workload (the published run: two VMs on two hosts).
 *
 * Each stream (netperf instance) runs on one vCPU of the scenario's first VM
 * (stream i on vCPU i mod vcpus) and does one transaction at a time:
 *   guest: netperf sends the request (guest_send_us: syscall, UDP, virtio-net);
 *   host:  the vhost worker transmits it (host_tx_us);
 *   wire:  the request, the remote peer and the response take a lognormal
 *          round trip (rtt_us, rtt_cv): everything outside this host;
 *   host:  the vhost worker receives the response and injects the interrupt
 *          (host_rx_us): kvm_vcpu_post (ends the halt poll or wakes the vCPU);
 *   guest: netperf receives it (guest_recv_us) and sends the next request.
 * A transaction is counted when the guest has received its response; its
 * round trip as the guest sees it (send done to receive done) is the latency.
 * With a round trip of ~2 ms the guest idles far longer than halt_poll_ns, so
 * KVM's window shrinks to nothing and polling hardly happens (FACTS.md §4).
 *
 * Dropped: the remote host's own idle-state effects (in rtt_us), packet loss
 * and netperf's retransmission timer, interrupt coalescing.
 *
 * Metrics: trans_per_s, rtt_mean_us, rtt_p99_us, then world_collect_metrics. */
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


struct netrr_config {
    int64_t streams;
    double rtt_us, rtt_cv;
    double guest_send_us, guest_recv_us;
    double host_tx_us, host_rx_us;
    double warmup_ms, duration_ms;
};

struct netrr_stream {
    struct kvm_guest_work gw;
    struct kvm_io_req req;
    struct sim_event wire_ev;
    struct kvm_vcpu *vcpu;
    bool rx;                  /* req is the receive half */
    int irq_cpu;              /* where the response's interrupt lands: the CPU
                               * that sent the request (the flow's queue pair) */
    bool sent;                /* a transaction is in flight */
    sim_time_t send_ns;
};

struct netrr_run {
    const struct netrr_config *cfg;
    struct netrr_stream *st;  /* [streams] */
    struct kvm_iothread vhost;
    struct sim_lognormal rtt_dist; /* round trip on the wire, ns (rtt_us, rtt_cv) */
    struct sim_hist *rtt;
    struct sim_steady steady; /* transactions over the whole run, for MSER-5 */
    sim_time_t measure_start_ns;
    uint64_t completed;
    struct sim_event warmup_ev;
};

static const struct wl_param netrr_params[] = {
    { "streams", WL_PARAM_INT, offsetof(struct netrr_config, streams), 1, 256, "1",
      "netperf UDP_RR instances; stream i runs on vCPU i mod vcpus of the first [vm]" },
    /* Refitted twice, each time because a model fix changed this host's
     * share of a round trip (the figure it is fitted to): issue 10's
     * idle-path fixes (the idle vCPU and I/O CPUs now sleep in C10, PC10 on
     * an idle package: ~373 -> ~877 us, 1588 -> 1084 gave back 509.8), then
     * issue 11's placement (the kernel places the threads: 517.6 trans/s at
     * 1084, so 1116). */
    { "rtt_us", WL_PARAM_DOUBLE, offsetof(struct netrr_config, rtt_us), 1, 1e7, "1116",
      "round trip outside this host (wire, remote host and VM), mean, us (calibrated: the "
      "polling variant of seed 004 to 509.8 trans/s)" },
    { "rtt_cv", WL_PARAM_DOUBLE, offsetof(struct netrr_config, rtt_cv), 0, 10, "0.1",
      "coefficient of variation of the lognormal round trip" },
    { "guest_send_us", WL_PARAM_DOUBLE, offsetof(struct netrr_config, guest_send_us), 0, 1e5, "5",
      "guest CPU to send a request, reference-core us" },
    { "guest_recv_us", WL_PARAM_DOUBLE, offsetof(struct netrr_config, guest_recv_us), 0, 1e5, "5",
      "guest CPU to receive a response (interrupt, UDP, netperf), reference-core us" },
    { "host_tx_us", WL_PARAM_DOUBLE, offsetof(struct netrr_config, host_tx_us), 0, 1e5, "3",
      "host vhost worker per transmitted packet, reference-core us" },
    { "host_rx_us", WL_PARAM_DOUBLE, offsetof(struct netrr_config, host_rx_us), 0, 1e5, "3",
      "host vhost worker per received packet (incl. interrupt injection), reference-core us" },
    { "warmup_ms", WL_PARAM_DOUBLE, offsetof(struct netrr_config, warmup_ms), 0, 1e6, "50",
      "simulated warm-up discarded before measuring, ms" },
    { "duration_ms", WL_PARAM_DOUBLE, offsetof(struct netrr_config, duration_ms), 0.1, 1e7, "4000",
      "simulated measurement window, ms" },
    { NULL, 0, 0, 0, 0, NULL, NULL },
};

static void netrr_guest_done(struct world *w, struct kvm_guest_work *gw);

static void netrr_host_done(struct world *w, struct kvm_io_req *r)
{
    struct netrr_stream *s = container_of(r, struct netrr_stream, req);
    struct netrr_run *run = w->wl_state;
    const struct netrr_config *cfg = run->cfg;
    if (s->rx) {
        s->gw.work_ns = (cfg->guest_recv_us + cfg->guest_send_us) * 1000.0;
        s->gw.fn = netrr_guest_done;
        kvm_vcpu_post(w, s->vcpu, &s->gw, kvm_iothread_cpu(&run->vhost));
        return;
    }
    s->irq_cpu = kvm_iothread_cpu(&run->vhost);
    double rtt_ns = sim_rng_lognormal(&w->rng[WORLD_STREAM_SERVICE], &run->rtt_dist);
    sim_event_schedule(&w->q, &s->wire_ev, w->q.now_ns + 1 + (sim_time_t)rtt_ns);
}

/* The guest received the previous response (if any) and sent a request. */
static void netrr_guest_done(struct world *w, struct kvm_guest_work *gw)
{
    struct netrr_stream *s = container_of(gw, struct netrr_stream, gw);
    struct netrr_run *run = w->wl_state;
    if (s->sent)
        sim_steady_add(&run->steady, w->q.now_ns, 1);
    if (s->sent && s->send_ns >= run->measure_start_ns) {
        sim_hist_add(run->rtt, w->q.now_ns - s->send_ns);
        run->completed++;
    }
    s->sent = true;
    s->send_ns = w->q.now_ns;
    s->rx = false;
    s->req.work_ns = run->cfg->host_tx_us * 1000.0;
    s->req.fn = netrr_host_done;
    kvm_iothread_submit(w, &run->vhost, &s->req, kvm_vcpu_cpu(s->vcpu));
}

static void netrr_wire_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct netrr_stream *s = container_of(ev, struct netrr_stream, wire_ev);
    struct netrr_run *run = w->wl_state;
    s->rx = true;
    s->req.work_ns = run->cfg->host_rx_us * 1000.0;
    s->req.fn = netrr_host_done;
    kvm_iothread_submit(w, &run->vhost, &s->req, s->irq_cpu);
}

static void netrr_warmup_done(struct sim_event *ev, void *arg)
{
    struct world *w = arg;
    struct netrr_run *run = container_of(ev, struct netrr_run, warmup_ev);
    run->measure_start_ns = w->q.now_ns;
    world_measure_reset(w);
}

static int netrr_run_point(struct world *w, const void *cfgp, int load_point,
                           struct rpt_metric_set *out, char *msg, size_t msgsize)
{
    (void)load_point;
    const struct netrr_config *cfg = cfgp;
    if (w->kvm.nvms == 0) {
        snprintf(msg, msgsize, "netrr runs inside a VM: the scenario needs a [vm NAME] section");
        return -1;
    }
    struct netrr_run run = { .cfg = cfg };
    sim_lognormal_init(&run.rtt_dist, cfg->rtt_us * 1000.0, cfg->rtt_cv);
    run.st = xcalloc((size_t)cfg->streams, sizeof *run.st);
    run.rtt = xmalloc(sizeof *run.rtt);
    sim_hist_init(run.rtt);
    /* QEMU's main thread, started from WL_LAUNCH_CPU, creates it */
    kvm_iothread_start(w, &run.vhost, WL_LAUNCH_CPU);
    w->wl_state = &run;
    sim_time_t warmup_ns = (sim_time_t)(cfg->warmup_ms * SIM_NS_PER_MS);
    run.measure_start_ns = warmup_ns > 0 ? warmup_ns : 1;
    sim_time_t end_ns = run.measure_start_ns + (sim_time_t)(cfg->duration_ms * SIM_NS_PER_MS);
    sim_steady_init(&run.steady, 0, end_ns);
    int nvcpus = w->kvm.vms[0].cfg.nvcpus;
    for (int i = 0; i < cfg->streams; i++) {
        struct netrr_stream *s = &run.st[i];
        s->vcpu = kvm_get_vcpu(w, 0, i % nvcpus);
        sim_event_init(&s->wire_ev, netrr_wire_done);
        s->gw.work_ns = cfg->guest_send_us * 1000.0;
        s->gw.fn = netrr_guest_done;
        kvm_vcpu_post(w, s->vcpu, &s->gw, kvm_vcpu_cpu(s->vcpu));
    }
    sim_event_init(&run.warmup_ev, netrr_warmup_done);
    sim_event_schedule(&w->q, &run.warmup_ev, run.measure_start_ns);
    world_run_until(w, end_ns);
    double window_s = cfg->duration_ms / 1000.0;
    rpt_set_put(out, "trans_per_s", "1/s", RPT_HIGHER_BETTER, (double)run.completed / window_s);
    rpt_set_put(out, "rtt_mean_us", "us", RPT_LOWER_BETTER, sim_hist_mean_us(run.rtt));
    rpt_set_put(out, "rtt_p99_us", "us", RPT_LOWER_BETTER,
                sim_hist_percentile_us(run.rtt, 99));
    world_collect_metrics(w, out);
    wl_put_steady_state(out, sim_steady_end_ns(&run.steady, SIM_STEADY_COUNT), warmup_ns);
    w->wl_state = NULL;
    sim_steady_destroy(&run.steady);
    free(run.rtt);
    free(run.st);
    return 0;
}

const struct wl_ops wl_netrr_ops = {
    .name = "netrr",
    .desc = "netperf UDP_RR from a VM to a remote peer: send, round trip, receive, repeat",
    .primary_metric = "trans_per_s",
    .params = netrr_params,
    .config_size = sizeof(struct netrr_config),
    .nload_points = NULL,
    .run = netrr_run_point,
    .combine = NULL,
    .needs_vm = true,
};
