//! The headless simulation's files: SCENE.json in, trajectory.json out.
//!
//! ```json
//! {"timestep": 0.0166, "substeps": 1, "gravity": [0, -9.81, 0],
//!  "ground": {"point": [0, 0, 0], "normal": [0, 1, 0]},
//!  "restitution": 0.2, "friction": 0.5,
//!  "bodies": [{"mesh": "a.obj", "position": [0, 1, 0], "orientation": [0, 0, 0, 1],
//!              "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0],
//!              "density": 1000, "static": false, "exact": false}]}
//! ```
//!
//! `timestep`, `bodies` and each body's `mesh` are required; the rest have
//! the defaults shown (no ground when `ground` is absent). Mesh paths are
//! relative to the scene file; bodies naming the same file share one field.
//! Orientations are quaternions `[x, y, z, w]` (normalised on reading);
//! `velocity` is that of the centre of mass; `"exact": true` gives the
//! body's pairs the triangle–triangle narrow phase (`super::exact`). Every problem is reported as
//! one line naming the field, e.g. `bodies[2].orientation: expected 4
//! numbers, got 3`; unknown fields are refused (a misspelt `"statc"` would
//! otherwise silently drop a body).
//!
//! The trajectory has one frame per simulated frame, after its step:
//! `{"frames": [{"t", "contacts", "bodies": [{"position", "orientation",
//! "velocity", "angular_velocity"}]}]}`, poses of the meshes' own
//! coordinates ([`super::Pipeline::mesh_pose`]).

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use serde_json::{Map, Value};

use super::{
    BodySpec, BroadPhase, Ground, Pipeline, PipelineBackend, PipelineError, PipelineParams,
};
use crate::sim::collide::BodyState;

/// A scene read from its file.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneFile {
    pub params: PipelineParams,
    pub ground: Option<Ground>,
    /// Mesh files, each once, resolved against the scene's folder.
    pub meshes: Vec<PathBuf>,
    pub bodies: Vec<BodySpec>,
    /// Per body: `"exact"` ([`Pipeline::set_exact`]).
    pub exact: Vec<bool>,
}

/// A field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct SceneError {
    pub field: String,
    pub reason: String,
}

fn bad(field: &str, reason: impl Into<String>) -> SceneError {
    SceneError {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Refuses keys outside `known` in the object at `path`.
fn object<'a>(
    v: &'a Value,
    path: &str,
    known: &[&str],
) -> Result<&'a Map<String, Value>, SceneError> {
    let map = v
        .as_object()
        .ok_or_else(|| bad(path, "expected an object"))?;
    if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
        let field = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        return Err(bad(
            &field,
            format!("unknown field (known: {})", known.join(", ")),
        ));
    }
    Ok(map)
}

fn number(v: &Value, field: &str) -> Result<f32, SceneError> {
    let x = v
        .as_f64()
        .ok_or_else(|| bad(field, format!("expected a number, got {v}")))? as f32;
    if !x.is_finite() {
        return Err(bad(field, "must be finite"));
    }
    Ok(x)
}

fn numbers<const N: usize>(v: &Value, field: &str) -> Result<[f32; N], SceneError> {
    let items = v
        .as_array()
        .ok_or_else(|| bad(field, format!("expected {N} numbers, got {v}")))?;
    if items.len() != N {
        return Err(bad(
            field,
            format!("expected {N} numbers, got {}", items.len()),
        ));
    }
    let mut out = [0.0; N];
    for (k, item) in items.iter().enumerate() {
        out[k] = number(item, &format!("{field}[{k}]"))?;
    }
    Ok(out)
}

/// `map[key]` read by `read`, or `default` when absent.
fn optional<T>(
    map: &Map<String, Value>,
    path: &str,
    key: &str,
    default: T,
    read: impl FnOnce(&Value, &str) -> Result<T, SceneError>,
) -> Result<T, SceneError> {
    let field = if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    };
    map.get(key).map_or(Ok(default), |v| read(v, &field))
}

fn in_range(x: f32, field: &str, lo: f32, hi: f32) -> Result<f32, SceneError> {
    if x < lo || x > hi {
        return Err(bad(field, format!("{x} is outside {lo}..={hi}")));
    }
    Ok(x)
}

