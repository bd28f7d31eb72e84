//! `collidoscope bench <target>`: one subcommand per benchmark, each with
//! its own flags (`collidoscope bench <target> --help`).
//!
//! Every target times its stage (the [`timing`] helpers: a warm-up until
//! the GPU's clock settles, then medians), prints a table and writes
//! `<target>.json`, `.csv` and `.png` to `--out` through the one
//! [`report`] module. The targets use [`common`]'s flag groups, `timing`
//! and `report`, and none of them the others; this module only dispatches.

mod adaptive;
mod collide;
mod common;
mod interfere;
mod particles;
mod radial;
mod report;
mod sdf;
mod sdf_compare;
mod sdf_wall;
mod simulate;
mod timing;
mod tritri;

use clap::Subcommand;

/// The benchmarks (`collidoscope bench <target>`).
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Uniform signed distance fields: Sundholm's table 7.1 for every
    /// backend, the bunny, the ogre and subdivided bunnies.
    Sdf(sdf::Args),
    /// Exact triangle–triangle collision of two models.
    Tritri(tritri::Args),
    /// Contacts of 1–1000 body pairs: CPU, GPU batched, GPU per pair.
    Collide(collide::Args),
    /// Exact adaptive (octree) fields: tables 1–2, the paper's ablations,
    /// the AABB BVH, the CPU reference.
    Adaptive(adaptive::Args),
    /// Image-space interference: time vs objects and polygons, read
    /// pixels vs occlusion queries, early non-interference.
    Interfere(interfere::Args),
    /// The full collision pipeline: a settling pile of 100 and 1000 bodies,
    /// time per frame split by phase.
    Simulate(simulate::Args),
    /// Radial fields on an animated character with cloth (Friston & Steed
    /// table 1): structure update and collision GPU time, memory.
    Radial(radial::Args),
    /// Closed-form particles and impact maps (Knott 2003 ch. 3): particles/s
    /// and impacts/s vs count, map read-back vs resolution, 10M particles.
    Particles(particles::Args),
}

