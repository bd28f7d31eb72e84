//! The checker behind tests/it/shader_layouts.rs: the Rust types the shaders
//! mirror against the WGSL as naga reads it.
//!
//! Each shader module is loaded as the stages load it
//! (`gpu::shader_source`, includes resolved) and parsed with naga, whose
//! WGSL front end lays every struct out by WGSL's host-shareable rules
//! (member offsets, struct size). Then:
//! - **structs**: a WGSL struct's size and every member's offset against
//!   the `#[repr(C)]` Rust type (`size_of`, `offset_of!`). Every WGSL member
//!   is listed, by its own name; `r1 = rows + 16` names a Rust field (and a
//!   byte offset into it) where the two sides name it differently;
//! - **vertex inputs**: a vertex entry point's `@location` inputs, packed
//!   in location order as `wgpu::vertex_attr_array!` packs them, against
//!   the Rust vertex type's fields and size (its array stride);
//! - **constants**: a WGSL `const` against the Rust constant of the same
//!   meaning, and entry points' `@workgroup_size` against the Rust
//!   workgroup sizes the dispatches divide by;
//! - **tables**: the colour-map stops `ramp_stop` in view.wgsl returns,
//!   read from its switch, against `ColorMap::color` at the stops.
//!
//! Every mismatch is collected and reported with the shader, the WGSL
//! name, the Rust name and both values.
#![allow(unused_macros)] // only tests/it/shader_layouts.rs uses the macros

use std::collections::BTreeMap;

/// A Rust constant's value, widened for comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:e}"),
        }
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Value::Int(v.into())
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v.into())
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Int(v.into())
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Self {
        Value::Int(v as i128)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Self {
        Value::Float(v.into())
    }
}

/// The checks run so far and what failed.
#[derive(Default)]
pub struct Checks {
    modules: BTreeMap<&'static str, naga::Module>,
    pub problems: Vec<String>,
}

impl Checks {
    pub fn module(&mut self, shader: &'static str) -> &naga::Module {
        self.modules.entry(shader).or_insert_with(|| {
            let code = collidoscope::gpu::shader_source(shader).code;
            naga::front::wgsl::parse_str(code)
                .unwrap_or_else(|e| panic!("{shader}: {}", e.emit_to_string(code)))
        })
    }

    /// WGSL struct `name` of `shader` against a Rust type of `size` bytes
    /// whose fields, for each WGSL member in order, are at `offsets`.
    pub fn structure(
        &mut self,
        shader: &'static str,
        name: &str,
        rust: &str,
        size: usize,
        offsets: &[(&str, usize)],
    ) {
        let module = self.module(shader);
        let found = module.types.iter().find_map(|(_, ty)| match &ty.inner {
            naga::TypeInner::Struct { members, span } if ty.name.as_deref() == Some(name) => {
                Some((members.clone(), *span))
            }
            _ => None,
        });
        let Some((members, span)) = found else {
            self.problems.push(format!(
                "{shader}: no struct `{name}` (mirrors Rust {rust})"
            ));
            return;
        };
        let pair = format!("{shader} `{name}` / Rust {rust}");
        if span as usize != size {
            self.problems
                .push(format!("{pair}: size {span} bytes in WGSL, {size} in Rust"));
        }
        let wgsl_names: Vec<&str> = members.iter().filter_map(|m| m.name.as_deref()).collect();
        let listed: Vec<&str> = offsets.iter().map(|(n, _)| *n).collect();
        if wgsl_names != listed {
            self.problems.push(format!(
                "{pair}: the WGSL members are {wgsl_names:?}, the test lists {listed:?}"
            ));
        }
        for member in &members {
            let Some(member_name) = member.name.as_deref() else {
                continue;
            };
            if let Some((_, offset)) = offsets.iter().find(|(n, _)| *n == member_name)
                && member.offset as usize != *offset
            {
                self.problems.push(format!(
                    "{pair}: field `{member_name}` at offset {} in WGSL, {offset} in Rust",
                    member.offset
                ));
            }
        }
    }

