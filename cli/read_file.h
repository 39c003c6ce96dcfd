/* read_file.h - reading a whole input file for the ptxjit command. */
#ifndef PTXJIT_CLI_READ_FILE_H
#define PTXJIT_CLI_READ_FILE_H

#include <stddef.h>

/* Reads a whole file, or standard input for "-"; NULL with errno set on
 * failure (EFBIG: more than max bytes, read no further).  The caller
 * frees the result. */
char *cli_read_file(const char *path, size_t max, size_t *len);

#endif
