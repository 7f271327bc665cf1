/* compare: `pmlab compare A.json B.json`: two saved runs against each other.
 *
 * Why: a run is often kept (`pmlab run --format json`) and a later one -- a
 * new seed, a patched variant, another pmlab version -- must be judged
 * against it without running the baseline again. The saved "values" arrays
 * hold every replication, so each file's per-replication metric sets can be
 * rebuilt and summarised by the same code as a live run (rpt_variant_summarize,
 * rpt_compare_all): the numbers, CIs and verdicts mean exactly what they mean
 * in `pmlab run`. Runs with common random numbers and the same seed pair up
 * replication by replication even across files (the workload's streams do
 * not depend on the variant), so such files are compared paired; any other
 * pair of files holds independent samples and gets Welch's test.
 *
 * A's first variant is the baseline; every variant of B is compared with it.
 * The saved JSON does not say which direction of a metric is better, so that
 * is taken from a metric's "better" key when present ("higher", "lower"),
 * else read back from the files' own comparisons (a "better" verdict on a
 * positive delta means higher is better), else the metric is neutral and its
 * verdict is higher/lower/noise. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/results.h"
#include "util/jsonerr.h"
#include "util/xalloc.h"

static void compare_usage(void)
{
    printf("usage: pmlab compare A.json B.json [--format table|json|csv]\n"
           "\n"
           "Compare two results saved by 'pmlab run --format json' without running anything:\n"
           "A's first variant is the baseline and every variant of B is compared with it\n"
           "(delta, its 95 %% CI, p-values raw and Holm-adjusted, verdict), from the\n"
           "replications the files hold. The comparison is paired, replication by replication,\n"
           "when both files come from runs with common random numbers and the same seed,\n"
           "replication count and configuration (a baseline kept and a variant run later);\n"
           "otherwise it is Welch's unpaired t-test, and the report says why.\n"
           "Both files must come from the same scenario and machine (and,\n"
           "when both have cpus.* metrics, the same --cpus list), share at least one\n"
           "metric, and have the same recorded configuration but for the variants (the\n"
           "\"configuration\" every run's JSON holds: every key outside the [variant]\n"
           "sections after its --set overrides, the machine and input files' SHA-256):\n"
           "runs made with other settings are refused, naming a line that differs. Files\n"
           "from different pmlab commits, or without a recorded configuration, are\n"
           "compared unpaired. A variant of B named like the baseline is shown as B:NAME\n"
           "and the baseline as A:NAME. A better/worse verdict also needs a change of at\n"
           "least the practical threshold of the metric's class that A's run recorded\n"
           "(\"min_effect\"; the defaults for a file without one); smaller significant\n"
           "changes are 'negligible'.\n"
           "\n"
           "options:\n"
           "  --format table|json|csv  output format (default table)\n"
           "  -h, --help               this text\n"
           "\n"
           "Exit status: 0 success, 1 the report could not be written, 2 bad input (a missing\n"
           "or unreadable file, not a pmlab result, different scenarios, machines or\n"
           "configurations, no common metric, a metric or series name over %d characters), with one line on\n"
           "stderr saying what is wrong.\n", RPT_NAME_MAX - 1);
}

/* One saved result: the parsed document and its identifying fields (which
 * point into root). */
struct cmp_file {
    const char *path;
    json_t *root;
    const char *scenario, *machine;
    json_t *variants;        /* non-empty array of objects with name and metrics */
};

static const char *cmp_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Is v a variant object as `pmlab run` writes it? */
static bool cmp_variant_ok(const json_t *v)
{
    return json_is_object(v) && cmp_str(v, "name") && json_is_object(json_object_get(v, "metrics"));
}

/* The first metric, series or column name of variant v that the results
 * model cannot hold (RPT_NAME_MAX with its NUL), or NULL. Such a name would
 * be cut when stored, and two names cut alike would then be one metric. */
