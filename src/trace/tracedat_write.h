/* tracedat_write: a trace_buf (trace/record.h) written as a trace-cmd
 * trace.dat, file format version 6 (trace-cmd.dat(5)), so that trace-cmd
 * report, KernelShark, Perfetto and pmlab's own trace commands read it.
 *
 * Debian's libtracecmd (1.x/3.x) exposes no output API, so the file is
 * written here, from the format's documentation: the header (magic,
 * version "6", little endian, 8-byte longs, 4096-byte pages), the ring
 * buffer's page and event header descriptions, no ftrace events, the event
 * systems power (cpu_idle, cpu_frequency) and sched (sched_switch,
 * sched_wakeup, sched_wakeup_new) with their format descriptions (the
 * kernel's field layouts), empty kallsyms and printk formats, the saved
 * command lines (pid comm), the CPU count, an empty options list and the
 * flyrecord section: each CPU's events in ring-buffer pages (a page: the
 * 64-bit timestamp of its first event, the 64-bit length of its data,
 * then events, each a 32-bit header of 5 bits of length in words and 27
 * bits of time delta, with a time-extend entry for a longer gap).
 * Timestamps are simulated ns from the world's time 0. */
#ifndef PMLAB_TRACE_TRACEDAT_WRITE_H
#define PMLAB_TRACE_TRACEDAT_WRITE_H

#include "trace/record.h"
#include "util/diag.h"

#define TRACEDAT_PAGE_SIZE TRACE_PAGE_SIZE

/* Write b to path (through path.tmp, renamed into place when complete);
 * exit-status style: 0, or 1 with the error in d (the path and errno). */
int tracedat_write(const struct trace_buf *b, const char *path, struct diag *d);

#endif
