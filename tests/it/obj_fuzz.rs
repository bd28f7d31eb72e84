//! Fuzzing the OBJ loader with generated text, valid and corrupted.
//!
//! A seeded generator writes small OBJ files (vertices, n-gon faces with
//! every index form: positive, negative relative, `v/vt/vn`, `v//vn`), then
//! corrupts some of them: truncation, byte flips, index 0, huge and
//! out-of-range negative indices, non-finite coordinates, CRLF endings.
//! Each input is written to a file and loaded with [`load_obj`], the path
//! every command takes. The test asserts that nothing panics and that every
//! input gives either a clear error (one non-empty line) or meshes whose
//! vertex and triangle counts match [`expect`], a simple parse written here
//! to the intended behaviour:
//!
//! - the text must be UTF-8 without NUL bytes; a leading BOM is ignored;
//!   `\n`, `\r\n` and `\r` all end lines;
//! - `v x y z` adds a vertex; `f a b c ...` with `n ≥ 3` corners adds
//!   `n − 2` triangles (a fan); the position index is the part before the
//!   first `/`, 1-based over all the file's vertices, or negative
//!   counting back from the vertices read so far; one out of range (0
//!   included) is an error;
//! - each `o` starts an object, loaded as its own mesh; the vertex count is
//!   the number of distinct positions each object's faces use, summed;
//! - no triangle at all, a non-finite coordinate in a used vertex, or every
//!   triangle of one object of zero area is an error.
//!
//! Lines the simple parse does not understand (a `v` or `vn` without three
//! numbers,
//! a face index that is not an integer, a texture or normal index naming
//! no line, a face of fewer than 3 corners —
//! what truncation and flips make)
//! leave the outcome open: then only "no panic, and a clear error or a
//! valid mesh" is checked. At least half of the cases must be fully
//! predicted, so the comparison cannot silently become vacuous.
//!
//! `cargo test` runs [`DEFAULT_CASES`]; `COLLIDOSCOPE_FUZZ_CASES=100000
//! cargo test --release --test it obj_fuzz::` runs more, and
//! `COLLIDOSCOPE_FUZZ_SEED` picks another seed. A failure names the seed
//! and case and prints the input.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::common::fuzz::{Rng, cases_and_seed};
use collidoscope::mesh::{Mesh, load_obj};
use glam::DVec3;

/// Cases of a plain `cargo test` (well under a second in a debug build).
const DEFAULT_CASES: u64 = 1500;

const COORDS: [&str; 10] = [
    "0", "1", "-1", "0.5", "2.25", "-0.125", "1e3", "3e-2", "7", "-4.5",
];

/// A valid OBJ text: vertices, optional texture and normal lines, faces of
/// 3 to 8 corners with every index form, comments and blank lines.
fn valid_obj(rng: &mut Rng) -> String {
    let mut text = String::new();
    if rng.chance(20) {
        text.push_str("# generated\n");
    }
    if rng.chance(20) {
        text.push_str("o part\n");
    }
    let vertices = 3 + rng.below(10);
    let with_attributes = rng.chance(30);
    if with_attributes {
        text.push_str("vt 0 0\nvn 0 0 1\n");
    }
    let mut written = 0usize;
    let faces = 1 + rng.below(6);
    for face in 0..faces {
        // Vertices come before the faces that use them, some in between.
        let target = if face == 0 {
            vertices
        } else {
            (written + rng.below(3)).min(vertices + 4)
        };
        while written < target {
            let [x, y, z] = [(); 3].map(|_| *rng.pick(&COORDS));
            text.push_str(&format!("v {x} {y} {z}\n"));
            written += 1;
        }
        let corners = 3 + rng.below(6);
        text.push('f');
        for _ in 0..corners {
            let index = 1 + rng.below(written);
            let position = if rng.chance(25) {
                // The same vertex, counted back from the last one read.
                format!("-{}", written + 1 - index)
            } else {
                index.to_string()
            };
            let corner = match (with_attributes, rng.below(3)) {
                (true, 0) => format!("{position}/1/1"),
                (true, 1) => format!("{position}//1"),
                _ => position,
            };
            text.push(' ');
            text.push_str(&corner);
        }
        text.push('\n');
        if rng.chance(10) {
            text.push('\n');
        }
    }
    text
}

