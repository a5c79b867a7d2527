// Issue 23's round-trip rule for every axe op, type and attribute, corner cases included: the custom form axe-opt
// prints reads back to the same text, and the generic form of the same module (--mlir-print-op-generic) reads
// back to the same module, printed byte-identical to the custom form of the input.
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s > %t.custom
// RUN: axe-opt %t.custom | diff %t.custom -
// RUN: axe-opt --mlir-print-op-generic %s > %t.generic
// RUN: axe-opt %t.generic | diff %t.custom -
// The generic form holds no custom-form axe op (each op position reads "axe.<name>" in quotes), and writes the
// barrier index as copy_async's fourth operand segment.
// RUN: FileCheck %s --check-prefix=NOCUSTOM < %t.generic
// NOCUSTOM-NOT: {{^ *(%[^ ]+ = )?axe\.[a-z_]+}}
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic
// GENERIC: "axe.view"
// GENERIC: "axe.copy_async"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>, scope = #axe.exec<cta>}> : ({{.*}}, !axe.mbarrier<3>, index) -> ()

// Layout attributes by alias (annotate), and the three attributes on their own.
#swz = #axe.layout<Swizzle(3,3,3) o S[(8,64):(64,1)]>

module attributes {axe.mesh = {gpuid = 4 : i64}} {

// Static views of a memref and a pointer; a view of a tensor as another shape.
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[M:.*]]: memref<128x64xf16>, %[[P:.*]]: !llvm.ptr<3>)
// CHECK-NEXT: %[[G:.*]] = axe.view %[[M]] : memref<128x64xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
// CHECK-NEXT: axe.view %[[P]] : !llvm.ptr<3> -> !axe.tensor<8x64xf16, shared, Swizzle(3,3,3) o S[(8,64):(64,1)]>
// CHECK-NEXT: axe.view %[[G]] : !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]> -> !axe.tensor<64x128xf16, global, S[8192:1]>
func.func @views(%m: memref<128x64xf16>, %p: !llvm.ptr<3>) {
  %g = axe.view %m : memref<128x64xf16> -> !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
  %s = axe.view %p : !llvm.ptr<3> -> !axe.tensor<8x64xf16, shared, Swizzle(3,3,3) o S[(8,64):(64,1)]>
  %h = axe.view %g : !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]> -> !axe.tensor<64x128xf16, global, S[8192:1]>
  return
}

// Dynamic everything: run-time extents (i32 and index), multiples, every slice offset dynamic, a slice whose
// layout is left out and one with a static and a dynamic offset.
// CHECK-LABEL: func.func @dynamic_everything
// CHECK-SAME: (%[[A:[^:]*]]: !llvm.ptr<1>, %[[MM:[^:]*]]: i32, %[[KK:[^:]*]]: i32, %[[B:[^:]*]]: memref<?xf32>, %[[N:[^:]*]]: index, %[[I:[^:]*]]: index, %[[J:[^:]*]]: index)
// CHECK-NEXT: %[[D:.*]] = axe.view %[[A]](%[[MM]], %[[KK]] : i32, i32) multiples [16, 8] : !llvm.ptr<1> -> !axe.tensor<?x?xf16, global, row_major>
// CHECK-NEXT: axe.view %[[B]](%[[N]] : index) : memref<?xf32> -> !axe.tensor<?xf32, global, row_major>
// CHECK-NEXT: axe.slice %[[D]][%[[I]], %[[J]]] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>{{$}}
// CHECK-NEXT: axe.slice %[[D]][%[[I]], 64] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>{{$}}
func.func @dynamic_everything(%a: !llvm.ptr<1>, %m: i32, %k: i32, %b: memref<?xf32>, %n: index, %i: index, %j: index) {
  %d = axe.view %a(%m, %k : i32, i32) multiples [16, 8] : !llvm.ptr<1> -> !axe.tensor<?x?xf16, global, row_major>
  %e = axe.view %b(%n : index) : memref<?xf32> -> !axe.tensor<?xf32, global, row_major>
  %t = axe.slice %d[%i, %j] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>
  %u = axe.slice %d[%i, 64] [128, 64] : !axe.tensor<?x?xf16, global, row_major> to !axe.tensor<128x64xf16, global>
  return
}

