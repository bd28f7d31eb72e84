//! The broad and narrow phases on the current state, for the read-back
//! backends ([`Pipeline::detect`]): the boxes, sort-and-sweep or the
//! image-space test ([`super::image_broad`]), then the colliders.

use std::time::Instant;

use glam::{Mat3, Vec3};

use super::exact::ExactSegment;
use super::image_broad::PosedBody;
use super::{
    BodyBox, FLAG_STATIC, GroundPlane, Pipeline, PipelineBackend, PipelineError, PipelineParams,
    ground_pairs, ms, pairs_cpu,
};
use crate::stages::collide::{self, Body, BodyShape, ContactSet};
use crate::stages::interfere::InterferenceGpu;
use crate::stages::tritri::TritriGpu;
use crate::timing::Timings;

/// What the broad and narrow phases found.
pub struct Detected {
    pub pairs: Vec<(u32, u32)>,
    /// Field and exact contacts.
    pub contacts: ContactSet,
    /// The exact pairs' intersection segments.
    pub segments: Vec<ExactSegment>,
}

impl Pipeline {
    /// The world boxes the broad phase sorts, swept over `dt`.
    pub fn boxes(&self, margin: f32, dt: f32) -> Vec<BodyBox> {
        (0..self.body_count())
            .filter_map(|i| {
                let b = &self.bodies[i];
                let BodyShape::Mesh(m) = b.shape else {
                    return None;
                };
                let local = self.bounds[m];
                let rot = Mat3::from_quat(b.state.rotation);
                // The posed box's half extents: |R| times the local ones.
                let abs = Mat3::from_cols(rot.x_axis.abs(), rot.y_axis.abs(), rot.z_axis.abs());
                let centre = b.state.position + rot * local.center();
                let half =
                    abs * (0.5 * local.size()) + Vec3::splat(margin) + b.state.velocity.abs() * dt;
                Some(BodyBox {
                    lo: (centre - half).to_array(),
                    flags: if b.is_static() { FLAG_STATIC } else { 0 },
                    hi: (centre + half).to_array(),
                    body: i as u32,
                })
            })
            .collect()
    }

    pub(super) fn ground_plane(&self) -> Option<GroundPlane> {
        let g = self.bodies.last()?;
        match (self.ground, g.shape) {
            (Some(_), BodyShape::Plane { normal, offset }) => Some(GroundPlane {
                normal,
                offset,
                index: (self.bodies.len() - 1) as u32,
            }),
            _ => None,
        }
    }

    /// The bodies as the colliders see them.
    pub fn collider_bodies(&self) -> Vec<Body> {
        self.bodies
            .iter()
            .map(|b| Body {
                shape: b.shape,
                world_from_object: b.world_from_object(),
            })
            .collect()
    }

    /// Broad and narrow phase on the current state with `params.backend`
    /// (no motion): the candidate pairs and their contacts.
    pub fn detect(
        &self,
        params: &PipelineParams,
        timings: &mut Timings,
    ) -> Result<(Vec<(u32, u32)>, ContactSet), PipelineError> {
        let d = self.detect_phases(params, timings)?;
        Ok((d.pairs, d.contacts))
    }

    /// [`Pipeline::detect`] with the exact pairs' intersection segments:
    /// pairs with an exact body go to `super::exact`, the rest to the
    /// fields.
    pub fn detect_phases(
        &self,
        params: &PipelineParams,
        timings: &mut Timings,
    ) -> Result<Detected, PipelineError> {
        self.detect_phases_into(params, timings, ContactSet::default())
    }

