/* rtapp: an rt-app use case (rt-app's doc/tutorial.txt grammar) as a
 * program the rtapp workload runs: tasks, their phases and the events of
 * each phase, in file order. rtapp_json.c reads it with jansson; rtapp.c
 * runs it on the simulated machine.
 *
 * Kept: global duration, calibration (a CPU or ns per loop),
 * default_policy; per task instance, delay, loop, cpus, policy, priority and
 * phases (or the events directly in the task: one phase); per phase loop,
 * cpus, policy, priority; the events run, runtime, sleep, timer (ref,
 * period, mode relative/absolute), suspend, resume, barrier, yield, lock,
 * unlock, wait, signal, broad. Keys rt-app knows that change nothing pmlab
 * models (logging, ftrace, pi_enabled, lock_pages,
 * dl-*, taskgroup, membind_nodes, mem, iorun, fork, sync) and unknown keys
 * are warned about and ignored, as rt-app ignores what it does not parse. */
#ifndef PMLAB_WORKLOAD_RTAPP_H
#define PMLAB_WORKLOAD_RTAPP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"

enum rtapp_ev_type {
    RTAPP_RUN,       /* usec of work at the calibration CPU's speed */
    RTAPP_RUNTIME,   /* usec of wall time, busy */
    RTAPP_SLEEP,     /* usec asleep from now */
    RTAPP_TIMER,     /* sleep to the next period of timer ref */
    RTAPP_SUSPEND,   /* sleep until a resume names this task */
    RTAPP_RESUME,    /* wake the suspended threads of task ref */
    RTAPP_BARRIER,   /* wait until every thread using barrier ref arrives */
    RTAPP_YIELD,     /* sched_yield */
    RTAPP_LOCK,      /* mutex ref */
    RTAPP_UNLOCK,
    RTAPP_WAIT,      /* condition ref with mutex (pthread_cond_wait) */
    RTAPP_SIGNAL,    /* wake the first waiter of condition ref */
    RTAPP_BROAD,     /* wake every waiter of condition ref */
};

struct rtapp_event {
    enum rtapp_ev_type type;
    int64_t usec;          /* run, runtime, sleep: duration; timer: period */
    int ref;               /* timer, barrier, mutex, condition: resource index;
                            * resume: task index */
    int mutex;             /* wait: the mutex's resource index */
    bool absolute;         /* timer: "mode": "absolute" */
    char *where;           /* "tasks.T.phases.P.run0", for messages */
};

struct rtapp_phase {
    struct rtapp_event *ev;
    int nev;
    int64_t loop;          /* times the phase runs before the next, >= 1 */
    int *cpus;             /* affinity from this phase on, NULL: unchanged */
    int ncpus;
    int64_t util_min, util_max; /* uclamp request from this phase on, -1: unchanged */
};

/* rt-app's priority for an RT policy when the task names none. */
#define RTAPP_RT_DEFAULT_PRIO 10
#define RTAPP_RT_PRIO_MAX 99        /* sched_get_priority_max(SCHED_FIFO) */
#define RTAPP_UTIL_MAX 1024         /* util_min/util_max above this: rt-app refuses the file */

struct rtapp_task {
    char *name;            /* the key in "tasks" */
    char *metric_name;     /* name in metric names (the key, or taskN) */
    int64_t instance;      /* threads of this task (0: none) */
    int64_t delay_us;      /* before the first phase */
    int64_t loop;          /* runs of the whole phase list, -1: forever */
    int *cpus;             /* affinity, NULL: every CPU (or [workload] affinity) */
    int ncpus;
    char *policy;          /* SCHED_FIFO and SCHED_RR run in the RT class, the rest fair */
    int64_t priority;      /* RT priority 1..99 (0: rt-app's default, RTAPP_RT_DEFAULT_PRIO) */
    int64_t util_min, util_max; /* uclamp request at the thread's start, -1: none */
    struct rtapp_phase *ph;
    int nph;
};

enum rtapp_res_kind { RTAPP_RES_TIMER, RTAPP_RES_BARRIER, RTAPP_RES_MUTEX, RTAPP_RES_COND };

struct rtapp_res {
    char *name;
    enum rtapp_res_kind kind;
};

struct rtapp_prog {
    char *path;
    int64_t duration_s;    /* global.duration, -1: until the threads end */
    int calib_cpu;         /* "CPUn" */
    int64_t calib_ns_per_loop; /* integer calibration, 0 if a CPU was given */
    char *default_policy;
    struct rtapp_task *task;
    int ntasks;
    struct rtapp_res *res;
    int nres;
    int max_cpu;           /* largest CPU number a cpus array names, -1 none */
};

/* Read path; NULL with d = "PATH:LINE: ..." (jansson's line) for malformed
 * JSON, "PATH: tasks.T...: ..." for a file that is not rt-app's grammar. */
struct rtapp_prog *rtapp_load(const char *path, struct diag *d);
/* The same from text in memory (fuzzing), named path in messages. warn:
 * print ignored keys to stderr. */
struct rtapp_prog *rtapp_parse(const char *text, size_t len, const char *path, bool warn,
                               struct diag *d);
void rtapp_free(struct rtapp_prog *p);

#endif