// Layout corner cases: swizzle, replicas, offsets on memory and thread axes, device axes (gpuid, with the mesh
// above), tensor memory, registers; the notation's spacing (` + `, ` o `) is the printer's whatever the input's.
// CHECK-LABEL: func.func @layouts
// CHECK-NEXT: axe.alloc cta : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)] + 8192>
// CHECK-NEXT: axe.alloc cta : !axe.tensor<32xf32, reg, S[32:1@laneid] + R[4:1@warpid]>
// CHECK-NEXT: axe.alloc cta : !axe.tensor<128x128xf32, tmem, S[(128,128):(1@TLane,1@TCol)] + 128@TCol>
// CHECK-NEXT: axe.alloc warp : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + 1@laneid>
// CHECK-NEXT: axe.view %{{.*}} : memref<32x128xf32> -> !axe.tensor<128x128xf32, global, S[(4,4096):(1@gpuid,1)]>
// CHECK-NEXT: axe.view %{{.*}} : memref<16xf32> -> !axe.tensor<16xf32, global, S[16:1] + R[2:2@gpuid] + 1@gpuid>
func.func @layouts(%l: memref<32x128xf32>, %r: memref<16xf32>) {
  %a = axe.alloc cta : !axe.tensor<128x64xf16, shared, Swizzle(3, 3, 3)o S[(128, 64) : (64, 1)]+8192>
  %b = axe.alloc cta : !axe.tensor<32xf32, reg, S[32:1@laneid] + R[4:1@warpid]>
  %c = axe.alloc cta : !axe.tensor<128x128xf32, tmem, S[(128,128):(1@TLane,1@TCol)] + 128@TCol>
  %d = axe.alloc warp : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)] + 1@laneid>
  %e = axe.view %l : memref<32x128xf32> -> !axe.tensor<128x128xf32, global, S[(4,4096):(1@gpuid,1)]>
  %f = axe.view %r : memref<16xf32> -> !axe.tensor<16xf32, global, S[16:1] + R[2:2@gpuid] + 1@gpuid>
  return
}

// The collective ops with every scope form: a plain scope and a thread subset; a copy's attributes.
// CHECK-LABEL: func.func @collectives
// CHECK-SAME: (%[[G:[^:]*]]: !axe.tensor<{{.*}}>, %[[S:[^:]*]]: !axe.tensor<{{.*}}>, %[[ACC:[^:]*]]: !axe.tensor<{{.*}}>, %[[OUT:[^:]*]]: !axe.tensor<{{.*}}>, %[[ALPHA:[^:]*]]: f32, %[[P:[^:]*]]: !axe.tensor<{{.*}}>)
// CHECK-NEXT: axe.copy cta(warpid[0:4]) %[[G]] to %[[S]] : !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]> to !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
// CHECK-NEXT: axe.copy warpgroup %[[S]] to %[[G]] : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]> to !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
// CHECK-NEXT: axe.copy cta %[[P]] to %[[P]] {multimem, reduce = "sum"} : !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]> to !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant
// CHECK-NEXT: axe.fill warp %[[ACC]], %[[ZERO]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, f32
// CHECK-NEXT: axe.scale warp %[[ACC]] by %[[ALPHA]] to %[[ACC]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-NEXT: axe.add warp %[[ACC]], %[[ACC]] to %[[ACC]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-NEXT: axe.mul warp %[[ACC]], %[[ACC]] to %[[ACC]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-NEXT: axe.fma warp %[[ACC]], %[[ACC]], %[[ACC]] to %[[ACC]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-NEXT: axe.cast warp %[[ACC]] to %[[OUT]] : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
// CHECK-NEXT: axe.sync cta{{$}}
// CHECK-NEXT: axe.sync cta(warpid[4:8]){{$}}
func.func @collectives(%g: !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>,
                       %s: !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>,
                       %acc: !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>,
                       %out: !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>,
                       %alpha: f32,
                       %p: !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>) {
  axe.copy cta(warpid[0:4]) %g to %s : !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]> to !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]>
  axe.copy warpgroup %s to %g : !axe.tensor<128x64xf16, shared, Swizzle(3,3,3) o S[(128,64):(64,1)]> to !axe.tensor<128x64xf16, global, S[(128,64):(64,1)]>
  axe.copy cta %p to %p {reduce = "sum", multimem} : !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]> to !axe.tensor<2x4xf32, global, S[8:1] + R[4:1@gpuid]>
  %zero = arith.constant 0.0 : f32
  axe.fill warp %acc, %zero : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, f32
  axe.scale warp %acc by %alpha to %acc : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  axe.add warp %acc, %acc to %acc : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  axe.mul warp %acc, %acc to %acc : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  axe.fma warp %acc, %acc, %acc to %acc : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>, !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  axe.cast warp %acc to %out : !axe.tensor<16x8xf32, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]> to !axe.tensor<16x8xf16, reg, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>
  axe.sync cta
  axe.sync cta(warpid[4:8])
  return
}

