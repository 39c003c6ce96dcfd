/* cache_config.c - where the cache lives and how large it may grow, from
 * the environment. */
#include "cache.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cache_parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    static const char units[] = "KMGT";
    int up = *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s;
    const char *u = up ? strchr(units, up) : NULL;
    unsigned shift = 0;
    if (u) {
        shift = 10 * (unsigned)(u - units + 1);
        s++;
        if (*s == 'i')
            s++;
    }
    if (*s == 'B' || *s == 'b')
        s++;
    if (*s || v == 0 || v > UINT64_MAX >> shift)
        return -1;
    *out = v << shift;
    return 0;
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

/* $HOME, else the password database (getpwuid_r: contexts may be created
 * on several threads). */
static const char *home_dir(char *buf, size_t len)
{
    const char *h = getenv("HOME");
    if (h && *h)
        return h;
    struct passwd pw, *res = NULL;
    if (getpwuid_r(getuid(), &pw, buf, len, &res) || !res || !pw.pw_dir || !*pw.pw_dir)
        return NULL;
    return pw.pw_dir;
}

/* PTXJIT_CACHE_PATH, else $XDG_CACHE_HOME/ptxjit, else ~/.cache/ptxjit;
 * dir stays NULL without a home directory. */
static int locate(cache_config *cfg)
{
    const char *p = getenv("PTXJIT_CACHE_PATH");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home;
    char pwbuf[4096];
    if (p && *p)
        cfg->dir = strdup(p);
    else if (xdg && xdg[0] == '/')
        cfg->dir = join(xdg, "/ptxjit");
    else if ((home = home_dir(pwbuf, sizeof pwbuf)))
        cfg->dir = join(home, "/.cache/ptxjit");
    else
        return 0;
    return cfg->dir ? 0 : -1;
}

int cache_config_from_env(cache_config *cfg, char *warn, size_t warnlen)
{
    *cfg = (cache_config){.enabled = true, .max_bytes = CACHE_DEFAULT_MAX_BYTES};
    if (warnlen)
        warn[0] = 0;
    const char *off = getenv("PTXJIT_CACHE_DISABLE");
    cfg->enabled = !(off && *off && strcmp(off, "0"));
    const char *max = getenv("PTXJIT_CACHE_MAXSIZE");
    if (max && *max && cache_parse_size(max, &cfg->max_bytes)) {
        cfg->max_bytes = CACHE_DEFAULT_MAX_BYTES;
        snprintf(warn, warnlen, "PTXJIT_CACHE_MAXSIZE='%s' is not a size such as 268435456, "
                 "512K, 64M or 1G; using 256M", max);
    }
    return locate(cfg);
}

void cache_config_free(cache_config *cfg)
{
    free(cfg->dir);
    cfg->dir = NULL;
}
