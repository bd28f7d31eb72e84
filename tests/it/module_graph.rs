//! The crate's module graph, read from the source: dependencies run one way.
//!
//! Every `crate::…`, `super::…` and `self::…` path in `src/` (in `use`
//! trees and inline) is resolved to the module it names, following a
//! parent's `pub use child::Name` re-exports to the child that defines the
//! name. An edge between two modules is lifted to the two children of their
//! lowest common ancestor, so `stages::interfere::gpu::targets` using
//! `stages::interfere::identify` is an edge `gpu → identify` among
//! `interfere`'s children. A parent using its children, or a child using
//! its parent's own items, is the module tree itself and is not an edge.
//!
//! Test modules (`#[cfg(test)]`, at the end of a file) are left out: they
//! build fixtures from anywhere and are not part of the structure.
//!
//! Two rules:
//! - among the children of any module, the edges form no cycle;
//! - at the top, layers run one way: `app`, `cli` → `view`, `scene`, `sim`,
//!   `plot` → `stages` → `mesh`, `geom`, `gpu`, `io`, `progress`, `timing`,
//!   `assets`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type ModPath = Vec<String>;

/// One source file's module path and text without comments and strings.
struct SourceFile {
    module: ModPath,
    file: String,
    code: String,
}

fn read_sources() -> Vec<SourceFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).expect("under src/");
            let mut module: ModPath = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if module == ["main"] {
                continue; // the binary: uses the library by its crate name
            }
            if module.last().is_some_and(|l| l == "mod" || l == "lib") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            // Test modules build fixtures from anywhere; they are not part
            // of the dependency structure (a file's tests come last).
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            out.push(SourceFile {
                module,
                file: format!("src/{}", rel.display()),
                code: strip_comments_and_strings(text),
            });
        }
    }
    out
}

