//! `collidoscope`: the viewer, or a headless subcommand.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use collidoscope::app::{self, Script, ViewerOptions};
use collidoscope::cli::{self, Cli};

fn main() -> ExitCode {
    // A bug must still end in one readable line, not a backtrace (set
    // RUST_BACKTRACE=1 to get one).
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            eprintln!("collidoscope: internal error: {msg}{at}");
        }));
    }
    let args = match Cli::try_parse() {
        Ok(args) => args,
        // --help and --version, and help shown for a missing subcommand.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            let argv: Vec<String> = std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            eprintln!("{}", cli::usage_error_line(&e, &argv));
            return ExitCode::from(2);
        }
    };
    let Some(command) = args.command else {
        return viewer(args.files, args.script, args.camera, args.field_layout);
    };
    match cli::run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("error: {}", chain.join(": "));
            ExitCode::FAILURE
        }
    }
}

fn viewer(
    open: Vec<std::path::PathBuf>,
    script: Option<String>,
    camera: Option<std::path::PathBuf>,
    field_layout: Option<String>,
) -> ExitCode {
    if script.as_deref().map(str::trim) == Some("help") {
        print!("{}", app::script::help());
        return ExitCode::SUCCESS;
    }
    let steps = match script.as_deref().map(app::script::parse).transpose() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Before the window opens: an export over an input or into a missing
    // folder fails now, not after the session's work.
    if let Some(steps) = &steps
        && let Err(e) = app::script::output_plan(steps, &open, camera.as_deref()).check()
    {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    // The layout is the `field-layout:` step's argument: checked as it is.
    if let Some(layout) = &field_layout
        && let Err(e) = app::script::parse(&format!("field-layout:{layout}"))
    {
        eprintln!("error: --field-layout: {e}");
        return ExitCode::from(2);
    }
    let camera = match camera.as_deref().map(collidoscope::view::Camera::load) {
        None => None,
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let script = steps.map(Script::new);
    let options = ViewerOptions {
        open,
        script: script.clone(),
        camera,
        field_layout,
    };
    if let Err(e) = app::run_viewer(options) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    match script.map(|s| s.result()) {
        None | Some(Some(Ok(()))) => ExitCode::SUCCESS,
        Some(Some(Err(e))) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Some(None) => {
            eprintln!("error: the window closed before the script finished");
            ExitCode::FAILURE
        }
    }
}
