/* libFuzzer target: the JSON `pmlab compare` reads. The input is compared
 * with itself (both files), rendered in the format its size picks; output
 * goes to stdout (make fuzz closes it). */
#define _GNU_SOURCE /* memfd_create */
#include "cli/cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    static const char *const formats[] = { "table", "json", "csv" };
    char *argv[] = { "compare", path, path, "--format", (char *)formats[size % 3], NULL };
    cli_compare_command.main(5, argv);
    close(fd);
    return 0;
}
