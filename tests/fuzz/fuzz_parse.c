/* fuzz_parse.c - libFuzzer target for the PTX frontend.  Any input must
 * parse (or fail) without crashing; an input that is clean must print,
 * re-parse cleanly and compare equal: a round-trip oracle. */
#include "ptx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ptx_diags d = {0};
    ptx_module *m = ptx_parse((const char *)data, size, "fuzz.ptx", &d);
    if (m && d.n == 0)
        ptx_check(m, &d);
    if (m && d.n == 0 && !d.dropped) {
        char *text = ptx_print(m);
        if (text) {
            ptx_diags d2 = {0};
            ptx_module *m2 = ptx_parse(text, strlen(text), "printed.ptx", &d2);
            if (m2 && d2.n == 0)
                ptx_check(m2, &d2);
            char why[256];
            if (!m2 || d2.n) {
                fprintf(stderr, "round trip: printed module has errors: %s\n%s\n",
                        d2.n ? d2.v[0].msg : "out of memory", text);
                abort();
            }
            if (!ptx_module_equal(m, m2, why, sizeof why)) {
                fprintf(stderr, "round trip: %s\n%s\n", why, text);
                abort();
            }
            ptx_module_free(m2);
            ptx_diags_free(&d2);
            free(text);
        }
    }
    ptx_module_free(m);
    ptx_diags_free(&d);
    return 0;
}
