/* governor: the governor registry (drivers/cpuidle/governor.c). The kernel
 * picks the governor named by cpuidle.governor=, else the highest rating;
 * ratings are menu 20, teo 19, ladder 10, haltpoll 9 (FACTS.md §2 [C5, C7, C9,
 * C10]). Periodic-tick kernels get ladder by default, since menu and teo only
 * register when NO_HZ idle is built in. */
#include <string.h>

#include "kernel/cpuidle/cpuidle.h"

extern const struct cpuidle_governor menu_governor, teo_governor, ladder_governor;

const struct cpuidle_governor *const cpuidle_governors[] = {
    &menu_governor,
    &teo_governor,
    &ladder_governor,
    NULL,
};

const struct cpuidle_governor *cpuidle_find_governor(const char *name)
{
    for (const struct cpuidle_governor *const *g = cpuidle_governors; *g; g++)
        if (strcmp((*g)->name, name) == 0)
            return *g;
    return NULL;
}

const struct cpuidle_governor *cpuidle_default_governor(bool nohz)
{
    if (!nohz)
        return &ladder_governor;
    const struct cpuidle_governor *best = NULL;
    for (const struct cpuidle_governor *const *g = cpuidle_governors; *g; g++)
        if (!best || (*g)->rating > best->rating)
            best = *g;
    return best;
}
