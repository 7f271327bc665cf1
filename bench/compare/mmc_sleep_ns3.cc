// mmc_sleep_ns3: the "mmc-sleep" reference model of BENCH-MODEL.md written for
// ns-3 (Debian's libns3-dev 3.37, core module only), so bench/compare.sh can
// time it next to pmlab's bench/mmc_sleep.c on the same machine.
//
// Same model as bench/mmc_sleep.c: c = 16 servers, one FIFO, Exp service
// (mean 100 us), Poisson arrivals at 0.7 c / 100 us. A server finding the FIFO
// empty idles and arms a 20 us timer (an ns-3 EventId); an arrival that takes
// it cancels the timer with Simulator::Cancel (ns-3's own cancel: the event is
// marked cancelled and skipped when it reaches the head of the scheduler). If
// the timer fires the server sleeps. An arrival takes the most recently idled
// server, else wakes a sleeper (50 us exit latency, job bound to it), else
// waits. All servers start asleep; the run stops at the 2,000,000th completion
// (or the count given as the first argument).
//
// Time is ns-3's Time at its default 1 ns resolution, like pmlab's int64 ns.
// Random draws: two std::mt19937_64 streams (arrivals, service), Exp by
// inversion, rounded to the ns as pmlab does. The p99 is exact (a sort of all
// response times, after the timed loop).
//
// Usage: mmc_sleep_ns3 [completions] [scheduler type, e.g. ns3::HeapScheduler]
// Prints BENCH ns3_mmc_sleep_* lines, the same quantities as bench/mmc_sleep.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

using namespace ns3;

namespace {

constexpr int kServers = 16;
constexpr double kServiceMeanNs = 100000.0;
constexpr double kArrivalMeanNs = kServiceMeanNs / (0.7 * kServers);
constexpr int64_t kIdleTimerNs = 20000;
constexpr int64_t kWakeLatencyNs = 50000;

enum class State { Asleep, Waking, Busy, Idle };

struct Server {
    State state = State::Asleep;
    int64_t job_arrival_ns = 0;   // arrival of the job served or bound
    int64_t asleep_since_ns = 0;
    EventId idle_timer;
    int idle_prev = -1, idle_next = -1; // idle list, most recent first
};

class ExpStream {
  public:
    explicit ExpStream(uint64_t seed) : gen_(seed) {}
    int64_t DrawNs(double mean_ns)
    {
        double u = static_cast<double>(gen_() >> 11) * 0x1.0p-53; // [0, 1)
        return static_cast<int64_t>(-mean_ns * std::log(1.0 - u) + 0.5);
    }

  private:
    std::mt19937_64 gen_;
};

class Model {
  public:
    explicit Model(uint64_t stop_completions)
        : stop_(stop_completions), arrival_rng_(1), service_rng_(2)
    {
        resp_ns_.reserve(stop_completions);
        for (int i = 0; i < kServers; i++)
            GoToSleep(i, 0);
        Simulator::Schedule(NanoSeconds(arrival_rng_.DrawNs(kArrivalMeanNs)),
                            &Model::OnArrival, this);
    }

    uint64_t arrivals = 0, completions = 0, timer_expiries = 0, wakeups = 0;
    int64_t asleep_ns = 0;
    std::vector<int64_t> resp_ns_;

    // Close the sleep intervals still open at end_ns.
    void CloseSleep(int64_t end_ns)
    {
        for (int s : sleepers_)
            asleep_ns += end_ns - srv_[s].asleep_since_ns;
    }

  private:
    uint64_t stop_;
    Server srv_[kServers];
    int idle_head_ = -1;
    std::vector<int> sleepers_; // stack of sleeping servers
    std::deque<int64_t> fifo_;  // arrival times of waiting jobs
    ExpStream arrival_rng_, service_rng_;

    static int64_t NowNs() { return Simulator::Now().GetNanoSeconds(); }

    void IdlePush(int s)
    {
        srv_[s].idle_prev = -1;
        srv_[s].idle_next = idle_head_;
        if (idle_head_ >= 0)
            srv_[idle_head_].idle_prev = s;
        idle_head_ = s;
    }

    void IdleRemove(int s)
    {
        Server &v = srv_[s];
        if (v.idle_prev >= 0)
            srv_[v.idle_prev].idle_next = v.idle_next;
        else
            idle_head_ = v.idle_next;
        if (v.idle_next >= 0)
            srv_[v.idle_next].idle_prev = v.idle_prev;
    }

    void GoToSleep(int s, int64_t now_ns)
    {
        srv_[s].state = State::Asleep;
        srv_[s].asleep_since_ns = now_ns;
        sleepers_.push_back(s);
    }

