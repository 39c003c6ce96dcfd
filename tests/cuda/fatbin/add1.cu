// add1.cu - the smallest useful kernel, compiled into the fatbin fixtures
// (scripts/gen-fatbin-fixtures.sh): x[i] += 1 for i < n.
extern "C" __global__ void add1(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}