    /// [`Pipeline::detect_phases`] with the contacts decoded into `kept`
    /// (the last frame's, its allocation reused by the GPU narrow phase;
    /// its contents are replaced) and returned in [`Detected::contacts`].
    pub(crate) fn detect_phases_into(
        &self,
        params: &PipelineParams,
        timings: &mut Timings,
        mut kept: ContactSet,
    ) -> Result<Detected, PipelineError> {
        let dt = params.rigid().dt;
        let start = Instant::now();
        let boxes = self.boxes(params.box_margin(), dt);
        let ground = self.ground_plane();
        let on_gpu = params.backend.detects_on_gpu();
        let pairs = match params.broad.interference_backend(on_gpu) {
            Some(backend) => {
                let stage = if on_gpu {
                    Some(self.interference()?)
                } else {
                    None
                };
                let mut pairs = self.image.pairs(
                    &self.posed_bodies(),
                    backend,
                    stage,
                    self.image_edge_offset(params),
                    params.image_resolution,
                )?;
                pairs.extend(ground_pairs(&boxes, ground.as_ref()));
                pairs.sort_unstable();
                timings.push("broad", ms(start), None);
                pairs
            }
            None if on_gpu => self.gpu()?.broad.pairs(&boxes, ground.as_ref(), timings)?,
            None => {
                let pairs = pairs_cpu(&boxes, ground.as_ref());
                timings.push("broad", ms(start), None);
                pairs
            }
        };
        let start = Instant::now();
        let bodies = self.collider_bodies();
        let (exact, wide): (Vec<_>, Vec<_>) = pairs
            .iter()
            .map(|&(i, j)| (i as usize, j as usize))
            .partition(|&p| self.is_exact_pair(p));
        let mut contacts = match params.backend {
            PipelineBackend::Cpu => {
                let set = collide::detect_cpu(&self.shapes, &bodies, &wide, &params.colliders)?;
                timings.push("narrow", ms(start), None);
                set
            }
            PipelineBackend::Gpu | PipelineBackend::GpuDetect => {
                let g = self.gpu()?;
                g.colliders.detect_into(
                    &mut kept,
                    &g.resident,
                    &self.shapes,
                    &bodies,
                    &wide,
                    &params.colliders,
                )?;
                let set = kept;
                for p in &set.timings.phases {
                    let name = if p.name == "contacts" {
                        "narrow".to_string()
                    } else {
                        format!("narrow {}", p.name)
                    };
                    timings.push(name, p.wall_ms, p.gpu_ms);
                }
                set
            }
        };
        let mut segments = Vec::new();
        if !exact.is_empty() {
            let gpu = if on_gpu { Some(self.tritri()?) } else { None };
            let found = self.exact_narrow(&exact, gpu, timings)?;
            contacts.contacts.extend(found.contacts);
            segments = found.segments;
        }
        Ok(Detected {
            pairs,
            contacts,
            segments,
        })
    }

    fn tritri(&self) -> Result<&TritriGpu, PipelineError> {
        let g = self.gpu()?;
        Ok(g.tritri.get_or_init(|| TritriGpu::new(&g.ctx)))
    }

    /// The scene bodies as the image-space broad phase poses them.
    fn posed_bodies(&self) -> Vec<PosedBody> {
        self.bodies[..self.body_count()]
            .iter()
            .filter_map(|b| match b.shape {
                BodyShape::Mesh(mesh) => Some(PosedBody {
                    mesh,
                    world_from_object: b.world_from_object(),
                    is_static: b.is_static(),
                }),
                _ => None,
            })
            .collect()
    }

    /// The image-space phase's edge offset: the boxes' margin (with the
    /// contact threshold) plus half the largest field cell diagonal
    /// (`image_broad` says why).
    pub fn image_edge_offset(&self, params: &PipelineParams) -> f32 {
        let cell = self
            .shapes
            .iter()
            .map(|s| s.field.grid.cell_size)
            .fold(0.0, f32::max);
        params.box_margin() + 0.5 * 3f32.sqrt() * cell
    }

    fn interference(&self) -> Result<&InterferenceGpu, PipelineError> {
        let g = self.gpu()?;
        if let Some(stage) = g.interference.get() {
            return Ok(stage);
        }
        let stage = InterferenceGpu::new(&g.ctx)?;
        Ok(g.interference.get_or_init(|| stage))
    }
}
