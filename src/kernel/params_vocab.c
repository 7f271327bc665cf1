/* params_vocab: the names of every documented kernel parameter
 * (params_vocab.def says from which file and kernel), so that a real
 * parameter pmlab does not model is told apart from a word the kernel does
 * not know, and a typo gets the nearest real name. */
#include "kernel/params.h"

#include <stdbool.h>
#include <string.h>

#include "util/suggest.h"

static const char *const kparam_vocab[] = {
#include "kernel/params_vocab.def"
};

#define KPARAM_VOCAB_N (sizeof kparam_vocab / sizeof kparam_vocab[0])

/* The kernel's parameq(): '-' and '_' are the same character. */
static bool kparam_vocab_char_eq(char a, char b)
{
    return (a == '-' ? '_' : a) == (b == '-' ? '_' : b);
}

/* The first n characters of a and b are the same (both at least n long). */
static bool kparam_vocab_eq_n(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!a[i] || !b[i] || !kparam_vocab_char_eq(a[i], b[i]))
            return false;
    return true;
}

static bool kparam_vocab_eq(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strlen(b) == n && kparam_vocab_eq_n(a, b, n);
}

/* Whether name is entry: a name, "*.X" (X of any module) or "MOD.*" (any
 * parameter of MOD). */
static bool kparam_vocab_match(const char *entry, const char *name)
{
    size_t n = strlen(entry);
    const char *dot = strchr(name, '.');
    if (entry[0] == '*' && entry[1] == '.')
        return dot && kparam_vocab_eq(entry + 2, dot + 1);
    if (n >= 2 && entry[n - 2] == '.' && entry[n - 1] == '*')
        return dot && (size_t)(dot - name) == n - 2 && kparam_vocab_eq_n(entry, name, n - 2);
    return kparam_vocab_eq(entry, name);
}

bool kparam_vocab_known(const char *name)
{
    for (size_t i = 0; i < KPARAM_VOCAB_N; i++)
        if (kparam_vocab_match(kparam_vocab[i], name))
            return true;
    return false;
}

void kparam_vocab_suggest(struct suggest *s, const char *module, size_t modlen)
{
    for (size_t i = 0; i < KPARAM_VOCAB_N; i++) {
        const char *e = kparam_vocab[i];
        if (strchr(e, '*'))
            continue;
        if (module ? strncmp(e, module, modlen) == 0 && e[modlen] == '.' : !strchr(e, '.'))
            suggest_add(s, e);
    }
}
