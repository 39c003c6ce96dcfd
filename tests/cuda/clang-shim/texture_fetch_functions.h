/* Empty stand-in for a header that CUDA 13 removed but clang's
 * __clang_cuda_runtime_wrapper.h (clang <= 19) still includes. Used only by
 * scripts/gen-fixtures.sh for clang CUDA device-only compiles; the fixture
 * sources use no texture functions. */
