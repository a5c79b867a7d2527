//! A device mesh: named device axes with extents, and the row-major numbering of its ranks.
//!
//! The mesh of the paper's Figure 2B (section 2) and of the notation chapter's "Distributed Layout": its axes are
//! the device axes of the layouts (`gpuid` for a 1-D mesh, `gpuid_x` (rows) and `gpuid_y` (columns) for a 2-D one,
//! `gpuid_z` for a third; all are built-in axes, so a layout printed on a 3-D mesh parses back as printed), each
//! device iter stepping one device per unit of stride. A rank is the row-major number of its mesh coordinate
//! (`rank = x * extent_y + y`), the convention of `torch.distributed.DeviceMesh(torch.arange(n).reshape(...))` and
//! `jax.make_mesh`.
//!
//! A mesh axis also carries the name the framework uses for it (JAX's `'x'`, `'y'`); by default the name is
//! the Axe axis's own.

use crate::axis::Axis;
use crate::error::{LayoutError, Result};

/// The most ranks a mesh may have (planning enumerates ranks).
pub const MAX_RANKS: i64 = 1024;

/// One mesh dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshAxis {
    /// The framework's name of the dimension (JAX `'x'`; by default the Axe axis name).
    pub name: String,
    /// The Axe device axis the dimension is (`gpuid_x`).
    pub axis: Axis,
    /// How many devices along it.
    pub extent: i64,
}

/// A device mesh: its dimensions, outermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    axes: Vec<MeshAxis>,
}

/// The default Axe device axes of a mesh with `dims` dimensions (the spec's names, and `gpuid_z` for a third).
pub fn default_axes(dims: usize) -> Result<Vec<Axis>> {
    match dims {
        1 => Ok(vec![Axis::named("gpuid")?]),
        2 => Ok(vec![Axis::named("gpuid_x")?, Axis::named("gpuid_y")?]),
        3 => Ok(vec![Axis::named("gpuid_x")?, Axis::named("gpuid_y")?, Axis::named("gpuid_z")?]),
        n => Err(LayoutError::new(format!("mesh rule: a mesh has 1 to 3 dimensions, got {n}"))),
    }
}

impl Mesh {
    /// A checked mesh: 1 to 3 dimensions, extents at least 1, distinct device axes and names, at most
    /// [`MAX_RANKS`] ranks.
    pub fn new(axes: Vec<MeshAxis>) -> Result<Mesh> {
        if axes.is_empty() || axes.len() > 3 {
            return Err(LayoutError::new(format!("mesh rule: a mesh has 1 to 3 dimensions, got {}", axes.len())));
        }
        let mut ranks = 1i64;
        for (i, a) in axes.iter().enumerate() {
            if !a.axis.is_device() {
                return Err(LayoutError::new(format!("mesh rule: mesh axis {} is not a device axis", a.axis)));
            }
            if a.extent < 1 {
                return Err(LayoutError::new(format!("mesh rule: mesh axis {} has extent {} (< 1)", a.name, a.extent)));
            }
            if axes[..i].iter().any(|b| b.axis == a.axis || b.name == a.name) {
                return Err(LayoutError::new(format!("mesh rule: mesh axis {} ({}) appears twice", a.name, a.axis)));
            }
            ranks = ranks.saturating_mul(a.extent);
        }
        if ranks > MAX_RANKS {
            return Err(LayoutError::new(format!("mesh rule: the mesh has {ranks} ranks, more than {MAX_RANKS}")));
        }
        Ok(Mesh { axes })
    }

    /// A mesh of the given extents on the default axes ([`default_axes`]), named as the axes.
    pub fn from_extents(extents: &[i64]) -> Result<Mesh> {
        let axes = default_axes(extents.len())?;
        Mesh::new(
            axes.into_iter()
                .zip(extents)
                .map(|(axis, &extent)| MeshAxis { name: axis.name().into(), axis, extent })
                .collect(),
        )
    }

    /// A mesh of named dimensions (JAX's `Mesh(devices, ('x', 'y'))`) on the default axes, by position.
    pub fn from_named(dims: &[(String, i64)]) -> Result<Mesh> {
        let axes = default_axes(dims.len())?;
        Mesh::new(
            axes.into_iter()
                .zip(dims)
                .map(|(axis, (name, extent))| MeshAxis { name: name.clone(), axis, extent: *extent })
                .collect(),
        )
    }