    /// The `@location` inputs of vertex entry point `entry`, packed in
    /// location order, against a Rust vertex type of `size` bytes whose
    /// fields, for each input in location order, are at `offsets`.
    pub fn vertex(
        &mut self,
        shader: &'static str,
        entry: &str,
        rust: &str,
        size: usize,
        offsets: &[(&str, usize)],
    ) {
        let module = self.module(shader);
        let Some(ep) = module.entry_points.iter().find(|e| e.name == entry) else {
            self.problems.push(format!(
                "{shader}: no entry point `{entry}` (vertex type Rust {rust})"
            ));
            return;
        };
        // (location, name, bytes) of every located input, struct members
        // included.
        let mut inputs: Vec<(u32, String, usize)> = Vec::new();
        let bytes =
            |ty: naga::Handle<naga::Type>| module.types[ty].inner.size(module.to_ctx()) as usize;
        for arg in &ep.function.arguments {
            match (&arg.binding, &module.types[arg.ty].inner) {
                (Some(naga::Binding::Location { location, .. }), _) => inputs.push((
                    *location,
                    arg.name.clone().unwrap_or_default(),
                    bytes(arg.ty),
                )),
                (None, naga::TypeInner::Struct { members, .. }) => {
                    for m in members {
                        if let Some(naga::Binding::Location { location, .. }) = m.binding {
                            inputs.push((
                                location,
                                m.name.clone().unwrap_or_default(),
                                bytes(m.ty),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        inputs.sort_by_key(|(location, _, _)| *location);
        let pair = format!("{shader} `{entry}` vertex inputs / Rust {rust}");
        let names: Vec<&str> = inputs.iter().map(|(_, n, _)| n.as_str()).collect();
        let listed: Vec<&str> = offsets.iter().map(|(n, _)| *n).collect();
        if names != listed {
            self.problems.push(format!(
                "{pair}: the inputs are {names:?} by location, the test lists {listed:?}"
            ));
        }
        let mut packed = 0;
        for (_, name, len) in &inputs {
            if let Some((_, offset)) = offsets.iter().find(|(n, _)| n == name)
                && packed != *offset
            {
                self.problems.push(format!(
                    "{pair}: input `{name}` at packed offset {packed} in WGSL, {offset} in Rust"
                ));
            }
            packed += len;
        }
        if packed != size {
            self.problems.push(format!(
                "{pair}: {packed} bytes of inputs in WGSL, a stride of {size} in Rust"
            ));
        }
    }

    /// WGSL `const name` of `shader` against a Rust constant.
    pub fn constant(&mut self, shader: &'static str, name: &str, rust: &str, value: Value) {
        let module = self.module(shader);
        let Some(c) = module
            .constants
            .iter()
            .find_map(|(_, c)| (c.name.as_deref() == Some(name)).then_some(c))
        else {
            self.problems
                .push(format!("{shader}: no const `{name}` (mirrors Rust {rust})"));
            return;
        };
        use naga::Literal as L;
        let wgsl = match module.global_expressions[c.init] {
            naga::Expression::Literal(lit) => match lit {
                L::U32(v) => Some(Value::Int(v.into())),
                L::I32(v) => Some(Value::Int(v.into())),
                L::U64(v) => Some(Value::Int(v.into())),
                L::I64(v) | L::AbstractInt(v) => Some(Value::Int(v.into())),
                L::F32(v) => Some(Value::Float(v.into())),
                L::F64(v) | L::AbstractFloat(v) => Some(Value::Float(v)),
                _ => None,
            },
            _ => None,
        };
        match wgsl {
            Some(w) if w == value => {}
            Some(w) => self.problems.push(format!(
                "{shader} const `{name}` / Rust {rust}: {w} in WGSL, {value} in Rust"
            )),
            None => self.problems.push(format!(
                "{shader} const `{name}`: not a scalar literal after evaluation"
            )),
        }
    }

    /// The `@workgroup_size` of each of `entries` against a Rust size.
    pub fn workgroup(
        &mut self,
        shader: &'static str,
        entries: &[&str],
        rust: &str,
        size: [u32; 3],
    ) {
        let module = self.module(shader);
        let mut problems = Vec::new();
        for entry in entries {
            match module.entry_points.iter().find(|e| e.name == *entry) {
                Some(ep) if ep.workgroup_size == size => {}
                Some(ep) => problems.push(format!(
                    "{shader} `{entry}` @workgroup_size / Rust {rust}: {:?} in WGSL, {size:?} in Rust",
                    ep.workgroup_size
                )),
                None => problems.push(format!("{shader}: no entry point `{entry}`")),
            }
        }
        self.problems.extend(problems);
    }

    pub fn finish(self) {
        assert!(
            self.problems.is_empty(),
            "the shaders and the Rust types they mirror disagree:\n  {}",
            self.problems.join("\n  ")
        );
    }
}

/// `mirror!(checks, "shader.wgsl", "WgslStruct", RustType { member, …,
/// member = rust_field + bytes, … })`: every WGSL member in order; a member
/// named differently in Rust names the Rust field (and bytes into it).
macro_rules! mirror {
    ($checks:expr, $shader:expr, $wgsl:literal, $rust:ty {
        $($member:ident $(= $field:ident $(+ $add:literal)?)?),* $(,)?
    }) => {
        $checks.structure(
            $shader,
            $wgsl,
            stringify!($rust),
            ::std::mem::size_of::<$rust>(),
            &[$((stringify!($member), mirror!(@offset $rust, $member $(= $field $(+ $add)?)?))),*],
        )
    };
    (@offset $rust:ty, $member:ident) => { ::std::mem::offset_of!($rust, $member) };
    (@offset $rust:ty, $member:ident = $field:ident) => { ::std::mem::offset_of!($rust, $field) };
    (@offset $rust:ty, $member:ident = $field:ident + $add:literal) => {
        ::std::mem::offset_of!($rust, $field) + $add
    };
}

/// `vertex!(checks, "shader.wgsl", "entry", RustType { input, … })`: the
/// entry point's located inputs in location order, as for [`mirror!`].
macro_rules! vertex {
    ($checks:expr, $shader:literal, $entry:literal, $rust:ty {
        $($member:ident $(= $field:ident)?),* $(,)?
    }) => {
        $checks.vertex(
            $shader,
            $entry,
            stringify!($rust),
            ::std::mem::size_of::<$rust>(),
            &[$((stringify!($member), mirror!(@offset $rust, $member $(= $field)?))),*],
        )
    };
}

/// `constant!(checks, "shader.wgsl", WGSL_NAME, rust_expr)`.
macro_rules! constant {
    ($checks:expr, $shader:expr, $wgsl:ident, $rust:expr) => {
        $checks.constant(
            $shader,
            stringify!($wgsl),
            stringify!($rust),
            $crate::common::shader_mirror::Value::from($rust),
        )
    };
}

#[allow(unused_imports)] // only tests/it/shader_layouts.rs uses them
pub(crate) use {constant, mirror, vertex};

/// The vectors `fn ramp_stop` of view.wgsl returns, by switch case
/// (`None`: the default case), read from naga's IR of its body.
pub fn ramp_stops(module: &naga::Module) -> Vec<(Option<u32>, Vec<f64>)> {
    let (_, function) = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some("ramp_stop"))
        .expect("view.wgsl has fn ramp_stop");
    let scalar = |h: naga::Handle<naga::Expression>| match function.expressions[h] {
        naga::Expression::Literal(naga::Literal::F32(v)) => f64::from(v),
        ref e => panic!("ramp_stop: a stop component is {e:?}, not an f32 literal"),
    };
    let mut stops = Vec::new();
    for statement in function.body.iter() {
        let naga::Statement::Switch { cases, .. } = statement else {
            continue;
        };
        for case in cases {
            let value = match case.value {
                naga::SwitchValue::U32(v) => Some(v),
                naga::SwitchValue::I32(v) => Some(v as u32),
                naga::SwitchValue::Default => None,
            };
            let returned = case.body.iter().find_map(|st| match st {
                naga::Statement::Return { value: Some(h) } => Some(*h),
                _ => None,
            });
            let rgb = match returned.map(|h| &function.expressions[h]) {
                Some(naga::Expression::Compose { components, .. }) => {
                    components.iter().map(|&c| scalar(c)).collect()
                }
                other => panic!("ramp_stop case {value:?} returns {other:?}, not a vec3 literal"),
            };
            stops.push((value, rgb));
        }
    }
    stops
}
