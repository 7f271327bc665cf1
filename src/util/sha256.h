/* sha256: SHA-256 digests as hex text (nettle), for provenance: a sweep's
 * identity, the configuration a run records (scenario/scenario.h). */
#ifndef PMLAB_UTIL_SHA256_H
#define PMLAB_UTIL_SHA256_H

#include <stddef.h>

/* The SHA-256 of the file at path, as 64 hex digits into hex[65]; "" when
 * it cannot be read. */
void sha256_file_hex(const char *path, char hex[65]);
/* The SHA-256 of text[0..len), as 64 hex digits into hex[65]. */
void sha256_text_hex(const char *text, size_t len, char hex[65]);

#endif
