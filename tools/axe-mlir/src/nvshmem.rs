//! Linking NVSHMEM's device library into a kernel module before PTX is emitted (`--lower-collectives` calls
//! `nvshmem_my_pe`, `nvshmemx_putmem_nbi_block`, `nvshmem_quiet`, `nvshmemx_barrier_all_block`).
//!
//! NVSHMEM ships its device API as LLVM bitcode, one file per architecture, in the PyPI wheel
//! `nvidia-nvshmem-cu13` (`nvidia/nvshmem/lib/libnvshmem_device_sm_{75,80,89,90,100}.bc`; 3.8.0 is built by clang
//! 22.1 for `target-cpu` `sm_90` / `sm_100` with `+ptx88`, and LLVM 22 reads it). When the translated module calls
//! a function whose name starts with `nvshmem` and the bitcode is found, [`link`]:
//! 1. reads the chip's file (`sm_80` -> `sm_80.bc`, `sm_90a` -> `sm_90.bc`, `sm_100a` -> `sm_100.bc`) into the
//!    module's LLVM context as a lazy module (`LLVMGetBitcodeModuleInContext2`: bodies stay unread), makes its
//!    functions `linkonce_odr` (linked only where referenced), and drops each function's `target-cpu` and
//!    `target-features`, so the library compiles for the module's chip and PTX ISA (the invariant that PTX
//!    depends on the chip alone; its functions are `alwaysinline`, and the inliner refuses callees whose target
//!    attributes differ from the caller's);
//! 2. links it in (`link_in_module`, LLVM's IR linker);
//! 3. internalizes every function but the kernels (`ptx_kernel`), and runs `globaldce`, which drops the ~2,800
//!    library functions the kernel does not reach before the `-O2` pipeline runs (the PTX stays small). The
//!    library's globals keep their external names: `nvshmemi_device_state_d` is the `__constant__` state the
//!    host fills when it loads the module (`nvshmemx_cumodule_init`, README "Distributed kernels").
//!
//! Where the bitcode is looked for, first found wins, and nowhere else: `--nvshmem-lib=PATH` (a `.bc` file, or a
//! directory holding `libnvshmem_device_sm_*.bc`), then `$AXE_NVSHMEM_LIB` (the same), then `nvidia/nvshmem/lib` in
//! the site-packages of the project's own `.venv`, where `scripts/setup.sh` installs the wheel (the checkout the
//! tool was built from: [`PROJECT_VENV`]). No other directory is searched: not the working directory or its parents,
//! not the executable's, not `$VIRTUAL_ENV`, so a bitcode file planted in some enclosing directory is never linked
//! into a kernel. `-v` says which file was linked. Without it, axe-translate prints a note and leaves the
//! functions `.extern .func` in the PTX, which `ptxas -c` assembles into a relocatable object that `nvlink` links
//! against `libnvshmem_device.a`; `--nvshmem-lib=none` asks for that on purpose.
//!
//! A file is read only after its first four bytes are LLVM bitcode's magic (a 4 GB file of anything else is refused
//! without reading it) and only when it is a regular file (not a FIFO or a device); LLVM's own read and link errors
//! are captured from the LLVM context (whose default handler prints an unprefixed `error:` and exits) and reported
//! as `axe-translate: error: cannot read NVSHMEM device bitcode PATH: <LLVM's message>`.

use crate::ptx::Chip;
use anyhow::{anyhow, Result};
use inkwell::{
    attributes::AttributeLoc,
    context::AsContextRef,
    memory_buffer::MemoryBuffer,
    module::{Linkage, Module},
    passes::PassBuilderOptions,
    targets::TargetMachine,
};
use std::path::{Path, PathBuf};

