//! What a kernel declares about its launch (the dialect's reader, shared with the verifier).

pub(crate) use axe_dialect::kernel::known_block;