fn unit(v: Vec3, field: &str) -> Result<Vec3, SceneError> {
    if v.length() < 1e-6 {
        return Err(bad(field, "must be a non-zero vector"));
    }
    Ok(v.normalize())
}

impl SceneFile {
    /// Parses `text`; mesh paths are resolved against `dir`.
    pub fn parse(text: &str, dir: &Path) -> Result<SceneFile, SceneError> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| bad("scene", format!("not JSON: {e}")))?;
        let known = [
            "timestep",
            "substeps",
            "gravity",
            "ground",
            "restitution",
            "friction",
            "bodies",
        ];
        let map = object(&root, "", &known)?;
        let timestep = number(
            map.get("timestep")
                .ok_or_else(|| bad("timestep", "missing"))?,
            "timestep",
        )?;
        if timestep <= 0.0 || timestep > 1.0 {
            return Err(bad("timestep", format!("{timestep} is outside (0, 1] s")));
        }
        let defaults = PipelineParams::default();
        let substeps = optional(map, "", "substeps", 1, |v, f| {
            v.as_u64()
                .filter(|n| (1..=64).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| bad(f, format!("expected a whole number in 1..=64, got {v}")))
        })?;
        let gravity = optional(map, "", "gravity", defaults.gravity, |v, f| {
            numbers::<3>(v, f).map(Vec3::from)
        })?;
        let restitution = optional(map, "", "restitution", defaults.restitution, |v, f| {
            in_range(number(v, f)?, f, 0.0, 1.0)
        })?;
        let friction = optional(map, "", "friction", defaults.friction, |v, f| {
            in_range(number(v, f)?, f, 0.0, 10.0)
        })?;
        let ground = optional(map, "", "ground", None, |v, f| {
            let g = object(v, f, &["point", "normal"])?;
            let point = optional(g, f, "point", Vec3::ZERO, |v, f| {
                numbers::<3>(v, f).map(Vec3::from)
            })?;
            let normal = optional(g, f, "normal", Vec3::Y, |v, f| {
                unit(Vec3::from(numbers::<3>(v, f)?), f)
            })?;
            Ok(Some(Ground { point, normal }))
        })?;
        let list = map
            .get("bodies")
            .ok_or_else(|| bad("bodies", "missing"))?
            .as_array()
            .ok_or_else(|| bad("bodies", "expected a list of bodies"))?;
        if list.is_empty() {
            return Err(bad("bodies", "the scene has no bodies"));
        }
        let mut meshes: Vec<PathBuf> = Vec::new();
        let mut bodies = Vec::with_capacity(list.len());
        let mut exact = Vec::with_capacity(list.len());
        for (i, v) in list.iter().enumerate() {
            let path = format!("bodies[{i}]");
            let (spec, is_exact) = body(v, &path, dir, &mut meshes)?;
            bodies.push(spec);
            exact.push(is_exact);
        }
        Ok(SceneFile {
            params: PipelineParams {
                timestep,
                substeps,
                gravity,
                restitution,
                friction,
                ..defaults
            },
            ground,
            meshes,
            bodies,
            exact,
        })
    }

    /// The scene's parameters with the run's choices: on the GPU, the
    /// resident step where it can run (the sort-and-sweep broad phase and
    /// no exact body), else the GPU detection read back to the CPU solver.
    pub fn params_for(
        &self,
        on_gpu: bool,
        broad: BroadPhase,
        image_resolution: u32,
        contact_threshold: f32,
    ) -> PipelineParams {
        let mut params = self.params;
        params.broad = broad;
        params.image_resolution = image_resolution;
        params.colliders.contact_threshold = contact_threshold;
        params.backend = match (on_gpu, broad) {
            (false, _) => PipelineBackend::Cpu,
            (true, BroadPhase::SortAndSweep) if !self.exact.contains(&true) => PipelineBackend::Gpu,
            (true, _) => PipelineBackend::GpuDetect,
        };
        params
    }

    /// Reads and parses the scene at `path`.
    pub fn read(path: &Path) -> Result<SceneFile, SceneError> {
        let text = crate::io::read_input_text(path, crate::io::InputKind::Scene).map_err(|e| {
            bad(
                &path.display().to_string(),
                format!("cannot read: {}", e.reason()),
            )
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Self::parse(&text, dir)
    }
}

fn body(
    v: &Value,
    path: &str,
    dir: &Path,
    meshes: &mut Vec<PathBuf>,
) -> Result<(BodySpec, bool), SceneError> {
    let known = [
        "mesh",
        "position",
        "orientation",
        "velocity",
        "angular_velocity",
        "density",
        "static",
        "exact",
    ];
    let b = object(v, path, &known)?;
    let field = format!("{path}.mesh");
    let name = b
        .get("mesh")
        .ok_or_else(|| bad(&field, "missing"))?
        .as_str()
        .ok_or_else(|| bad(&field, "expected a file name"))?;
    let file = dir.join(name);
    if !file.is_file() {
        return Err(bad(&field, format!("{} is not a file", file.display())));
    }
    let mesh = match meshes.iter().position(|m| *m == file) {
        Some(k) => k,
        None => {
            meshes.push(file);
            meshes.len() - 1
        }
    };
    let vec3 = |key: &str| {
        optional(b, path, key, Vec3::ZERO, |v, f| {
            numbers::<3>(v, f).map(Vec3::from)
        })
    };
    let orientation = optional(b, path, "orientation", Quat::IDENTITY, |v, f| {
        let q = Quat::from_array(numbers::<4>(v, f)?);
        if q.length() < 1e-6 {
            return Err(bad(f, "the quaternion has zero length"));
        }
        Ok(q.normalize())
    })?;
    let density = optional(b, path, "density", 1000.0, |v, f| {
        let d = number(v, f)?;
        if d <= 0.0 {
            return Err(bad(f, format!("{d} must be > 0")));
        }
        Ok(d)
    })?;
    let flag = |key: &str| {
        optional(b, path, key, false, |v, f| {
            v.as_bool()
                .ok_or_else(|| bad(f, format!("expected true or false, got {v}")))
        })
    };
    let is_static = flag("static")?;
    let spec = BodySpec {
        mesh,
        position: vec3("position")?,
        orientation,
        velocity: vec3("velocity")?,
        angular_velocity: vec3("angular_velocity")?,
        density,
        is_static,
    };
    Ok((spec, flag("exact")?))
}

/// One body in one frame of the trajectory.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BodyFrame {
    pub position: [f32; 3],
    pub orientation: [f32; 4],
    pub velocity: [f32; 3],
    pub angular_velocity: [f32; 3],
}