/// The environment variable naming the bitcode (a file or a directory).
pub const ENV: &str = "AXE_NVSHMEM_LIB";
/// Where the wheel puts the bitcode inside site-packages.
const WHEEL_DIR: &str = "nvidia/nvshmem/lib";
/// The project's virtual environment, where `scripts/setup.sh` installs the wheel: `.venv` at the root of the
/// checkout this tool was built from (the one place searched without being told; module docs).
pub const PROJECT_VENV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.venv");
/// LLVM's calling convention number of `ptx_kernel` (llvm/IR/CallingConv.h: PTX_Kernel = 71).
const PTX_KERNEL: u32 = 71;

/// Where the NVSHMEM device bitcode comes from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Source {
    /// Search (`--nvshmem-lib` not given): `$AXE_NVSHMEM_LIB`, then the project's `.venv` only.
    #[default]
    Search,
    /// `--nvshmem-lib=none`: never link; the functions stay extern.
    None,
    /// `--nvshmem-lib=PATH`.
    Path(PathBuf),
}

impl Source {
    /// Reads `--nvshmem-lib`'s value.
    pub fn parse(value: &str) -> Source {
        if value == "none" {
            Source::None
        } else {
            Source::Path(PathBuf::from(value))
        }
    }
}

/// The bitcode file of NVSHMEM's device library compiled for `chip`.
fn file_name(chip: Chip) -> &'static str {
    match chip {
        Chip::Sm80 => "libnvshmem_device_sm_80.bc",
        Chip::Sm90 | Chip::Sm90a => "libnvshmem_device_sm_90.bc",
        Chip::Sm100a => "libnvshmem_device_sm_100.bc",
    }
}

/// The bitcode to link for `chip`: `Ok(None)` when searching found none or linking is off; an error when a path
/// given explicitly does not hold it.
pub fn locate(source: &Source, chip: Chip) -> Result<Option<PathBuf>> {
    let in_dir = |path: &Path| if path.is_dir() { path.join(file_name(chip)) } else { path.to_path_buf() };
    match source {
        Source::None => Ok(None),
        Source::Path(path) => {
            let file = in_dir(path);
            if file.is_file() {
                Ok(Some(file))
            } else {
                Err(anyhow!("--nvshmem-lib: no NVSHMEM device bitcode at {}", file.display()))
            }
        }
        Source::Search => {
            if let Some(value) = std::env::var_os(ENV) {
                let file = in_dir(Path::new(&value));
                return if file.is_file() {
                    Ok(Some(file))
                } else {
                    Err(anyhow!("${ENV}: no NVSHMEM device bitcode at {}", file.display()))
                };
            }
            Ok(in_venv(Path::new(PROJECT_VENV), file_name(chip)))
        }
    }
}

/// `venv/lib/python*/site-packages/nvidia/nvshmem/lib/<file>`, when it exists (the first Python version in
/// name order, for determinism).
fn in_venv(venv: &Path, file: &str) -> Option<PathBuf> {
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("python")))
        .collect();
    pythons.sort();
    pythons.into_iter().map(|p| p.join("site-packages").join(WHEEL_DIR).join(file)).find(|p| p.is_file())
}

/// Whether `module` calls (declares without defining) a function of NVSHMEM's device API.
pub fn calls_nvshmem(module: &Module) -> bool {
    module.get_functions().any(|f| f.count_basic_blocks() == 0 && f.get_name().to_bytes().starts_with(b"nvshmem"))
}

