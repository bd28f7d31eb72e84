//! How a frame of the 3D view looks, apart from the scene: the mesh's
//! mode and opacity, the cells' size, colour map, range and filters, the
//! background. Saved with the viewer's settings; the uniforms of
//! [`super::ViewRenderer`] are made from it.

use glam::Vec3;

use crate::geom::Aabb;

use super::colormap::ColorMap;

/// How the mesh is drawn.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum MeshMode {
    #[default]
    Shaded,
    Wireframe,
    ShadedWireframe,
    Hidden,
}

impl MeshMode {
    pub const ALL: [MeshMode; 4] = [
        MeshMode::Shaded,
        MeshMode::Wireframe,
        MeshMode::ShadedWireframe,
        MeshMode::Hidden,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MeshMode::Shaded => "shaded",
            MeshMode::Wireframe => "wireframe",
            MeshMode::ShadedWireframe => "shaded + wireframe",
            MeshMode::Hidden => "hidden",
        }
    }

    pub(super) fn shaded(self) -> bool {
        matches!(self, MeshMode::Shaded | MeshMode::ShadedWireframe)
    }

    pub(super) fn wireframe(self) -> bool {
        matches!(self, MeshMode::Wireframe | MeshMode::ShadedWireframe)
    }
}

/// A plane that cuts cells away: cells with `dot(normal, p) > offset` are
/// hidden, those with `dot(normal, p) <= offset` kept.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClipPlane {
    pub normal: Vec3,
    pub offset: f32,
}

impl Default for ClipPlane {
    fn default() -> Self {
        ClipPlane {
            normal: Vec3::Z,
            offset: 0.0,
        }
    }
}

impl ClipPlane {
    /// The plane with `normal` through the centre of `bounds` (the default
    /// cut: half the cells stay, wherever the field lies).
    pub fn through_center(bounds: Aabb, normal: Vec3) -> ClipPlane {
        ClipPlane {
            normal,
            offset: normal.dot(bounds.center()),
        }
    }

    /// The offsets at which the plane with `normal` touches `bounds`: at
    /// the first every cell is clipped, at the second every cell stays.
    /// An offset slider spans this range, so it follows the field's own
    /// place and size (a fixed range around zero misses a field far from
    /// the origin and clips all of it). An empty box gives `(-1, 1)`.
    pub fn offset_range(bounds: Aabb, normal: Vec3) -> (f32, f32) {
        if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
            return (-1.0, 1.0);
        }
        let c = normal.dot(bounds.center());
        let r = 0.5 * normal.abs().dot(bounds.size());
        // A flat box (a plane along the normal) still gets a usable range.
        let r = r.max(c.abs() * 1e-6).max(f32::MIN_POSITIVE);
        (c - r, c + r)
    }
}

/// Which cells are drawn. The conditions combine (all must hold).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CellFilter {
    /// Only cells with value < 0.
    pub inside_only: bool,
    /// Only cells with value ≥ 0.
    pub outside_only: bool,
    /// Only cells with |value| < band (world units).
    pub band: Option<f32>,
    pub clip: Option<ClipPlane>,
}

/// Everything about one frame's look that is not the scene itself.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ViewSettings {
    pub mesh_mode: MeshMode,
    pub show_cells: bool,
    /// Diameter of a cell sprite in pixels.
    pub point_size: f32,
    pub color_map: ColorMap,
    /// The colour map's range (world units): values at or below
    /// `value_min` take its low end, at or above `value_max` its high end
    /// ([`ColorMap::color_between`]).
    pub value_min: f32,
    pub value_max: f32,
    pub filter: CellFilter,
    /// Clear colour, linear RGBA.
    pub background: [f32; 4],
    /// The shaded mesh's opacity, [`MIN_OPACITY`]..=1 (1: opaque). Below 1
    /// the mesh is drawn translucent after everything else (module docs).
    pub mesh_opacity: f32,
}

/// The lowest mesh opacity the viewer offers (an invisible mesh is
/// [`MeshMode::Hidden`]).
pub const MIN_OPACITY: f32 = 0.05;

impl Default for ViewSettings {
    fn default() -> Self {
        ViewSettings {
            mesh_mode: MeshMode::Shaded,
            show_cells: true,
            point_size: 3.0,
            color_map: ColorMap::Sundholm,
            value_min: -1.0,
            value_max: 1.0,
            filter: CellFilter::default(),
            background: [0.02, 0.022, 0.028, 1.0],
            mesh_opacity: 1.0,
        }
    }
}

impl ViewSettings {
    /// The colour range `−range..range`.
    pub fn set_symmetric_range(&mut self, range: f32) {
        (self.value_min, self.value_max) = (-range, range);
    }

    /// The larger |end| of the colour range (iso-line spacing, scales).
    pub fn range_extent(&self) -> f32 {
        self.value_min.abs().max(self.value_max.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit box moved by `shift` and scaled by `scale`, as the tests'
    /// off-origin, tiny and huge meshes are.
    fn placed(shift: Vec3, scale: f32) -> Aabb {
        Aabb {
            min: shift + Vec3::new(-0.4, -0.5, 3.6) * scale,
            max: shift + Vec3::new(0.6, 0.5, 4.6) * scale,
        }
    }

    /// A mesh away from the origin (suzanne at z ≈ 4.1, anything moved by
    /// ±1e3) or scaled by 1e-3 or 1e3: the clip slider's range holds the
    /// whole field, so the default cut through its centre lies inside it
    /// (a range fixed around zero clamped the plane off the field and
    /// clipped every cell).
    #[test]
    fn clip_offsets_follow_the_field_wherever_it_lies() {
        for (shift, scale) in [
            (Vec3::ZERO, 1.0),
            (Vec3::splat(1e3), 1.0),
            (Vec3::splat(-1e3), 1.0),
            (Vec3::ZERO, 1e-3),
            (Vec3::ZERO, 1e3),
        ] {
            let b = placed(shift, scale);
            for normal in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Z] {
                let (lo, hi) = ClipPlane::offset_range(b, normal);
                let plane = ClipPlane::through_center(b, normal);
                assert!(
                    lo < plane.offset && plane.offset < hi,
                    "{shift} ×{scale} along {normal}: centre {} outside {lo}..{hi}",
                    plane.offset
                );
                let along: Vec<f32> = [b.min, b.max].iter().map(|p| normal.dot(*p)).collect();
                let (first, last) = (along[0].min(along[1]), along[0].max(along[1]));
                let tol = 1e-5 * (first.abs() + last.abs() + scale);
                assert!(
                    (lo - first).abs() <= tol && (hi - last).abs() <= tol,
                    "{shift} ×{scale} along {normal}: range {lo}..{hi}, field {first}..{last}"
                );
                let kept = plane.offset - first;
                assert!(
                    (kept / (last - first) - 0.5).abs() < 1e-3,
                    "the default cut keeps half the field"
                );
            }
        }
    }

    #[test]
    fn an_empty_or_flat_box_still_gives_a_usable_range() {
        let (lo, hi) = ClipPlane::offset_range(Aabb::default(), Vec3::Z);
        assert!(lo < hi);
        let flat = Aabb {
            min: Vec3::new(0.0, 0.0, 5.0),
            max: Vec3::new(1.0, 1.0, 5.0),
        };
        let (lo, hi) = ClipPlane::offset_range(flat, Vec3::Z);
        assert!(lo < 5.0 && 5.0 < hi, "{lo}..{hi}");
    }
}
