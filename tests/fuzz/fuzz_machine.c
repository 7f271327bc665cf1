/* libFuzzer target: a machine file. Loads and checks it as a scenario's
 * machine is (hw_machine_load, the vendor and model check) and, when it
 * loads, builds intel_idle's states on it for a default kernel. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_common.h"
#include "hw/machine.h"
#include "kernel/idle/intel_idle.h"
#include "kernel/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    struct diag d = { 0 };
    struct hw_machine *m = hw_machine_load(path, &d);
    if (m && intel_idle_check_machine(m, &d) == 0) {
        struct kparams kp;
        kparams_init(&kp);
        struct cpuidle_driver drv;
        struct intel_idle_info info;
        char msg[256];
        intel_idle_init(m, &kp, &drv, &info, msg, sizeof msg);
        kparams_destroy(&kp);
    }
    hw_machine_free(m);
    close(fd);
    return 0;
}
