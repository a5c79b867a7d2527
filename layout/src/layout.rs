//! `Layout`: a [`TileLayout`] or a [`ComposeLayout`] (a swizzle applied after a tile layout on `m`).

use crate::axis::Axis;
use crate::error::{LayoutError, Result};
use crate::eval::Evaluator;
use crate::swizzle::Swizzle;
use crate::tile_layout::{flatten, Coord, TileLayout};

/// `Swizzle o T`: the tile layout `T` maps onto the single memory axis `m`, then the swizzle permutes the address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComposeLayout {
    swizzle: Swizzle,
    tile: TileLayout,
}

impl ComposeLayout {
    /// Checks that `tile` maps onto `m` only (every iter and offset on `m`), except that replica iters and offsets
    /// may name a cluster's CTA axes (`cbx`, `cby`, `cbz`: thread axes of CTAs within a cluster): the same swizzled
    /// shared tile held by several CTAs of a cluster, the destination of a multicast TMA load. The swizzle acts on
    /// `m` alone, so each CTA holds the tile swizzled as without the replica.
    pub fn new(swizzle: Swizzle, tile: TileLayout) -> Result<ComposeLayout> {
        let cluster_cta = |a: Axis| {
            matches!(
                a.kind(),
                crate::axis::AxisKind::Thread {
                    unit: crate::axis::ExecScope::Cta,
                    within: crate::axis::ExecScope::Cluster
                }
            )
        };
        // The first axis other than `m` in name order, as `tile.axes()` lists them, without building that list.
        let shard = tile.shard().iter().map(|i| i.axis);
        let rest =
            tile.replica().iter().map(|i| i.axis).chain(tile.offset().keys().copied()).filter(|a| !cluster_cta(*a));
        if let Some(a) = shard.chain(rest).filter(|a| *a != Axis::M).min() {
            return Err(LayoutError::new(format!(
                "a swizzle composes only with a layout on the memory axis m, found axis '{a}'"
            )));
        }
        Ok(ComposeLayout { swizzle, tile })
    }

    /// A bare swizzle: the swizzle over the identity tile of its period, `S[2^(M+B+S)]`.
    pub fn bare(swizzle: Swizzle) -> ComposeLayout {
        let tile = TileLayout::row_major(&[swizzle.period()]).expect("a swizzle period is a valid extent");
        ComposeLayout { swizzle, tile }
    }

    /// The swizzle applied last.
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The tile layout applied first.
    pub fn tile(&self) -> &TileLayout {
        &self.tile
    }

    /// True when the tile is the identity over the swizzle's period, so the text is a bare `Swizzle(...)`.
    pub fn is_bare(&self) -> bool {
        *self == ComposeLayout::bare(self.swizzle)
    }
}

/// Any Axe layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// A plain (D, R, O) layout.
    Tile(TileLayout),
    /// A swizzle after a tile layout on `m`.
    Compose(ComposeLayout),
}

impl From<TileLayout> for Layout {
    fn from(t: TileLayout) -> Layout {
        Layout::Tile(t)
    }
}

impl From<ComposeLayout> for Layout {
    fn from(c: ComposeLayout) -> Layout {
        Layout::Compose(c)
    }
}

impl Layout {
    /// The tile layout (for a ComposeLayout, the layout before the swizzle).
    pub fn tile(&self) -> &TileLayout {
        match self {
            Layout::Tile(t) => t,
            Layout::Compose(c) => c.tile(),
        }
    }

    /// The swizzle, if any.
    pub fn swizzle(&self) -> Option<Swizzle> {
        match self {
            Layout::Tile(_) => None,
            Layout::Compose(c) => Some(c.swizzle()),
        }
    }

    /// Rebuilds a layout of the same kind around a new tile (keeping the swizzle, as TIRx does for tile, tile-of
    /// and slice on a ComposeLayout).
    pub fn with_tile(&self, tile: TileLayout) -> Result<Layout> {
        Ok(match self {
            Layout::Tile(_) => Layout::Tile(tile),
            Layout::Compose(c) => Layout::Compose(ComposeLayout::new(c.swizzle(), tile)?),
        })
    }

    /// size(L): the number of logical elements.
    pub fn size(&self) -> i64 {
        self.tile().size()
    }

    /// Every axis the layout's points have.
    pub fn axes(&self) -> Vec<Axis> {
        self.tile().axes()
    }

    /// Checks that `shape` is admitted (its element count equals size(L)).
    pub fn admits(&self, shape: &[i64]) -> Result<()> {
        self.tile().admits(shape)
    }

    /// L(flat): the coordinate set of a row-major flat index. For a ComposeLayout, `m` is the swizzled address.
    /// To evaluate many indices, prepare an [`Evaluator`] once instead.
    pub fn eval_flat(&self, flat: i64) -> Result<Vec<Coord>> {
        Evaluator::new(self)?.eval_flat(flat)
    }

    /// The forward map prepared for evaluating many indices, or why it cannot be (see [`Evaluator::new`]).
    pub fn evaluator(&self) -> Result<Evaluator> {
        Evaluator::new(self)
    }

    /// L(x) for a coordinate `x` of an admitted `shape`.
    pub fn eval(&self, shape: &[i64], x: &[i64]) -> Result<Vec<Coord>> {
        self.admits(shape)?;
        self.eval_flat(flatten(shape, x)?)
    }
}
