/* pmlab-mpi: `pmlab-mpi sweep SCENARIO ...` on Open MPI (make MPI=1).
 *
 * Rank 0 parses the options, checks every point, opens the results store
 * and hands out points one at a time: a worker that finishes gets the next,
 * so slow points do not idle the others. Workers load the same scenario and
 * machine files (a shared file system, as on any cluster), run each point
 * they are given with sweep_run_point and send back its rows; rank 0
 * commits them, so the store, the summary and `pmlab export` are the same
 * bytes as a local `pmlab sweep` of the same options: a point's numbers
 * depend only on the point (sweep/sweep.h). With one rank, rank 0 runs
 * every point itself.
 *
 * Rows travel as raw struct sweep_row bytes: every rank runs the same
 * binary on the same architecture. */
#include <gsl/gsl_errno.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "report/results.h"
#include "util/strutil.h"
#include "util/xalloc.h"

enum { TAG_WORK = 1, TAG_STOP, TAG_HEAD, TAG_ROWS };

/* What a worker sends before a point's rows. */
struct mpi_head {
    long point;
    int rc;                     /* sweep_run_point's */
    int reps;
    int nrows;
    uint64_t seed;
    double wall_s;
    char primary[RPT_NAME_MAX];
    char machine[1024];
    char err[512];
};

static double mpi_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* a is NULL when this rank could not load the sweep: it answers every
 * point with that failure, so rank 0 stops instead of waiting. */
