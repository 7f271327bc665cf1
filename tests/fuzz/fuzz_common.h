/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c, `make fuzz`).
 *
 * pmlab's readers take a path, so each input is put in an anonymous memory
 * file (memfd) and read back through /proc/self/fd/N: no file system
 * writes, no state kept between inputs. */
#ifndef PMLAB_TESTS_FUZZ_COMMON_H
#define PMLAB_TESTS_FUZZ_COMMON_H

#include <gsl/gsl_errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What main() sets up before any command runs: GSL's aborting error handler
 * off. A target with more to set up defines FUZZ_OWN_INIT and calls this. */
static inline void fuzz_init_like_main(void)
{
    gsl_set_error_handler_off();
}

#ifndef FUZZ_OWN_INIT
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init_like_main();
    return 0;
}
#endif

/* A memfd holding data[size], its path in path; the descriptor, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathsize)
{
    int fd = memfd_create("pmlab-fuzz", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    snprintf(path, pathsize, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
