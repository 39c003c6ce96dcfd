/* test_cu_signal_chain.c - fault containment in a host that handles
 * SIGSEGV itself, as the JVM and many language runtimes do: the program
 * takes faults of its own on purpose (here: a guard page it unprotects)
 * while kernels run, and its handler re-arms itself (signal() style, or
 * SA_RESETHAND) from inside.  The program's faults must reach its handler,
 * and the kernel's faults must stay ours - CUDA_ERROR_ILLEGAL_ADDRESS, and
 * the program's handler never sees them - before, during and after. */
#include "cu_test.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* spin_then_poke(p, n): every thread counts to n, then stores to p. */
static const char spin_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry spin_then_poke(.param .u64 p, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [p];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "    add.u32 %r2, %r2, 1;\n"
    "    setp.lt.u32 %p1, %r2, %r1;\n"
    "    @%p1 bra LOOP;\n"
    "    st.global.u32 [%rd1], %r2;\n"
    "    ret;\n"
    "}\n";

typedef enum rearm { KEEP, REARM_SIGACTION, RESETHAND } rearm;

static char *guard;                 /* the program's own faulting page */
static atomic_int own_faults, foreign_faults;
static rearm style;

static void install_host_handler(void);

static void host_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (style != KEEP)
        install_host_handler(); /* re-arms itself from inside, as many runtimes do */
    char *a = si->si_addr;
    if (a >= guard && a < guard + 4096) {
        atomic_fetch_add(&own_faults, 1);
        mprotect(guard, 4096, PROT_READ | PROT_WRITE);
        return;
    }
    /* a fault that is not the program's: it would have crashed */
    atomic_fetch_add(&foreign_faults, 1);
    static const char msg[] = "test: the program's handler got a fault that is not its own\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(3);
}

static void install_host_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = host_handler;
    sa.sa_flags = SA_SIGINFO | (style == RESETHAND ? SA_RESETHAND : 0);
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
}

/* The program's own fault: touch the guard page. */
static void own_fault(void)
{
    int before = atomic_load(&own_faults);
    mprotect(guard, 4096, PROT_NONE);
    ((volatile char *)guard)[0] = 1;
    assert_int_equal(atomic_load(&own_faults), before + 1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* One launch of spin_then_poke in a fresh context; the program faults on
 * its own while the kernel spins; the kernel then faults (bad) or not. */
static void launch_with_own_fault(CUdeviceptr target, bool bad)
{
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadData(&m, spin_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "spin_then_poke"));
    CUdeviceptr ok;
    CU_OK(cuMemAlloc(&ok, 64));
    unsigned n = 1;
    void *warm[] = {&ok, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, warm, NULL)); /* compiled now */
    CU_OK(cuCtxSynchronize());
    CUdeviceptr p = bad ? target : ok;
    n = 2000000;
    void *args[] = {&p, &n};
    CU_OK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    sleep_ms(5);
    own_fault(); /* while the kernel runs */
    CU_EXPECT(bad ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS, cuCtxSynchronize());
    own_fault(); /* and after */
    CU_OK(cuCtxDestroy(c));
}

static void scenario(rearm s)
{
    style = s;
    install_host_handler();
    own_fault();
    for (int i = 0; i < 2; i++) {
        launch_with_own_fault(0x10, true);
        launch_with_own_fault(0, false);
    }
    assert_int_equal(atomic_load(&foreign_faults), 0);
}

static void test_handler_kept(void **state)
{
    (void)state;
    scenario(KEEP);
}

static void test_handler_rearms_itself(void **state)
{
    (void)state;
    scenario(REARM_SIGACTION);
}

static void test_handler_resethand(void **state)
{
    (void)state;
    scenario(RESETHAND);
}

int main(void)
{
    guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handler_kept),
        cmocka_unit_test(test_handler_rearms_itself),
        cmocka_unit_test(test_handler_resethand),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
