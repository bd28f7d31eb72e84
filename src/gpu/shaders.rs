//! The WGSL of `shaders/`, embedded at compile time and joined by
//! `//!include` lines when a shader is first loaded.
//!
//! # Includes
//!
//! WGSL has no include directive, so a shader names the files it needs at
//! its top, one per line, by path relative to `shaders/`:
//!
//! ```wgsl
//! //!include shared/closest_point.wgsl
//! //!include shared/bvh_nearest.wgsl
//! ```
//!
//! [`resolve`] walks these lines depth first: every included file comes
//! before the file that includes it, each file once however many files
//! include it, so a shared file that needs another shared file includes it
//! itself and the order follows. A missing file and an include cycle are
//! [`IncludeError`]s naming the files involved. (WGSL declarations may come
//! in any order, so the order only keeps the joined text readable; a shared
//! file may also use bindings its includer declares, which its header
//! comment lists.)
//!
//! [`FILES`] embeds every `.wgsl` under `shaders/` with `include_str!`,
//! keyed by path. The files at the top of `shaders/` are the shader modules
//! the stages load; those under `shared/` are only included. [`shaders`] and
//! [`shader_source`] resolve each module once per process and keep the text.
//!
//! `tests/it/shader_validation.rs` validates every module with naga and on the
//! device, checks that every file on disk is in [`FILES`] and reached by a
//! module, and that a missing include and a cycle are reported.

use std::sync::LazyLock;

/// A WGSL shader module of `shaders/`, its includes resolved.
pub struct ShaderSource {
    /// The file name under `shaders/`, e.g. `sdf.wgsl`.
    pub name: &'static str,
    /// The module's text: its includes, then the file itself.
    pub code: &'static str,
}

/// Why a shader's includes could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IncludeError {
    #[error("{file} is not a WGSL file of shaders/ (included by {by})")]
    Missing { file: String, by: String },
    #[error("include cycle: {}", .0.join(" → "))]
    Cycle(Vec<String>),
}

/// A module resolved: the files joined, in order, and their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The files joined, each included file before its includer; the module
    /// itself comes last.
    pub files: Vec<String>,
    pub code: String,
}

/// The line prefix that names an included file.
const INCLUDE: &str = "//!include ";

macro_rules! wgsl_files {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../shaders/", $path)))),*]
    };
}

/// Every WGSL file under `shaders/`, by path relative to it.
pub const FILES: &[(&str, &str)] = wgsl_files![
    "broad_phase.wgsl",
    "iso_surface.wgsl",
    "sdf_points.wgsl",
    "collide.wgsl",
    "interfere.wgsl",
    "interfere_cull.wgsl",
    "interfere_identify.wgsl",
    "radial.wgsl",
    "radial_cloth.wgsl",
    "radial_particles.wgsl",
    // Table 1's alternatives: spatial hash, refitted BVH, per-bone SDFs.
    "radial_hash.wgsl",
    "radial_bvh.wgsl",
    "radial_bone_sdf.wgsl",
    // The compute rasteriser of radial fields (no render pipeline).
    "radial_compute.wgsl",
    // The compute backend of interference (no rasteriser).
    "interfere_compute.wgsl",
    "interfere_compute_args.wgsl",
    // Its one-pass edge resolve: created only on devices with 64-bit atomics.
    "interfere_compute_int64.wgsl",
    "particles_eval.wgsl",
    "particles_map.wgsl",
    "particles_points.wgsl",
    "particles_scan.wgsl",
    "simulate_step.wgsl",
    "radix_sort.wgsl",
    "adaptive_rss_bvh.wgsl",
    "sampling.wgsl",
    "adaptive.wgsl",
    // The uniform SDF's corners from the indexed mesh.
    "sdf_corners.wgsl",
    "sdf.wgsl",
    // sdf.wgsl plus the subgroup kernels: created only on devices with
    // subgroup operations.
    "sdf_packet.wgsl",
    // The slabs of sdf_packet.wgsl's tree.
    "sdf_slabs.wgsl",
    "sdf_winding.wgsl",
    // sdf_winding.wgsl's refining pass with its exact step in f64: created
    // only on devices with f64.
    "sdf_winding_f64.wgsl",
    // The winding sign's first passes: the mesh closed by its cap, crossings
    // counted per column, the cap's winding number per cell.
    "sdf_winding_cap.wgsl",
    // sdf_winding_cap.wgsl with the cap walk's leaves in f64: created only on
    // devices with f64.
    "sdf_winding_cap_f64.wgsl",
    "radial_skinning.wgsl",
    "tritri.wgsl",
    "view.wgsl",
    "winding_points.wgsl",
    // winding_points.wgsl's refining pass with its exact step in f64:
    // created only on devices with f64.
    "winding_points_f64.wgsl",
    "shared/bvh_bounds.wgsl",
    "shared/workgroup_scan.wgsl",
    "shared/bvh_nearest.wgsl",
    "shared/field_lookup.wgsl",
    "shared/field_contact.wgsl",
    "shared/flat_index.wgsl",
    "shared/interfere_solve.wgsl",
    "shared/closest_point.wgsl",
    "shared/radial_collide.wgsl",
    "shared/radial_setup.wgsl",
    "shared/interfere_compute.wgsl",
    "shared/particles.wgsl",
    "shared/work_list.wgsl",
    "shared/rss.wgsl",
    "shared/sorted_codes.wgsl",
    "shared/winding.wgsl",
    "shared/winding_grid.wgsl",
    "shared/winding_f32_leaf.wgsl",
    "shared/winding_f64_leaf.wgsl",
    "shared/winding_cap.wgsl",
    "shared/winding_points.wgsl",
    "shared/winding_refine.wgsl",
];

