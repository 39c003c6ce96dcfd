/* fpenv.h - the floating-point environment kernel code runs in (x86-64).
 *
 * Generated code never changes the rounding mode or flush-to-zero state:
 * directed rounding and .ftz are computed in software.  So the runtime
 * sets MXCSR and the x87 control word to the ABI defaults (round to
 * nearest, exceptions masked, no FTZ/DAZ) once: pool threads when they
 * start, a launching thread (a worker of its own launch) for the length of
 * the launch, after which whatever mode its host code chose comes back,
 * with its exception flags.  The fiber switch leaves them alone.  Not per
 * chunk of CTAs: reading MXCSR there measured ~60 ns, 2 us of an empty
 * 32-CTA launch. */
#ifndef RT_FPENV_H
#define RT_FPENV_H

#include <stdint.h>

#define RT_MXCSR_DEFAULT 0x1F80u
#define RT_X87_CW_DEFAULT 0x037Fu

typedef struct rt_fpenv {
    uint32_t mxcsr;
    uint16_t x87_cw;
} rt_fpenv;

static inline void rt_fpenv_set_default(void)
{
    uint32_t m = RT_MXCSR_DEFAULT;
    uint16_t cw = RT_X87_CW_DEFAULT;
    __asm__ volatile("ldmxcsr %0" : : "m"(m));
    __asm__ volatile("fldcw %0" : : "m"(cw));
}

/* Saves the caller's environment in *host and installs the defaults.  The
 * loads are skipped when already in place: ldmxcsr costs more than a read. */
static inline void rt_fpenv_enter(rt_fpenv *host)
{
    __asm__ volatile("stmxcsr %0" : "=m"(host->mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(host->x87_cw));
    if (host->mxcsr != RT_MXCSR_DEFAULT) {
        uint32_t m = RT_MXCSR_DEFAULT;
        __asm__ volatile("ldmxcsr %0" : : "m"(m));
    }
    if (host->x87_cw != RT_X87_CW_DEFAULT) {
        uint16_t cw = RT_X87_CW_DEFAULT;
        __asm__ volatile("fldcw %0" : : "m"(cw));
    }
}

/* Puts back what rt_fpenv_enter saved (kernel exception flags dropped). */
static inline void rt_fpenv_leave(const rt_fpenv *host)
{
    uint32_t m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    if (m != host->mxcsr)
        __asm__ volatile("ldmxcsr %0" : : "m"(host->mxcsr));
    if (host->x87_cw != RT_X87_CW_DEFAULT)
        __asm__ volatile("fldcw %0" : : "m"(host->x87_cw));
}

#endif
