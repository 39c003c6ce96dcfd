// link_lib_add.cu - relocatable device code for the CU_JIT_INPUT_LIBRARY and
// CU_JIT_INPUT_OBJECT fixtures (scripts/gen-fatbin-fixtures.sh).
__device__ int add_twice(int a, int b) { return a + 2 * b; }
