/* jsonerr: see jsonerr.h. */
#include "util/jsonerr.h"

#include <stdio.h>
#include <string.h>

void json_error_quiet(const char *text, char *out, size_t size)
{
    const char *near = strstr(text, " near '");
    if (!near || strstr(text, "duplicate"))
        snprintf(out, size, "%s", text);
    else
        snprintf(out, size, "%.*s", (int)(near - text), text);
}
