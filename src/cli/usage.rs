//! Command-line usage errors in one line, as every other error of the tool.
//!
//! clap renders a usage error as several lines: the message, indented
//! details (the missing arguments), tips and a usage block. [`one_line`]
//! keeps the message, its details and tips on one line and points to the
//! subcommand's `--help` instead of the usage block:
//!
//! ```text
//! error: unexpected argument '--bogus' for 'sdf' (see 'collidoscope sdf --help')
//! ```
//!
//! `--help` and `--version` are not errors and print as clap prints them.

use clap::CommandFactory;
use clap::error::ErrorKind;

use super::Cli;

/// The one-line message for a usage error `err` of the command line `args`
/// (program name first).
pub fn one_line(err: &clap::Error, args: &[String]) -> String {
    let rendered = err.render().to_string();
    let mut lines = Vec::new();
    let mut tips = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            // "to pass '--x' as a value, use '-- --x'" is noise for a
            // tool whose values never start with "--".
            if !tip.contains("use '-- ") {
                tips.push(tip);
            }
        } else if !line.is_empty() {
            lines.push(line);
        }
    }
    let first = lines.first().copied().unwrap_or("invalid command line");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let mut message = first.to_string();
    if lines.len() > 1 {
        message = format!("{message} {}", lines[1..].join(", "));
    }
    let path = command_path(args);
    if err.kind() == ErrorKind::UnknownArgument
        && let Some(sub) = path.get(1..).and_then(|p| p.last())
    {
        let bare = message.strip_suffix(" found").unwrap_or(&message);
        message = format!("{bare} for '{sub}'");
    }
    let mut hints: Vec<String> = tips.iter().map(|t| format!("tip: {t}")).collect();
    hints.push(format!("see '{} --help'", path.join(" ")));
    format!("error: {message} ({})", hints.join("; "))
}

/// The names of the command and the subcommands `args` names, in order
/// (`["collidoscope", "bench", "sdf"]`).
fn command_path(args: &[String]) -> Vec<String> {
    let mut command = Cli::command();
    let mut path = vec![command.get_name().to_string()];
    for arg in args.iter().skip(1).filter(|a| !a.starts_with('-')) {
        let Some(sub) = command.find_subcommand(arg).cloned() else {
            break;
        };
        path.push(sub.get_name().to_string());
        command = sub;
    }
    path
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn error_of(line: &str) -> String {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let err = Cli::try_parse_from(&args).expect_err(line);
        one_line(&err, &args)
    }

    #[test]
    fn an_unknown_flag_names_the_subcommand_and_its_help() {
        assert_eq!(
            error_of("collidoscope sdf --bogus"),
            "error: unexpected argument '--bogus' for 'sdf' (see 'collidoscope sdf --help')"
        );
        let err = error_of("collidoscope bench sdf --sizes 128 --out x");
        assert!(
            err.starts_with("error: unexpected argument '--sizes' for 'sdf' ("),
            "{err}"
        );
        assert!(
            err.ends_with("see 'collidoscope bench sdf --help')"),
            "{err}"
        );
    }

    #[test]
    fn every_usage_error_is_one_line() {
        for line in [
            "collidoscope sdf",
            "collidoscope sdf m.obj --res x --out f.npy",
            "collidoscope sdf m.obj --outt f.npy",
            "collidoscope bench",
            "collidoscope bench nosuch --out x",
            "collidoscope --bogus",
        ] {
            let err = error_of(line);
            assert!(!err.contains('\n'), "{line}: {err}");
            assert!(err.starts_with("error: "), "{line}: {err}");
            assert!(!err.contains("Usage"), "{line}: {err}");
        }
        let missing = error_of("collidoscope sdf m.obj");
        assert!(missing.contains("--out <OUT>"), "{missing}");
        let typo = error_of("collidoscope sdf m.obj --outt f.npy");
        assert!(typo.contains("tip: "), "{typo}");
    }
}
