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
    /// Checks that `tile` maps onto `m` only (every iter and offset on `m`).
    pub fn new(swizzle: Swizzle, tile: TileLayout) -> Result<ComposeLayout> {
        // The first axis other than `m` in name order, as `tile.axes()` lists them, without building that list.
        let iters = tile.shard().iter().chain(tile.replica()).map(|i| i.axis);
        if let Some(a) = iters.chain(tile.offset().keys().copied()).filter(|a| *a != Axis::M).min() {
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
