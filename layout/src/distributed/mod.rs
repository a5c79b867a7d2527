//! Distributed tensors: device meshes, DTensor placements and JAX PartitionSpecs as Axe layouts, and the
//! collectives a copy between two distributed layouts needs (paper section 3.2: "if the source or destination
//! is distributed across devices ... a copy might involve an all-gather or broadcast"; section 4.2).
//!
//! - [`mesh`]: named device axes with extents and the row-major rank numbering.
//! - [`placement`]: `from_placements` / `to_placements` (and the JAX forms), [`DistLayout`] (a layout over the
//!   padded shape, the logical shape, Partial markers, what the local buffers are), each rank's DTensor piece.
//! - [`collective`]: the pure planner: per rank, which slices go to which peer in what order, classified as
//!   all-gather, reduce-scatter, all-reduce, broadcast, reduce, all-to-all or point-to-point.
//!
//! Nothing here lowers to NVSHMEM; the plans are data the lowering will translate.

pub mod collective;
pub mod mesh;
pub mod placement;

pub use collective::{plan, CollectiveKind, CollectivePlan, Slice, Step, StepOp};
pub use mesh::{Mesh, MeshAxis};
pub use placement::{
    from_placements, from_placements_with, from_spec, parse_placements, parse_placements_for, parse_spec,
    to_placements, to_spec, DistLayout, Distribution, LocalBuffers, PartitionSpec, Placement, ReduceOp,
};
