"""Emitted by `axe-translate --emit=nki` from gemm_trn1.mlir (Axe) for trn1. Regenerate it; do not edit it.

Run with the AWS Neuron SDK (neuronx-cc) on a trn1 instance: call a kernel on XLA tensors from PyTorch
(torch_neuronx) or JAX, where @nki.jit compiles it, or on numpy arrays without a device:
nki.simulate_kernel(gemm_trn1, *arrays).

gemm_trn1: arguments and results in device memory (HBM), as numpy-like arrays:
  a: (1024, 1024) float16 holding the [1024, 1024] tensor transposed
  b: (1024, 2048) float16
  c: (1024, 2048) float16 (returned)
"""

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def gemm_trn1(a, b):
    assert a.shape == (1024, 1024), "a must be (1024, 1024)"
    assert b.shape == (1024, 2048), "b must be (1024, 2048)"
    c = nl.ndarray((1024, 2048), dtype=nl.float16, buffer=nl.shared_hbm)
    for i in nl.affine_range(8):
        for j in nl.affine_range(4):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(8):
                sa = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
                sb = nl.ndarray((128, 512), dtype=nl.float16, buffer=nl.sbuf)
                sa[...] = nl.load(a[k * 128 : k * 128 + 128, i * 128 : i * 128 + 128])
                sb[...] = nl.load(b[k * 128 : k * 128 + 128, j * 512 : j * 512 + 512])
                acc += nisa.nc_matmul(sa, sb)
            out = nl.ndarray((128, 512), dtype=nl.float16, buffer=nl.sbuf)
            out[...] = nl.copy(acc, dtype=nl.float16)
            nl.store(c[i * 128 : i * 128 + 128, j * 512 : j * 512 + 512], value=out)
    return c
