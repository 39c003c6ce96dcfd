/* cache_cmd.h - the `ptxjit cache` command. */
#ifndef PTXJIT_CLI_CACHE_CMD_H
#define PTXJIT_CLI_CACHE_CMD_H

/* argv[0] is "cache", argv[1] "stats" or "clear"; returns the process exit
 * code (0, or 2 for a usage error or an unreadable directory). */
int cmd_cache(int argc, char **argv);

#endif
