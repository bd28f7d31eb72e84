//! The particle scene file (`SCENE.json`): emitters, gravity, bounces and
//! colliders, read with serde into raw types and checked into
//! [`ParticleScene`], whose every value is finite and meaningful.
//!
//! ```json
//! {"gravity": [0,-9.81,0], "bounces": 0, "restitution": 0.5,
//!  "emitters": [{"count": 100000, "position": [0,5,0], "position_jitter": 1.0,
//!                "velocity": [0,0,0], "velocity_jitter": 1.0, "lifetime": 2.0,
//!                "order": 2, "seed": 1}],
//!  "colliders": [{"type": "plane", "point": [0,0,0], "normal": [0,1,0], "disc": 2.0}]}
//! ```
//!
//! Every error names the field (`colliders[2].normal`, `emitters[0].count`)
//! and the offending value in one line. The GPU evaluates in f32, so every
//! number must stay within [`MAX_MAGNITUDE`] (its square is still a finite
//! f32): a velocity of 1e39 would become infinite there and is refused
//! here. Directions are normalised after dividing by their largest
//! component, so `[0, 1e200, 0]` is the unit y axis, not a zero vector
//! (its length overflows f64); a quadric matrix is divided by its largest
//! entry, which leaves its surface and its inside unchanged, so a quadric
//! written at 1e300 or 1e-300 hits on the GPU as on the CPU.

use glam::DVec3;
use serde::Deserialize;

use super::ParticleError;

/// Most particles one scene may hold (all emitters together): particle
/// indices are `u32` on the GPU.
pub const MAX_PARTICLES: u64 = 1 << 28;
/// Most bounces a flight chain may have (the shader unrolls nothing, but a
/// chain is one loop per particle per frame).
pub const MAX_BOUNCES: u32 = 8;
/// Most colliders in one scene.
pub(crate) const MAX_COLLIDERS: usize = 64;
/// Largest magnitude of any number of a scene: its square is a finite f32.
pub const MAX_MAGNITUDE: f64 = 1e18;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScene {
    gravity: [f64; 3],
    #[serde(default)]
    bounces: i64,
    #[serde(default)]
    restitution: f64,
    emitters: Vec<RawEmitter>,
    colliders: Vec<RawCollider>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEmitter {
    count: i64,
    position: [f64; 3],
    #[serde(default)]
    position_jitter: f64,
    velocity: [f64; 3],
    #[serde(default)]
    velocity_jitter: f64,
    lifetime: f64,
    order: i64,
    #[serde(default)]
    seed: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRect {
    u: [f64; 3],
    v: [f64; 3],
    half: [f64; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBounds {
    min: [f64; 3],
    max: [f64; 3],
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum RawCollider {
    Plane {
        point: [f64; 3],
        normal: [f64; 3],
        rect: Option<RawRect>,
        disc: Option<f64>,
    },
    Sphere {
        centre: [f64; 3],
        radius: f64,
    },
    Ellipsoid {
        centre: [f64; 3],
        radii: [f64; 3],
    },
    Cylinder {
        base: [f64; 3],
        axis: [f64; 3],
        radius: f64,
        height: f64,
    },
    Cone {
        apex: [f64; 3],
        axis: [f64; 3],
        half_angle: f64,
        height: f64,
    },
    Quadric {
        matrix: Vec<f64>,
        bounds: RawBounds,
    },
}

/// Motion order of an emitter's flights (eq. 3.7 and 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Order {
    /// `p0 + v0·(t−t0)`.
    First,
    /// `p0 + v0·(t−t0) + ½·g·(t−t0)²`.
    Second,
}

/// One emitter: `count` particles whose start conditions are the base
/// values plus a jitter drawn from a hash of (seed, particle, generation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Emitter {
    pub count: u32,
    pub position: DVec3,
    pub position_jitter: f64,
    pub velocity: DVec3,
    pub velocity_jitter: f64,
    /// Period of a particle's life, seconds (> 0).
    pub lifetime: f64,
    pub order: Order,
    pub seed: u32,
}

/// An optional bound on a plane collider (eq. 3.5 with constraints c(p) > 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlaneBound {
    /// Unbounded.
    None,
    /// `|u·(p−q)| < half.x` and `|v·(p−q)| < half.y` (u, v unit, orthogonal).
    Rect { u: DVec3, v: DVec3, half: [f64; 2] },
    /// `r − |p − q| > 0`.
    Disc(f64),
}

/// A collider as written in the scene, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum ColliderShape {
    Plane {
        point: DVec3,
        /// Unit normal.
        normal: DVec3,
        bound: PlaneBound,
    },
    Sphere {
        centre: DVec3,
        radius: f64,
    },
    Ellipsoid {
        centre: DVec3,
        radii: DVec3,
    },
    Cylinder {
        base: DVec3,
        /// Unit axis.
        axis: DVec3,
        radius: f64,
        height: f64,
    },
    Cone {
        apex: DVec3,
        /// Unit axis, pointing into the nappe.
        axis: DVec3,
        half_angle: f64,
        height: f64,
    },
    Quadric {
        /// Row-major, symmetric.
        matrix: [f64; 16],
        min: DVec3,
        max: DVec3,
    },
}

impl ColliderShape {
    /// The scene file's name of the shape.
    pub fn kind(&self) -> &'static str {
        match self {
            ColliderShape::Plane { .. } => "plane",
            ColliderShape::Sphere { .. } => "sphere",
            ColliderShape::Ellipsoid { .. } => "ellipsoid",
            ColliderShape::Cylinder { .. } => "cylinder",
            ColliderShape::Cone { .. } => "cone",
            ColliderShape::Quadric { .. } => "quadric",
        }
    }
}

