//! How a frame of the 3D view looks, apart from the scene: the mesh's
//! mode and opacity, the cells' size, colour map, range and filters, the
//! background. Saved with the viewer's settings; the uniforms of
//! [`super::ViewRenderer`] are made from it.

use glam::Vec3;

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
