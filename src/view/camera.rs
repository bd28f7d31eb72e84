//! An orbit camera around a target point, in a right-handed Y-up world.
//!
//! The eye sits at `target + distance · (cos p sin y, sin p, cos p cos y)`
//! (yaw `y` about +Y, pitch `p` up from the XZ plane) and looks at the
//! target. Projection is perspective with WebGPU's 0..1 depth
//! (`glam::camera::rh::proj::directx`); near and far planes scale with
//! `distance`, so zooming keeps depth precision.
//!
//! A camera is saved and exchanged as JSON (its five fields:
//! [`Camera::to_json`], [`Camera::from_json`]), so a view set in the viewer
//! can be pasted into another session or given to `render --camera`.
//! [`AxisView`] puts the eye on one side of the target along a world axis.

use glam::camera::rh::{proj::directx, view::look_at_mat4};
use glam::{Mat4, Vec2, Vec3, Vec4Swizzles};

use crate::geom::Aabb;

/// Largest |pitch|: just short of the poles, where look-at loses its up vector.
pub const MAX_PITCH: f32 = std::f32::consts::FRAC_PI_2 - 0.01;

/// Near plane as a fraction of `distance`.
const NEAR_FRACTION: f32 = 0.01;
/// Far plane as a multiple of `distance`.
const FAR_MULTIPLE: f32 = 100.0;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Camera {
    /// The point orbited and looked at.
    pub target: Vec3,
    /// Eye–target distance (world units, > 0).
    pub distance: f32,
    /// Rotation about +Y, radians; 0 looks down −Z from +Z.
    pub yaw: f32,
    /// Elevation above the XZ plane, radians, within ±[`MAX_PITCH`].
    pub pitch: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            target: Vec3::ZERO,
            distance: 3.0,
            yaw: 0.6,
            pitch: 0.35,
            fov_y: 45f32.to_radians(),
        }
    }
}

/// A view along a world axis: the eye on the axis's `+` or `−` side of
/// the target, looking back at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisView {
    PosX,
    NegX,
    PosY,
    NegY,
    PosZ,
    NegZ,
}

impl AxisView {
    /// In the order of the keys 1–6.
    pub const ALL: [AxisView; 6] = [
        AxisView::PosX,
        AxisView::NegX,
        AxisView::PosY,
        AxisView::NegY,
        AxisView::PosZ,
        AxisView::NegZ,
    ];

    /// `+x`, `-x`, … (script steps, buttons).
    pub fn name(self) -> &'static str {
        match self {
            AxisView::PosX => "+x",
            AxisView::NegX => "-x",
            AxisView::PosY => "+y",
            AxisView::NegY => "-y",
            AxisView::PosZ => "+z",
            AxisView::NegZ => "-z",
        }
    }

    pub fn from_name(name: &str) -> Option<AxisView> {
        let name = name.trim().to_ascii_lowercase();
        let name = if name.len() == 1 {
            format!("+{name}")
        } else {
            name
        };
        AxisView::ALL.into_iter().find(|a| a.name() == name)
    }

    /// (yaw, pitch) of an eye on this side; ±Y stop just short of the
    /// poles, where the orbit camera keeps its up vector.
    fn angles(self) -> (f32, f32) {
        use std::f32::consts::{FRAC_PI_2, PI};
        match self {
            AxisView::PosX => (FRAC_PI_2, 0.0),
            AxisView::NegX => (3.0 * FRAC_PI_2, 0.0),
            AxisView::PosY => (0.0, MAX_PITCH),
            AxisView::NegY => (0.0, -MAX_PITCH),
            AxisView::PosZ => (0.0, 0.0),
            AxisView::NegZ => (PI, 0.0),
        }
    }
}

impl Camera {
    /// The same target and distance, the eye on `side` of the target.
    pub fn viewed_from(self, side: AxisView) -> Camera {
        let (yaw, pitch) = side.angles();
        Camera { yaw, pitch, ..self }
    }

    /// Fits `bounds` as [`Camera::framing`] does, looking from this
    /// camera's direction ("frame", where "reset" is [`Camera::framing`]).
    pub fn fitted(self, bounds: Aabb) -> Camera {
        let framed = Camera::framing(bounds);
        Camera {
            target: framed.target,
            distance: framed.distance * (0.5 * framed.fov_y).sin() / (0.5 * self.fov_y).sin(),
            ..self
        }
    }