static const char *cmp_long_name(const json_t *v, const char **kind)
{
    const char *name;
    const json_t *x;
    *kind = "metric";
    json_object_foreach(json_object_get(v, "metrics"), name, x)
        if (strlen(name) >= RPT_NAME_MAX)
            return name;
    json_object_foreach(json_object_get(v, "series"), name, x) {
        *kind = "series";
        if (strlen(name) >= RPT_NAME_MAX)
            return name;
        size_t i;
        const json_t *c;
        *kind = "series column";
        json_array_foreach(json_object_get(x, "columns"), i, c)
            if (json_string_value(c) && strlen(json_string_value(c)) >= RPT_NAME_MAX)
                return json_string_value(c);
    }
    return NULL;
}

/* What is missing for root to be a pmlab result, or NULL if nothing. */
static const char *cmp_shape_error(const json_t *root)
{
    if (!json_is_object(root) || !cmp_str(root, "pmlab"))
        return "not a pmlab result (no \"pmlab\" key)";
    if (!cmp_str(root, "scenario") || !cmp_str(root, "machine"))
        return "not a pmlab result (no scenario or machine)";
    const json_t *vs = json_object_get(root, "variants");
    if (!json_is_array(vs) || json_array_size(vs) == 0)
        return "not a pmlab result (no variants)";
    size_t i;
    const json_t *v;
    json_array_foreach(vs, i, v)
        if (!cmp_variant_ok(v))
            return "not a pmlab result (a variant without name or metrics)";
    return NULL;
}

/* Load and check f->path. Returns 0, or -1 after printing one line. */
static int cmp_load(struct cmp_file *f)
{
    if (access(f->path, R_OK) != 0) {
        fprintf(stderr, "pmlab compare: %s: %s\n", f->path, strerror(errno));
        return -1;
    }
    json_error_t e;
    f->root = json_load_file(f->path, 0, &e);
    char quiet[JSON_ERROR_TEXT_LENGTH];
    json_error_quiet(e.text, quiet, sizeof quiet);
    if (!f->root && e.line > 0)
        fprintf(stderr, "%s:%d: not a pmlab result: %s\n", f->path, e.line, quiet);
    else if (!f->root)
        fprintf(stderr, "pmlab compare: %s: %s\n", f->path, quiet);
    if (!f->root)
        return -1;
    const char *why = cmp_shape_error(f->root);
    if (why) {
        fprintf(stderr, "pmlab compare: %s: %s\n", f->path, why);
        return -1;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(f->root, "variants"), i, v) {
        const char *kind, *name = cmp_long_name(v, &kind);
        if (name) {
            fprintf(stderr, "pmlab compare: %s: %s name '%s' is longer than %d characters\n",
                    f->path, kind, name, RPT_NAME_MAX - 1);
            return -1;
        }
    }
    f->scenario = cmp_str(f->root, "scenario");
    f->machine = cmp_str(f->root, "machine");
    f->variants = json_object_get(f->root, "variants");
    return 0;
}

static int cmp_check_same_run(const struct cmp_file *a, const struct cmp_file *b)
{
    if (strcmp(a->scenario, b->scenario) != 0 || strcmp(a->machine, b->machine) != 0) {
        fprintf(stderr, "pmlab compare: %s is scenario %s on %s, %s is %s on %s\n", a->path,
                a->scenario, a->machine, b->path, b->scenario, b->machine);
        return -1;
    }
    /* cpus.* metrics over different CPUs are different quantities. */
    const char *cpus_a = cmp_str(a->root, "cpus"), *cpus_b = cmp_str(b->root, "cpus");
    if (cpus_a && cpus_b && strcmp(cpus_a, cpus_b) != 0) {
        fprintf(stderr, "pmlab compare: %s reports cpus.* over CPUs %s, %s over CPUs %s\n",
                a->path, cpus_a, b->path, cpus_b);
        return -1;
    }
    return 0;
}

/* The first line of text a that text b lacks, into buf ("nothing" when
 * every line of a is in b). */
