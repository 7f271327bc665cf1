/* suggest: closest-name suggestions, see suggest.h. */
#include "util/suggest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool same(char a, char b)
{
    return (a == '-' ? '_' : a) == (b == '-' ? '_' : b);
}

/* No suggestion is further than this (suggest_result), so candidates whose
 * length alone puts them further are not measured. */
#define SUGGEST_MAX_DIST 2

/* Optimal string alignment distance between a and b, three rows of DP
 * (on the stack for names up to 63 characters). */
static int suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int stack[3][64];
    bool heap = lb + 1 > 64;
    int *prev2 = heap ? xcalloc(lb + 1, sizeof *prev2) : stack[0];
    int *prev = heap ? xcalloc(lb + 1, sizeof *prev) : stack[1];
    int *cur = heap ? xcalloc(lb + 1, sizeof *cur) : stack[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            int d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    int d = prev[lb];
    if (heap) {
        free(prev2);
        free(prev);
        free(cur);
    }
    return d;
}

void suggest_init(struct suggest *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->dist = 0;
}

void suggest_add(struct suggest *s, const char *cand)
{
    size_t lw = strlen(s->word), lc = strlen(cand);
    if ((lw > lc ? lw - lc : lc - lw) > SUGGEST_MAX_DIST)
        return;
    int d = suggest_distance(s->word, cand);
    if (d > 0 && (!s->best || d < s->dist)) {
        s->best = cand;
        s->dist = d;
    }
}

const char *suggest_result(const struct suggest *s)
{
    int max = strlen(s->word) < 6 ? 1 : SUGGEST_MAX_DIST;
    return s->best && s->dist <= max ? s->best : NULL;
}
