//! The command-line reference in `docs/src/cli/` is the clap definitions'
//! own long help, and every command and flag has a description.
//!
//! Each page is what `collidoscope [COMMAND] --help` prints, rendered here
//! from `cli::Cli` exactly as the binary renders it, so the reference
//! cannot drift from the tool: a changed flag fails
//! `reference_pages_are_the_long_help` until the pages are rewritten with
//! `UPDATE_DOCS=1 cargo test --test it cli_docs::`.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use collidoscope::cli::Cli;

const MARK: &str = "<!-- generated from the clap definitions by tests/it/cli_docs.rs: \
                    UPDATE_DOCS=1 cargo test --test it cli_docs:: rewrites it -->";

fn cli_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/cli")
}

/// What `collidoscope ARGS… --help` prints.
fn long_help(args: &[&str]) -> String {
    let argv = std::iter::once("collidoscope")
        .chain(args.iter().copied())
        .chain(["--help"]);
    match Cli::command().try_get_matches_from(argv) {
        Ok(_) => panic!("{args:?} --help parsed as a command"),
        Err(e) => {
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp,
                "{args:?}: {e}"
            );
            e.render().to_string()
        }
    }
}

/// Every page: its file name, title and the arguments whose help it shows
/// (the program, each subcommand, each benchmark target).
fn pages() -> Vec<(String, String, Vec<String>)> {
    let root = Cli::command();
    let mut pages = vec![("collidoscope.md".into(), "collidoscope".into(), vec![])];
    for sub in root.get_subcommands() {
        let name = sub.get_name().to_string();
        if name == "help" {
            continue;
        }
        pages.push((
            format!("{name}.md"),
            format!("collidoscope {name}"),
            vec![name.clone()],
        ));
        for target in sub.get_subcommands().filter(|t| t.get_name() != "help") {
            let t = target.get_name().to_string();
            pages.push((
                format!("{name}-{t}.md"),
                format!("collidoscope {name} {t}"),
                vec![name.clone(), t],
            ));
        }
    }
    pages
}

fn page(title: &str, help: &str) -> String {
    format!(
        "# `{title}`\n\n{MARK}\n\n```text\n{}\n```\n",
        help.trim_end()
    )
}

#[test]
fn reference_pages_are_the_long_help() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    let mut wanted = Vec::new();
    for (file, title, args) in pages() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = page(&title, &long_help(&args));
        let path = cli_dir().join(&file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if update {
                std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            } else {
                stale.push(file.clone());
            }
        }
        wanted.push(file);
    }
    // A page of a command that is gone.
    let entries = std::fs::read_dir(cli_dir()).expect("docs/src/cli");
    for entry in entries {
        let path = entry.expect("an entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let generated = std::fs::read_to_string(&path).is_ok_and(|t| t.contains(MARK));
        if generated && !wanted.iter().any(|w| w == name) {
            if update {
                std::fs::remove_file(&path).expect("remove a stale page");
            } else {
                stale.push(format!("{name} (no such command)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/src/cli/ differs from the long help: {stale:?}; \
         UPDATE_DOCS=1 cargo test --test it cli_docs:: rewrites it"
    );
}

#[test]
fn the_reference_pages_are_in_the_summary() {
    let summary =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/SUMMARY.md"))
            .expect("SUMMARY.md");
    for (file, _, _) in pages() {
        assert!(
            summary.contains(&format!("(cli/{file})")),
            "SUMMARY.md does not list cli/{file}"
        );
    }
}

/// Every subcommand, benchmark target and flag has a one-line description
/// in `--help` (clap's own `--help` and `--version` aside).
#[test]
fn every_command_and_flag_is_described() {
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            let described = arg
                .get_help()
                .or(arg.get_long_help())
                .is_some_and(|h| !h.to_string().trim().is_empty());
            if !described {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands() {
            let name = format!("{path} {}", sub.get_name());
            let about = sub
                .get_about()
                .or(sub.get_long_about())
                .map(|a| a.to_string())
                .unwrap_or_default();
            if about.trim().is_empty() {
                missing.push(name.clone());
            }
            walk(sub, &name, missing);
        }
    }
    let mut missing = Vec::new();
    walk(&Cli::command(), "collidoscope", &mut missing);
    assert!(missing.is_empty(), "no description: {missing:?}");
}