    /// Parses `2,4` (extents on the default axes) or `x=2,y=4` (named dimensions).
    pub fn parse(text: &str) -> Result<Mesh> {
        let bad = |why: String| LayoutError::new(format!("mesh rule: mesh '{text}': {why}"));
        let mut named = Vec::new();
        let mut extents = Vec::new();
        for part in text.split(',').map(str::trim) {
            let (name, extent) = match part.split_once('=') {
                Some((n, e)) => (Some(n.trim()), e.trim()),
                None => (None, part),
            };
            let extent: i64 = extent.parse().map_err(|_| bad(format!("'{extent}' is not an extent")))?;
            match name {
                Some(n) if !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    named.push((n.to_owned(), extent))
                }
                Some(n) => return Err(bad(format!("'{n}' is not a mesh axis name"))),
                None => extents.push(extent),
            }
        }
        match (named.is_empty(), extents.is_empty()) {
            (true, _) => Mesh::from_extents(&extents),
            (false, true) => Mesh::from_named(&named),
            (false, false) => Err(bad("name every dimension or none".into())),
        }
    }

    /// The dimensions, outermost first.
    pub fn axes(&self) -> &[MeshAxis] {
        &self.axes
    }

    /// The number of ranks (product of extents).
    pub fn ranks(&self) -> i64 {
        self.axes.iter().map(|a| a.extent).product()
    }

    /// The position of a device axis in the mesh.
    pub fn index_of(&self, axis: Axis) -> Option<usize> {
        self.axes.iter().position(|a| a.axis == axis)
    }

    /// The position of a mesh dimension by its framework name.
    pub fn index_of_name(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|a| a.name == name)
    }

    /// The mesh coordinate of `rank` (row-major).
    pub fn coord(&self, rank: i64) -> Vec<i64> {
        let mut c = vec![0; self.axes.len()];
        let mut rest = rank;
        for (i, a) in self.axes.iter().enumerate().rev() {
            c[i] = rest % a.extent;
            rest /= a.extent;
        }
        c
    }

    /// The rank of a mesh coordinate (row-major), or `None` if a component is out of range.
    pub fn rank_of(&self, coord: &[i64]) -> Option<i64> {
        let mut r = 0;
        for (a, &c) in self.axes.iter().zip(coord) {
            if c < 0 || c >= a.extent {
                return None;
            }
            r = r * a.extent + c;
        }
        Some(r)
    }

    /// `gpuid_x=2,gpuid_y=4` (or `x(gpuid_x)=2,...` when a name differs from its axis), for messages and output.
    pub fn text(&self) -> String {
        self.axes
            .iter()
            .map(|a| {
                if a.name == a.axis.name() {
                    format!("{}={}", a.name, a.extent)
                } else {
                    format!("{}({})={}", a.name, a.axis, a.extent)
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_row_major() {
        let m = Mesh::parse("2,4").unwrap();
        assert_eq!(m.ranks(), 8);
        assert_eq!(m.coord(5), vec![1, 1]);
        assert_eq!(m.rank_of(&[1, 3]), Some(7));
        assert_eq!(m.rank_of(&[2, 0]), None);
        assert_eq!(m.text(), "gpuid_x=2,gpuid_y=4");
        let j = Mesh::parse("x=2,y=4").unwrap();
        assert_eq!(j.axes()[1].axis.name(), "gpuid_y");
        assert_eq!(j.text(), "x(gpuid_x)=2,y(gpuid_y)=4");
        assert_eq!(Mesh::parse("8").unwrap().axes()[0].axis.name(), "gpuid");
    }

    #[test]
    fn bad_meshes_are_refused() {
        for (text, why) in [
            ("2,x=4", "name every dimension or none"),
            ("0", "extent 0"),
            ("2,2,2,2", "1 to 3 dimensions"),
            ("x=2,x=2", "appears twice"),
            ("64,64", "more than 1024"),
            ("a", "not an extent"),
        ] {
            let e = Mesh::parse(text).unwrap_err().message;
            assert!(e.starts_with("mesh rule:") && e.contains(why), "{text}: {e}");
        }
    }
}