/// One frame of the trajectory.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Frame {
    pub t: f64,
    pub contacts: usize,
    pub bodies: Vec<BodyFrame>,
}

/// trajectory.json.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Trajectory {
    pub frames: Vec<Frame>,
}

/// Frames whose states come back in one read-back of the resident GPU
/// step ([`Pipeline::step_batch`]).
const BATCH: usize = 64;

/// Steps `pipeline` `frames` frames, `BATCH` at a time, calling `each`
/// with every frame's number (from 1), its body states and its contact
/// count: `simulate`'s loop, for callers that keep more than a
/// [`Trajectory`].
pub fn run_frames(
    pipeline: &mut Pipeline,
    params: &PipelineParams,
    frames: usize,
    mut each: impl FnMut(&Pipeline, usize, &[BodyState], usize),
) -> Result<(), PipelineError> {
    let mut done = 0;
    while done < frames {
        let batch = pipeline.step_batch(params, (frames - done).min(BATCH))?;
        for (states, contacts) in &batch {
            done += 1;
            each(pipeline, done, states, *contacts);
        }
    }
    Ok(())
}

impl Trajectory {
    /// `frames` frames of `pipeline` ([`run_frames`]).
    pub fn record(
        pipeline: &mut Pipeline,
        params: &PipelineParams,
        frames: usize,
    ) -> Result<Trajectory, PipelineError> {
        let mut trajectory = Trajectory::default();
        run_frames(pipeline, params, frames, |p, frame, states, contacts| {
            let f = Frame::at(p, frame, states, contacts, params.timestep);
            trajectory.frames.push(f);
        })?;
        Ok(trajectory)
    }
}