/// A checked scene.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleScene {
    pub gravity: DVec3,
    /// Bounces per life (0: eliminated at the first impact, §3.3.1).
    pub bounces: u32,
    /// Fraction of the normal speed kept at a bounce, in [0, 1].
    pub restitution: f64,
    pub emitters: Vec<Emitter>,
    pub colliders: Vec<ColliderShape>,
}

impl ParticleScene {
    /// Parses and checks a scene; `source` names the file in errors.
    pub fn from_json(text: &str, source: &str) -> Result<Self, ParticleError> {
        let raw: RawScene = serde_json::from_str(text).map_err(|e| {
            let line = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
            let rest = line.get(e.column().saturating_sub(1)..).unwrap_or("");
            let hint = if ["NaN", "Infinity", "-Infinity", "inf"]
                .iter()
                .any(|w| rest.starts_with(w))
            {
                " (NaN and Infinity are not numbers in JSON; every value must be finite)"
            } else {
                ""
            };
            ParticleError::Scene(format!("{source}: {e}{hint}"))
        })?;
        check(raw).map_err(|e| ParticleError::Scene(format!("{source}: {e}")))
    }

    /// Reads and checks a scene file.
    pub fn load(path: &std::path::Path) -> Result<Self, ParticleError> {
        let text = crate::io::read_input_text(path, crate::io::InputKind::Scene)
            .map_err(|e| ParticleError::Scene(e.to_string()))?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Particles of all emitters together.
    pub fn particle_count(&self) -> u64 {
        self.emitters.iter().map(|e| u64::from(e.count)).sum()
    }

    /// The same scene with each emitter's count scaled so that the total is
    /// about `total` (at least one particle per non-empty emitter).
    pub fn with_particle_count(&self, total: u64) -> Self {
        let now = self.particle_count().max(1) as f64;
        let mut scene = self.clone();
        for e in &mut scene.emitters {
            let scaled = (f64::from(e.count) * total as f64 / now).round();
            e.count = (scaled as u32).max(u32::from(e.count > 0 && total > 0));
        }
        scene
    }
}

/// `x` if the GPU's f32 can carry it (and its square).
fn representable(field: &str, x: f64) -> Result<f64, String> {
    if !x.is_finite() {
        return Err(format!("{field} is {x} (must be finite)"));
    }
    if x.abs() > MAX_MAGNITUDE {
        return Err(format!(
            "{field} is {x:e}; the GPU computes in f32, so numbers must be within ±{MAX_MAGNITUDE:e}"
        ));
    }
    Ok(x)
}

fn finite3(field: &str, v: [f64; 3]) -> Result<DVec3, String> {
    for (i, &x) in v.iter().enumerate() {
        representable(&format!("{field}[{i}]"), x)?;
    }
    Ok(DVec3::from_array(v))
}

/// A direction: any finite, non-zero vector, normalised.
fn unit(field: &str, v: [f64; 3]) -> Result<DVec3, String> {
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(format!("{field}[{i}] is {} (must be finite)", v[i]));
    }
    let d = DVec3::from_array(v);
    let largest = d.abs().max_element();
    if largest == 0.0 {
        return Err(format!(
            "{field} is the zero vector {v:?}; it needs a direction"
        ));
    }
    Ok((d / largest).normalize())
}

