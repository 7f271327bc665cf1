/* suggest: "did you mean ...?" for a mistyped name.
 *
 * The closest of a set of candidates by optimal string alignment distance
 * (Levenshtein plus adjacent transpositions: 'idel' is one edit from
 * 'idle'), accepted only when it is close enough to be a typo rather than
 * another word: one edit for names under six characters, two above. */
#ifndef PMLAB_UTIL_SUGGEST_H
#define PMLAB_UTIL_SUGGEST_H

#include <stddef.h>

struct suggest {
    const char *word;        /* what was typed */
    const char *best;        /* the closest candidate so far, or NULL */
    int dist;
};

/* Start looking for the candidate closest to word. */
void suggest_init(struct suggest *s, const char *word);
/* Consider cand (must outlive s). '-' and '_' count as the same character,
 * as in kernel parameter names. */
void suggest_add(struct suggest *s, const char *cand);
/* The closest candidate if it is close enough, else NULL. */
const char *suggest_result(const struct suggest *s);

#endif
