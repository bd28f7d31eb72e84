//! The uniform grid: where cells are and how they are numbered.

use glam::{UVec3, Vec3};

use crate::geom::Aabb;
use crate::mesh::{Frame, f32_spacing};

/// A grid of `dims` cubic cells of side `cell_size`; values live at cell
/// centres, cell `(i, j, k)` at `origin + (i, j, k) * cell_size`, stored at
/// index `i + nx*(j + ny*k)` (a `[k][j][i]` array, "zyx" axis order).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GridSpec {
    /// World position of the centre of cell (0, 0, 0).
    pub origin: Vec3,
    pub cell_size: f32,
    pub dims: UVec3,
}

impl GridSpec {
    /// The grid around `bounds` padded by `padding` × the longest side on
    /// every side, with `resolution` cells along the (padded) longest axis.
    /// Shorter axes get as many cells as cover them, centred.
    pub fn around(bounds: Aabb, resolution: u32, padding: f32) -> GridSpec {
        let longest = bounds.size().max_element().max(f32::MIN_POSITIVE);
        let padded = bounds.grown(padding * longest);
        let cell_size = padded.size().max_element() / resolution as f32;
        let dims = (padded.size() / cell_size)
            .ceil()
            .as_uvec3()
            .clamp(UVec3::ONE, UVec3::splat(resolution));
        let extent = dims.as_vec3() * cell_size;
        let origin = padded.center() - 0.5 * extent + Vec3::splat(0.5 * cell_size);
        GridSpec {
            origin,
            cell_size,
            dims,
        }
    }

    /// This world grid in `frame`.
    pub fn to_local(&self, frame: &Frame) -> GridSpec {
        GridSpec {
            origin: frame.to_local(self.origin),
            cell_size: frame.length_to_local(self.cell_size),
            dims: self.dims,
        }
    }

    /// This grid of `frame` in the world.
    pub fn to_world(&self, frame: &Frame) -> GridSpec {
        GridSpec {
            origin: frame.to_world(self.origin),
            cell_size: frame.length_to_world(self.cell_size),
            dims: self.dims,
        }
    }

    /// Whether float32 keeps this world grid's cell centres apart: its
    /// cells must be wider than the spacing of float32 numbers at its
    /// largest coordinate. Returns that spacing and coordinate otherwise.
    pub fn collision(&self) -> Option<(f32, f32)> {
        let b = self.bounds();
        let largest = b.min.abs().max(b.max.abs()).max_element();
        let spacing = f32_spacing(largest);
        (self.cell_size <= spacing).then_some((spacing, largest))
    }

    pub fn num_cells(&self) -> usize {
        self.dims.x as usize * self.dims.y as usize * self.dims.z as usize
    }

    pub fn index(&self, ijk: UVec3) -> usize {
        ijk.x as usize
            + self.dims.x as usize * (ijk.y as usize + self.dims.y as usize * ijk.z as usize)
    }

    pub fn coords(&self, index: usize) -> UVec3 {
        let nx = self.dims.x as usize;
        let ny = self.dims.y as usize;
        UVec3::new(
            (index % nx) as u32,
            ((index / nx) % ny) as u32,
            (index / (nx * ny)) as u32,
        )
    }

    pub fn center(&self, ijk: UVec3) -> Vec3 {
        self.origin + ijk.as_vec3() * self.cell_size
    }

    pub fn center_of(&self, index: usize) -> Vec3 {
        self.center(self.coords(index))
    }

    /// The box covered by the cells (their outer faces).
    pub fn bounds(&self) -> Aabb {
        let lo = self.origin - Vec3::splat(0.5 * self.cell_size);
        Aabb {
            min: lo,
            max: lo + self.dims.as_vec3() * self.cell_size,
        }
    }

    /// The cell containing `p`, if inside the grid.
    pub fn cell_at(&self, p: Vec3) -> Option<UVec3> {
        let f = ((p - self.origin) / self.cell_size + Vec3::splat(0.5)).floor();
        (f.cmpge(Vec3::ZERO).all() && f.cmplt(self.dims.as_vec3()).all()).then(|| f.as_uvec3())
    }

    /// Number of 4×4×4 bricks per axis (the accelerated backends' unit).
    pub fn bricks(&self) -> UVec3 {
        (self.dims + UVec3::splat(BRICK - 1)) / BRICK
    }

    /// Centre of brick `b`: the middle of its 4³ cell centres.
    pub(crate) fn brick_center(&self, b: UVec3) -> Vec3 {
        self.origin + ((b * BRICK).as_vec3() + Vec3::splat(1.5)) * self.cell_size
    }
}

/// Brick edge in cells (shaders/sdf_packet.wgsl's `BRICK`, checked by
/// tests/it/shader_layouts.rs).
pub const BRICK: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_padded_box_with_resolution_on_longest_axis() {
        let b = Aabb {
            min: Vec3::new(0.0, 0.0, 0.0),
            max: Vec3::new(2.0, 1.0, 0.5),
        };
        let g = GridSpec::around(b, 32, 0.1);
        assert_eq!(g.dims.x, 32);
        assert!(g.dims.y >= 18 && g.dims.y <= 19, "{:?}", g.dims);
        let gb = g.bounds();
        assert!(gb.min.cmple(b.grown(0.2).min + Vec3::splat(1e-4)).all());
        assert!(gb.max.cmpge(b.grown(0.2).max - Vec3::splat(1e-4)).all());
        for idx in [0, 5, 777, g.num_cells() - 1] {
            assert_eq!(g.index(g.coords(idx)), idx);
            assert_eq!(g.cell_at(g.center_of(idx)), Some(g.coords(idx)));
        }
        assert_eq!(g.cell_at(gb.max + Vec3::ONE), None);
    }
}
