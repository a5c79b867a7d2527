"""Emitted by `axe-translate --emit=nki` from attention_trn1.mlir (Axe) for trn1. Regenerate it; do not edit it.

Run with the AWS Neuron SDK (neuronx-cc) on a trn1 instance: call a kernel on XLA tensors from PyTorch
(torch_neuronx) or JAX, where @nki.jit compiles it, or on numpy arrays without a device:
nki.simulate_kernel(attention_trn1, *arrays).

attention_trn1: arguments and results in device memory (HBM), as numpy-like arrays:
  q: (2, 64, 512) float16 holding the [2, 512, 64] tensor with its dimensions in the order [0, 2, 1]
  kt: (2, 64, 512) float16
  v: (2, 512, 64) float16
  o: (2, 512, 64) float16 (returned)
"""

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def online_softmax(s, v_all, j, m, l, acc):
    tile_max = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    tile_max[...] = nl.max(s, axis=1, keepdims=True, dtype=nl.float32)
    m_new = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    m_new[...] = nl.maximum(m, tile_max, dtype=nl.float32)
    p = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    p[...] = nl.subtract(s, m_new, dtype=nl.float32)
    p[...] = nl.exp(p, dtype=nl.float32)
    correction = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    correction[...] = nl.subtract(m, m_new, dtype=nl.float32)
    correction[...] = nl.exp(correction, dtype=nl.float32)
    row_sum = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    row_sum[...] = nl.sum(p, axis=1, keepdims=True, dtype=nl.float32)
    l[...] = nl.multiply(l, correction, dtype=nl.float32)
    l[...] = nl.add(l, row_sum, dtype=nl.float32)
    m[...] = nl.copy(m_new)
    p16 = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
    p16[...] = nl.copy(p, dtype=nl.float16)
    pt = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
    pt[...] = nl.copy(nisa.nc_transpose(p16), dtype=nl.float16)
    pv = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
    pv[...] = nisa.nc_matmul(pt, v_all[0:128, j * 64 : j * 64 + 64])
    acc[...] = nl.multiply(acc, correction, dtype=nl.float32)
    acc[...] = nl.add(acc, pv, dtype=nl.float32)


@nki.jit
def attention_trn1(q, kt, v):
    assert q.shape == (2, 64, 512), "q must be (2, 64, 512)"
    assert kt.shape == (2, 64, 512), "kt must be (2, 64, 512)"
    assert v.shape == (2, 512, 64), "v must be (2, 512, 64)"
    o = nl.ndarray((2, 512, 64), dtype=nl.float16, buffer=nl.shared_hbm)
    for h in nl.affine_range(2):
        k_all = nl.ndarray((64, 512), dtype=nl.float16, buffer=nl.sbuf)
        k_all[...] = nl.load(kt[h, 0:64, 0:512])
        v_all = nl.ndarray((128, 256), dtype=nl.float16, buffer=nl.sbuf)
        for b in nl.affine_range(4):
            v_all[0:128, b * 64 : b * 64 + 64] = nl.load(v[h, b * 128 : b * 128 + 128, 0:64])
        for i in nl.affine_range(4):
            q_tile = nl.ndarray((64, 128), dtype=nl.float16, buffer=nl.sbuf)
            q_tile[...] = nl.load(q[h, 0:64, i * 128 : i * 128 + 128])
            m = nl.full((128, 1), -3e38, dtype=nl.float32, buffer=nl.sbuf)
            l = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            scores = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            scores[...] = nisa.nc_matmul(q_tile, k_all[0:64, 0:128])
            for j in nl.sequential_range(3):
                s = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
                s[...] = nl.multiply(scores, 0.125, dtype=nl.float32)
                scores[...] = nisa.nc_matmul(q_tile, k_all[0:64, (j + 1) * 128 : (j + 1) * 128 + 128])
                online_softmax(s, v_all, j, m, l, acc)
            s_last = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
            s_last[...] = nl.multiply(scores, 0.125, dtype=nl.float32)
            online_softmax(s_last, v_all, 3, m, l, acc)
            out = nl.ndarray((128, 64), dtype=nl.float16, buffer=nl.sbuf)
            out[...] = nl.divide(acc, l, dtype=nl.float16)
            nl.store(o[h, i * 128 : i * 128 + 128, 0:64], value=out)
    return o
