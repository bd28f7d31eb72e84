//! `collidoscope info MESH.obj`: the mesh report.

use std::path::PathBuf;

use crate::mesh::MeshReport;

#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// Mesh file: OBJ, PLY, STL or OFF.
    pub mesh: PathBuf,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: super::LoadOpts,
}

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let loaded = crate::mesh::load_file(&args.mesh)?;
    super::face_problems_ok(&args.mesh, &loaded.problems, args.load)?;
    let meshes = loaded.meshes;
    let merged = crate::mesh::Mesh::merge(&meshes, args.mesh.display().to_string());
    merged.validate()?;
    let report = MeshReport::analyze(&merged);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    if meshes.len() > 1 {
        println!("{} objects, reported merged:", meshes.len());
        for m in &meshes {
            println!("  {}: {} triangles", m.name, m.triangles.len());
        }
    }
    // The report lists its own warnings.
    println!("{report}");
    Ok(())
}