static const char *cmp_first_missing_line(const char *a, const char *b, char *buf, size_t size)
{
    snprintf(buf, size, "nothing");
    for (const char *line = a; *line;) {
        size_t len = strcspn(line, "\n");
        bool found = false;
        for (const char *o = b; *o && !found;) {
            size_t olen = strcspn(o, "\n");
            found = olen == len && strncmp(o, line, len) == 0;
            o += olen + (o[olen] == '\n');
        }
        if (!found) {
            snprintf(buf, size, "'%.*s'", (int)len, line);
            return buf;
        }
        line += len + (line[len] == '\n');
    }
    return buf;
}

/* The recorded configuration's canonical text of f (run's "configuration"
 * "text"), or NULL for a file saved before runs recorded it. */
static const char *cmp_config_text(const struct cmp_file *f)
{
    return cmp_str(json_object_get(f->root, "configuration"), "text");
}

/* Runs made with different settings (a --set workload.load=0.6 against the
 * scenario as written, another machine file, another rt-app JSON) are not
 * two variants of one experiment: compare refuses them, naming a line that
 * differs. Only the variants (each one's own section) may differ. Files
 * without a recorded configuration cannot be checked (cmp_pairing then
 * does not pair them). */
static int cmp_check_same_config(const struct cmp_file *a, const struct cmp_file *b)
{
    const char *ta = cmp_config_text(a), *tb = cmp_config_text(b);
    if (!ta || !tb || strcmp(ta, tb) == 0)
        return 0;
    char la[256], lb[256];
    fprintf(stderr, "pmlab compare: %s and %s were run with different configurations (only the "
            "variants may differ): %s has %s, %s has %s\n", a->path, b->path, a->path,
            cmp_first_missing_line(ta, tb, la, sizeof la), b->path,
            cmp_first_missing_line(tb, ta, lb, sizeof lb));
    return -1;
}

/* Direction from a file's comparisons: a judged verdict plus the sign of the
 * delta gives it; "higher"/"lower" mean the metric is neutral. Returns 1 if
 * found (with *out set), else 0. */
static int cmp_direction_from(const json_t *root, const char *metric, enum rpt_better *out)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(root, "comparisons"), i, c) {
        const char *m = cmp_str(c, "metric"), *verdict = cmp_str(c, "verdict");
        if (!m || !verdict || strcmp(m, metric) != 0)
            continue;
        if (strcmp(verdict, "higher") == 0 || strcmp(verdict, "lower") == 0)
            return *out = RPT_NEUTRAL, 1;
        double d = json_number_value(json_object_get(c, "delta_pct"));
        bool judged = strcmp(verdict, "better") == 0 || strcmp(verdict, "worse") == 0;
        if (!judged || d == 0 || !isfinite(d))
            continue;
        bool up_is_better = (strcmp(verdict, "better") == 0) == (d > 0);
        return *out = up_is_better ? RPT_HIGHER_BETTER : RPT_LOWER_BETTER, 1;
    }
    return 0;
}

/* Which direction of metric name (saved as mobj) is better; see the top. */
static enum rpt_better cmp_direction(const struct cmp_file *a, const struct cmp_file *b,
                                     const char *name, const json_t *mobj)
{
    const char *better = cmp_str(mobj, "better");
    if (better)
        return strcmp(better, "higher") == 0  ? RPT_HIGHER_BETTER
               : strcmp(better, "lower") == 0 ? RPT_LOWER_BETTER
                                              : RPT_NEUTRAL;
    enum rpt_better dir = RPT_NEUTRAL;
    if (!cmp_direction_from(a->root, name, &dir))
        cmp_direction_from(b->root, name, &dir);
    return dir;
}

/* Replications saved for variant v: the longest "values" array. */
static int cmp_variant_reps(const json_t *v)
{
    size_t n = 0;
    const char *name;
    const json_t *m;
    json_object_foreach(json_object_get(v, "metrics"), name, m) {
        size_t k = json_array_size(json_object_get(m, "values"));
        n = k > n ? k : n;
    }
    return (int)n;
}

/* Put replication r's value of every metric of v into sets[r]. Null values
 * (non-finite when saved) come back as NaN. */