/// Blanks comments, string and char literals (keeping line breaks), so
/// that paths in docs and messages are not read as dependencies.
fn strip_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && raw_string_at(&b, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            j += 1; // the opening quote
            while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if b[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if b.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && char_literal_len(&b, i).is_some() {
            i += char_literal_len(&b, i).unwrap_or(1);
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn raw_string_at(b: &[char], i: usize) -> bool {
    let prev_ident = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
    let mut j = i + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    !prev_ident && b.get(j) == Some(&'"')
}

/// The length of a char literal starting at `i`, or `None` for a lifetime.
fn char_literal_len(b: &[char], i: usize) -> Option<usize> {
    if b.get(i + 1) == Some(&'\\') {
        let close = (i + 2..(i + 12).min(b.len())).find(|&j| b[j] == '\'')?;
        return Some(close - i + 1);
    }
    (b.get(i + 2) == Some(&'\'')).then_some(3)
}

/// Every path the code names from `crate`, `super` or `self`, with `use`
/// trees expanded, as absolute segment lists.
fn referenced_paths(file: &SourceFile) -> Vec<(ModPath, usize)> {
    let code = &file.code;
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let rest: String = bytes[i..(i + 7).min(bytes.len())].iter().collect();
        let root = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|r| rest.starts_with(r));
        let after_path_sep = i >= 2 && bytes[i - 1] == ':' && bytes[i - 2] == ':';
        match root {
            Some(_) if starts_word && !after_path_sep => {
                let line = bytes[..i].iter().filter(|&&c| c == '\n').count() + 1;
                let (tree, end) = read_use_tree(&bytes, i);
                for path in expand_tree(&tree) {
                    if let Some(abs) = absolute(&file.module, &path) {
                        out.push((abs, line));
                    }
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads a path or use tree (`a::b::{c, d::{e, f}}`) starting at `start`.
fn read_use_tree(b: &[char], start: usize) -> (String, usize) {
    let mut depth = 0;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            c if c.is_alphanumeric() || c == '_' || c == ':' || c == '*' => {}
            ',' | ' ' | '\n' | '\t' if depth > 0 => {}
            _ if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    (b[start..i].iter().collect(), i)
}

/// Expands `a::{b, c::{d}}` into `a::b`, `a::c::d`; each as segments.
fn expand_tree(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![segments(&tree)];
    };
    let prefix = segments(&tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[from..]);
    let mut out = Vec::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        for tail in expand_tree(part) {
            let mut p = prefix.clone();
            if tail != ["self"] {
                p.extend(tail);
            }
            out.push(p);
        }
    }
    out
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The path as segments from the crate root, or `None` if it leaves it.
fn absolute(module: &ModPath, path: &[String]) -> Option<ModPath> {
    let mut base = module.clone();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

struct Graph {
    modules: BTreeSet<ModPath>,
    /// `pub use` re-exports: (module, name) → the module the name comes from.
    reexports: BTreeMap<(ModPath, String), ModPath>,
}

impl Graph {
    fn new(files: &[SourceFile]) -> Self {
        let modules = files.iter().map(|f| f.module.clone()).collect();
        let mut graph = Graph {
            modules,
            reexports: BTreeMap::new(),
        };
        for f in files {
            for stmt in f.code.split(';') {
                let stmt = stmt.trim();
                let Some(tree) = stmt
                    .strip_prefix("pub use ")
                    .or_else(|| stmt.strip_prefix("pub(crate) use "))
                else {
                    continue;
                };
                let tree = tree.trim();
                let rooted = if tree.starts_with("crate::")
                    || tree.starts_with("super::")
                    || tree.starts_with("self::")
                {
                    tree.to_string()
                } else {
                    format!("self::{tree}")
                };
                for path in expand_tree(&rooted) {
                    let Some(abs) = absolute(&f.module, &path) else {
                        continue;
                    };
                    let Some(name) = abs.last().cloned() else {
                        continue;
                    };
                    let target = graph.owner(&abs);
                    if target != f.module && !target.is_empty() {
                        graph.reexports.insert((f.module.clone(), name), target);
                    }
                }
            }
        }
        graph
    }

    /// The deepest module that is a prefix of `path`, following re-exports.
    fn owner(&self, path: &[String]) -> ModPath {
        let mut module: ModPath = Vec::new();
        for seg in path {
            let mut next = module.clone();
            next.push(seg.clone());
            if self.modules.contains(&next) {
                module = next;
            } else {
                break;
            }
        }
        let mut seen = 0;
        while let Some(name) = path.get(module.len())
            && let Some(target) = self.reexports.get(&(module.clone(), name.clone()))
            && seen < 8
        {
            module = target.clone();
            seen += 1;
        }
        module
    }
}

/// Lifts `from → to` to the children of their lowest common ancestor.
fn sibling_edge(from: &[String], to: &[String]) -> Option<(ModPath, String, String)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None; // one contains the other
    }
    Some((
        from[..common].to_vec(),
        from[common].clone(),
        to[common].clone(),
    ))
}

/// Edges among each module's children, each with one place that makes it.
type SiblingEdges = BTreeMap<ModPath, BTreeMap<(String, String), String>>;

fn sibling_edges() -> SiblingEdges {
    let files = read_sources();
    let graph = Graph::new(&files);
    let mut edges = SiblingEdges::new();
    for f in &files {
        for (path, line) in referenced_paths(f) {
            let to = graph.owner(&path);
            if let Some((parent, a, b)) = sibling_edge(&f.module, &to) {
                edges
                    .entry(parent)
                    .or_default()
                    .entry((a, b))
                    .or_insert_with(|| format!("{}:{line} uses {}", f.file, path.join("::")));
            }
        }
    }
    edges
}

/// Strongly connected components of more than one node (Tarjan).
fn cycles(edges: &BTreeMap<(String, String), String>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of = |n: &String| nodes.iter().position(|m| *m == n).unwrap_or(0);
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        adj[index_of(a)].push(index_of(b));
    }
    struct Tarjan<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.adj[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let n = nodes.len();
    let mut t = Tarjan {
        adj: &adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
        .into_iter()
        .map(|c| c.into_iter().map(|v| nodes[v].clone()).collect())
        .collect()
}

#[test]
fn no_module_imports_another_in_a_circle() {
    let mut problems = Vec::new();
    for (parent, edges) in sibling_edges() {
        for cycle in cycles(&edges) {
            let members: BTreeSet<&String> = cycle.iter().collect();
            let witnesses: Vec<String> = edges
                .iter()
                .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                .map(|((a, b), at)| format!("    {a} → {b}: {at}"))
                .collect();
            problems.push(format!(
                "in `crate::{}`: {} import each other in a circle:\n{}",
                parent.join("::"),
                cycle.join(", "),
                witnesses.join("\n")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The layer of each top-level module: imports go to lower layers only
/// (or sideways within a layer, which the circle test keeps acyclic).
fn layer(top: &str) -> Option<u8> {
    Some(match top {
        "app" | "cli" => 4,
        "view" | "scene" | "sim" | "plot" | "dataset" => 3,
        "stages" => 2,
        "mesh" | "geom" | "gpu" | "io" | "progress" | "timing" | "assets" => 1,
        _ => return None,
    })
}

#[test]
fn top_level_layers_run_one_way() {
    let edges = sibling_edges();
    let top = edges.get(&Vec::new()).cloned().unwrap_or_default();
    let mut problems = Vec::new();
    for ((a, b), at) in &top {
        match (layer(a), layer(b)) {
            (Some(la), Some(lb)) if lb > la => {
                problems.push(format!("{a} (layer {la}) uses {b} (layer {lb}): {at}"))
            }
            (None, _) | (_, None) => problems.push(format!(
                "{a} → {b}: a top-level module without a layer in this test ({at})"
            )),
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker itself: a use tree expands, re-exports are followed, and a
/// circle is found.
#[test]
fn the_checker_reads_use_trees_and_finds_circles() {
    let tree = expand_tree("crate::stages::{sdf::{self, Backend}, collide}");
    assert_eq!(
        tree,
        vec![
            segments("crate::stages::sdf"),
            segments("crate::stages::sdf::Backend"),
            segments("crate::stages::collide"),
        ]
    );
    let module = segments("stages::interfere::gpu");
    assert_eq!(
        absolute(&module, &segments("super::identify::Decoder")),
        Some(segments("stages::interfere::identify::Decoder"))
    );
    let stripped = strip_comments_and_strings("let a = \"crate::x\"; // crate::y\nuse crate::z;");
    assert!(!stripped.contains("crate::x") && !stripped.contains("crate::y"));
    assert!(stripped.contains("crate::z"));
    let mut edges = BTreeMap::new();
    edges.insert(("a".to_string(), "b".to_string()), String::new());
    edges.insert(("b".to_string(), "c".to_string()), String::new());
    assert!(cycles(&edges).is_empty());
    edges.insert(("c".to_string(), "a".to_string()), String::new());
    assert_eq!(cycles(&edges).len(), 1);
}