/// Links the bitcode at `path` into `module`, keeps only what its kernels reach (module docs). Returns the
/// highest PTX ISA the library was built for (`Some(88)` for `+ptx88`), which the PTX must declare at least.
pub fn link(module: &Module, path: &Path, machine: &TargetMachine) -> Result<Option<u32>> {
    let library = parse_lazily(path, module)?;
    library.set_triple(&machine.get_triple());
    library.set_data_layout(&machine.get_target_data().get_data_layout());
    let mut ptx = None;
    for function in library.get_functions() {
        let features = function.get_string_attribute(AttributeLoc::Function, "target-features");
        let version = features.and_then(|a| ptx_version(a.get_string_value().to_str().unwrap_or_default()));
        ptx = ptx.max(version);
        function.remove_string_attribute(AttributeLoc::Function, "target-cpu");
        function.remove_string_attribute(AttributeLoc::Function, "target-features");
        // Linked only where referenced: the linker then reads just the bodies the kernel reaches.
        if !function.as_global_value().is_declaration() {
            function.set_linkage(Linkage::LinkOnceODR);
        }
    }
    let linked = module.link_in_module(library);
    // inkwell leaves its handler installed with a pointer into its own (returned) stack frame: capture instead.
    let messages = Captured::install(module);
    linked.map_err(|e| {
        anyhow!("cannot link NVSHMEM device bitcode {}: {}", path.display(), messages.text_or(&e.to_string()))
    })?;
    drop(messages);
    for function in module.get_functions() {
        if function.count_basic_blocks() > 0 && function.get_call_conventions() != PTX_KERNEL {
            function.set_linkage(Linkage::Internal);
        }
    }
    module
        .run_passes("globaldce", machine, PassBuilderOptions::create())
        .map_err(|e| anyhow!("LLVM globaldce after linking NVSHMEM failed: {}", e.to_string()))?;
    Ok(ptx)
}

/// Whether `magic` starts LLVM bitcode: raw bitcode `BC 0xC0DE`, or the wrapper 0x0B17C0DE (little-endian).
fn is_bitcode_magic(magic: &[u8]) -> bool {
    magic == b"BC\xC0\xDE" || magic == [0xDE, 0xC0, 0x17, 0x0B]
}

/// Refuses, before anything reads `path` whole, what is not a regular file starting with bitcode's magic.
fn check_bitcode_file(path: &Path) -> Result<()> {
    use std::io::Read;
    let fail = |why: String| anyhow!("cannot read NVSHMEM device bitcode {}: {why}", path.display());
    // stat before open: opening a FIFO would block.
    let metadata = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !metadata.is_file() {
        return Err(fail("not a regular file".to_string()));
    }
    let mut file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut magic = Vec::with_capacity(4);
    file.by_ref().take(4).read_to_end(&mut magic).map_err(|e| fail(e.to_string()))?;
    if !is_bitcode_magic(&magic) {
        return Err(fail(format!("not an LLVM bitcode file ({} bytes, no bitcode magic)", metadata.len())));
    }
    Ok(())
}