/// The corruptions applied to a valid text.
#[derive(Clone, Copy, Debug)]
enum Corruption {
    None,
    Truncate,
    FlipBytes,
    IndexZero,
    HugeIndex,
    NegativeOutOfRange,
    NonFinite,
    Crlf,
    /// A UTF-8 byte-order mark first (it once dropped the first vertex).
    Bom,
    /// Lone CRs end the lines (once a "color parse error").
    CrOnly,
}

const CORRUPTIONS: [Corruption; 10] = [
    Corruption::None,
    Corruption::Truncate,
    Corruption::FlipBytes,
    Corruption::IndexZero,
    Corruption::HugeIndex,
    Corruption::NegativeOutOfRange,
    Corruption::NonFinite,
    Corruption::Crlf,
    Corruption::Bom,
    Corruption::CrOnly,
];

/// Replaces one face index (the position part of a random corner) by
/// `with`.
fn replace_face_index(text: &str, rng: &mut Rng, with: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let faces: Vec<usize> = (0..lines.len())
        .filter(|&l| lines[l].starts_with("f "))
        .collect();
    let line = *rng.pick(&faces);
    let words: Vec<&str> = lines[line].split(' ').collect();
    let corner = 1 + rng.below(words.len() - 1);
    let rest = words[corner].find('/').map_or("", |s| &words[corner][s..]);
    let mut new_words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    new_words[corner] = format!("{with}{rest}");
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out[line] = new_words.join(" ");
    out.join("\n") + "\n"
}

fn corrupt(text: String, kind: Corruption, rng: &mut Rng) -> Vec<u8> {
    match kind {
        Corruption::None => text.into_bytes(),
        Corruption::Truncate => {
            let mut bytes = text.into_bytes();
            bytes.truncate(rng.below(bytes.len() + 1));
            bytes
        }
        Corruption::FlipBytes => {
            let mut bytes = text.into_bytes();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len());
                // Half the flips are plausible OBJ characters, half any byte.
                bytes[at] = if rng.chance(50) {
                    *rng.pick(b"0123456789 -./fv\n#e")
                } else {
                    rng.next() as u8
                };
            }
            bytes
        }
        Corruption::IndexZero => replace_face_index(&text, rng, "0").into_bytes(),
        Corruption::HugeIndex => {
            let huge = *rng.pick(&["99999999999", "4294967296", "4294967295", "2147483648"]);
            replace_face_index(&text, rng, huge).into_bytes()
        }
        Corruption::NegativeOutOfRange => replace_face_index(&text, rng, "-1000000").into_bytes(),
        Corruption::NonFinite => {
            let value = *rng.pick(&["nan", "NaN", "inf", "-inf"]);
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let vertices: Vec<usize> = (0..lines.len())
                .filter(|&l| lines[l].starts_with("v "))
                .collect();
            let line = *rng.pick(&vertices);
            let mut words: Vec<String> = lines[line].split(' ').map(str::to_string).collect();
            words[1 + rng.below(3)] = value.to_string();
            lines[line] = words.join(" ");
            (lines.join("\n") + "\n").into_bytes()
        }
        Corruption::Crlf => text.replace('\n', "\r\n").into_bytes(),
        Corruption::Bom => format!("\u{feff}{text}").into_bytes(),
        Corruption::CrOnly => text.replace('\n', "\r").into_bytes(),
    }
}