/// Runs one benchmark.
pub fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Sdf(args) => sdf::run(&args),
        BenchCommand::Tritri(args) => tritri::run(&args),
        BenchCommand::Collide(args) => collide::run(&args),
        BenchCommand::Adaptive(args) => adaptive::run(&args),
        BenchCommand::Interfere(args) => interfere::run(&args),
        BenchCommand::Simulate(args) => simulate::run(&args),
        BenchCommand::Radial(args) => radial::run(&args),
        BenchCommand::Particles(args) => particles::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::BenchCommand;
    use crate::cli::{Cli, Command};

    /// The long flags of `bench <target>`, sorted, without `--help`.
    fn flags(target: &str) -> Vec<String> {
        let cli = Cli::command();
        let bench = cli.find_subcommand("bench").expect("bench");
        let sub = bench.find_subcommand(target).expect(target);
        let mut flags: Vec<String> = sub
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|&l| l != "help")
            .map(String::from)
            .collect();
        flags.sort();
        flags
    }

    fn parse(line: &str) -> Result<BenchCommand, clap::Error> {
        let cli = Cli::try_parse_from(line.split_whitespace())?;
        match cli.command {
            Some(Command::Bench(bench)) => Ok(bench),
            other => panic!("{line}: parsed as {other:?}"),
        }
    }

    #[test]
    fn the_targets_keep_their_names() {
        let cli = Cli::command();
        let bench = cli.find_subcommand("bench").unwrap();
        let names: Vec<&str> = bench.get_subcommands().map(|s| s.get_name()).collect();
        assert_eq!(
            names,
            [
                "sdf",
                "tritri",
                "collide",
                "adaptive",
                "interfere",
                "simulate",
                "radial",
                "particles"
            ]
        );
    }

    #[test]
    fn each_target_has_only_its_own_flags() {
        let common = ["out", "repeats"];
        let models = ["models", "suite"];
        let expected: [(&str, Vec<&str>); 8] = [
            (
                "sdf",
                vec![
                    "backends",
                    "brute-max-triangles",
                    "cpu-ref-budget",
                    "res",
                    "signs",
                ],
            ),
            (
                "tritri",
                vec![
                    "backends",
                    "batch",
                    "brute-max-triangles",
                    "cpu-ref-budget",
                    "sizes",
                ],
            ),
            ("collide", vec!["chunk-points", "chunks", "pairs"]),
            (
                "adaptive",
                vec![
                    "bvh",
                    "cpu-ref-max-triangles",
                    "depth",
                    "group-level",
                    "no-ablations",
                    "no-axis-approximation",
                    "no-parent-bound",
                    "small-node",
                    "wide-below",
                    "winding",
                ],
            ),
            (
                "interfere",
                vec![
                    "backends",
                    "no-cull",
                    "objects",
                    "studies",
                    "target-box-k",
                    "target-objects",
                ],
            ),
            (
                "simulate",
                vec![
                    "bodies",
                    "broad",
                    "cpu",
                    "image-res",
                    "res",
                    "triangles",
                    "warm",
                ],
            ),
            (
                "radial",
                vec![
                    "alternatives",
                    "cloth",
                    "hash-cell",
                    "iterations",
                    "rasterisers",
                    "reach",
                    "res",
                    "sdf-res",
                    "substeps",
                    "triangles",
                ],
            ),
            (
                "particles",
                vec![
                    "frames",
                    "goal-particles",
                    "map-particles",
                    "map-res",
                    "particles",
                    "scene",
                    "studies",
                ],
            ),
        ];
        for (target, own) in expected {
            let mut want: Vec<String> = own.iter().chain(&common).map(|s| s.to_string()).collect();
            if matches!(target, "sdf" | "adaptive") {
                want.extend(models.map(String::from));
            }
            want.sort();
            assert_eq!(flags(target), want, "bench {target}");
        }
    }

    #[test]
    fn bench_sdf_help_lists_no_other_targets_flags() {
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("bench")
            .unwrap()
            .find_subcommand_mut("sdf")
            .unwrap()
            .render_long_help()
            .to_string();
        for flag in ["--res", "--backends", "--suite", "--out", "--repeats"] {
            assert!(help.contains(flag), "{flag} missing: {help}");
        }
        for flag in [
            "--sizes",
            "--batch",
            "--depth",
            "--bvh",
            "--no-ablations",
            "--cpu-ref-max-triangles",
            "--studies",
            "--no-cull",
            "--target-objects",
            "tritri:",
            "adaptive:",
            "interfere:",
        ] {
            assert!(!help.contains(flag), "{flag} listed: {help}");
        }
    }

    #[test]
    fn a_flag_of_another_target_is_refused() {
        for (line, flag) in [
            ("collidoscope bench sdf --sizes 128 --out x", "--sizes"),
            (
                "collidoscope bench collide --models bunny --out x",
                "--models",
            ),
            ("collidoscope bench tritri --depth 4 --out x", "--depth"),
            (
                "collidoscope bench adaptive --studies target --out x",
                "--studies",
            ),
            ("collidoscope bench interfere --res 16 --out x", "--res"),
        ] {
            let err = parse(line).expect_err(line);
            assert_eq!(
                err.kind(),
                clap::error::ErrorKind::UnknownArgument,
                "{line}"
            );
            assert!(
                err.to_string()
                    .contains(&format!("unexpected argument '{flag}' found")),
                "{line}: {err}"
            );
        }
        let err = parse("collidoscope bench --out x").expect_err("no target");
        assert!(err.to_string().contains("bench"), "{err}");
    }

    #[test]
    fn every_flag_keeps_its_default() {
        match parse("collidoscope bench sdf --out x").unwrap() {
            BenchCommand::Sdf(a) => {
                assert_eq!(a.models.suite, super::common::Suite::Sundholm);
                assert!(a.models.models.is_empty() && a.backends.is_empty());
                assert_eq!(a.res, [128]);
                assert_eq!(
                    (a.cpu_ref_budget, a.brute_max_triangles),
                    (300_000_000, 200_000)
                );
                assert_eq!((a.common.repeats, a.common.out.to_str()), (5, Some("x")));
            }
            other => panic!("{other:?}"),
        }
        match parse("collidoscope bench tritri --out x").unwrap() {
            BenchCommand::Tritri(a) => {
                assert_eq!(a.sizes, [128, 1152, 6050, 20000, 100352]);
                assert_eq!(a.batch, 4096);
                assert_eq!(
                    (a.cpu_ref_budget, a.brute_max_triangles),
                    (300_000_000, 200_000)
                );
                assert_eq!(a.common.repeats, 5);
            }
            other => panic!("{other:?}"),
        }
        match parse("collidoscope bench adaptive --out x").unwrap() {
            BenchCommand::Adaptive(a) => {
                assert_eq!(a.models.suite, super::common::Suite::Sundholm);
                assert_eq!((a.depth, a.cpu_ref_max_triangles), (10, 300_000));
                assert!(!a.no_ablations);
                let d = crate::stages::adaptive::AdaptiveParams::default();
                let p = a
                    .adaptive
                    .params(d.start_depth, a.depth, d.alpha, d.padding);
                assert_eq!(p.bvh, d.bvh);
                assert_eq!((p.group_level, p.small_node), (d.group_level, d.small_node));
                assert!(p.parent_bound && p.axis_approximation);
                assert_eq!(p.wide_below, 8_192);
            }
            other => panic!("{other:?}"),
        }
        match parse("collidoscope bench interfere --out x").unwrap() {
            BenchCommand::Interfere(a) => {
                use super::interfere::Study;
                assert_eq!(
                    a.studies,
                    [
                        Study::Objects,
                        Study::Polygons,
                        Study::Readback,
                        Study::Early
                    ]
                );
                assert_eq!(a.objects, [4, 16, 64, 256]);
                assert_eq!((a.target_objects, a.target_box_k), (300, 17));
                assert!(!a.no_cull);
            }
            other => panic!("{other:?}"),
        }
        match parse("collidoscope bench particles --out x").unwrap() {
            BenchCommand::Particles(a) => {
                use super::particles::Study;
                assert_eq!(a.studies, [Study::Count, Study::Maps, Study::Goal]);
                assert_eq!(a.particles.last(), Some(&10_000_000));
                assert_eq!(a.map_res, [64, 128, 256, 512, 1024, 2048]);
                assert_eq!((a.map_particles, a.goal_particles), (1_000_000, 10_000_000));
                assert_eq!((a.frames, a.scene), (300, None));
            }
            other => panic!("{other:?}"),
        }
        match parse("collidoscope bench collide --repeats 3 --out x").unwrap() {
            BenchCommand::Collide(a) => {
                assert_eq!(a.common.repeats, 3);
                let d = crate::stages::collide::Chunking::default();
                assert_eq!(
                    (a.chunks as usize, a.chunk_points as usize),
                    (d.max_chunks, d.min_points)
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