/// The text of an embedded file of `shaders/`.
pub fn embedded(path: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
}

/// The files `text` includes, in the order it names them.
fn includes(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter_map(|line| line.trim_start().strip_prefix(INCLUDE))
        .map(str::trim)
}

/// Joins `root` after everything it includes, recursively, reading files
/// through `lookup` (a path relative to `shaders/` → its text).
pub fn resolve<'a>(
    root: &str,
    lookup: impl Fn(&str) -> Option<&'a str>,
) -> Result<Resolved, IncludeError> {
    let mut out = Resolved {
        files: Vec::new(),
        code: String::new(),
    };
    let text = lookup(root).ok_or_else(|| IncludeError::Missing {
        file: root.to_string(),
        by: "the loader".to_string(),
    })?;
    visit(root, text, &lookup, &mut vec![root.to_string()], &mut out)?;
    Ok(out)
}

/// Appends `file`'s includes, then `file`; `open` is the chain of files
/// being visited, which an include back into it closes into a cycle.
fn visit<'a>(
    file: &str,
    text: &str,
    lookup: &impl Fn(&str) -> Option<&'a str>,
    open: &mut Vec<String>,
    out: &mut Resolved,
) -> Result<(), IncludeError> {
    for inc in includes(text) {
        if let Some(start) = open.iter().position(|f| f == inc) {
            let mut chain = open[start..].to_vec();
            chain.push(inc.to_string());
            return Err(IncludeError::Cycle(chain));
        }
        if out.files.iter().any(|f| f == inc) {
            continue;
        }
        let inc_text = lookup(inc).ok_or_else(|| IncludeError::Missing {
            file: inc.to_string(),
            by: file.to_string(),
        })?;
        open.push(inc.to_string());
        visit(inc, inc_text, lookup, open, out)?;
        open.pop();
    }
    out.files.push(file.to_string());
    out.code.push_str(text);
    if !text.ends_with('\n') {
        out.code.push('\n');
    }
    Ok(())
}

/// Every shader module (the files at the top of `shaders/`), resolved once.
static MODULES: LazyLock<Vec<ShaderSource>> = LazyLock::new(|| {
    FILES
        .iter()
        .filter(|(path, _)| !path.contains('/'))
        .map(|&(name, _)| {
            let resolved =
                resolve(name, embedded).unwrap_or_else(|e| panic!("shaders/{name}: {e}"));
            // Once per module and process: the text lives as long as the
            // program, like the embedded files it is joined from.
            ShaderSource {
                name,
                code: resolved.code.leak(),
            }
        })
        .collect()
});

/// Every shader module of the project, includes resolved;
/// `tests/it/shader_validation.rs` validates each.
pub fn shaders() -> &'static [ShaderSource] {
    &MODULES
}

/// Finds a shader module by file name.
pub fn shader_source(name: &str) -> &'static ShaderSource {
    shaders()
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("shader {name} is not a module of gpu::FILES"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<'a>(files: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> {
        move |path| files.iter().find(|(p, _)| *p == path).map(|(_, t)| *t)
    }

    #[test]
    fn includes_come_first_and_once() {
        let files = [
            ("main.wgsl", "//!include b.wgsl\n//!include a.wgsl\nmain\n"),
            ("a.wgsl", "a\n"),
            ("b.wgsl", "//!include a.wgsl\nb"),
        ];
        let r = resolve("main.wgsl", table(&files)).unwrap();
        assert_eq!(r.files, ["a.wgsl", "b.wgsl", "main.wgsl"]);
        assert_eq!(
            r.code,
            "a\n//!include a.wgsl\nb\n//!include b.wgsl\n//!include a.wgsl\nmain\n"
        );
    }
}
