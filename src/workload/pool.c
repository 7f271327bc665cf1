/* pool: sleeping workers (LIFO) and waiting work (FIFO) of a thread pool;
 * why LIFO is in pool.h. */
#include "workload/pool.h"

#include <stdlib.h>

#include "util/xalloc.h"

void wl_pool_init(struct wl_pool *p, int nworkers, int64_t cap)
{
    p->sleeping = xcalloc((size_t)nworkers, sizeof *p->sleeping);
    p->nsleeping = 0;
    p->queue = xcalloc((size_t)cap, sizeof *p->queue);
    p->q_head = p->q_len = 0;
    p->q_cap = cap;
}

void wl_pool_destroy(struct wl_pool *p)
{
    free(p->sleeping);
    free(p->queue);
}

void wl_pool_sleep(struct wl_pool *p, int32_t worker)
{
    p->sleeping[p->nsleeping++] = worker;
}

int32_t wl_pool_wake_one(struct wl_pool *p)
{
    return p->nsleeping > 0 ? p->sleeping[--p->nsleeping] : WL_POOL_NONE;
}

/* i mod cap for 0 <= i < 2 cap: the ring's indices (q_head < cap, q_len <=
 * cap) need one subtraction, not a 64-bit division per hand-off. */
static int64_t wl_pool_ring_wrap(int64_t i, int64_t cap)
{
    return i >= cap ? i - cap : i;
}

void wl_pool_queue_push(struct wl_pool *p, int32_t item)
{
    p->queue[wl_pool_ring_wrap(p->q_head + p->q_len, p->q_cap)] = item;
    p->q_len++;
}

int32_t wl_pool_queue_pop(struct wl_pool *p)
{
    int32_t item = p->queue[p->q_head];
    p->q_head = wl_pool_ring_wrap(p->q_head + 1, p->q_cap);
    p->q_len--;
    return item;
}