static void cmp_fill_metrics(const struct cmp_file *a, const struct cmp_file *b, const json_t *v,
                             struct rpt_metric_set *sets)
{
    const char *name;
    const json_t *m;
    json_object_foreach(json_object_get(v, "metrics"), name, m) {
        const char *unit = cmp_str(m, "unit");
        enum rpt_better dir = cmp_direction(a, b, name, m);
        size_t r;
        const json_t *x;
        json_array_foreach(json_object_get(m, "values"), r, x) {
            double value = json_is_number(x) ? json_number_value(x) : NAN;
            rpt_set_put(&sets[r], name, unit ? unit : "", dir, value);
        }
    }
}

/* Put each replication's rows of every series of v into sets[r]. */
static void cmp_fill_series(const json_t *v, struct rpt_metric_set *sets, int reps)
{
    const char *name;
    const json_t *sr;
    json_object_foreach(json_object_get(v, "series"), name, sr) {
        const char *cols[RPT_SERIES_MAX_COLS];
        int ncols = 0;
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(sr, "columns"), i, c)
            if (ncols < RPT_SERIES_MAX_COLS)
                cols[ncols++] = json_string_value(c) ? json_string_value(c) : "";
        const json_t *rows;
        json_array_foreach(json_object_get(sr, "replications"), i, rows) {
            size_t k;
            const json_t *row;
            json_array_foreach(rows, k, row) {
                double vals[RPT_SERIES_MAX_COLS] = { 0 };
                for (int col = 0; col < ncols; col++) {
                    const json_t *x = json_array_get(row, (size_t)col);
                    vals[col] = json_is_number(x) ? json_number_value(x) : NAN;
                }
                if ((int)i < reps && ncols > 0)
                    rpt_set_series_row(&sets[i], name, cols, ncols, vals);
            }
        }
    }
}

static char *cmp_dup(const json_t *v, const char *key)
{
    const char *s = cmp_str(v, key);
    return xstrdup(s ? s : "");
}

/* Rebuild variant out from saved variant v under the name shown. */
static void cmp_build_variant(const struct cmp_file *a, const struct cmp_file *b, const json_t *v,
                              const char *shown, struct rpt_variant *out)
{
    out->name = xstrdup(shown);
    out->kernel = cmp_dup(v, "kernel");
    out->patches = cmp_dup(v, "patches");
    out->cmdline = cmp_dup(v, "cmdline");
    out->sysfs = cmp_dup(v, "sysfs");
    out->config = cmp_dup(v, "config");
    out->workload = cmp_str(v, "workload") ? cmp_dup(v, "workload") : NULL;
    out->settings = cmp_str(v, "settings") ? cmp_dup(v, "settings") : NULL;
    int reps = cmp_variant_reps(v);
    struct rpt_metric_set *sets = xcalloc((size_t)reps + 1, sizeof *sets);
    cmp_fill_metrics(a, b, v, sets);
    cmp_fill_series(v, sets, reps);
    rpt_variant_summarize(out, sets, reps);
    for (int r = 0; r < reps; r++)
        rpt_set_free(&sets[r]);
    free(sets);
}

/* name, or "PREFIX:name" when it collides with the baseline's name
 * (allocated). */
static char *cmp_shown_name(const char *name, const char *prefix, bool collides)
{
    return xasprintf("%s%s", collides ? prefix : "", name);
}

/* The configuration both files share (cmp_check_same_config), as A
 * recorded it, with the --set texts of either file (the variant-only ones
 * may differ); nothing when A records none. */
static void cmp_build_config(const struct cmp_file *a, const struct cmp_file *b,
                             struct rpt_results *r)
{
    const json_t *ca = json_object_get(a->root, "configuration");
    const char *text = cmp_config_text(a);
    if (!text)
        return;
    r->config_text = xstrdup(text);
    const char *sha = cmp_str(ca, "sha256");
    snprintf(r->config_sha256, sizeof r->config_sha256, "%s", sha ? sha : "");
    const char *commit = cmp_str(ca, "commit");
    r->commit = xstrdup(commit ? commit : "");
    const json_t *lists[2] = { json_object_get(ca, "overrides"),
                               json_object_get(json_object_get(b->root, "configuration"),
                                               "overrides") };
    r->sets = xcalloc(json_array_size(lists[0]) + json_array_size(lists[1]) + 1, sizeof *r->sets);
    for (int k = 0; k < 2; k++) {
        size_t i;
        const json_t *x;
        json_array_foreach(lists[k], i, x) {
            const char *t = json_string_value(x);
            bool seen = false;
            for (int j = 0; t && j < r->nsets && !seen; j++)
                seen = strcmp(r->sets[j], t) == 0;
            if (t && !seen)
                r->sets[r->nsets++] = xstrdup(t);
        }
    }
}