thread_local! {
    /// LLVM diagnostics raised on this thread while a [`Captured`] handler is installed.
    static DIAGNOSTICS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records an LLVM diagnostic instead of printing it (LLVM's default handler prints `error: ...` without the tool
/// or the file, and exits on an error).
extern "C" fn capture(info: inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef, _: *mut std::ffi::c_void) {
    // SAFETY: LLVM passes a live diagnostic; the description is a new C string we own and dispose of.
    let text = unsafe {
        let raw = inkwell::llvm_sys::core::LLVMGetDiagInfoDescription(info);
        if raw.is_null() {
            return;
        }
        let text = std::ffi::CStr::from_ptr(raw).to_string_lossy().into_owned();
        inkwell::llvm_sys::core::LLVMDisposeMessage(raw);
        text
    };
    DIAGNOSTICS.with(|d| d.borrow_mut().push(text));
}

/// The capturing handler on a module's LLVM context, from [`Captured::install`] until dropped (then LLVM's default).
struct Captured {
    context: inkwell::llvm_sys::prelude::LLVMContextRef,
}

impl Captured {
    fn install(module: &Module) -> Captured {
        let context = module.get_context().as_ctx_ref();
        DIAGNOSTICS.with(|d| d.borrow_mut().clear());
        // SAFETY: a live context; the handler keeps no pointer (it writes a thread-local).
        unsafe {
            inkwell::llvm_sys::core::LLVMContextSetDiagnosticHandler(context, Some(capture), std::ptr::null_mut())
        };
        Captured { context }
    }

    /// The captured messages, or `fallback` when LLVM said nothing.
    fn text_or(&self, fallback: &str) -> String {
        let text = DIAGNOSTICS.with(|d| d.borrow().join("; "));
        if text.is_empty() {
            fallback.to_string()
        } else {
            text
        }
    }
}

impl Drop for Captured {
    fn drop(&mut self) {
        // SAFETY: the context outlives this guard (it belongs to the module the guard was made from).
        unsafe { inkwell::llvm_sys::core::LLVMContextSetDiagnosticHandler(self.context, None, std::ptr::null_mut()) };
        DIAGNOSTICS.with(|d| d.borrow_mut().clear());
    }
}

/// Reads the bitcode at `path` as a lazy module in `module`'s context: function bodies stay in the file until the
/// linker asks for them (what `llvm-extract` and `llvm-link --only-needed` do; reading all ~2,800 functions took
/// 9-14 s and 1.4 GB; the lazy read and link of what the all-gather reaches, 0.7 s and 65 MB, debug build).
fn parse_lazily<'ctx>(path: &Path, module: &Module<'ctx>) -> Result<Module<'ctx>> {
    check_bitcode_file(path)?;
    let buffer = MemoryBuffer::create_from_file(path)
        .map_err(|e| anyhow!("cannot read NVSHMEM device bitcode {}: {}", path.display(), e.to_string()))?;
    let messages = Captured::install(module);
    let mut raw = std::ptr::null_mut();
    // SAFETY: the context and buffer are live; LLVMGetBitcodeModuleInContext2 takes ownership of the buffer in
    // every case (it moves it into the lazy module, or drops it on error), so the wrapper is forgotten, not
    // dropped.
    let failed = unsafe {
        inkwell::llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2(
            module.get_context().as_ctx_ref(),
            buffer.as_mut_ptr(),
            &mut raw,
        )
    };
    std::mem::forget(buffer);
    if failed != 0 || raw.is_null() {
        return Err(anyhow!(
            "cannot read NVSHMEM device bitcode {}: {}",
            path.display(),
            messages.text_or("not LLVM bitcode this LLVM reads")
        ));
    }
    // SAFETY: a non-null module created in `module`'s context, owned from here on (dropped or linked in).
    Ok(unsafe { Module::new(raw) })
}

/// The PTX ISA of a `target-features` list (`+ptx88,+sm_90` -> 88).
pub fn ptx_version(features: &str) -> Option<u32> {
    features.split(',').filter_map(|f| f.strip_prefix("+ptx")).filter_map(|v| v.parse().ok()).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ptx_isa_of_target_features() {
        assert_eq!(ptx_version("+ptx88,+sm_90"), Some(88));
        assert_eq!(ptx_version("+sm_90"), None);
        assert_eq!(file_name(Chip::Sm90a), "libnvshmem_device_sm_90.bc");
        assert_eq!(Source::parse("none"), Source::None);
    }

    #[test]
    fn only_bitcode_magic_is_read() {
        assert!(is_bitcode_magic(b"BC\xC0\xDE"));
        assert!(is_bitcode_magic(&[0xDE, 0xC0, 0x17, 0x0B]));
        assert!(!is_bitcode_magic(b"BC\xC0"));
        assert!(!is_bitcode_magic(b"\x7fELF"));
        let dir = std::env::temp_dir().join(format!("axe-nvshmem-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("not.bc");
        std::fs::write(&text, "// text").unwrap();
        let error = check_bitcode_file(&text).unwrap_err().to_string();
        assert!(error.contains("not.bc: not an LLVM bitcode file (7 bytes, no bitcode magic)"), "{error}");
        assert!(check_bitcode_file(&dir).unwrap_err().to_string().contains("not a regular file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_search_looks_in_the_project_venv_only() {
        assert!(PROJECT_VENV.ends_with("tools/axe-mlir/../../.venv"), "{PROJECT_VENV}");
    }
}