impl Frame {
    /// Frame `frame` of pipeline `p` whose bodies were in `states` with
    /// `contacts` contacts.
    pub fn at(
        p: &Pipeline,
        frame: usize,
        states: &[BodyState],
        contacts: usize,
        timestep: f32,
    ) -> Frame {
        Frame {
            t: frame as f64 * timestep as f64,
            contacts,
            bodies: (0..p.body_count())
                .map(|i| {
                    let s = &states[i];
                    let (position, orientation) = p.mesh_pose_of(i, s);
                    BodyFrame {
                        position: position.to_array(),
                        orientation: orientation.to_array(),
                        velocity: s.velocity.to_array(),
                        angular_velocity: s.angular_velocity.to_array(),
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SceneFile, SceneError> {
        let dir = std::env::temp_dir().join(format!("collidoscope-scene-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("a.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").expect("obj");
        SceneFile::parse(text, &dir)
    }

    #[test]
    fn a_full_scene_reads_with_its_defaults_and_shared_meshes() {
        let s = parse(
            r#"{"timestep": 0.0166, "substeps": 2, "ground": {"point": [0,0,0], "normal": [0,2,0]},
                "bodies": [{"mesh": "a.obj", "position": [1,2,3], "orientation": [0,0,0,2]},
                           {"mesh": "a.obj", "static": true, "density": 500}]}"#,
        )
        .expect("scene");
        assert_eq!(s.meshes.len(), 1);
        assert_eq!(s.bodies.len(), 2);
        assert_eq!(s.params.substeps, 2);
        assert_eq!(s.params.restitution, 0.2);
        assert_eq!(s.ground.expect("ground").normal, Vec3::Y);
        assert_eq!(s.bodies[0].orientation, Quat::IDENTITY);
        assert_eq!(s.bodies[0].position, Vec3::new(1.0, 2.0, 3.0));
        assert!(s.bodies[1].is_static && s.bodies[1].density == 500.0);
        assert_eq!(s.exact, [false, false]);
    }

    #[test]
    fn exact_is_read_per_body_and_must_be_a_bool() {
        let s = parse(
            r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj", "exact": true}, {"mesh": "a.obj"}]}"#,
        )
        .expect("scene");
        assert_eq!(s.exact, [true, false]);
        let e = parse(r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj", "exact": 1}]}"#)
            .expect_err("exact: 1");
        assert_eq!(
            e.to_string(),
            "bodies[0].exact: expected true or false, got 1"
        );
    }

    #[test]
    fn bad_scenes_name_the_field() {
        let cases = [
            (r#"{"bodies": []}"#, "timestep"),
            (r#"{"timestep": 0.01}"#, "bodies"),
            (r#"{"timestep": 0.01, "bodies": []}"#, "bodies"),
            (
                r#"{"timestep": -1, "bodies": [{"mesh": "a.obj"}]}"#,
                "timestep",
            ),
            (
                r#"{"timestep": 0.01, "bodies": [{"mesh": "b.obj"}]}"#,
                "bodies[0].mesh",
            ),
            (
                r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj"}, {"mesh": "a.obj", "orientation": [0,0,1]}]}"#,
                "bodies[1].orientation",
            ),
            (
                r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj", "statc": true}]}"#,
                "bodies[0].statc",
            ),
            (
                r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj", "density": 0}]}"#,
                "bodies[0].density",
            ),
            (
                r#"{"timestep": 0.01, "ground": {"normal": [0,0,0]}, "bodies": [{"mesh": "a.obj"}]}"#,
                "ground.normal",
            ),
            (
                r#"{"timestep": 0.01, "gravity": [0,"a",0], "bodies": [{"mesh": "a.obj"}]}"#,
                "gravity[1]",
            ),
            (
                r#"{"timestep": 0.01, "friction": -1, "bodies": [{"mesh": "a.obj"}]}"#,
                "friction",
            ),
            (
                r#"{"timestep": 0.01, "bodies": [{"mesh": "a.obj", "exact": "yes"}]}"#,
                "bodies[0].exact",
            ),
            ("{", "scene"),
        ];
        for (text, field) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.field, field, "{text}: {e}");
        }
    }
}
