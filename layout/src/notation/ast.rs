//! The syntax tree the grammar builds: tokens as text with their byte positions, checked later by
//! [`super::lower`] so that every semantic error names the column of the token that caused it.

/// A possibly negative integer literal, kept as text until it is checked.
#[derive(Clone, Copy, Debug)]
pub struct Num<'a> {
    /// Byte offset of the sign or first digit.
    pub pos: usize,
    /// A leading `-`.
    pub negative: bool,
    /// The decimal digits.
    pub digits: &'a str,
}

/// A name with its byte offset.
#[derive(Clone, Copy, Debug)]
pub struct Spanned<'a> {
    /// Byte offset of the name.
    pub pos: usize,
    /// The name.
    pub text: &'a str,
}

/// `n` or `n@axis`: a stride or an offset.
#[derive(Clone, Copy, Debug)]
pub struct StrideAst<'a> {
    /// The integer.
    pub value: Num<'a>,
    /// The axis, `m` when absent.
    pub axis: Option<Spanned<'a>>,
}

/// A single item or a parenthesised list, with the byte offset where it starts.
#[derive(Clone, Debug)]
pub struct Listed<T> {
    /// Byte offset of the item or of `(`.
    pub pos: usize,
    /// The items.
    pub items: Vec<T>,
}

/// The inside of `S[...]` or `R[...]`: nothing, extents only (row-major on `m`), or extents and strides.
#[derive(Clone, Debug)]
pub struct ItersAst<'a> {
    /// `8` or `(8,2)`; absent for `S[]`.
    pub extents: Option<Listed<Num<'a>>>,
    /// `4@laneid` or `(4@laneid,1)`; absent for extents-only.
    pub strides: Option<Listed<StrideAst<'a>>>,
}

/// One `+`-separated part of a tile layout.
#[derive(Clone, Debug)]
pub enum TermAst<'a> {
    /// `S[...]` at a byte offset.
    Shard(usize, ItersAst<'a>),
    /// `R[...]`.
    Replica(ItersAst<'a>),
    /// `n@axis` or `n`.
    Offset(StrideAst<'a>),
}

/// The separator before a part, with its byte offset.
#[derive(Clone, Copy, Debug)]
pub enum Sep {
    /// `+` (also used for the first part).
    Plus,
    /// `-`: only an offset may follow.
    Minus(usize),
}

/// `S[...] + R[...] + n@axis ...`.
#[derive(Clone, Debug)]
pub struct TileAst<'a> {
    /// Byte offset of the first part.
    pub pos: usize,
    /// The parts with the separator before each.
    pub terms: Vec<(Sep, TermAst<'a>)>,
}

/// `Swizzle(M,B,S)`.
#[derive(Clone, Copy, Debug)]
pub struct SwizzleAst<'a> {
    /// Byte offset of `Swizzle`.
    pub pos: usize,
    /// per_element.
    pub m: Num<'a>,
    /// swizzle_len.
    pub b: Num<'a>,
    /// atom_len.
    pub s: Num<'a>,
}

/// A whole layout.
#[derive(Clone, Debug)]
pub enum LayoutAst<'a> {
    /// A tile layout.
    Tile(TileAst<'a>),
    /// `Swizzle(...) o tile`.
    Compose(SwizzleAst<'a>, TileAst<'a>),
    /// A bare `Swizzle(...)`.
    Bare(SwizzleAst<'a>),
}