// A warpgroup gemm.
// CHECK-LABEL: func.func @gemm
// CHECK-NEXT: axe.gemm warpgroup %arg0, %arg1, %arg2 : !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>, !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>, !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
func.func @gemm(%a: !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>,
                %b: !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>,
                %c: !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>) {
  axe.gemm warpgroup %a, %b, %c : !axe.tensor<64x16xf16, shared, S[(64,16):(16,1)]>, !axe.tensor<16x64xf16, shared, S[(16,64):(64,1)]>, !axe.tensor<64x64xf32, reg, S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]>
  return
}

// One barrier and a barrier array: every barrier op and copy_async, on `%bar` and on `%bars[%i]`; a copy_async
// without a barrier (a TMA store).
// CHECK-LABEL: func.func @barriers
// CHECK-SAME: (%[[G:[^:]*]]: !axe.tensor<{{.*}}>, %[[I:[^:]*]]: index, %[[PAR:[^:]*]]: i1)
// CHECK-NEXT: %[[S:.*]] = axe.alloc cta : !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
// CHECK-NEXT: %[[BAR:.*]] = axe.mbarrier_alloc cta : !axe.mbarrier{{$}}
// CHECK-NEXT: axe.mbarrier_init cta %[[BAR]] count 1 : !axe.mbarrier{{$}}
// CHECK-NEXT: axe.mbarrier_arrive_expect_tx thread %[[BAR]] bytes 8192 : !axe.mbarrier{{$}}
// CHECK-NEXT: axe.copy_async thread %[[G]] to %[[S]], %[[BAR]] : {{.*}}, !axe.mbarrier{{$}}
// CHECK-NEXT: axe.mbarrier_wait cta %[[BAR]], %[[PAR]] : !axe.mbarrier{{$}}
// CHECK-NEXT: axe.mbarrier_arrive cta(warpid[0:4]) %[[BAR]] : !axe.mbarrier{{$}}
// CHECK-NEXT: %[[BARS:.*]] = axe.mbarrier_alloc cta : !axe.mbarrier<3>
// CHECK-NEXT: axe.mbarrier_init cta %[[BARS]][%[[I]]] count 2 : !axe.mbarrier<3>
// CHECK-NEXT: axe.mbarrier_arrive_expect_tx cta %[[BARS]][%[[I]]] bytes 8192 : !axe.mbarrier<3>
// CHECK-NEXT: axe.copy_async cta %[[G]] to %[[S]], %[[BARS]][%[[I]]] : {{.*}}, !axe.mbarrier<3>
// CHECK-NEXT: axe.mbarrier_wait cta %[[BARS]][%[[I]]], %[[PAR]] : !axe.mbarrier<3>
// CHECK-NEXT: axe.mbarrier_arrive cta %[[BARS]][%[[I]]] : !axe.mbarrier<3>
// CHECK-NEXT: axe.copy_async cta %[[S]] to %[[G]] : !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]> to !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
func.func @barriers(%g: !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>, %i: index, %parity: i1) {
  %s = axe.alloc cta : !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>
  %bar = axe.mbarrier_alloc cta : !axe.mbarrier
  axe.mbarrier_init cta %bar count 1 : !axe.mbarrier
  axe.mbarrier_arrive_expect_tx thread %bar bytes 8192 : !axe.mbarrier
  axe.copy_async thread %g to %s, %bar : !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]> to !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>, !axe.mbarrier
  axe.mbarrier_wait cta %bar, %parity : !axe.mbarrier
  axe.mbarrier_arrive cta(warpid[0:4]) %bar : !axe.mbarrier
  %bars = axe.mbarrier_alloc cta : !axe.mbarrier<3>
  axe.mbarrier_init cta %bars[%i] count 2 : !axe.mbarrier<3>
  axe.mbarrier_arrive_expect_tx cta %bars[%i] bytes 8192 : !axe.mbarrier<3>
  axe.copy_async cta %g to %s, %bars[%i] : !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]> to !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]>, !axe.mbarrier<3>
  axe.mbarrier_wait cta %bars[%i], %parity : !axe.mbarrier<3>
  axe.mbarrier_arrive cta %bars[%i] : !axe.mbarrier<3>
  axe.copy_async cta %s to %g : !axe.tensor<64x64xf16, shared, Swizzle(3,3,3) o S[(64,64):(64,1)]> to !axe.tensor<64x64xf16, global, S[(64,64):(64,1)]>
  return
}

