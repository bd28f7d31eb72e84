//! A mesh written in each format collidoscope reads (OBJ, PLY ASCII and
//! binary, STL ASCII and binary, OFF), as the bytes of a file.

use collidoscope::mesh::Mesh;

pub fn obj(m: &Mesh) -> Vec<u8> {
    let mut s = String::new();
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s.into_bytes()
}

pub fn ply_header(m: &Mesh, format: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\ncomment written by a test\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangles.len()
    )
}

pub fn ply_ascii(m: &Mesh) -> Vec<u8> {
    let mut s = ply_header(m, "ascii");
    for p in &m.positions {
        s += &format!("{} {} {} 200\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    s.into_bytes()
}

pub fn ply_binary(m: &Mesh, big_endian: bool) -> Vec<u8> {
    let format = if big_endian {
        "binary_big_endian"
    } else {
        "binary_little_endian"
    };
    let mut b = ply_header(m, format).into_bytes();
    let f32_bytes = |x: f32| {
        if big_endian {
            x.to_be_bytes()
        } else {
            x.to_le_bytes()
        }
    };
    let i32_bytes = |x: i32| {
        if big_endian {
            x.to_be_bytes()
        } else {
            x.to_le_bytes()
        }
    };
    for p in &m.positions {
        for c in p.to_array() {
            b.extend(f32_bytes(c));
        }
        b.push(200);
    }
    for t in &m.triangles {
        b.push(3);
        for i in t {
            b.extend(i32_bytes(*i as i32));
        }
    }
    b
}

pub fn stl_ascii(m: &Mesh) -> Vec<u8> {
    let mut s = String::from("solid test\n");
    for (n, t) in m.triangles.iter().enumerate() {
        let normal = m.face_normal(n);
        s += &format!(
            "facet normal {} {} {}\n  outer loop\n",
            normal.x, normal.y, normal.z
        );
        for i in t {
            let p = m.positions[*i as usize];
            s += &format!("    vertex {} {} {}\n", p.x, p.y, p.z);
        }
        s += "  endloop\nendfacet\n";
    }
    s += "endsolid test\n";
    s.into_bytes()
}

/// A binary STL; `header` starts its 80 bytes (some exporters write
/// "solid" there).
pub fn stl_binary(m: &Mesh, header: &str) -> Vec<u8> {
    let mut b = vec![b' '; 80];
    b[..header.len()].copy_from_slice(header.as_bytes());
    b.extend((m.triangles.len() as u32).to_le_bytes());
    for (n, t) in m.triangles.iter().enumerate() {
        let mut corners = vec![m.face_normal(n)];
        corners.extend(t.iter().map(|&i| m.positions[i as usize]));
        for c in corners {
            for x in c.to_array() {
                b.extend(x.to_le_bytes());
            }
        }
        b.extend([0, 0]);
    }
    b
}

pub fn off(m: &Mesh) -> Vec<u8> {
    let mut s = format!(
        "OFF\n# a comment\n{} {} 0\n",
        m.positions.len(),
        m.triangles.len()
    );
    for p in &m.positions {
        s += &format!("{} {} {}\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    s.into_bytes()
}