fn positive(field: &str, x: f64) -> Result<f64, String> {
    if !(x.is_finite() && x > 0.0) {
        return Err(format!("{field} is {x}; it must be finite and > 0"));
    }
    representable(field, x)
}

fn non_negative(field: &str, x: f64) -> Result<f64, String> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("{field} is {x}; it must be finite and >= 0"));
    }
    representable(field, x)
}

fn check(raw: RawScene) -> Result<ParticleScene, String> {
    let gravity = finite3("gravity", raw.gravity)?;
    if raw.bounces < 0 || raw.bounces > i64::from(MAX_BOUNCES) {
        return Err(format!(
            "bounces is {}; it must be in 0..={MAX_BOUNCES}",
            raw.bounces
        ));
    }
    let restitution = non_negative("restitution", raw.restitution)?;
    if restitution > 1.0 {
        return Err(format!(
            "restitution is {restitution}; it must be in [0, 1]"
        ));
    }
    let emitters = raw
        .emitters
        .into_iter()
        .enumerate()
        .map(|(i, e)| check_emitter(&format!("emitters[{i}]"), e))
        .collect::<Result<Vec<_>, _>>()?;
    let total: u64 = emitters.iter().map(|e| u64::from(e.count)).sum();
    if total > MAX_PARTICLES {
        return Err(format!(
            "emitters hold {total} particles in all; at most {MAX_PARTICLES}"
        ));
    }
    if raw.colliders.len() > MAX_COLLIDERS {
        return Err(format!(
            "colliders has {} entries; at most {MAX_COLLIDERS}",
            raw.colliders.len()
        ));
    }
    let colliders = raw
        .colliders
        .into_iter()
        .enumerate()
        .map(|(i, c)| check_collider(&format!("colliders[{i}]"), c))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ParticleScene {
        gravity,
        bounces: raw.bounces as u32,
        restitution,
        emitters,
        colliders,
    })
}

fn check_emitter(at: &str, e: RawEmitter) -> Result<Emitter, String> {
    if e.count < 0 {
        return Err(format!("{at}.count is {}; it must be >= 0", e.count));
    }
    if e.count as u64 > MAX_PARTICLES {
        return Err(format!(
            "{at}.count is {}; at most {MAX_PARTICLES}",
            e.count
        ));
    }
    let order = match e.order {
        1 => Order::First,
        2 => Order::Second,
        o => return Err(format!("{at}.order is {o}; it must be 1 or 2")),
    };
    if e.seed < 0 || e.seed > i64::from(u32::MAX) {
        return Err(format!("{at}.seed is {}; it must be in 0..=2^32-1", e.seed));
    }
    Ok(Emitter {
        count: e.count as u32,
        position: finite3(&format!("{at}.position"), e.position)?,
        position_jitter: non_negative(&format!("{at}.position_jitter"), e.position_jitter)?,
        velocity: finite3(&format!("{at}.velocity"), e.velocity)?,
        velocity_jitter: non_negative(&format!("{at}.velocity_jitter"), e.velocity_jitter)?,
        lifetime: positive(&format!("{at}.lifetime"), e.lifetime)?,
        order,
        seed: e.seed as u32,
    })
}

