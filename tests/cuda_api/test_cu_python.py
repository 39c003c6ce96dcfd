#!/usr/bin/env python3
"""test_cu_python.py - a Python program that dlopens libcuda.so.1 the way
Python bindings do (ctypes, found through LD_LIBRARY_PATH), resolves entry
points with cuGetProcAddress_v2 as CUDA 12+ bindings do, loads vec_add from
the PTX corpus and checks c = a + b against Python's own sums.

usage: test_cu_python.py TESTS_DIR   (exit 77 when python3 lacks ctypes)
"""
import os
import sys

try:
    import ctypes
    from ctypes import byref, c_char_p, c_float, c_int, c_uint, c_uint64, c_void_p
except ImportError:
    print("skipped: python3 has no ctypes")
    sys.exit(77)

tests = sys.argv[1]
cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        name = c_char_p()
        cuda.cuGetErrorName(rc, byref(name))
        raise SystemExit(f"{what}: {name.value.decode() if name.value else rc}")


check(cuda.cuInit(0), "cuInit")
version = c_int()
check(cuda.cuDriverGetVersion(byref(version)), "cuDriverGetVersion")
assert version.value == 13000, version.value

# Entry points by name, as the bindings find them.
PROTO = ctypes.CFUNCTYPE(c_int, ctypes.POINTER(c_uint64), ctypes.c_size_t)
fn = c_void_p()
status = c_int()
check(cuda.cuGetProcAddress_v2(b"cuMemAlloc", byref(fn), 12000, c_uint64(0), byref(status)),
      "cuGetProcAddress_v2")
mem_alloc = PROTO(fn.value)

dev = c_int()
check(cuda.cuDeviceGet(byref(dev), 0), "cuDeviceGet")
name = ctypes.create_string_buffer(256)
check(cuda.cuDeviceGetName(name, 256, dev), "cuDeviceGetName")
assert name.value.startswith(b"ptxjit"), name.value
ctx = c_void_p()
check(cuda.cuDevicePrimaryCtxRetain(byref(ctx), dev), "cuDevicePrimaryCtxRetain")
check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

with open(os.path.join(tests, "ptx", "corpus", "vector_ops.sm_80.ptx"), "rb") as f:
    ptx = f.read() + b"\0"
mod = c_void_p()
check(cuda.cuModuleLoadData(byref(mod), ptx), "cuModuleLoadData")
func = c_void_p()
check(cuda.cuModuleGetFunction(byref(func), mod, b"vec_add"), "cuModuleGetFunction")

n = 1000
a = (c_float * n)(*[i * 0.25 for i in range(n)])
b = (c_float * n)(*[100.0 - i for i in range(n)])
c = (c_float * n)()
size = ctypes.sizeof(a)
da, db, dc = c_uint64(), c_uint64(), c_uint64()
for d in (da, db, dc):
    check(mem_alloc(byref(d), size), "cuMemAlloc")
check(cuda.cuMemcpyHtoD_v2(da, a, ctypes.c_size_t(size)), "cuMemcpyHtoD")
check(cuda.cuMemcpyHtoD_v2(db, b, ctypes.c_size_t(size)), "cuMemcpyHtoD")
count = c_int(n)
params = (c_void_p * 4)(*[ctypes.cast(byref(x), c_void_p) for x in (da, db, dc, count)])
check(cuda.cuLaunchKernel(func, c_uint(4), c_uint(1), c_uint(1), c_uint(256), c_uint(1),
                          c_uint(1), c_uint(0), c_void_p(0), params, c_void_p(0)),
      "cuLaunchKernel")
check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
check(cuda.cuMemcpyDtoH_v2(c, dc, ctypes.c_size_t(size)), "cuMemcpyDtoH")
for i in range(n):
    want = c_float(a[i] + b[i]).value
    assert c[i] == want, (i, c[i], want)
for d in (da, db, dc):
    check(cuda.cuMemFree_v2(d), "cuMemFree")
check(cuda.cuModuleUnload(mod), "cuModuleUnload")
check(cuda.cuDevicePrimaryCtxRelease_v2(dev), "cuDevicePrimaryCtxRelease")
print("ok: vec_add through ctypes, %d elements" % n)