/// What the simple parse expects of an input.
#[derive(Debug, PartialEq)]
enum Expected {
    /// Meshes with these totals.
    Counts { vertices: usize, triangles: usize },
    /// An error (the reason, for the failure message).
    Error(&'static str),
    /// An error, or meshes whose every triangle has zero area are refused:
    /// either is right when all triangles are degenerate.
    ZeroArea,
    /// A line outside the simple grammar: any clear outcome.
    Open,
}

/// The independent parse (see the module docs for the rules).
fn expect(bytes: &[u8]) -> Expected {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Expected::Error("not UTF-8");
    };
    if text.contains('\0') {
        return Expected::Error("NUL byte");
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split(['\n', '\r']).collect();
    let count = |keyword: &str| {
        lines
            .iter()
            .filter(|l| l.split_whitespace().next() == Some(keyword))
            .count()
    };
    let (vertex_lines, texture_lines, normal_lines) = (count("v"), count("vt"), count("vn"));
    let mut positions: Vec<[f64; 3]> = Vec::new();
    // (object, corners): each `o` line starts an object, loaded as its own mesh.
    let mut triangles: Vec<(usize, [usize; 3])> = Vec::new();
    let mut object = 0usize;
    let mut out_of_range = false;
    for line in lines {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let coords: Vec<&str> = words.collect();
                let parsed: Vec<f64> = coords.iter().filter_map(|c| c.parse().ok()).collect();
                if coords.len() != 3 || parsed.len() != 3 {
                    return Expected::Open;
                }
                positions.push([parsed[0], parsed[1], parsed[2]]);
            }
            Some("f") => {
                let mut corners = Vec::new();
                for word in words {
                    let parts: Vec<&str> = word.split('/').collect();
                    let Ok(raw) = parts[0].parse::<i64>() else {
                        return Expected::Open;
                    };
                    // Texture and normal indices: empty or naming a line.
                    let named = |part: &str, of: usize| {
                        part.is_empty()
                            || part.parse::<usize>().is_ok_and(|i| (1..=of).contains(&i))
                    };
                    let attributes_ok = parts.len() <= 3
                        && parts.get(1).is_none_or(|t| named(t, texture_lines))
                        && parts.get(2).is_none_or(|n| named(n, normal_lines));
                    if !attributes_ok {
                        return Expected::Open;
                    }
                    let resolved = if raw < 0 {
                        positions.len() as i64 + raw
                    } else {
                        raw - 1
                    };
                    if resolved < 0 || resolved >= vertex_lines as i64 {
                        out_of_range = true;
                    }
                    corners.push(resolved.max(0) as usize);
                }
                // Fewer than 3 corners (a truncated face): `--strict`
                // decides between a warning and an error; either is clear.
                if corners.len() < 3 {
                    return Expected::Open;
                }
                for k in 1..corners.len() - 1 {
                    triangles.push((object, [corners[0], corners[k], corners[k + 1]]));
                }
            }
            Some(word) if word.starts_with('#') => {}
            Some(keyword @ ("vt" | "vn")) => {
                // Numbers: 3 for a normal, 2 or 3 for a texture coordinate.
                let numbers: Vec<&str> = words.collect();
                let counts = if keyword == "vn" { 3..=3 } else { 2..=3 };
                if !counts.contains(&numbers.len())
                    || numbers.iter().any(|n| n.parse::<f64>().is_err())
                {
                    return Expected::Open;
                }
            }
            Some("o") => object += 1,
            None => {}
            Some(_) => return Expected::Open,
        }
    }
    if out_of_range {
        return Expected::Error("face index out of range");
    }
    if triangles.is_empty() {
        return Expected::Error("no triangles");
    }
    // Each mesh keeps the positions its faces use.
    let used: BTreeSet<(usize, usize)> = triangles
        .iter()
        .flat_map(|&(o, t)| t.map(|v| (o, v)))
        .collect();
    if used
        .iter()
        .any(|&(_, v)| positions[v].iter().any(|c| !(*c as f32).is_finite()))
    {
        return Expected::Error("non-finite coordinate");
    }
    // The loader's test, per mesh: the f64 area vector of the f32
    // positions is 0 for every triangle.
    let degenerate = |t: &[usize; 3]| {
        let [a, b, c] = t.map(|v| DVec3::from(positions[v].map(|x| x as f32 as f64)));
        (b - a).cross(c - a) == DVec3::ZERO
    };
    let zero_area = (0..=object).any(|o| {
        let mut mesh = triangles.iter().filter(|(to, _)| *to == o).peekable();
        mesh.peek().is_some() && mesh.all(|(_, t)| degenerate(t))
    });
    if zero_area {
        return Expected::ZeroArea;
    }
    Expected::Counts {
        vertices: used.len(),
        triangles: triangles.len(),
    }
}