// Annotations, by inline layout and by alias; the tma_descriptor --lower-tma writes; the three attributes as
// values of discardable attributes.
// CHECK-LABEL: func.func @annotate_and_descriptor
// CHECK-SAME: attributes {note.exec = #axe.exec<warpgroup>, note.layout = #axe.layout<S[(4,8):(8,1)] + R[2:1@warpid]>, note.threads = #axe.threads<laneid[0:16]>}
// CHECK-NEXT: axe.annotate %arg0 layout(S[(4,8):(8,1)]) : vector<32xf16>
// CHECK-NEXT: axe.annotate %arg0 layout(Swizzle(3,3,3) o S[(8,64):(64,1)]) : vector<32xf16>
// CHECK-NEXT: axe.tma_descriptor %arg1 {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32} : !llvm.ptr<1> -> !llvm.ptr
func.func @annotate_and_descriptor(%v: vector<32xf16>, %a: !llvm.ptr<1>)
    attributes {note.exec = #axe.exec<warpgroup>, note.layout = #axe.layout<S[(4,8):(8,1)]+R[2:1@warpid]>, note.threads = #axe.threads<laneid[0:16]>} {
  axe.annotate %v layout(S[(4,8):(8,1)]) : vector<32xf16>
  axe.annotate %v layout(#swz) : vector<32xf16>
  %d = axe.tma_descriptor %a {box_dims = array<i64: 64, 128>, data_type = 6 : i32, element_strides = array<i64: 1, 1>, global_dims = array<i64: 64, 256>, global_offset_bytes = 0 : i64, global_strides_bytes = array<i64: 128>, interleave = 0 : i32, l2_promotion = 2 : i32, oob_fill = 0 : i32, rank = 2 : i32, swizzle = 3 : i32} : !llvm.ptr<1> -> !llvm.ptr
  return
}


// Warp roles: a range of warpgroups, ranges of warps, an empty role, and a role's attribute dictionary (after its
// range and budget, before its region).
// CHECK-LABEL: func.func @roles
// CHECK-NEXT: axe.roles {
// CHECK-NEXT: axe.role wgid[0:2] regs 232 {
// CHECK-NEXT: axe.sync cta(warpid[0:8])
// CHECK-NEXT: }
// CHECK-NEXT: axe.role warpid[8:9] regs 40 attributes {note = 1 : i64} {
// CHECK-NEXT: axe.sync warp
// CHECK-NEXT: }
// CHECK-NEXT: axe.role warpid[9:12] regs 40 {
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @roles() attributes {known_block_size = array<i32: 384, 1, 1>} {
  axe.roles {
    axe.role wgid[0:2] regs 232 {
      axe.sync cta(warpid[0:8])
    }
    axe.role warpid[8:9] regs 40 attributes {note = 1} {
      axe.sync warp
    }
    axe.role warpid[9:12] regs 40 {
    }
  }
  return
}

// Tile loops: grouped over i32 extents carrying two values (the terminator printed), row major over index extents
// carrying nothing (group 1 and the terminator implicit), and a loop's attribute dictionary.
// CHECK-LABEL: func.func @tile_loops
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %0:2 = axe.tile_loop (%arg5, %arg6) in (%arg0, %arg1) : i32 tile [128, 256] group 8 iter_args(%arg7 = %arg2, %arg8 = %arg3) -> (i32, i1) {
// CHECK-NEXT: %1 = arith.xori %arg8, %true : i1
// CHECK-NEXT: axe.yield %arg7, %1 : i32, i1
// CHECK-NEXT: }
// CHECK-NEXT: axe.tile_loop (%arg5, %arg6) in (%arg4, %arg4) : index tile [64, 32] {
// CHECK-NEXT: }
// CHECK-NEXT: axe.tile_loop (%arg5, %arg6) in (%arg4, %arg4) : index tile [64, 32] group 2 attributes {note = 1 : i64} {
// CHECK-NEXT: }
func.func @tile_loops(%m: i32, %n: i32, %s: i32, %p: i1, %x: index) {
  %true = arith.constant true
  %r:2 = axe.tile_loop (%m0, %n0) in (%m, %n) : i32 tile [128, 256] group 8 iter_args(%a = %s, %b = %p) -> (i32, i1) {
    %flip = arith.xori %b, %true : i1
    axe.yield %a, %flip : i32, i1
  }
  axe.tile_loop (%m0, %n0) in (%x, %x) : index tile [64, 32] group 1 {
  }
  axe.tile_loop (%m0, %n0) in (%x, %x) : index tile [64, 32] group 2 attributes {note = 1} {
    axe.yield
  }
  return
}

// A staged copy, at a range of warpgroups.
// CHECK-LABEL: func.func @copy_staged
// CHECK-NEXT: axe.copy_staged cta(wgid[0:2]) %arg0 to %arg1 through %arg2 : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x64xf16, shared>
func.func @copy_staged(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<128x64xf16, shared>) {
  axe.copy_staged cta(wgid[0:2]) %r to %g through %b : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<128x64xf16, shared>
  return
}

// Two stages of the buffer, and a store that leaves the newest store reading.
// CHECK-LABEL: func.func @copy_staged_in_stages
// CHECK-NEXT: axe.copy_staged cta(wgid[0:2]) %arg0 to %arg1 through %arg2 stages 2 : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<256x64xf16, shared>
// CHECK-NEXT: axe.copy_async cta %arg3 to %arg4 {reads_in_flight = 1 : i64} : !axe.tensor<128x64xf16, shared> to !axe.tensor<128x64xf16, global>
func.func @copy_staged_in_stages(%r: !axe.tensor<128x256xf16, reg>, %g: !axe.tensor<128x256xf16, global>, %b: !axe.tensor<256x64xf16, shared>, %s: !axe.tensor<128x64xf16, shared>, %t: !axe.tensor<128x64xf16, global>) {
  axe.copy_staged cta(wgid[0:2]) %r to %g through %b stages 2 : !axe.tensor<128x256xf16, reg> to !axe.tensor<128x256xf16, global> through !axe.tensor<256x64xf16, shared>
  axe.copy_async cta %s to %t {reads_in_flight = 1 : i64} : !axe.tensor<128x64xf16, shared> to !axe.tensor<128x64xf16, global>
  return
}

}