static void cmp_build_header(const struct cmp_file *a, const struct cmp_file *b,
                             struct rpt_results *r)
{
    json_int_t seed_a = json_integer_value(json_object_get(a->root, "seed"));
    json_int_t seed_b = json_integer_value(json_object_get(b->root, "seed"));
    r->description = xasprintf("compare: baseline from %s (seed %lld, %lld replications), "
                               "variants from %s (seed %lld, %lld replications)", a->path,
                               (long long)seed_a,
                               (long long)json_integer_value(json_object_get(a->root, "reps")),
                               b->path, (long long)seed_b,
                               (long long)json_integer_value(json_object_get(b->root, "reps")));
    r->scenario = xstrdup(a->scenario);
    r->machine = xstrdup(a->machine);
    r->machine_desc = xstrdup("as recorded in the saved results");
    r->seed = (uint64_t)seed_a;
    r->reps = (int)json_integer_value(json_object_get(a->root, "reps"));
    r->quick = json_is_true(json_object_get(a->root, "quick")) ||
               json_is_true(json_object_get(b->root, "quick"));
    const char *primary = cmp_str(a->root, "primary");
    r->primary = primary ? xstrdup(primary) : NULL;
    cmp_build_config(a, b, r);
    const char *cpus = cmp_str(a->root, "cpus");
    cpus = cpus ? cpus : cmp_str(b->root, "cpus");
    r->cpus = cpus ? xstrdup(cpus) : NULL;
}

/* Whether replication r of A's baseline and of B's variants were offered the
 * same work, so the comparison can be paired: both files say their runs
 * share the workload's random numbers, and have the same seed, replication
 * count and configuration (quick or not). Else Welch, with the reason. */
static void cmp_pairing(const struct cmp_file *a, const struct cmp_file *b, struct rpt_results *r)
{
    const json_t *ra = a->root, *rb = b->root;
    r->paired = false;
    if (!json_is_true(json_object_get(ra, "paired")) || !json_is_true(json_object_get(rb, "paired")))
        r->unpaired_why = "a file was saved without common random numbers";
    else if (!json_equal(json_object_get(ra, "seed"), json_object_get(rb, "seed")))
        r->unpaired_why = "the files' seeds differ";
    else if (!json_equal(json_object_get(ra, "reps"), json_object_get(rb, "reps")))
        r->unpaired_why = "the files' replication counts differ";
    else if (json_is_true(json_object_get(ra, "quick")) != json_is_true(json_object_get(rb, "quick")))
        r->unpaired_why = "one file is a --quick run and the other is not";
    else if (!cmp_config_text(a) || !cmp_config_text(b))
        r->unpaired_why = "a file records no configuration (saved by an older pmlab), so the "
                          "runs cannot be shown to be offered the same work";
    else if (!json_equal(json_object_get(json_object_get(ra, "configuration"), "commit"),
                         json_object_get(json_object_get(rb, "configuration"), "commit")))
        r->unpaired_why = "the files come from different pmlab commits";
    else
        r->paired = true;
}

/* The practical thresholds of the verdicts: A's, as its run recorded them
 * ("min_effect"), class by class; the defaults where A has none (a file
 * from before thresholds, or a class it does not name). */
static void cmp_min_effect(const struct cmp_file *a, struct rpt_results *r)
{
    const json_t *me = json_object_get(a->root, "min_effect");
    r->min_effect = rpt_min_effect_default;
    for (int k = 0; k < RPT_NEFFECT_CLASSES; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_pct", rpt_effect_class_name(k));
        const json_t *v = json_object_get(me, key);
        if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 100)
            r->min_effect.pct[k] = json_number_value(v);
    }
}

