/* test_cu_procs.c - cuGetProcAddress against the library's own symbol
 * table: for every line of rt/cuda/procs.def (name, version, flavour,
 * exported symbol), asking for the name at that version and flavour gives
 * the address the dynamic loader gives for the symbol. */
#include "cu_test.h"

#include <dlfcn.h>

static void test_every_entry_point(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/../rt/cuda/procs.def", PTXJIT_TEST_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    char line[512], name[128], kind[32], sym[128];
    int version, checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "P(%127[^,], %d, %31[^,], %127[^)])", name, &version, kind, sym) != 4)
            continue;
        void *want = dlsym(lib, sym);
        if (!want)
            fail_msg("%s is not exported", sym);
        cuuint64_t flags = !strcmp(kind, "PER_THREAD") ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                                       : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
        void *got = NULL;
        CUdriverProcAddressQueryResult st;
        CU_OK(cuGetProcAddress(name, &got, version, flags, &st));
        if (got != want)
            fail_msg("%s at %d (%s) resolves to something other than %s", name, version, kind, sym);
        checked++;
    }
    fclose(f);
    assert_true(checked > 600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_entry_point)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
