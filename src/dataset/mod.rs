//! Whole datasets: exact signed distances sampled from many meshes, as
//! neural fields (DeepSDF, occupancy networks) train on them.
//!
//! # What one mesh gives
//!
//! The mesh is first **normalised** ([`Normalization`]): moved so that its
//! bounding box's centre is the origin and scaled into the unit sphere or
//! the unit cube (or left as it is); the centre and the scale are written
//! with the samples, so `world = points / scale + center`.
//!
//! The **points** are, in the normalised frame ([`points::sample_points`]):
//!
//! * `near` points near the surface: a point on the surface chosen with
//!   probability proportional to area (a triangle by its area, then a
//!   uniform point on it), displaced by an isotropic Gaussian of variance
//!   σ² (DeepSDF's 0.0025 and 0.00025 by default, the count split evenly
//!   over the variances);
//! * `uniform` points uniform in the mesh's bounding box padded on every
//!   side by a fraction of its longest side.
//!
//! Each point's **signed distance** is the exact one, through the same
//! point query the Python package's `signed_distance` makes
//! ([`crate::stages::sdf::points::signed_at_points`]): on the GPU with the
//! winding-number sign, or on all CPU cores with either sign
//! ([`compute::sample_mesh`]). Closest points and the field's unit
//! gradient ("normals") come from the CPU's nearest-point query.
//!
//! Randomness is a seeded xoshiro256** ([`rng::SampleRng`]): one seed and
//! one mesh give the same points on every machine. A dataset run derives
//! each mesh's seed from the run's seed and the mesh's name, so the order
//! of the meshes, a shard or a resumed run changes nothing.
//!
//! # Many meshes
//!
//! [`manifest`] turns a folder, a glob or a list file into the meshes and
//! their output names; [`driver`] runs them, loading and preparing the next
//! meshes on a worker thread while the GPU works on the current one, and
//! writes each mesh's files ([`files`]) and a line of the results manifest.

pub mod compute;
pub mod driver;
pub mod files;
pub mod manifest;
pub mod points;
pub mod progress_line;
pub mod rng;
pub mod setup;

pub use compute::{MeshSamples, sample_mesh};
pub use driver::{MeshResult, RunOptions, Status, run};
pub use manifest::{Job, Manifest, Shard};
pub use points::Normalized;

use serde::{Deserialize, Serialize};

/// How a mesh is moved and scaled before sampling (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// Centre of the bounding box at the origin, farthest vertex at
    /// distance 1 (DeepSDF).
    UnitSphere,
    /// Centre of the bounding box at the origin, longest side 1: the mesh
    /// in [-½, ½]³ (occupancy networks).
    UnitCube,
    /// The mesh as it is (centre 0, scale 1).
    None,
}

impl Normalization {
    pub const ALL: [Normalization; 3] = [
        Normalization::UnitSphere,
        Normalization::UnitCube,
        Normalization::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Normalization::UnitSphere => "unit-sphere",
            Normalization::UnitCube => "unit-cube",
            Normalization::None => "none",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|n| n.name() == name)
    }
}

/// Which sign the distances get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignChoice {
    /// The winding number where the GPU computes (exact on every mesh,
    /// and the only sign the GPU has); on the CPU the mesh report's choice
    /// (pseudo-normal on closed, consistently oriented meshes).
    Auto,
    Winding,
    PseudoNormal,
}

impl SignChoice {
    pub const ALL: [SignChoice; 3] = [
        SignChoice::Auto,
        SignChoice::Winding,
        SignChoice::PseudoNormal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SignChoice::Auto => "auto",
            SignChoice::Winding => "winding",
            SignChoice::PseudoNormal => "pseudo-normal",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|n| n.name() == name)
    }
}

/// What is sampled from each mesh (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleParams {
    /// Points near the surface.
    pub near: usize,
    /// Points uniform in the padded bounding box.
    pub uniform: usize,
    /// Variances σ² of the near points' Gaussian displacement, in the
    /// normalised frame's units squared.
    pub variances: Vec<f64>,
    /// Padding of the uniform points' box on every side, as a fraction of
    /// the mesh's longest side.
    pub pad: f64,
    pub normalization: Normalization,
    pub sign: SignChoice,
    /// The run's seed (each mesh's own seed is derived from it).
    pub seed: u64,
    /// Also write the closest surface point of each sample.
    pub closest: bool,
    /// Also write the field's unit gradient at each sample.
    pub normals: bool,
}

impl Default for SampleParams {
    fn default() -> Self {
        SampleParams {
            near: 250_000,
            uniform: 25_000,
            variances: vec![0.0025, 0.00025],
            pad: 0.1,
            normalization: Normalization::UnitSphere,
            sign: SignChoice::Auto,
            seed: 0,
            closest: false,
            normals: false,
        }
    }
}

/// The most points one mesh may ask for (an `.npz` stays below 4 GiB).
pub const MAX_POINTS: usize = 50_000_000;

impl SampleParams {
    /// Refuses parameters no mesh can be sampled with, naming the one.
    pub fn validate(&self) -> Result<(), DatasetError> {
        let bad = |name: &'static str, why: String| Err(DatasetError::Param { name, why });
        if self.near + self.uniform == 0 {
            return bad("near", "near and uniform are both 0: no points".into());
        }
        if self.near.saturating_add(self.uniform) > MAX_POINTS {
            return bad(
                "near",
                format!("near + uniform must be at most {MAX_POINTS}"),
            );
        }
        if self.near > 0 && self.variances.is_empty() {
            return bad(
                "variances",
                "at least one variance is needed for near points".into(),
            );
        }
        if let Some(v) = self
            .variances
            .iter()
            .find(|v| !(v.is_finite() && **v >= 0.0))
        {
            return bad("variances", format!("{v} is not a finite number ≥ 0"));
        }
        if !(self.pad.is_finite() && (0.0..=10.0).contains(&self.pad)) {
            return bad("pad", format!("{} is not a number in [0, 10]", self.pad));
        }
        Ok(())
    }
}

/// Why a dataset run, or one mesh of it, failed: one line.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("{name}: {why}")]
    Param { name: &'static str, why: String },
    #[error("{0}")]
    Manifest(String),
    #[error(transparent)]
    Mesh(#[from] crate::mesh::MeshError),
    #[error(transparent)]
    Sdf(#[from] crate::stages::sdf::SdfError),
    #[error("time limit of {limit_s} s reached {during}")]
    TimeLimit { limit_s: f64, during: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Output(#[from] crate::io::OutputError),
}
