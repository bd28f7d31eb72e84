//! Files the tool writes and reads: NumPy arrays, output plans checked
//! before any work, and safe output sets.

mod input;
mod npy;
mod npz;
mod output;
mod plan;

pub use input::{
    ARRAY_LIMIT, GLTF_LIMIT, InputError, InputKind, MESH_LIMIT, SCENE_LIMIT, SIDECAR_LIMIT,
    limits_help, read_input, read_input_text,
};
pub use npy::{
    NpyArray, decode_npy_f32, decode_npy_f64, decode_npy_float, decode_npy_i32, encode_npy_f32,
    encode_npy_f64, encode_npy_i32, read_npy_f32,
};
pub use npz::{read_npz_entries, stored_zip};
pub use output::{
    CHECKSUM_KEY, check_targets, checksum_hex, read_verified, write_atomically, write_set,
    write_streamed,
};
pub use plan::{Format, Location, OutputError, OutputPlan, locate};
