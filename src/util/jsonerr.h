/* jsonerr: jansson's error text without the input it quotes.
 *
 * jansson ends a parse error with "near 'TOKEN'", the text it stopped at:
 * for a `file =` that is not JSON at all (a mistyped path: /etc/shadow),
 * that is the start of someone else's file, echoed into a terminal or a
 * log. The line and column say where; the token is left out, except in a
 * duplicate-key error, where it is a key of what is a JSON file. */
#ifndef PMLAB_UTIL_JSONERR_H
#define PMLAB_UTIL_JSONERR_H

#include <stddef.h>

/* text (a json_error_t's) into out[size], less its " near '...'" part. */
void json_error_quiet(const char *text, char *out, size_t size);

#endif
