#!/usr/bin/env python3
"""mmc_sleep_simpy: the "mmc-sleep" reference model of BENCH-MODEL.md written
for SimPy as Debian packages it (python3-simpy 2.3.1, the SimPy 2 process
API), so bench/compare.sh can time it next to pmlab's bench/mmc_sleep.c on
the same machine.

Same model as bench/mmc_sleep.c: c = 16 servers, one FIFO, Exp service (mean
100 us), Poisson arrivals at 0.7 c / 100 us. A server finding the FIFO empty
idles and arms a 20 us timer (a `yield hold` of 20 us); if it runs out the
server sleeps. An arrival takes the most recently idled server, else wakes a
sleeper (50 us exit latency, the job bound to it), else waits. All servers
start asleep; the run stops at the given completion count.

Each server is one SimPy Process whose generator is resumed exactly at its
model events (completion, idle-timer expiry, wake completion); an arrival
hands a job to an idle or sleeping server with Simulation.reactivate(...,
delay=...), which cancels the pending idle timer with SimPy's own cancel
(SimPy 2 marks the event notice cancelled and skips it when it reaches the
head of its heap) and schedules the server's next event. So every SimPy step
is one model event, apart from the 17 process starts at t = 0 and cancelled
notices being skipped.

Times are float microseconds; random draws are Python's Mersenne Twister
(random.Random, one stream for arrivals, one for service). The p99 is exact
(a sort of all response times, after the timed loop).

The completion count is an argument (default: the model's 2,000,000, about
6 s of loop on this 2-core machine), so a slower machine or a quick check can
run fewer, e.g. 200000; the output then says so, and model events scale with
it.

Usage: python3 mmc_sleep_simpy.py [completions]   (default 2000000)
Prints BENCH simpy_mmc_sleep_* lines, the same quantities as bench/mmc_sleep.
"""
import collections
import math
import random
import resource
import sys
import time

import SimPy
from SimPy.Simulation import Process, Simulation, hold, passivate

N_SERVERS = 16
SERVICE_MEAN_US = 100.0
ARRIVAL_MEAN_US = SERVICE_MEAN_US / (0.7 * N_SERVERS)
IDLE_TIMER_US = 20.0
WAKE_LATENCY_US = 50.0
MODEL_COMPLETIONS = 2000000

ASLEEP, WAKING, BUSY, IDLE = range(4)


class Model:
    def __init__(self, sim, stop):
        self.sim = sim
        self.stop = stop
        self.arrival_rng = random.Random(1)
        self.service_rng = random.Random(2)
        self.idle = []        # idle servers, most recently idled last
        self.sleepers = []    # stack of sleeping servers
        self.fifo = collections.deque()  # arrival times of waiting jobs
        self.resp = []
        self.arrivals = self.completions = self.timer_expiries = self.wakeups = 0
        self.asleep = 0.0     # total server time asleep, closed intervals
        self.servers = [Server(self, i) for i in range(N_SERVERS)]
        for s in self.servers:
            s.asleep_since = 0.0
            self.sleepers.append(s)
            sim.activate(s, s.life())
        arrivals = Arrivals(self)
        sim.activate(arrivals, arrivals.run())

    def service_time(self):
        return self.service_rng.expovariate(1.0 / SERVICE_MEAN_US)


class Server(Process):
    def __init__(self, model, idx):
        Process.__init__(self, name='server%d' % idx, sim=model.sim)
        self.m = model
        self.state = ASLEEP
        self.job_arrival = 0.0
        self.asleep_since = 0.0

    def life(self):
        """Resumed at each of this server's model events; self.state says
        which one (an arrival sets it before reactivating the server)."""
        m = self.m
        sim = self.sim
        while True:
            st = self.state
            if st == BUSY:          # service completion
                m.resp.append(sim.now() - self.job_arrival)
                m.completions += 1
                if m.completions == m.stop:
                    sim.stopSimulation()
                    yield passivate, self
                elif m.fifo:
                    self.job_arrival = m.fifo.popleft()
                    yield hold, self, m.service_time()
                else:
                    self.state = IDLE
                    m.idle.append(self)
                    yield hold, self, IDLE_TIMER_US
            elif st == IDLE:        # idle timer expired: go to sleep
                m.timer_expiries += 1
                m.idle.remove(self)
                self.state = ASLEEP
                self.asleep_since = sim.now()
                m.sleepers.append(self)
                yield passivate, self
            elif st == WAKING:      # exit latency over: serve the bound job
                m.wakeups += 1
                self.state = BUSY
                yield hold, self, m.service_time()
            else:                   # asleep at t = 0
                yield passivate, self


class Arrivals(Process):
    def __init__(self, model):
        Process.__init__(self, name='arrivals', sim=model.sim)
        self.m = model

    def run(self):
        m = self.m
        sim = self.sim
        gap_rate = 1.0 / ARRIVAL_MEAN_US
        expovariate = m.arrival_rng.expovariate
        while True:
            yield hold, self, expovariate(gap_rate)
            now = sim.now()
            m.arrivals += 1
            if m.idle:
                s = m.idle.pop()
                s.state = BUSY
                s.job_arrival = now
                # cancels the pending idle timer, schedules the completion
                sim.reactivate(s, delay=m.service_time())
            elif m.sleepers:
                s = m.sleepers.pop()
                m.asleep += now - s.asleep_since
                s.state = WAKING
                s.job_arrival = now
                sim.reactivate(s, delay=WAKE_LATENCY_US)
            else:
                m.fifo.append(now)


def main():
    stop = int(sys.argv[1]) if len(sys.argv) > 1 else MODEL_COMPLETIONS
    if stop <= 0:
        sys.exit('usage: mmc_sleep_simpy.py [completions > 0]')
    sim = Simulation()
    m = Model(sim, stop)

    t0 = time.perf_counter()
    sim.simulate(until=1e300)
    dt = time.perf_counter() - t0

    end = sim.now()
    for s in m.sleepers:
        m.asleep += end - s.asleep_since
    events = m.arrivals + m.completions + m.timer_expiries + m.wakeups
    sleep_fraction = m.asleep / (N_SERVERS * end)
    resp = sorted(m.resp)
    mean = math.fsum(resp) / len(resp)
    p99 = resp[math.ceil(0.99 * len(resp)) - 1]  # nearest rank

    note = '' if stop == MODEL_COMPLETIONS else \
        ' (reduced from the model\'s %d; model events scale with it)' % MODEL_COMPLETIONS
    print('# SimPy %s on Python %s, %d completions%s' % (
        SimPy.__version__, sys.version.split()[0], stop, note))
    print('BENCH simpy_mmc_sleep_events_per_s %.0f events/s' % (events / dt))
    print('BENCH simpy_mmc_sleep_model_events %d events' % events)
    print('BENCH simpy_mmc_sleep_mean_resp_us %.2f us' % mean)
    print('BENCH simpy_mmc_sleep_p99_resp_us %.1f us' % p99)
    print('BENCH simpy_mmc_sleep_sleep_fraction %.4f fraction' % sleep_fraction)
    print('BENCH simpy_mmc_sleep_completions %d jobs' % m.completions)
    print('BENCH simpy_mmc_sleep_loop_s %.3f s' % dt)
    print('BENCH simpy_mmc_sleep_peak_rss %d kB' %
          resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == '__main__':
    main()