/// Checks one input; returns whether its outcome was fully predicted.
fn check(bytes: &[u8], path: &PathBuf, label: &str) -> bool {
    std::fs::write(path, bytes).expect("write the case");
    let loaded = std::panic::catch_unwind(|| load_obj(path));
    let shown = String::from_utf8_lossy(bytes);
    let Ok(loaded) = loaded else {
        panic!("{label}: the loader panicked on\n{shown:?}");
    };
    if let Err(e) = &loaded {
        let message = e.to_string();
        assert!(
            !message.trim().is_empty() && !message.contains('\n') && message.len() < 400,
            "{label}: unclear error {message:?} for\n{shown:?}"
        );
    }
    let expected = expect(bytes);
    match (&expected, &loaded) {
        (
            Expected::Counts {
                vertices,
                triangles,
            },
            Ok(meshes),
        ) => {
            let got_v: usize = meshes.iter().map(|m| m.positions.len()).sum();
            let got_t: usize = meshes.iter().map(|m| m.triangles.len()).sum();
            assert_eq!(
                (got_v, got_t),
                (*vertices, *triangles),
                "{label}: (vertices, triangles) differ from the simple parse for\n{shown:?}"
            );
            true
        }
        (Expected::Error(_), Err(_)) | (Expected::ZeroArea, _) => true,
        (Expected::Open, Ok(meshes)) => {
            for mesh in meshes {
                mesh.validate()
                    .unwrap_or_else(|e| panic!("{label}: invalid mesh ({e}) from\n{shown:?}"));
            }
            false
        }
        (Expected::Open, Err(_)) => false,
        (Expected::Counts { .. }, Err(e)) => {
            panic!("{label}: error {e} for an input the simple parse accepts:\n{shown:?}")
        }
        (Expected::Error(why), Ok(meshes)) => panic!(
            "{label}: expected an error ({why}), got {} meshes, {} triangles, from\n{shown:?}",
            meshes.len(),
            meshes.iter().map(|m| m.triangles.len()).sum::<usize>(),
        ),
    }
}

#[test]
fn generated_obj_never_panics_and_matches_the_simple_parse() {
    let (cases, seed) = cases_and_seed(DEFAULT_CASES, 0x0b1f_0b1f);
    let path =
        std::env::temp_dir().join(format!("collidoscope-obj-fuzz-{}.obj", std::process::id()));
    let mut rng = Rng(seed);
    let mut predicted = 0u64;
    let mut seen = [0u64; CORRUPTIONS.len()];
    for case in 0..cases {
        let kind_index = rng.below(CORRUPTIONS.len());
        let kind = CORRUPTIONS[kind_index];
        let text = valid_obj(&mut rng);
        let bytes = corrupt(text, kind, &mut rng);
        let label = format!("seed {seed:#x} case {case} ({kind:?})");
        predicted += u64::from(check(&bytes, &path, &label));
        seen[kind_index] += 1;
    }
    std::fs::remove_file(&path).ok();
    println!("{cases} cases, {predicted} fully predicted, per corruption {seen:?}");
    assert!(
        predicted * 2 >= cases,
        "only {predicted} of {cases} cases were predicted by the simple parse"
    );
}

/// The parse itself, on inputs whose answer is known by hand.
#[test]
fn simple_parse_knows_the_rules() {
    let counts = |v, t| Expected::Counts {
        vertices: v,
        triangles: t,
    };
    let quad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
    assert_eq!(expect(quad.as_bytes()), counts(4, 2));
    assert_eq!(expect(quad.replace('\n', "\r").as_bytes()), counts(4, 2));
    assert_eq!(expect(format!("\u{feff}{quad}").as_bytes()), counts(4, 2));
    let unused = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nf -4 -3 -2\n";
    assert_eq!(expect(unused.as_bytes()), counts(3, 1));
    assert!(matches!(
        expect(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"),
        Expected::Error(_)
    ));
    assert!(matches!(
        expect(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"),
        Expected::Error(_)
    ));
    assert_eq!(
        expect(b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"),
        Expected::ZeroArea
    );
    assert_eq!(expect(b"v 0 0\nf 1 2 3\n"), Expected::Open);
    // Meshes the loader gives for the same inputs.
    let meshes = collidoscope::mesh::parse_obj_str("quad", quad).expect("quad");
    let mesh = Mesh::merge(&meshes, "quad");
    assert_eq!((mesh.positions.len(), mesh.triangles.len()), (4, 2));
}