fn check_collider(at: &str, c: RawCollider) -> Result<ColliderShape, String> {
    let f = |name: &str| format!("{at}.{name}");
    Ok(match c {
        RawCollider::Plane {
            point,
            normal,
            rect,
            disc,
        } => {
            let point = finite3(&f("point"), point)?;
            let normal = unit(&f("normal"), normal)?;
            let bound = match (rect, disc) {
                (Some(_), Some(_)) => {
                    return Err(format!("{at} has both rect and disc; give at most one"));
                }
                (None, Some(r)) => PlaneBound::Disc(positive(&f("disc"), r)?),
                (Some(r), None) => check_rect(&f("rect"), normal, r)?,
                (None, None) => PlaneBound::None,
            };
            ColliderShape::Plane {
                point,
                normal,
                bound,
            }
        }
        RawCollider::Sphere { centre, radius } => ColliderShape::Sphere {
            centre: finite3(&f("centre"), centre)?,
            radius: positive(&f("radius"), radius)?,
        },
        RawCollider::Ellipsoid { centre, radii } => {
            let r = finite3(&f("radii"), radii)?;
            for (i, x) in r.to_array().into_iter().enumerate() {
                positive(&format!("{at}.radii[{i}]"), x)?;
            }
            ColliderShape::Ellipsoid {
                centre: finite3(&f("centre"), centre)?,
                radii: r,
            }
        }
        RawCollider::Cylinder {
            base,
            axis,
            radius,
            height,
        } => ColliderShape::Cylinder {
            base: finite3(&f("base"), base)?,
            axis: unit(&f("axis"), axis)?,
            radius: positive(&f("radius"), radius)?,
            height: positive(&f("height"), height)?,
        },
        RawCollider::Cone {
            apex,
            axis,
            half_angle,
            height,
        } => {
            let half_angle = positive(&f("half_angle"), half_angle)?;
            if half_angle >= std::f64::consts::FRAC_PI_2 - 1e-6 {
                return Err(format!(
                    "{at}.half_angle is {half_angle} rad; it must be below pi/2"
                ));
            }
            ColliderShape::Cone {
                apex: finite3(&f("apex"), apex)?,
                axis: unit(&f("axis"), axis)?,
                half_angle,
                height: positive(&f("height"), height)?,
            }
        }
        RawCollider::Quadric { matrix, bounds } => check_quadric(at, &matrix, bounds)?,
    })
}

fn check_rect(at: &str, normal: DVec3, r: RawRect) -> Result<PlaneBound, String> {
    let u = unit(&format!("{at}.u"), r.u)?;
    let v = unit(&format!("{at}.v"), r.v)?;
    if u.dot(v).abs() > 1e-6 || u.dot(normal).abs() > 1e-6 || v.dot(normal).abs() > 1e-6 {
        return Err(format!(
            "{at}: u, v and the normal must be mutually orthogonal (u.v = {:.3e}, u.n = {:.3e}, v.n = {:.3e})",
            u.dot(v),
            u.dot(normal),
            v.dot(normal)
        ));
    }
    let half = [
        positive(&format!("{at}.half[0]"), r.half[0])?,
        positive(&format!("{at}.half[1]"), r.half[1])?,
    ];
    Ok(PlaneBound::Rect { u, v, half })
}

