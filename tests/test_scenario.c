/* Scenario loading: every bad-input fixture gives exit-2 style errors with the
 * right FILE:LINE, and a full scenario resolves every knob as the kernel would. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"

#define FIXTURES "tests/data/scenarios"

/* First line of a bad fixture: "; expect: LINE: text". */
static void check_bad_fixture(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char first[512];
    assert_non_null(fgets(first, sizeof first, f));
    fclose(f);
    int line;
    char text[400];
    assert_int_equal(sscanf(first, "; expect: %d: %399[^\n]", &line, text), 2);
    char prefix[1024];
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    struct diag d = { 0 };
    struct scenario *s = scenario_load(path, NULL, &d);
    if (s || strncmp(d.msg, prefix, strlen(prefix)) != 0 || !strstr(d.msg, text))
        fail_msg("%s: expected '%s...%s', got '%s'", path, prefix, text, d.msg);
    assert_null(s);
}

static void test_bad_fixtures(void **state)
{
    (void)state;
    DIR *dp = opendir(FIXTURES);
    assert_non_null(dp);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dp))) {
        if (strncmp(de->d_name, "bad-", 4) != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", FIXTURES, de->d_name);
        check_bad_fixture(path);
        n++;
    }
    closedir(dp);
    assert_true(n >= 25);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct diag d = { 0 };
    assert_null(scenario_load("tests/data/scenarios/no-such.ini", NULL, &d));
    assert_string_equal(d.msg, "tests/data/scenarios/no-such.ini: cannot open: No such file or directory");
}

static int64_t get(const struct scenario_variant *v, const char *name, int cpu, int state)
{
    return kparams_get(&v->kp, name, cpu, state);
}

static void test_good_full(void **state)
{
    (void)state;
    struct diag d = { 0 };
    struct scenario *s = scenario_load(FIXTURES "/good-full.ini", NULL, &d);
    if (!s)
        fail_msg("%s", d.msg);
    assert_string_equal(s->name, "good-full");
    assert_string_equal(s->description, "first line second line");
    assert_int_equal(s->seed, 7);
    assert_int_equal(s->replications, 4);
    assert_int_equal(s->quick_replications, 2);
    assert_int_equal(s->nvariants, 2);
    assert_int_equal(s->machine->ncpus, 112);

    const struct scenario_variant *base = &s->variants[0];
    assert_int_equal(base->kp.kernel.minor, 6);
    assert_int_equal(get(base, "CONFIG_HZ", 0, -1), 1);          /* "250" */
    assert_int_equal(get(base, "cpu_dma_latency", 0, -1), 2000000000);
    assert_int_equal(get(base, "pm_qos_resume_latency_us", 5, -1), 2147483647);

    const struct scenario_variant *k = &s->variants[1];
    assert_int_equal(k->kp.kernel.sub, 3);
    assert_int_equal(get(k, "CONFIG_HZ", 0, -1), 3);             /* "1000" */
    assert_int_equal(get(k, "cpuidle.governor", 0, -1), 1);      /* teo */
    assert_int_equal(get(k, "intel_idle.max_cstate", 0, -1), 3); /* quoted word */
    assert_int_equal(get(k, "cpuidle.off", 0, -1), 0);           
    assert_int_equal(get(k, "nohz", 0, -1), 0);
    assert_int_equal(get(k, "cpuidle.state_disable", 2, 2), 1);  /* cpu[0-3] */
    assert_int_equal(get(k, "cpuidle.state_disable", 4, 2), 0);
    assert_int_equal(get(k, "cpuidle.state_disable", 2, 1), 0);  /* other state */
    assert_int_equal(get(k, "pm_qos_resume_latency_us", 0, -1), 0);   /* n/a */
    assert_int_equal(get(k, "pm_qos_resume_latency_us", 1, -1), 20);  /* later write wins */
    assert_int_equal(get(k, "cpu_dma_latency", 0, -1), 100);
    assert_string_equal(k->cmdline, "cpuidle.governor=teo \"intel_idle.max_cstate=3\" cpuidle.off=0 nohz=off -- init-arg");
    scenario_free(s);
}

static void test_example_quick_overrides(void **state)
{
    (void)state;
    struct diag d = { 0 };
    struct scenario *s = scenario_load("scenarios/example-rr.ini", NULL, &d);
    if (!s)
        fail_msg("%s", d.msg);
    assert_int_equal(s->replications, 5);
    assert_int_equal(s->quick_replications, 3);
    assert_memory_not_equal(s->wl_cfg, s->wl_cfg_quick, s->wl->config_size);
    scenario_free(s);
}

/* [report] cpus: the seed-004 scenario reports its vCPUs' CPUs 0-15 of 24;
 * --cpus (scenario_set_report_cpus) replaces the list, and a bad list leaves
 * it as it was. */
static void test_report_cpus(void **state)
{
    (void)state;
    struct diag d = { 0 };
    struct scenario *s = scenario_load("scenarios/kvm-haltpoll-fio.ini", NULL, &d);
    if (!s)
        fail_msg("%s", d.msg);
    assert_non_null(s->report_cpus);
    for (int cpu = 0; cpu < s->machine->ncpus; cpu++)
        assert_int_equal(s->report_cpus[cpu], cpu < 16);
    char msg[200];
    assert_int_equal(scenario_set_report_cpus(s, "16-23", msg, sizeof msg), 0);
    assert_true(!s->report_cpus[15] && s->report_cpus[16] && s->report_cpus[23]);
    assert_int_equal(scenario_set_report_cpus(s, "24", msg, sizeof msg), -1);
    assert_string_equal(msg, "CPU 24 is out of range: the machine has CPUs 0-23");
    assert_true(!s->report_cpus[15] && s->report_cpus[16]);
    scenario_free(s);
    s = scenario_load("scenarios/example-rr.ini", NULL, &d);
    assert_non_null(s);
    assert_null(s->report_cpus);
    scenario_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_good_full),
        cmocka_unit_test(test_example_quick_overrides),
        cmocka_unit_test(test_report_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
