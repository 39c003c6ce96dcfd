"""test_cu_numba.py - numba 0.56 (Debian's python3-numba, a CUDA-12-era
client) runs its CUDA kernels on ptxjit's libcuda.so.1 under
PTXJIT_CUDA_ABI=12: shared memory and barriers, atomics, math functions
and streams, each checked against numpy.  Exits 77 (skipped) without
numba or without the toolkit's libNVVM, which numba compiles Python to PTX
with.

Harness, not ptxjit: numba looks for CUDA_HOME/nvvm/lib64/libnvvm.so and
CUDA_HOME/nvvm/libdevice, so a CUDA_HOME of links is made in a temporary
directory; numba 0.56 writes NVVM IR metadata version 1.6 where CUDA 13's
libNVVM wants its own (2.0), so the version written is the library's."""
import atexit
import glob
import math
import os
import shutil
import sys
import tempfile


def skip(why):
    print("skipped: " + why)
    sys.exit(77)


def find_first(patterns):
    for p in patterns:
        hits = sorted(glob.glob(p))
        if hits:
            return hits[0]
    return None


cuda_root = os.environ.get("CUDA_PATH", "/usr/local/cuda")
nvvm = find_first([cuda_root + "/nvvm/lib64/libnvvm.so*", cuda_root + "/lib64/libnvvm.so*",
                   "/usr/local/cuda-*/lib/libnvvm.so*", "/usr/local/cuda-*/nvvm/lib64/libnvvm.so*"])
libdevice = find_first([cuda_root + "/nvvm/libdevice"])
cudart = find_first([cuda_root + "/lib64/libcudart.so*"])
if not (nvvm and libdevice and cudart):
    skip("no libNVVM, libdevice or libcudart under %s (CUDA toolkit absent)" % cuda_root)

home = tempfile.mkdtemp(prefix="ptxjit-numba-")
atexit.register(shutil.rmtree, home, True)
os.makedirs(home + "/nvvm/lib64")
os.makedirs(home + "/lib64")
os.symlink(nvvm, home + "/nvvm/lib64/libnvvm.so")
os.symlink(libdevice, home + "/nvvm/libdevice")
os.symlink(cudart, home + "/lib64/libcudart.so")
os.environ["CUDA_HOME"] = home

try:
    import numpy as np
    from llvmlite import ir
    from numba import cuda
    from numba.cuda.cudadrv import nvvm as numba_nvvm
except ImportError as e:
    skip("numba is not installed (%s)" % e)


def add_ir_version(mod):
    i32 = ir.IntType(32)
    version = numba_nvvm.NVVM().get_ir_version()
    mod.add_named_metadata("nvvmir.version", mod.add_metadata([i32(v) for v in version]))


numba_nvvm.add_ir_version = add_ir_version

failures = 0


def check(name, ok):
    global failures
    print(("ok " if ok else "FAILED ") + name)
    failures += not ok


@cuda.jit
def block_sums(x, out):
    """Each block's sum through a shared-memory tree reduction."""
    s = cuda.shared.array(128, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


@cuda.jit
def math_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i])


@cuda.jit
def scale(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= a


n = 1000
x = (np.arange(n, dtype=np.float32) % 17) * 0.25
out = cuda.device_array((n + 127) // 128, dtype=np.float32)
block_sums[(n + 127) // 128, 128](cuda.to_device(x), out)
want = [x[b * 128:(b + 1) * 128].sum() for b in range((n + 127) // 128)]
check("shared_memory", np.allclose(out.copy_to_host(), want, rtol=1e-6))

v = np.arange(5000, dtype=np.int32) * 7
bins = cuda.to_device(np.zeros(16, dtype=np.int32))
histogram[40, 128](cuda.to_device(v), bins)
check("atomics", (bins.copy_to_host() == np.bincount(v % 16, minlength=16)).all())

y = np.linspace(0.0, 10.0, 777).astype(np.float64)
got = cuda.device_array_like(y)
math_kernel[7, 128](cuda.to_device(y), got)
check("math", np.allclose(got.copy_to_host(), np.sin(y) * np.exp(-y) + np.sqrt(y), rtol=1e-12))

stream = cuda.stream()
z = np.arange(4096, dtype=np.float32)
dz = cuda.to_device(z, stream=stream)
scale[32, 128, stream](dz, 3.0)
back = dz.copy_to_host(stream=stream)
stream.synchronize()
check("streams", (back == z * 3.0).all())

print("PASSED" if not failures else "FAILED")
sys.exit(1 if failures else 0)
