/* sha256: see sha256.h. */
#include "util/sha256.h"

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static void sha256_hex_of(struct sha256_ctx *ctx, char hex[65])
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void sha256_file_hex(const char *path, char hex[65])
{
    hex[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    uint8_t buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&ctx, n, buf);
    bool bad = ferror(f);
    fclose(f);
    if (!bad)
        sha256_hex_of(&ctx, hex);
}

void sha256_text_hex(const char *text, size_t len, char hex[65])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, (const uint8_t *)text);
    sha256_hex_of(&ctx, hex);
}
