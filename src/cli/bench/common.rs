//! The flags more than one benchmark takes: the output directory and the
//! timed repetitions (every target), and the model suites (`sdf` and
//! `adaptive`). Each target's `Args` flattens the groups it uses, so its
//! `--help` lists its own flags only.

use std::path::PathBuf;

use crate::mesh::{Mesh, PrimitiveKind, primitive_with_triangles};

/// Flags of every benchmark.
#[derive(clap::Args, Debug)]
pub struct CommonArgs {
    /// Timed repetitions of each GPU run (after a 0.5 s warm-up); the median is reported.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Output directory for <target>.json, .csv and .png.
    #[arg(long)]
    pub out: PathBuf,
}

/// Which models a benchmark runs on.
#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// Which models: Sundholm's table 7.1 (+ bunny and ogre), the subdivided
    /// bunnies (278K and 1.1M triangles), or both.
    #[arg(long, value_enum, default_value = "sundholm")]
    pub suite: Suite,
    /// Only the models whose names contain one of these (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
pub enum Suite {
    Sundholm,
    Scaling,
    All,
}

impl ModelArgs {
    /// The suite's models that `--models` selects, in table order.
    pub fn selected(&self) -> anyhow::Result<Vec<(String, Mesh)>> {
        let mut models = suite_models(self.suite)?;
        models.retain(|(name, _)| {
            self.models.is_empty() || self.models.iter().any(|m| name.contains(m.as_str()))
        });
        Ok(models)
    }
}

/// The models of a suite, in table order.
fn suite_models(suite: Suite) -> anyhow::Result<Vec<(String, Mesh)>> {
    let mut out = Vec::new();
    if suite != Suite::Scaling {
        for (kind, n) in [
            (PrimitiveKind::Box, 12),
            (PrimitiveKind::Cone, 64),
            (PrimitiveKind::Cylinder, 127),
            (PrimitiveKind::Torus, 399),
            (PrimitiveKind::Box, 768),
            (PrimitiveKind::Sphere, 2499),
        ] {
            let m = primitive_with_triangles(kind, n);
            out.push((m.name.clone(), m));
        }
        // Stand-ins for Sundholm's teapot (992), robot (8,454) and armadillo
        // (27,674): our teapot (6,320), fandisk (12,946), rocker arm (20,088).
        for name in ["teapot", "fandisk", "rocker-arm", "stanford-bunny", "ogre"] {
            out.push((name.to_string(), crate::assets::load_sample(name)?));
        }
    }
    if suite != Suite::Sundholm {
        let bunny = crate::assets::load_sample("stanford-bunny")?;
        if suite == Suite::Scaling {
            out.push(("stanford-bunny".to_string(), bunny.clone()));
        }
        let once = bunny.subdivided();
        let twice = once.subdivided();
        out.push((format!("bunny-sub1 ({})", once.triangles.len()), once));
        out.push((format!("bunny-sub2 ({})", twice.triangles.len()), twice));
    }
    Ok(out)
}
