/* run.h - the `ptxjit run` command. */
#ifndef PTXJIT_CLI_RUN_H
#define PTXJIT_CLI_RUN_H

/* argv[0] is "run"; returns the process exit code (0, 1 or 2). */
int cmd_run(int argc, char **argv);

#endif
