/* rt_version.c - the runtime's version string (keeps the library non-empty
 * while its parts land one file at a time). */
const char *rt_version(void) { return PTXJIT_VERSION; }