    /// The camera as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A camera from [`Camera::to_json`]'s JSON; every field must be there
    /// and usable (finite, a positive distance, a field of view in
    /// (0, π), a pitch within ±[`MAX_PITCH`]).
    pub fn from_json(text: &str) -> Result<Camera, String> {
        let c: Camera =
            serde_json::from_str(text).map_err(|e| format!("not a camera as JSON: {e}"))?;
        if !(c.target.is_finite() && c.yaw.is_finite() && c.pitch.is_finite()) {
            return Err("the camera's target and angles must be finite".into());
        }
        if !(c.distance.is_finite() && c.distance > 0.0) {
            return Err(format!("camera distance {} must be positive", c.distance));
        }
        if !(c.fov_y > 0.0 && c.fov_y < std::f32::consts::PI) {
            return Err(format!(
                "camera fov_y {} must be in (0, π) radians",
                c.fov_y
            ));
        }
        if c.pitch.abs() > MAX_PITCH + 1e-6 {
            return Err(format!("camera pitch {} is beyond ±{MAX_PITCH}", c.pitch));
        }
        Ok(c)
    }

    /// Reads a camera JSON file ([`Camera::from_json`]).
    pub fn load(path: &std::path::Path) -> Result<Camera, String> {
        let text = crate::io::read_input_text(path, crate::io::InputKind::Scene)
            .map_err(|e| format!("cannot read the camera {}: {}", path.display(), e.reason()))?;
        Camera::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// "Frame all": looks at the centre of `bounds` from the default
    /// direction, far enough that the box's bounding sphere fits the
    /// vertical field of view (and the horizontal one for aspect ≥ 1).
    /// An empty box gives the default camera.
    pub fn framing(bounds: Aabb) -> Camera {
        let mut camera = Camera::default();
        if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
            return camera;
        }
        let radius = (0.5 * bounds.diagonal()).max(1e-6);
        camera.target = bounds.center();
        camera.distance = 1.05 * radius / (0.5 * camera.fov_y).sin();
        camera
    }

