// The Trainium GEMM example (examples/gemm_trn1.mlir) as an NKI kernel (issue 30): the hbm arguments it only reads
// are the kernel's parameters, the one it writes (C) is allocated in shared HBM and returned; A's K-major layout in
// HBM makes its tiles plain loads with K first (the partition dimension); each gemm is the planner's one
// 128x128x512 nc_matmul accumulating into the PSUM tile, which the fill before the K loop zeroes; the K loop and
// the tile loops are affine (iterations only accumulate into PSUM). The emitted file is checked in
// (examples/trn/gemm_trn1.py) and is what this prints, byte for byte; the Python tests run it on the NKI
// interpreter against numpy.
// RUN: axe-translate --emit=nki %examples/gemm_trn1.mlir | FileCheck %s
// RUN: axe-translate --emit=nki %examples/gemm_trn1.mlir | diff - %examples/trn/gemm_trn1.py
// The module's target chooses the output when --emit is not given; asking a trn1 module for PTX is an error.
// RUN: axe-translate %examples/gemm_trn1.mlir | diff - %examples/trn/gemm_trn1.py
// RUN: not axe-translate --emit=ptx %examples/gemm_trn1.mlir 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: axe-translate: error: the module's axe.target is "trn1", a Trainium chip: it translates to NKI (--emit=nki), not ptx

// CHECK:      import neuronxcc.nki as nki
// CHECK:      @nki.jit
// CHECK-NEXT: def gemm_trn1(a, b):
// CHECK-NEXT:     assert a.shape == (1024, 1024), "a must be (1024, 1024)"
// CHECK-NEXT:     assert b.shape == (1024, 2048), "b must be (1024, 2048)"
// CHECK-NEXT:     c = nl.ndarray((1024, 2048), dtype=nl.float16, buffer=nl.shared_hbm)
// CHECK-NEXT:     for i in nl.affine_range(8):
// CHECK-NEXT:         for j in nl.affine_range(4):
// CHECK-NEXT:             acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
// CHECK-NEXT:             for k in nl.affine_range(8):
// CHECK-NEXT:                 sa = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:                 sb = nl.ndarray((128, 512), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:                 sa[...] = nl.load(a[k * 128 : k * 128 + 128, i * 128 : i * 128 + 128])
// CHECK-NEXT:                 sb[...] = nl.load(b[k * 128 : k * 128 + 128, j * 512 : j * 512 + 512])
// CHECK-NEXT:                 acc += nisa.nc_matmul(sa, sb)
// CHECK-NEXT:             out = nl.ndarray((128, 512), dtype=nl.float16, buffer=nl.sbuf)
// CHECK-NEXT:             out[...] = nl.copy(acc, dtype=nl.float16)
// CHECK-NEXT:             nl.store(c[i * 128 : i * 128 + 128, j * 512 : j * 512 + 512], value=out)
// CHECK-NEXT:     return c
