//! The typed builder methods against MLIR's own rules: the result types they infer are the ones the ops define
//! (worked out from the op definitions, not read back from the builder), and what they build verifies.

use super::{Builder, Dim, Tcgen05Access, ThreadSync};
use crate::ir::ty::{AddressSpace, Ty};
use axe_dialect::{access, create_context, ops::walk_preorder, parse_module};
use melior::ir::{operation::OperationLike, OperationRef, Value, ValueLike};

const SOURCE: &str = r#"gpu.module @m {
  gpu.func @f(%m: memref<4xi32>, %v: vector<2xf16>, %p: !llvm.ptr, %s: !llvm.struct<(i32, f32)>, %f: f32) kernel {
    "test.anchor"() : () -> ()
    gpu.return
  }
}"#;

/// The type of `value`, printed.
fn ty(value: Value) -> String {
    value.r#type().to_string()
}

#[test]
fn typed_ops_infer_mlir_s_result_types_and_verify() {
    let context = create_context().expect("context");
    context.context().set_allow_unregistered_dialects(true);
    let module = parse_module(&context, SOURCE, "t.mlir").expect("parses");
    // What a lowering's driver does first (`Run::begin`): load the dialects it builds.
    let dialects = ["arith", "gpu", "llvm", "memref", "nvvm", "scf"];
    assert!(axe_dialect::ffi::load_dialects(module.as_operation(), &dialects).is_empty());
    let mut anchor: Option<OperationRef> = None;
    walk_preorder(module.as_operation(), &mut |op| {
        if op.name().as_string_ref().as_str() == Ok("test.anchor") {
            anchor = Some(op);
        }
    });
    let anchor = anchor.expect("the anchor");
    let entry = anchor.block().expect("in a block");
    let arg = |i| Value::from(access::argument(entry, i).expect("argument"));
    let (m, v, p, s, f) = (arg(0), arg(1), arg(2), arg(3), arg(4));
    let b = Builder::before(anchor).expect("builder");

    // arith: a binary op's result has its operands' type; a cast the type named.
    let three = b.index(3).expect("constant");
    assert_eq!(ty(three), "index");
    let loaded = b.load(m, &[three]).expect("load");
    assert_eq!(ty(loaded), "i32", "memref.load yields the memref's element type");
    let sum = b.addi(loaded, loaded).expect("addi");
    assert_eq!(ty(sum), "i32");
    let wide = b.extui(sum, Ty::I64).expect("extui");
    assert_eq!(ty(wide), "i64");
    let index = b.index_cast(wide, Ty::Index).expect("index_cast");
    assert_eq!(ty(b.remui(index, three).expect("remui")), "index");
    let cond = b.cmpi(super::Cmp::Ult, index, three).expect("cmpi");
    assert_eq!(ty(b.select(cond, f, f).expect("select")), "f32");
    assert_eq!(ty(b.maximumf(f, f).expect("maximumf")), "f32");
    b.store(sum, m, &[three]).expect("store");

    // llvm: pointers in their address space; vector and struct element types inferred or named.
    let address = b.ptrtoint(p, Ty::I64).expect("ptrtoint");
    assert_eq!(ty(b.inttoptr(address, AddressSpace::Shared).expect("inttoptr")), "!llvm.ptr<3>");
    assert_eq!(ty(b.addrspacecast(p, AddressSpace::Global).expect("addrspacecast")), "!llvm.ptr<1>");
    let one = b.constant(1, Ty::I32).expect("constant");
    let half = b.extractelement(v, one).expect("extractelement");
    assert_eq!(ty(half), "f16", "llvm.extractelement yields the vector's element type");
    assert_eq!(ty(b.insertelement(v, half, one).expect("insertelement")), "vector<2xf16>");
    assert_eq!(ty(b.llvm_bitcast(v, Ty::I32).expect("bitcast")), "i32");
    let field = b.extractvalue(s, 1, Ty::F32).expect("extractvalue");
    assert_eq!(ty(b.insertvalue(s, field, 1).expect("insertvalue")), "!llvm.struct<(i32, f32)>");
    let pointer = b.inttoptr(address, AddressSpace::Generic).expect("inttoptr");
    let word = b.llvm_load(pointer, Ty::I32, Some(4)).expect("llvm.load");
    b.llvm_store(word, pointer, None).expect("llvm.store");

    // memref buffers, gpu ids and barriers, nvvm fences.
    assert_eq!(ty(b.alloca(b.ty("memref<2xi1>").expect("type")).expect("alloca")), "memref<2xi1>");
    assert_eq!(ty(b.thread_id(Dim::Y).expect("thread_id")), "index");
    assert_eq!(ty(b.block_dim(Dim::Z).expect("block_dim")), "index");
    assert_eq!(ty(b.aligned_pointer(m).expect("aligned pointer")), "index");
    b.barrier().expect("barrier");
    b.tcgen05_fence(ThreadSync::After).expect("fence");
    b.tcgen05_wait(Tcgen05Access::Store).expect("wait");
    assert_eq!(ty(b.elect_sync().expect("elect")), "i1");
    b.guarded(cond, |g| g.barrier()).expect("guarded");

    assert!(module.as_operation().verify(), "{}", module.as_operation());
    let printed = module.as_operation().to_string();
    for line in [
        "gpu.thread_id  y",
        "gpu.block_dim  z",
        "llvm.load %",
        "{alignment = 4 : i64} : !llvm.ptr -> i32",
        "memref.alloca() : memref<2xi1>",
        "llvm.extractvalue %arg3[1] : !llvm.struct<(i32, f32)>",
        "nvvm.tcgen05.fence <after>",
        "nvvm.tcgen05.wait <store>",
    ] {
        assert!(printed.contains(line), "{line:?} not in\n{printed}");
    }
}
