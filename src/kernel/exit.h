/* exit: what a thread's exit leaves the kernel to do (kernel/exit.c). */
#ifndef PMLAB_KERNEL_EXIT_H
#define PMLAB_KERNEL_EXIT_H

struct world;
struct task;

/* release_task for an exiting thread t, on the CPU it last ran on: its
 * task_struct and struct pid are freed after an RCU grace period
 * (put_task_struct_rcu_user, free_pid: call_rcu on that CPU). Call from
 * t's done(), while it is still current there. */
void release_task(struct world *w, struct task *t);

#endif
