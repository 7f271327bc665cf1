/* pool: the bookkeeping of a pool of persistent worker threads, shared by the
 * workloads whose servers hand work to sleeping threads (jbb, rr's server =
 * pool).
 *
 * Workers and work items are small integers chosen by the workload (its
 * indices). A worker with nothing to do goes to sleep on the pool's wait
 * queue; new work wakes the most recently slept worker, LIFO, as epoll does
 * for the threads of a server blocked in epoll_wait on one epoll file
 * (ep_poll queues each waiter at the head of the wait queue with
 * __add_wait_queue_exclusive, and a wake-one wakes the head): the thread
 * whose cache is warmest. (A pool sleeping on a pthread condition variable
 * would wake the oldest waiter instead: futex waiters queue by priority, then
 * in arrival order.) Work that finds no sleeping worker waits in a FIFO
 * that busy workers drain when they finish, oldest first. Who wakes whom and
 * from which CPU stays the workload's: the pool only says which. */
#ifndef PMLAB_WORKLOAD_POOL_H
#define PMLAB_WORKLOAD_POOL_H

#include <stdint.h>

#define WL_POOL_NONE (-1)

struct wl_pool {
    int32_t *sleeping;          /* [nworkers] stack of sleeping workers, top last */
    int nsleeping;
    int32_t *queue;             /* [cap] ring of waiting work items */
    int64_t q_head, q_len, q_cap;
};

/* A pool of room for nworkers sleeping workers and cap waiting items, with
 * no worker asleep and nothing queued (wl_pool_destroy frees it). */
void wl_pool_init(struct wl_pool *p, int nworkers, int64_t cap);
void wl_pool_destroy(struct wl_pool *p);
/* Worker goes to sleep (it must not be asleep already). */
void wl_pool_sleep(struct wl_pool *p, int32_t worker);
/* The worker that new work wakes (removed from the sleepers), or
 * WL_POOL_NONE when every worker is busy. */
int32_t wl_pool_wake_one(struct wl_pool *p);
/* Queue item behind the waiting ones (the caller keeps q_len < cap). */
void wl_pool_queue_push(struct wl_pool *p, int32_t item);
/* The oldest waiting item, removed (q_len must be > 0). */
int32_t wl_pool_queue_pop(struct wl_pool *p);

#endif
