/* The kernel's CPU list format: what bitmap_parselist accepts (ranges, N,
 * all, USED/GROUP), what it refuses, and the canonical form it prints. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"

#define NCPUS 24

/* text parsed on NCPUS CPUs, printed back in canonical form. */
static void check_roundtrip(const char *text, const char *canonical, int weight)
{
    bool mask[NCPUS];
    char msg[200];
    if (cpulist_parse(text, NCPUS, mask, msg, sizeof msg) != 0)
        fail_msg("'%s': %s", text, msg);
    char *out = cpulist_format(mask, NCPUS);
    assert_string_equal(out, canonical);
    assert_int_equal(cpulist_weight(mask, NCPUS), weight);
    free(out);
}

static void test_good_lists(void **state)
{
    (void)state;
    check_roundtrip("0-15", "0-15", 16);
    check_roundtrip("0-3,8,10-11", "0-3,8,10-11", 7);
    check_roundtrip("2", "2", 1);
    check_roundtrip("23", "23", 1);
    check_roundtrip("8,0-3,3-4", "0-4,8", 6);    /* unsorted and overlapping: a set */
    check_roundtrip("all", "0-23", 24);
    check_roundtrip("16-N", "16-23", 8);
    check_roundtrip("N", "23", 1);
    check_roundtrip("0-15:2/4", "0-1,4-5,8-9,12-13", 8);
    check_roundtrip("all:1/2", "0,2,4,6,8,10,12,14,16,18,20,22", 12);
    check_roundtrip("1-15:1/2", "1,3,5,7,9,11,13,15", 8);
}

/* text is refused with a message containing want. */
static void check_bad(const char *text, const char *want)
{
    bool mask[NCPUS];
    char msg[200] = "";
    assert_int_equal(cpulist_parse(text, NCPUS, mask, msg, sizeof msg), -1);
    if (!strstr(msg, want))
        fail_msg("'%s': expected '%s' in '%s'", text, want, msg);
}

static void test_bad_lists(void **state)
{
    (void)state;
    check_bad("24", "CPU 24 is out of range: the machine has CPUs 0-23");
    check_bad("0-99", "CPU 99 is out of range");
    check_bad("99999999999999999999999", "CPU 99999999999999999999999 is out of range");
    check_bad("5-3", "'5-3' is an empty range");
    check_bad("", "selects no CPU");
    check_bad("x", "'x' is not a CPU list (e.g. 0-15 or 0-3,8,10-11)");
    check_bad("0-3,", "is not a CPU list");
    check_bad(",1", "is not a CPU list");
    check_bad("1,,2", "is not a CPU list");
    check_bad("0-", "is not a CPU list");
    check_bad("-1", "is not a CPU list");
    check_bad("0 - 3", "is not a CPU list");
    check_bad("0-3 ", "is not a CPU list");
    check_bad("1.5", "is not a CPU list");
    check_bad("0-15:2", "is not a CPU list");
    check_bad("0-15:2/", "is not a CPU list");
    check_bad("0-15:0/4", "0 < USED <= GROUP");
    check_bad("0-15:5/4", "0 < USED <= GROUP");
    check_bad("allx", "is not a CPU list");
}

/* Far more CPUs than a 64-bit mask holds. */
static void test_many_cpus(void **state)
{
    (void)state;
    int n = 4096;
    bool *mask = calloc((size_t)n, sizeof *mask);
    char msg[200];
    assert_int_equal(cpulist_parse("0,1000-1003,4095", n, mask, msg, sizeof msg), 0);
    assert_int_equal(cpulist_weight(mask, n), 6);
    assert_true(mask[4095] && mask[1001] && !mask[999]);
    char *out = cpulist_format(mask, n);
    assert_string_equal(out, "0,1000-1003,4095");
    free(out);
    assert_int_equal(cpulist_parse("0-4095:1/2", n, mask, msg, sizeof msg), 0);
    out = cpulist_format(mask, n); /* the longest form: every other CPU */
    assert_int_equal(cpulist_weight(mask, n), 2048);
    assert_int_equal(strncmp(out, "0,2,4,", 6), 0);
    assert_non_null(strstr(out, ",4092,4094"));
    free(out);
    free(mask);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_lists),
        cmocka_unit_test(test_bad_lists),
        cmocka_unit_test(test_many_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
