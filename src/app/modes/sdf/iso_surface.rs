//! The field's iso-surface at an adjustable level: marching cubes on the
//! GPU ([`crate::stages::iso_surface`]) into a vertex buffer the 3D view
//! draws as it is, opaque, with the mesh (a translucent mesh shows it
//! inside). It is coloured by the colour map at its level, so it reads
//! against the colour bar. A new level or field starts one extraction at
//! a time; a slider moved meanwhile is caught up when it finishes.

use std::sync::Arc;

use eframe::egui;

use crate::app::shell::Shell;
use crate::scene::{Job, JobError};
use crate::stages::iso_surface::{GpuSurface, IsoSurfaceGpu};
use crate::view::srgb_to_linear;

#[derive(Default)]
pub struct Iso {
    pub enabled: bool,
    /// The level (mesh units).
    pub level: f32,
    gpu: Option<Arc<IsoSurfaceGpu>>,
    job: Option<(Job<GpuSurface>, Key)>,
    /// What the view shows: field, level and colour.
    shown: Option<Key>,
    /// Triangles of the surface shown.
    pub triangles: u32,
    /// A step asked for a surface not started yet (`compute` waits for it).
    pub requested: bool,
}

/// The field (by address), the level's and the colour's bits.
type Key = (usize, u32, [u32; 4]);

impl Iso {
    /// What the view should show now: `None` for no surface.
    fn wanted(&self, shell: &Shell) -> Option<Key> {
        let field = shell.mesh.field.as_ref().filter(|_| self.enabled)?;
        Some((
            Arc::as_ptr(field) as usize,
            self.level.to_bits(),
            self.color(shell).map(f32::to_bits),
        ))
    }

    /// The colour map's colour at the level, linear RGBA.
    fn color(&self, shell: &Shell) -> [f32; 4] {
        let v = &shell.settings.view;
        let [r, g, b, _] = v
            .color_map
            .color_between(self.level, v.value_min, v.value_max);
        [srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b), 1.0]
    }

    pub fn busy(&self) -> bool {
        self.job.is_some() || self.requested
    }

    /// Forgets what the view shows (another mode drew over it).
    pub fn forget(&mut self) {
        self.shown = None;
    }

    /// Removes the surface from the view.
    pub fn clear(&mut self, shell: &mut Shell) {
        shell.viewport.set_surface(None);
        self.shown = None;
    }

    /// Takes a finished extraction and starts the next one when the level,
    /// the colour or the field changed.
    pub fn update(&mut self, shell: &mut Shell) {
        let finished = (self.job.as_ref()).and_then(|(job, key)| job.poll().map(|r| (r, *key)));
        if let Some((result, key)) = finished {
            self.job = None;
            match result {
                Ok(surface) => {
                    self.triangles = surface.triangles;
                    shell.history.record_run(
                        "sdf",
                        format!("iso-surface ({} triangles)", surface.triangles),
                        surface.timings.phases.clone(),
                    );
                    shell
                        .viewport
                        .set_surface(Some((surface.vertices, surface.triangles * 3)));
                    self.shown = Some(key);
                }
                Err(JobError::Cancelled) => {}
                Err(e) => {
                    shell.notify(format!("iso-surface: {e}"), true);
                    self.enabled = false;
                }
            }
        }
        if self.job.is_some() {
            return;
        }
        let wanted = self.wanted(shell);
        self.requested = false;
        if wanted == self.shown {
            return;
        }
        let (Some(key), Some(field)) = (wanted, shell.mesh.field.clone()) else {
            self.clear(shell);
            return;
        };
        let gpu = self
            .gpu
            .get_or_insert_with(|| Arc::new(IsoSurfaceGpu::new(&shell.render_gpu)))
            .clone();
        let (level, color) = (self.level, self.color(shell));
        let job = shell.spawn(format!("iso-surface at {level}"), move |_| {
            gpu.extract((&*field).into(), level, color)
                .map_err(|e| JobError::Failed(e.to_string()))
        });
        self.job = Some((job, key));
    }

    pub fn ui(&mut self, shell: &mut Shell, ui: &mut egui::Ui) {
        ui.checkbox(&mut self.enabled, "iso-surface (GPU marching cubes)");
        if !self.enabled {
            return;
        }
        let extent = shell.settings.view.range_extent().max(f32::MIN_POSITIVE);
        ui.add(
            egui::Slider::new(&mut self.level, -extent..=extent)
                .text("level")
                .custom_formatter(|v, _| format!("{v:+.4}")),
        )
        .on_hover_text("the surface where the field equals this value (mesh units)");
        let state = if self.job.is_some() {
            "extracting…".to_string()
        } else {
            format!("{} triangles", self.triangles)
        };
        ui.label(state);
    }

    /// The caption's note about the surface, if one is shown.
    pub fn caption(&self) -> Option<String> {
        self.shown.filter(|_| self.enabled).map(|_| {
            format!(
                "iso-surface at {} ({} triangles)",
                crate::app::shell::legend::sig_figs(self.level as f64, 3),
                self.triangles
            )
        })
    }
}
