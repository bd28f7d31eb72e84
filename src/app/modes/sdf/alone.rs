//! A field viewed on its own: any `.npy` scalar grid (3-D, float32 or
//! float64) shown as the mode's cells and slices with no mesh open (File →
//! Open field with no mesh, a field named alone on the command line, the
//! `view-field:PATH` step).
//!
//! The grid is read as a field to check is read ([`crate::stages::check`]:
//! collidoscope's sidecar, or the layout of "Reading the field", prefilled
//! from the array's shape when none is given) and becomes the shell's
//! field, in place of a mesh's: the open mesh is closed, and the camera,
//! colour range and clip plane fit the grid. The values are drawn as they
//! are — negative inside, in the file's units — and the caption names the
//! file and says when its layout was guessed. Nothing is checked: there is
//! no mesh to compute the exact field of (open one, then the file again,
//! to verify it).

use std::path::PathBuf;
use std::sync::Arc;

use super::reading::{file_name, headline};
use crate::scene::JobError;
use crate::stages::check::{self, Layout, ReadOptions};
use crate::stages::sdf::{Backend, SdfField, SdfParams};

/// The field shown on its own: its file and what was read past or guessed.
pub struct Alone {
    pub path: PathBuf,
    pub notes: Vec<String>,
    pub field: Arc<SdfField>,
}

/// Reads the grid at `path` (on a worker thread) as a field to show alone.
pub fn load(path: PathBuf, options: ReadOptions, notes: Vec<String>) -> Result<Alone, JobError> {
    let samples = check::read_samples(&path, &options)?;
    let Layout::Grid(grid) = samples.layout else {
        return Err(JobError::Failed(format!(
            "{}: a point set has no cells to view; open its mesh first to check it",
            path.display()
        )));
    };
    let mut notes = notes;
    notes.extend(samples.overrides);
    let field = SdfField {
        grid,
        params: SdfParams {
            resolution: grid.dims.max_element(),
            ..Default::default()
        },
        backend: Backend::CpuReference,
        values: samples.values,
        closest: Vec::new(),
        distance_evaluations: 0,
        timings: Default::default(),
    };
    Ok(Alone {
        path,
        notes,
        field: Arc::new(field),
    })
}

impl Alone {
    /// The viewport's caption: the file, its grid, and its flags.
    pub fn caption(&self) -> String {
        let d = self.field.grid.dims;
        let mut text = format!(
            "{} viewed on its own (no mesh): {}×{}×{} cells, cell size {}, the file's units",
            file_name(&self.path),
            d.x,
            d.y,
            d.z,
            crate::app::shell::legend::sig_figs(self.field.grid.cell_size as f64, 4)
        );
        for note in &self.notes {
            text += &format!(" — {}", headline(note));
        }
        text
    }
}
