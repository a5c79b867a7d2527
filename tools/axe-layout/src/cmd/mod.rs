//! One module per subcommand, each exposing `COMMAND`.

pub mod canon;
pub mod direct_sum;
pub mod eval;
pub mod group;
pub mod show;
pub mod slice;
pub mod span;
pub mod tile;
pub mod tile_of;
