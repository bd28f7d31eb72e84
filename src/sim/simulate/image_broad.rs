//! The image-space broad phase: Knott's interference test (Knott 2003,
//! chapter 4; [`crate::stages::interfere`]) on the bodies' meshes posed
//! this frame, in place of sort-and-sweep over their boxes.
//!
//! Each scene body is one object of an interference scene, numbered as the
//! bodies. Rays through the pixels of three orthographic views (x, y, z;
//! §4.5.4: a pair found in any view interferes) count the faces in front
//! of each ray's nearest edge point; a pair is a candidate when an edge of
//! one lies inside the other (theorem 4.1). Edges are pushed out by the
//! edge offset (§4.3.3), which here is the broad phase's margin plus half
//! the largest field cell diagonal: the narrow phase's surface is the
//! fields' zero set, which lies within about that of the mesh, so a pair
//! the fields see touching is within the offset of interfering. Pairs of
//! coincident surfaces ([`InterferenceSummary::touching`], CPU backend)
//! count too; two static bodies are never paired; the ground is paired as
//! sort-and-sweep pairs it ([`super::broad::ground_pairs`]).
//!
//! The answer is exact for the meshes up to the pixel size (the view's
//! extent over the resolution; §4.5.3), where sort-and-sweep gives every
//! pair of overlapping boxes: fewer candidates for the narrow phase, each
//! a pair that actually touches, at the cost of drawing every triangle.
//! Backends: the compute rays ([`Backend::Compute`], the default on the
//! GPU), the stencil passes ([`Backend::Stencil`]) or, with the CPU
//! pipeline, the CPU reference ([`Backend::Cpu`]).
//!
//! [`InterferenceSummary::touching`]: crate::stages::interfere::InterferenceSummary::touching

use std::collections::BTreeSet;

use glam::Mat4;

use crate::mesh::Mesh;
use crate::stages::interfere::{
    self, Backend, InterferenceError, InterferenceGpu, InterferenceObject, InterferenceParams,
    InterferenceScene, RunOptions, ViewAxis,
};

/// Which broad phase finds the candidate pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BroadPhase {
    /// Sort-and-sweep over the bodies' world boxes (`super::broad`).
    #[default]
    SortAndSweep,
    /// The interference test's compute backend (CPU reference on the CPU
    /// pipeline).
    ImageCompute,
    /// The interference test's stencil passes (CPU reference on the CPU
    /// pipeline).
    ImageStencil,
}

impl BroadPhase {
    pub const ALL: [BroadPhase; 3] = [
        BroadPhase::SortAndSweep,
        BroadPhase::ImageCompute,
        BroadPhase::ImageStencil,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BroadPhase::SortAndSweep => "sweep",
            BroadPhase::ImageCompute => "image",
            BroadPhase::ImageStencil => "image-stencil",
        }
    }

    pub fn parse(s: &str) -> Option<BroadPhase> {
        BroadPhase::ALL.into_iter().find(|b| b.name() == s.trim())
    }

    /// The interference backend, `None` for sort-and-sweep.
    pub(crate) fn interference_backend(self, on_gpu: bool) -> Option<Backend> {
        match self {
            BroadPhase::SortAndSweep => None,
            _ if !on_gpu => Some(Backend::Cpu),
            BroadPhase::ImageCompute => Some(Backend::Compute),
            BroadPhase::ImageStencil => Some(Backend::Stencil),
        }
    }
}

/// Each mesh as an interference object in its own frame: edges and
/// pseudo-normals built once, posed per frame.
pub struct ImageBroad {
    objects: Vec<InterferenceObject>,
}

/// One body as the image-space phase sees it.
pub struct PosedBody {
    pub mesh: usize,
    pub world_from_object: Mat4,
    pub is_static: bool,
}

impl ImageBroad {
    pub fn new(meshes: &[Mesh]) -> ImageBroad {
        ImageBroad {
            objects: meshes
                .iter()
                .map(|m| InterferenceObject::new(m, Mat4::IDENTITY))
                .collect(),
        }
    }

    /// The candidate pairs `(i, j)`, `i < j`, sorted, among `bodies` (no
    /// ground): every pair whose posed meshes interfere with edges pushed
    /// out by `edge_offset`, in views of `resolution`² pixels.
    pub fn pairs(
        &self,
        bodies: &[PosedBody],
        backend: Backend,
        gpu: Option<&InterferenceGpu>,
        edge_offset: f32,
        resolution: u32,
    ) -> Result<Vec<(u32, u32)>, InterferenceError> {
        if bodies.len() < 2 {
            return Ok(Vec::new());
        }
        let scene = InterferenceScene::new(
            bodies
                .iter()
                .map(|b| self.objects[b.mesh].posed(b.world_from_object))
                .collect(),
        )?;
        let params = InterferenceParams {
            width: resolution,
            height: resolution,
            edge_offset: Some(edge_offset),
            ..InterferenceParams::default()
        };
        let summary = match backend {
            Backend::Cpu => interfere::detect_cpu(&scene, &params, &ViewAxis::ALL).1,
            Backend::Stencil | Backend::Compute => {
                let stage = gpu.ok_or_else(crate::stages::no_gpu)?;
                let options = RunOptions {
                    read_pixels: false,
                    ..RunOptions::default()
                };
                interfere::detect_with(backend, stage, &scene, &params, &ViewAxis::ALL, options)?.1
            }
        };
        let found = summary
            .pairs
            .iter()
            .copied()
            .chain(summary.touching.iter().map(|t| t.objects));
        let pairs: BTreeSet<(u32, u32)> = found
            .filter(|&[i, j]| !(bodies[i].is_static && bodies[j].is_static))
            .map(|[i, j]| (i.min(j) as u32, i.max(j) as u32))
            .collect();
        Ok(pairs.into_iter().collect())
    }
}