/* The results model: A's first variant, then every variant of B. */
static void cmp_build(const struct cmp_file *a, const struct cmp_file *b, struct rpt_results *r)
{
    memset(r, 0, sizeof *r);
    cmp_build_header(a, b, r);
    const json_t *base = json_array_get(a->variants, 0);
    const char *base_name = cmp_str(base, "name");
    bool collides = false;
    size_t i;
    const json_t *v;
    json_array_foreach(b->variants, i, v)
        collides |= strcmp(cmp_str(v, "name"), base_name) == 0;
    r->nvariants = 1 + (int)json_array_size(b->variants);
    r->variants = xcalloc((size_t)r->nvariants, sizeof *r->variants);
    char *shown = cmp_shown_name(base_name, "A:", collides);
    cmp_build_variant(a, b, base, shown, &r->variants[0]);
    free(shown);
    json_array_foreach(b->variants, i, v) {
        const char *name = cmp_str(v, "name");
        shown = cmp_shown_name(name, "B:", strcmp(name, base_name) == 0);
        cmp_build_variant(a, b, v, shown, &r->variants[i + 1]);
        free(shown);
    }
    cmp_pairing(a, b, r);
    const json_t *open_loop = json_object_get(a->root, "open_loop");
    const char *offered = cmp_str(open_loop, "offered"), *served = cmp_str(open_loop, "served");
    if (offered && served)
        rpt_mark_saturation(r, offered, served);
    rpt_check_warmup(r);
    cmp_min_effect(a, r);
    rpt_compare_all(r);
}

/* Parse argv into the two paths and the format; 0, 1 for --help, -1 bad. */
static int cmp_parse_args(int argc, char **argv, const char **paths, const char **format)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0; /* cli_bad_option says it */
    while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': *format = optarg; break;
        case 'h': return 1;
        default: return cli_bad_option("compare", argv, longopts, "f:h"), -1;
        }
    }
    if (optind != argc - 2) {
        fprintf(stderr, "pmlab compare: expected two result files (see 'pmlab compare --help')\n");
        return -1;
    }
    paths[0] = argv[optind];
    paths[1] = argv[optind + 1];
    return 0;
}

/* Load both files and check they can be compared; 0 or -1 (reported). */
static int cmp_load_pair(struct cmp_file *a, struct cmp_file *b)
{
    if (cmp_load(a) != 0 || cmp_load(b) != 0)
        return -1;
    return cmp_check_same_run(a, b) != 0 ? -1 : cmp_check_same_config(a, b);
}

static int cmp_report(const struct rpt_format *fmt, const struct rpt_results *r)
{
    fmt->render(r, stdout);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "pmlab compare: error writing the report\n");
        return EXIT_RUN_FAILED;
    }
    return 0;
}

static int compare_main(int argc, char **argv)
{
    const char *paths[2], *format = "table";
    int prc = cmp_parse_args(argc, argv, paths, &format);
    if (prc != 0)
        return prc > 0 ? (compare_usage(), 0) : EXIT_BAD_INPUT;
    const struct rpt_format *fmt = rpt_format_find(format);
    if (!fmt) {
        fprintf(stderr, "pmlab compare: --format: '%s' is not one of: table json csv\n", format);
        return EXIT_BAD_INPUT;
    }
    struct cmp_file a = { .path = paths[0] }, b = { .path = paths[1] };
    int rc = EXIT_BAD_INPUT;
    if (cmp_load_pair(&a, &b) == 0) {
        struct rpt_results r;
        cmp_build(&a, &b, &r);
        if (r.ncmp == 0)
            fprintf(stderr, "pmlab compare: %s and %s have no metric in common\n", a.path, b.path);
        else
            rc = cmp_report(fmt, &r);
        rpt_results_free(&r);
    }
    json_decref(a.root);
    json_decref(b.root);
    return rc;
}

const struct cli_command cli_compare_command = {
    .name = "compare",
    .summary = "compare two results saved by 'run --format json'",
    .main = compare_main,
    .usage = compare_usage,
};