    /// Unit vector from the target towards the eye.
    pub fn backward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.backward()
    }

    pub fn view_from_world(&self) -> Mat4 {
        look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Perspective projection, depth 0 (near) to 1 (far).
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let fov = self.fov_y.clamp(1e-3, std::f32::consts::PI - 1e-3);
        let d = self.distance.max(1e-6);
        directx::perspective(fov, aspect, NEAR_FRACTION * d, FAR_MULTIPLE * d)
    }

    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }

    /// Orbits about the target: yaw by `dx_radians`, pitch by `dy_radians`
    /// (pitch clamped short of the poles).
    pub fn orbit(&mut self, dx_radians: f32, dy_radians: f32) {
        self.yaw = (self.yaw + dx_radians).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + dy_radians).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves the target in the view plane so that the scene follows a drag
    /// of (`dx_pixels` right, `dy_pixels` down) on a viewport of
    /// `viewport_height_pixels`: points at the target's depth stay under
    /// the cursor.
    pub fn pan(&mut self, dx_pixels: f32, dy_pixels: f32, viewport_height_pixels: f32) {
        let world_per_pixel =
            2.0 * self.distance * (0.5 * self.fov_y).tan() / viewport_height_pixels.max(1.0);
        let view = self.view_from_world();
        let right = view.row(0).xyz();
        let up = view.row(1).xyz();
        self.target += world_per_pixel * (-dx_pixels * right + dy_pixels * up);
    }

    /// Multiplies the distance by `factor` (> 1 moves away, < 1 closer).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(1e-6, 1e9);
        }
    }

    /// The picking ray through `ndc` (x right, y up, both in −1..1):
    /// (origin at the eye, unit direction).
    pub fn ray(&self, ndc: Vec2, aspect: f32) -> (Vec3, Vec3) {
        let world_from_clip = self.clip_from_world(aspect).inverse();
        let near = world_from_clip.project_point3(ndc.extend(0.0));
        let far = world_from_clip.project_point3(ndc.extend(1.0));
        (self.eye(), (far - near).normalize_or(-self.backward()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: Vec3, b: Vec3, tol: f32) -> bool {
        (a - b).length() <= tol
    }

    #[test]
    fn project_unproject_round_trip() {
        let camera = Camera {
            target: Vec3::new(1.0, -2.0, 0.5),
            distance: 4.0,
            yaw: 1.1,
            pitch: -0.4,
            fov_y: 0.9,
        };
        let aspect = 1.6;
        let m = camera.clip_from_world(aspect);
        for p in [
            Vec3::new(1.0, -2.0, 0.5),
            Vec3::new(1.5, -1.2, 0.0),
            Vec3::new(0.2, -2.5, 1.3),
        ] {
            let ndc = m.project_point3(p);
            assert!(ndc.z > 0.0 && ndc.z < 1.0, "{p} → {ndc}");
            let back = m.inverse().project_point3(ndc);
            assert!(approx(back, p, 1e-3), "{p} → {ndc} → {back}");
            // The picking ray through the projection passes through the point.
            let (o, d) = camera.ray(ndc.truncate(), aspect);
            let t = (p - o).dot(d);
            assert!(approx(o + t * d, p, 1e-3), "ray misses {p}");
        }
        // The target is at the centre of the screen.
        let c = m.project_point3(camera.target);
        assert!(c.truncate().length() < 1e-5, "{c}");
    }

    #[test]
    fn framing_contains_the_box() {
        let bounds = Aabb {
            min: Vec3::new(-3.0, 0.0, 10.0),
            max: Vec3::new(1.0, 0.5, 12.0),
        };
        let camera = Camera::framing(bounds);
        let m = camera.clip_from_world(1.0);
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 {
                    bounds.min.x
                } else {
                    bounds.max.x
                },
                if i & 2 == 0 {
                    bounds.min.y
                } else {
                    bounds.max.y
                },
                if i & 4 == 0 {
                    bounds.min.z
                } else {
                    bounds.max.z
                },
            );
            let ndc = m.project_point3(corner);
            assert!(
                ndc.x.abs() < 1.0 && ndc.y.abs() < 1.0 && ndc.z > 0.0 && ndc.z < 1.0,
                "{corner} → {ndc}"
            );
        }
        assert_eq!(Camera::framing(Aabb::EMPTY), Camera::default());
    }

    #[test]
    fn orbit_clamps_pitch_and_pan_moves_target_in_view_plane() {
        let mut camera = Camera::default();
        camera.orbit(0.3, 10.0);
        assert_eq!(camera.pitch, MAX_PITCH);
        camera.orbit(0.0, -20.0);
        assert_eq!(camera.pitch, -MAX_PITCH);
        assert!(camera.view_from_world().is_finite());

        let mut camera = Camera::default();
        let before = camera.target;
        let forward = -camera.backward();
        camera.pan(100.0, -50.0, 800.0);
        let moved = camera.target - before;
        assert!(moved.length() > 0.0);
        assert!(
            moved.dot(forward).abs() < 1e-5,
            "pan stays in the view plane"
        );
        // A point at the target depth follows the cursor: drag right by
        // 100 px → the old target appears 100 px right of centre.
        let ndc = camera.clip_from_world(1.0).project_point3(before);
        assert!((ndc.x * 400.0 - 100.0).abs() < 0.5, "{ndc}");
        assert!((ndc.y * 400.0 - 50.0).abs() < 0.5, "{ndc}");

        let mut camera = Camera::default();
        camera.zoom(0.5);
        assert_eq!(camera.distance, 1.5);
        camera.zoom(f32::NAN);
        camera.zoom(0.0);
        assert_eq!(camera.distance, 1.5);
    }

    #[test]
    fn camera_json_round_trips_and_bad_cameras_are_refused() {
        let camera = Camera {
            target: Vec3::new(1.0, -2.0, 0.5),
            distance: 4.25,
            yaw: 1.1,
            pitch: -0.4,
            fov_y: 0.9,
        };
        let json = camera.to_json();
        assert!(json.contains("\"distance\""), "{json}");
        assert_eq!(Camera::from_json(&json), Ok(camera));
        assert!(Camera::from_json("{\"yaw\": 1}").is_err());
        assert!(Camera::from_json("not json").unwrap_err().contains("JSON"));
        let bad = Camera {
            distance: -1.0,
            ..camera
        };
        assert!(Camera::from_json(&bad.to_json()).is_err());
        let bad = Camera {
            fov_y: 4.0,
            ..camera
        };
        assert!(Camera::from_json(&bad.to_json()).is_err());
    }

    #[test]
    fn axis_views_put_the_eye_on_their_side() {
        let camera = Camera::default();
        for (side, dir) in
            AxisView::ALL
                .into_iter()
                .zip([Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z])
        {
            let v = camera.viewed_from(side);
            assert!(v.backward().dot(dir) > 0.999, "{side:?}: {}", v.backward());
            assert_eq!((v.target, v.distance), (camera.target, camera.distance));
            assert_eq!(AxisView::from_name(side.name()), Some(side));
        }
        assert_eq!(AxisView::from_name("x"), Some(AxisView::PosX));
        assert_eq!(AxisView::from_name("w"), None);
        // Fitting keeps the direction and matches framing's distance.
        let bounds = Aabb {
            min: Vec3::splat(2.0),
            max: Vec3::splat(4.0),
        };
        let fitted = camera.viewed_from(AxisView::NegZ).fitted(bounds);
        let framed = Camera::framing(bounds);
        assert_eq!(fitted.target, framed.target);
        assert!((fitted.distance - framed.distance).abs() < 1e-5);
        assert_eq!(fitted.yaw, std::f32::consts::PI);
    }
}