static int mpi_worker(struct cli_sweep *a)
{
    for (;;) {
        long point;
        MPI_Status status;
        MPI_Recv(&point, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (status.MPI_TAG == TAG_STOP)
            return 0;
        struct sweep_result r = { 0 };
        struct mpi_head h = { .point = point, .rc = -1 };
        if (a)
            h.rc = sweep_run_point(&a->spec, point, a->jobs, &r, h.err, sizeof h.err);
        else
            snprintf(h.err, sizeof h.err, "this rank could not load the scenario (see its message)");
        h.reps = r.reps;
        h.nrows = r.nrows;
        h.seed = r.seed;
        h.wall_s = r.wall_s;
        str_copy(h.primary, sizeof h.primary, r.primary ? r.primary : "");
        str_copy(h.machine, sizeof h.machine, r.machine ? r.machine : "");
        MPI_Send(&h, sizeof h, MPI_BYTE, 0, TAG_HEAD, MPI_COMM_WORLD);
        MPI_Send(r.rows, (int)(sizeof *r.rows * (size_t)r.nrows), MPI_BYTE, 0, TAG_ROWS,
                 MPI_COMM_WORLD);
        sweep_result_free(&r);
    }
}

/* Receive one worker's result; its rank in *from. */
static void mpi_receive(struct sweep_result *r, struct mpi_head *h, int *from)
{
    MPI_Status status;
    /* Open MPI's blocking receive spins a CPU; rank 0 mostly waits, often
     * on a node whose CPUs the workers need, so it polls at 1 ms. */
    for (int ready = 0;;) {
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &ready, &status);
        if (ready)
            break;
        struct timespec ms = { 0, 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
    MPI_Recv(h, sizeof *h, MPI_BYTE, status.MPI_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &status);
    *from = status.MPI_SOURCE;
    memset(r, 0, sizeof *r);
    r->point = h->point;
    r->reps = h->reps;
    r->nrows = h->nrows;
    r->seed = h->seed;
    r->wall_s = h->wall_s;
    r->primary = xstrdup(h->primary);
    r->machine = xstrdup(h->machine);
    r->rows = xcalloc((size_t)h->nrows + 1, sizeof *r->rows);
    MPI_Recv(r->rows, (int)(sizeof *r->rows * (size_t)h->nrows), MPI_BYTE, *from, TAG_ROWS,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

struct mpi_ctx {
    int nranks;
};

/* Rank 0: hand out the points, commit what comes back, then stop every
 * worker. After a failed point no new one is handed out. */
static int mpi_master(struct cli_sweep *a, void *arg)
{
    const struct mpi_ctx *m = arg;
    double t0 = mpi_now_s();
    long next = 0, done = 0;
    int busy = 0, rc = 0;
    for (int w = 1; w < m->nranks; w++) {
        if (next < a->ntodo) {
            MPI_Send(&a->todo[next++], 1, MPI_LONG, w, TAG_WORK, MPI_COMM_WORLD);
            busy++;
        } else {
            long none = -1;
            MPI_Send(&none, 1, MPI_LONG, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    while (busy > 0) {
        struct sweep_result r;
        struct mpi_head h;
        int from;
        mpi_receive(&r, &h, &from);
        busy--;
        int prc = cli_sweep_commit(a, ++done, &r, h.rc, h.err, t0);
        sweep_result_free(&r);
        if (prc != 0 && rc == 0)
            rc = prc;
        long none = -1;
        if (rc == 0 && next < a->ntodo) {
            MPI_Send(&a->todo[next++], 1, MPI_LONG, from, TAG_WORK, MPI_COMM_WORLD);
            busy++;
        } else {
            MPI_Send(&none, 1, MPI_LONG, from, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    return rc;
}

static void mpi_usage(FILE *out)
{
    fprintf(out, "usage: mpirun [-np N] pmlab-mpi sweep SCENARIO.ini --grid KEY=V1,V2,... [OPTIONS]\n"
                 "\n"
                 "'pmlab sweep' with the points handed out to MPI ranks 1..N-1 one at a time;\n"
                 "rank 0 writes the database and the summary, the same bytes as a local run.\n"
                 "The options are those of 'pmlab sweep --help'.\n");
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off(); /* as pmlab's main: results are checked */
    signal(SIGXFSZ, SIG_IGN);    /* as pmlab's main: EFBIG is reported */
    /* Open MPI starts its own threads in MPI_Init: they inherit this mask.
     * Unblocked there, SIGINT/SIGTERM/SIGHUP went to one of them and killed
     * the process silently, past the sweep's signal watcher (which blocks
     * them in the threads it knows of: cli/output.h), so an interrupted
     * sweep said nothing of what was committed. The main thread gets its
     * mask back at once: a worker rank still dies of them. */
    sigset_t sigs, old_mask;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, &old_mask);
    MPI_Init(&argc, &argv);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc;
    if (argc < 2 || strcmp(argv[1], "sweep") != 0) {
        if (rank == 0)
            mpi_usage(argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
                          ? stdout
                          : stderr);
        rc = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
                 ? 0
                 : EXIT_BAD_INPUT;
        MPI_Finalize();
        return rc;
    }
    struct cli_sweep a;
    /* Rank 0 checks everything first; the workers start only when it can
     * run. */
    /* An interruption's resume command relaunches through MPI as this run
     * was, with its rank count (Open MPI's mpirun; other launchers differ). */
    char program[512];
    snprintf(program, sizeof program, "mpirun -n %d %s", nranks, argv[0]);
    rc = rank == 0 ? cli_sweep_open(argc - 1, argv + 1, &a, false, program) : 0;
    int go = rc;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (go != 0) {
        MPI_Finalize();
        return rank == 0 ? (rc == CLI_SWEEP_HELP ? 0 : rc) : 0;
    }
    if (rank == 0) {
        struct mpi_ctx m = { .nranks = nranks };
        rc = cli_sweep_guarded(&a, nranks > 1 ? mpi_master : cli_sweep_run_local, &m);
        rc = cli_sweep_close(&a, rc);
    } else {
        rc = cli_sweep_open(argc - 1, argv + 1, &a, true, program);
        mpi_worker(rc == 0 ? &a : NULL);
        if (rc == 0) {
            scenario_free(a.base);
            sweep_grid_free(&a.spec.grid);
        }
    }
    MPI_Finalize();
    return rc;
}
