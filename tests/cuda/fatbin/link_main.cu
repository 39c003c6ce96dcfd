// link_main.cu - a kernel calling device functions defined in a static
// library of relocatable device code (linklib.rdc.a): link_main.rdc.sm_80.ptx.
// out[i] = mul_three(add_twice(in[i], i))
__device__ int add_twice(int a, int b);
__device__ int mul_three(int a);

extern "C" __global__ void combine(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = mul_three(add_twice(in[i], i));
}
