// The Trainium attention example (examples/attention_trn1.mlir) as an NKI kernel (issue 30): Q d-major and K^T
// arrive by plain loads with d on the partitions (rank-reducing slices index the head); a head's K^T and V are
// loaded once into SBUF (V's rows as 4 blocks side by side, loaded by an affine loop, each iteration its own
// block) and the K/V loop reads slices of them that move with the loop; the K/V loop is software-pipelined (the
// next tile's scores on the Tensor Engine before this tile's softmax), its softmax a helper function called in
// the loop and in the epilogue; the scores' PSUM tile is one nc_matmul; the online softmax runs on [128, 1] tiles broadcast along the free axis; the copy of P to a
// layout with the keys on the partitions is a Tensor Engine transpose; the K/V loop carries m, l and the
// accumulator, so it is sequential while the head and query loops are affine. The emitted file is checked in
// (examples/trn/attention_trn1.py); the Python tests run it on the NKI interpreter against numpy.
// RUN: axe-translate --emit=nki %examples/attention_trn1.mlir | FileCheck %s
// RUN: axe-translate --emit=nki %examples/attention_trn1.mlir | diff - %examples/trn/attention_trn1.py

// The K/V tile's softmax is a private function: a plain Python helper that writes the caller's tiles in place.
// CHECK:      def online_softmax(s, v_all, j, m, l, acc):
// CHECK-NEXT:     tile_max = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
// CHECK-NEXT:     tile_max[...] = nl.max(s, axis=1, keepdims=True, dtype=nl.float32)
// CHECK:          p[...] = nl.subtract(s, m_new, dtype=nl.float32)
// CHECK-NEXT:     p[...] = nl.exp(p, dtype=nl.float32)
// CHECK:          pt[...] = nl.copy(nisa.nc_transpose(p16), dtype=nl.float16)
// CHECK-NEXT:     pv = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
// CHECK-NEXT:     pv[...] = nisa.nc_matmul(pt, v_all[0:128, j * 64 : j * 64 + 64])
// CHECK:          acc[...] = nl.add(acc, pv, dtype=nl.float32)
// CHECK:      @nki.jit
// CHECK-NEXT: def attention_trn1(q, kt, v):
// CHECK:      o = nl.ndarray((2, 512, 64), dtype=nl.float16, buffer=nl.shared_hbm)
// CHECK-NEXT: for h in nl.affine_range(2):
// CHECK-NEXT:     k_all = nl.ndarray((64, 512), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:     k_all[...] = nl.load(kt[h, 0:64, 0:512])
// CHECK-NEXT:     v_all = nl.ndarray((128, 256), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:     for b in nl.affine_range(4):
// CHECK-NEXT:         v_all[0:128, b * 64 : b * 64 + 64] = nl.load(v[h, b * 128 : b * 128 + 128, 0:64])
// CHECK-NEXT:     for i in nl.affine_range(4):
// CHECK-NEXT:         q_tile = nl.ndarray((64, 128), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:         q_tile[...] = nl.load(q[h, 0:64, i * 128 : i * 128 + 128])
// CHECK-NEXT:         m = nl.full((128, 1), -3e38, dtype=nl.float32, buffer=nl.sbuf)
// The pipeline: tile 0's scores first; then per tile, its scores leave PSUM, the next tile's are computed into
// it ({accumulate = false}: the nc_matmul overwrites), and the softmax runs; the last tile's softmax after.
// CHECK:              scores = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
// CHECK-NEXT:         scores[...] = nisa.nc_matmul(q_tile, k_all[0:64, 0:128])
// CHECK-NEXT:         for j in nl.sequential_range(3):
// CHECK-NEXT:             s = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
// CHECK-NEXT:             s[...] = nl.multiply(scores, 0.125, dtype=nl.float32)
// CHECK-NEXT:             scores[...] = nisa.nc_matmul(q_tile, k_all[0:64, (j + 1) * 128 : (j + 1) * 128 + 128])
// CHECK-NEXT:             online_softmax(s, v_all, j, m, l, acc)
// CHECK-NEXT:         s_last = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
// CHECK-NEXT:         s_last[...] = nl.multiply(scores, 0.125, dtype=nl.float32)
// CHECK-NEXT:         online_softmax(s_last, v_all, 3, m, l, acc)
// CHECK-NEXT:         out = nl.ndarray((128, 64), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:         out[...] = nl.divide(acc, l, dtype=nl.float16)
// CHECK-NEXT:         nl.store(o[h, i * 128 : i * 128 + 128, 0:64], value=out)
// CHECK-NEXT: return o
