//! What the viewer remembers between runs (eframe storage, as JSON). A
//! settings blob that does not parse is ignored with a notice.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::scene::MeshSource;
use crate::stages::sdf::{Backend, SdfParams};
use crate::view::{Axis, Camera, ViewSettings};

const KEY: &str = "collidoscope.settings";
const MAX_RECENT: usize = 10;

/// Which auxiliary lines the viewport draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overlays {
    pub face_normals: bool,
    pub vertex_normals: bool,
    pub edge_normals: bool,
    pub boundary_edges: bool,
    /// Length of normal lines, in cells.
    pub normal_length: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub source: MeshSource,
    pub params: SdfParams,
    pub backend: Backend,
    pub view: ViewSettings,
    pub overlays: Overlays,
    pub recent: Vec<PathBuf>,
    pub slice_axis: Axis,
    /// Slice position as a fraction of the grid along its axis.
    pub slice_position: f32,
    pub show_profiler: bool,
    pub show_slice: bool,
    /// The 3D view's camera when the viewer was closed (the next session
    /// starts with it).
    pub camera: Option<Camera>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            source: MeshSource::Sample("spot".into()),
            params: SdfParams::default(),
            backend: Backend::Gpu,
            view: ViewSettings::default(),
            overlays: Overlays {
                boundary_edges: true,
                normal_length: 1.5,
                ..Default::default()
            },
            recent: Vec::new(),
            slice_axis: Axis::Z,
            slice_position: 0.5,
            show_profiler: true,
            show_slice: true,
            camera: None,
        }
    }
}

impl Settings {
    /// The saved settings, or the defaults and a notice when they are
    /// missing or unreadable.
    pub fn load(storage: Option<&dyn eframe::Storage>) -> (Settings, Option<String>) {
        let Some(text) = storage.and_then(|s| s.get_string(KEY)) else {
            return (Settings::default(), None);
        };
        match serde_json::from_str(&text) {
            Ok(s) => (s, None),
            Err(e) => (
                Settings::default(),
                Some(format!(
                    "saved settings were unreadable and were reset ({e})"
                )),
            ),
        }
    }

    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        if let Ok(text) = serde_json::to_string(self) {
            storage.set_string(KEY, text);
        }
    }

    pub fn remember_file(&mut self, path: PathBuf) {
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct MemStorage(std::collections::HashMap<String, String>);
    impl eframe::Storage for MemStorage {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_string(), value);
        }
        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn flush(&mut self) {}
    }

    use eframe::Storage;

    #[test]
    fn settings_round_trip_and_broken_settings_reset_with_a_notice() {
        let mut storage = MemStorage(Default::default());
        let mut s = Settings::default();
        s.params.resolution = 99;
        s.remember_file("/tmp/a.obj".into());
        s.camera = Some(Camera {
            yaw: 2.5,
            distance: 0.75,
            ..Camera::default()
        });
        s.save(&mut storage);
        let (back, notice) = Settings::load(Some(&storage));
        assert_eq!(back, s);
        assert!(notice.is_none());
        storage.set_string(KEY, "{not json".into());
        let (back, notice) = Settings::load(Some(&storage));
        assert_eq!(back, Settings::default());
        assert!(notice.unwrap().contains("reset"));
    }
}