    void StartService(int s, int64_t arrival_ns)
    {
        srv_[s].state = State::Busy;
        srv_[s].job_arrival_ns = arrival_ns;
        Simulator::Schedule(NanoSeconds(service_rng_.DrawNs(kServiceMeanNs)),
                            &Model::OnDone, this, s);
    }

    void OnArrival()
    {
        int64_t now_ns = NowNs();
        arrivals++;
        Simulator::Schedule(NanoSeconds(arrival_rng_.DrawNs(kArrivalMeanNs)),
                            &Model::OnArrival, this);
        if (idle_head_ >= 0) {
            int s = idle_head_;
            IdleRemove(s);
            Simulator::Cancel(srv_[s].idle_timer);
            StartService(s, now_ns);
        } else if (!sleepers_.empty()) {
            int s = sleepers_.back();
            sleepers_.pop_back();
            asleep_ns += now_ns - srv_[s].asleep_since_ns;
            srv_[s].state = State::Waking;
            srv_[s].job_arrival_ns = now_ns;
            Simulator::Schedule(NanoSeconds(kWakeLatencyNs), &Model::OnWoken, this, s);
        } else {
            fifo_.push_back(now_ns);
        }
    }

    void OnDone(int s)
    {
        int64_t now_ns = NowNs();
        resp_ns_.push_back(now_ns - srv_[s].job_arrival_ns);
        if (++completions == stop_) {
            Simulator::Stop();
            return;
        }
        if (!fifo_.empty()) {
            int64_t a = fifo_.front();
            fifo_.pop_front();
            StartService(s, a);
            return;
        }
        srv_[s].state = State::Idle;
        IdlePush(s);
        srv_[s].idle_timer =
            Simulator::Schedule(NanoSeconds(kIdleTimerNs), &Model::OnIdleTimer, this, s);
    }

    void OnIdleTimer(int s)
    {
        timer_expiries++;
        IdleRemove(s);
        GoToSleep(s, NowNs());
    }

    void OnWoken(int s)
    {
        wakeups++;
        StartService(s, srv_[s].job_arrival_ns);
    }
};

} // namespace

int main(int argc, char **argv)
{
    uint64_t stop = 2000000;
    if (argc > 1)
        stop = std::strtoull(argv[1], nullptr, 10);
    if (stop == 0) {
        std::fprintf(stderr, "usage: %s [completions > 0] [scheduler type]\n", argv[0]);
        return 2;
    }
    std::string scheduler = "default (ns3::MapScheduler)";
    if (argc > 2) {
        scheduler = argv[2];
        ObjectFactory f;
        f.SetTypeId(scheduler);
        Simulator::SetScheduler(f);
    }

    Model *m = new Model(stop);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    int64_t end_ns = Simulator::Now().GetNanoSeconds();
    m->CloseSleep(end_ns);
    uint64_t events = m->arrivals + m->completions + m->timer_expiries + m->wakeups;
    double sleep_fraction =
        static_cast<double>(m->asleep_ns) / (kServers * static_cast<double>(end_ns));

    std::vector<int64_t> &r = m->resp_ns_;
    double sum = 0;
    for (int64_t v : r)
        sum += static_cast<double>(v);
    double mean_us = sum / static_cast<double>(r.size()) / 1e3;
    // Nearest rank: the smallest value with at least 99 % of the sample <= it.
    size_t k = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(r.size()))) - 1;
    std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(k), r.end());
    double p99_us = static_cast<double>(r[k]) / 1e3;

    std::printf("# ns-3 %s, scheduler %s, %llu completions\n", "3.37", scheduler.c_str(),
                static_cast<unsigned long long>(stop));
    std::printf("BENCH ns3_mmc_sleep_events_per_s %.0f events/s\n",
                static_cast<double>(events) / dt);
    std::printf("BENCH ns3_mmc_sleep_model_events %llu events\n",
                static_cast<unsigned long long>(events));
    std::printf("BENCH ns3_mmc_sleep_mean_resp_us %.2f us\n", mean_us);
    std::printf("BENCH ns3_mmc_sleep_p99_resp_us %.1f us\n", p99_us);
    std::printf("BENCH ns3_mmc_sleep_sleep_fraction %.4f fraction\n", sleep_fraction);
    std::printf("BENCH ns3_mmc_sleep_completions %llu jobs\n",
                static_cast<unsigned long long>(m->completions));
    std::printf("BENCH ns3_mmc_sleep_loop_s %.3f s\n", dt);

    Simulator::Destroy();
    delete m;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    std::printf("BENCH ns3_mmc_sleep_peak_rss %ld kB\n", ru.ru_maxrss);
    return 0;
}
