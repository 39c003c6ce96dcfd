// link_lib_mul.cu - the second member of linklib.rdc.a (scripts/gen-fatbin-fixtures.sh).
__device__ int mul_three(int a) { return 3 * a; }