fn check_quadric(at: &str, matrix: &[f64], bounds: RawBounds) -> Result<ColliderShape, String> {
    if matrix.len() != 16 {
        return Err(format!(
            "{at}.matrix has {} numbers; a quadric needs 16 (4x4, row-major)",
            matrix.len()
        ));
    }
    if let Some(i) = matrix.iter().position(|x| !x.is_finite()) {
        return Err(format!(
            "{at}.matrix[{i}] is {} (must be finite)",
            matrix[i]
        ));
    }
    let scale = matrix.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for r in 0..4 {
        for c in r + 1..4 {
            let (a, b) = (matrix[r * 4 + c], matrix[c * 4 + r]);
            if (a - b).abs() > 1e-9 * scale.max(1e-300) {
                return Err(format!(
                    "{at}.matrix is not symmetric: entry ({r},{c}) = {a} but ({c},{r}) = {b}"
                ));
            }
        }
    }
    // f(p) = pᵀQp must depend on p: a zero quadratic and linear part is a
    // constant (no surface, or all of space).
    let varying = (0..4).any(|r| (0..3).any(|c| matrix[r * 4 + c] != 0.0));
    if !varying {
        return Err(format!(
            "{at}.matrix is a degenerate quadric: only the constant term is non-zero, so f(p) has no surface"
        ));
    }
    let min = finite3(&format!("{at}.bounds.min"), bounds.min)?;
    let max = finite3(&format!("{at}.bounds.max"), bounds.max)?;
    if let Some(i) = (0..3).find(|&i| min[i] >= max[i]) {
        return Err(format!(
            "{at}.bounds: min[{i}] = {} is not below max[{i}] = {}",
            min[i], max[i]
        ));
    }
    // The surface f = 0 and its inside f < 0 do not change under a positive
    // scale: the largest entry becomes 1, within f32's range.
    let mut m = [0.0; 16];
    for (m, x) in m.iter_mut().zip(matrix) {
        *m = x / scale;
    }
    Ok(ColliderShape::Quadric {
        matrix: m,
        min,
        max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"gravity": [0,-9.81,0], "bounces": 1, "restitution": 0.5,
        "emitters": [{"count": 10, "position": [0,5,0], "position_jitter": 1.0,
                      "velocity": [0,0,0], "velocity_jitter": 1.0, "lifetime": 2.0, "order": 2, "seed": 1}],
        "colliders": [
          {"type": "plane", "point": [0,0,0], "normal": [0,2,0], "disc": 2.0},
          {"type": "plane", "point": [0,1,0], "normal": [0,1,0], "rect": {"u": [1,0,0], "v": [0,0,1], "half": [1, 2]}},
          {"type": "sphere", "centre": [0,0,0], "radius": 1},
          {"type": "ellipsoid", "centre": [0,0,0], "radii": [1,2,3]},
          {"type": "cylinder", "base": [0,0,0], "axis": [0,1,0], "radius": 1, "height": 2},
          {"type": "cone", "apex": [0,2,0], "axis": [0,-1,0], "half_angle": 0.5, "height": 2},
          {"type": "quadric", "matrix": [1,0,0,0, 0,0,0,-0.5, 0,0,1,0, 0,-0.5,0,0], "bounds": {"min": [-1,-1,-1], "max": [1,1,1]}}
        ]}"#;

    fn err(text: &str) -> String {
        ParticleScene::from_json(text, "s.json")
            .unwrap_err()
            .to_string()
    }

    fn with_collider(c: &str) -> String {
        format!(
            r#"{{"gravity": [0,-9.81,0], "emitters": [], "colliders": [{{"type": "sphere", "centre": [0,0,0], "radius": 1}}, {c}]}}"#
        )
    }

    #[test]
    fn the_issue_example_parses_into_checked_values() {
        let s = ParticleScene::from_json(GOOD, "s.json").unwrap();
        assert_eq!(s.bounces, 1);
        assert_eq!(s.emitters[0].order, Order::Second);
        assert_eq!(s.colliders.len(), 7);
        match &s.colliders[0] {
            ColliderShape::Plane { normal, bound, .. } => {
                assert_eq!(*normal, DVec3::Y, "normal is normalised");
                assert_eq!(*bound, PlaneBound::Disc(2.0));
            }
            c => panic!("{c:?}"),
        }
        assert_eq!(s.particle_count(), 10);
    }

    #[test]
    fn bad_values_name_their_field() {
        let cases = [
            (
                with_collider(r#"{"type": "plane", "point": [0,0,0], "normal": [0,0,0]}"#),
                "colliders[1].normal is the zero vector",
            ),
            (
                with_collider(
                    r#"{"type": "quadric", "matrix": [1,0,0], "bounds": {"min": [0,0,0], "max": [1,1,1]}}"#,
                ),
                "colliders[1].matrix has 3 numbers",
            ),
            (
                with_collider(
                    r#"{"type": "quadric", "matrix": [0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,1], "bounds": {"min": [0,0,0], "max": [1,1,1]}}"#,
                ),
                "colliders[1].matrix is a degenerate quadric",
            ),
            (
                with_collider(
                    r#"{"type": "quadric", "matrix": [1,2,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,-1], "bounds": {"min": [0,0,0], "max": [1,1,1]}}"#,
                ),
                "colliders[1].matrix is not symmetric: entry (0,1)",
            ),
            (
                with_collider(r#"{"type": "sphere", "centre": [0,0,0], "radius": -1}"#),
                "colliders[1].radius is -1",
            ),
            (
                GOOD.replace(r#""count": 10"#, r#""count": -5"#),
                "emitters[0].count is -5",
            ),
            (
                GOOD.replace(r#""lifetime": 2.0"#, r#""lifetime": 0"#),
                "emitters[0].lifetime is 0",
            ),
            (
                GOOD.replace(r#""bounces": 1"#, r#""bounces": -1"#),
                "bounces is -1",
            ),
            (
                GOOD.replace(r#""order": 2"#, r#""order": 3"#),
                "emitters[0].order is 3",
            ),
            (
                GOOD.replace(r#""position": [0,5,0]"#, r#""position": [0,NaN,0]"#),
                "NaN and Infinity are not numbers in JSON",
            ),
            (
                GOOD.replace(r#""position": [0,5,0]"#, r#""position": [0,1e999,0]"#),
                "s.json",
            ),
            (
                GOOD.replace(r#""half": [1, 2]"#, r#""half": [1, 0]"#),
                "colliders[1].rect.half[1] is 0",
            ),
            (
                GOOD.replace(r#""u": [1,0,0]"#, r#""u": [1,1,0]"#),
                "colliders[1].rect: u, v and the normal must be mutually orthogonal",
            ),
            (
                GOOD.replace(r#""type": "sphere""#, r#""type": "torus""#),
                "torus",
            ),
            (
                GOOD.replace(r#""velocity": [0,0,0]"#, r#""velocity": [0,1e39,0]"#),
                "emitters[0].velocity[1] is 1e39; the GPU computes in f32",
            ),
            (
                GOOD.replace(r#""radius": 1}"#, r#""radius": 1e300}"#),
                "colliders[2].radius is 1e300",
            ),
        ];
        for (text, want) in cases {
            let e = err(&text);
            assert!(e.contains(want), "want {want:?} in {e:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
    }

    #[test]
    fn huge_and_tiny_directions_and_quadrics_keep_their_meaning() {
        let text = GOOD
            .replace(r#""normal": [0,2,0]"#, r#""normal": [0,1e200,0]"#)
            .replace(r#""axis": [0,1,0]"#, r#""axis": [0,1e-300,0]"#)
            .replace(
                "[1,0,0,0, 0,0,0,-0.5, 0,0,1,0, 0,-0.5,0,0]",
                "[1e300,0,0,0, 0,0,0,-0.5e300, 0,0,1e300,0, 0,-0.5e300,0,0]",
            );
        let s = ParticleScene::from_json(&text, "s.json").unwrap();
        match (&s.colliders[0], &s.colliders[4], &s.colliders[6]) {
            (
                ColliderShape::Plane { normal, .. },
                ColliderShape::Cylinder { axis, .. },
                ColliderShape::Quadric { matrix, .. },
            ) => {
                assert_eq!(*normal, DVec3::Y);
                assert_eq!(*axis, DVec3::Y);
                assert_eq!(matrix[0], 1.0);
                assert_eq!(matrix[7], -0.5);
            }
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn scaling_the_particle_count_keeps_the_proportions() {
        let mut s = ParticleScene::from_json(GOOD, "s.json").unwrap();
        s.emitters.push(Emitter {
            count: 30,
            ..s.emitters[0]
        });
        let t = s.with_particle_count(400);
        assert_eq!(t.emitters[0].count, 100);
        assert_eq!(t.emitters[1].count, 300);
    }
}
