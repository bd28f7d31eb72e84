//! The book in `docs/` holds together: every page `SUMMARY.md` lists
//! exists, every page is listed (none orphaned), and every relative link
//! and image in the book's pages and in `README.md` resolves, `#anchors`
//! to headings included. Links are read outside code blocks and code
//! spans; web addresses are not followed. Anchors are the heading text as
//! mdBook and GitHub make them (lower case, spaces to `-`, punctuation
//! other than `-` and `_` dropped).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::book::pages;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of `markdown` outside fenced code blocks and code spans.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the inline links and images `[text](target)` in `markdown`.
fn links(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        // `[text](target "title")`: the target alone.
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

/// The anchors of the headings of `markdown`.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        out.insert(slug(title));
    }
    out
}

fn slug(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Each broken relative link of the page at `path`, as a message.
fn broken_links(path: &Path) -> Vec<String> {
    let text = read(path);
    let dir = path.parent().expect("a page's folder");
    let mut broken = Vec::new();
    for target in links(&text) {
        if target.is_empty()
            || target.contains("://")
            || target.starts_with("mailto:")
            || target.starts_with('<')
        {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if file.is_empty() {
            path.to_path_buf()
        } else {
            dir.join(file)
        };
        if !resolved.exists() {
            broken.push(format!("{}: {target}: no such file", path.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && resolved.extension().is_some_and(|e| e == "md")
            && !anchors(&read(&resolved)).contains(anchor)
        {
            broken.push(format!("{}: {target}: no such heading", path.display()));
        }
    }
    broken
}

#[test]
fn every_summary_entry_exists_and_every_page_is_listed() {
    let src = root().join("docs/src");
    let summary = read(&src.join("SUMMARY.md"));
    let listed: BTreeSet<PathBuf> = links(&summary)
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| src.join(t))
        .collect();
    for page in &listed {
        assert!(
            page.is_file(),
            "SUMMARY.md lists {}, which does not exist",
            page.display()
        );
    }
    let orphans: Vec<String> = pages()
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "SUMMARY.md") && !listed.contains(p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "pages SUMMARY.md does not list: {orphans:?}"
    );
}

#[test]
fn every_relative_link_and_image_resolves() {
    let mut broken = broken_links(&root().join("README.md"));
    for page in pages() {
        broken.extend(broken_links(&page));
    }
    assert!(
        broken.is_empty(),
        "{} broken:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_check() {
    // A link in prose counts, one in code does not; an anchor is the
    // heading's text as mdBook makes it.
    let page = "See [a](a.md#the-field-s-sign) and `[b](b.md)`.\n```\n[c](c.md)\n```\n";
    assert_eq!(links(page), ["a.md#the-field-s-sign"]);
    assert!(anchors("## The field's sign: `check`\n").contains("the-fields-sign-check"));
    assert_eq!(
        slug("Sundholm's table 7.1 at 128³"),
        "sundholms-table-71-at-128³"
    );
}
