/* exit: see exit.h. */
#include "kernel/exit.h"

#include "kernel/rcu/tree.h"
#include "world.h"

void release_task(struct world *w, struct task *t)
{
    if (t->prev_cpu >= 0)
        call_rcu(w, t->prev_cpu, RCU_CBS_PER_THREAD_EXIT);
}
