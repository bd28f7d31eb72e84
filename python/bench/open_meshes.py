"""Open test meshes whose winding number sits near ½ over large regions.

    python python/bench/open_meshes.py DIR [--stacks 128]

writes ``capless-sphere.obj``, ``slit-sphere.obj`` and ``open-scan.obj``
into DIR. Real scans are open, and there the exact winding-number sign
costs the most: the cells whose |w| is near ½ are the ones a cheap bound
cannot decide. Each mesh is a latitude–longitude sphere of radius ½ about
the y axis (``stacks`` bands from pole to pole, ``2 × stacks`` slices,
about ``4 × stacks²`` triangles before any is removed) with triangles left
out by their band and slice:

* ``capless-sphere``: the bands above 60° from the north pole removed; the
  |w| = ½ sheet spans the wide opening.
* ``slit-sphere``: a slit 1/16 of the circumference wide along two thirds of a
  meridian; w falls from 1 to 0 across it.
* ``open-scan``: a scan-like open shell: bumps and per-vertex noise on the
  radius, the bottom third of the bands missing (the side a scanner does
  not see) and scattered single-triangle drop-outs.

The choice of each triangle and each vertex's noise are integer hashes of
its band and slice, so the same parameters give the same meshes here and
in the Rust tests (``tests/common/open_meshes.rs`` builds them the same
way, up to float rounding).
"""

import argparse
from pathlib import Path

import numpy as np

NAMES = ("capless-sphere", "slit-sphere", "open-scan")


def hash01(a, b, salt):
    """A float in [0, 1) from two non-negative integers (arrays) and a salt:
    the lowbias32 integer hash, in wrapping uint32 arithmetic."""
    x = (np.asarray(a, np.uint32) * np.uint32(73856093)) \
        ^ (np.asarray(b, np.uint32) * np.uint32(19349663)) \
        ^ np.uint32((salt * 83492791) & 0xFFFFFFFF)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    x = x ^ (x >> np.uint32(16))
    return x.astype(np.float64) / 2.0 ** 32


def scan_radius(ring, slot, polar, azimuth):
    """The open scan's radius factor: low bumps and per-vertex noise."""
    bumps = 0.06 * np.sin(3 * polar) * np.cos(2 * azimuth)
    return 1.0 + bumps + 0.004 * (2 * hash01(ring, slot, 1) - 1)


def sphere_bands(stacks, radius=None):
    """The sphere's vertices (float64, (V, 3)) and triangles ((F, 3)) with
    each triangle's band (0 at the north pole), slice and which of its
    quad's two it is, in the order of ``collidoscope``'s ``uv_sphere``:
    vertex 0 the north pole, 1 the south pole, then the rings."""
    n = 2 * stacks
    ring = np.concatenate([[0, stacks], np.repeat(np.arange(1, stacks), n)])
    slot = np.concatenate([[0, 0], np.tile(np.arange(n), stacks - 1)])
    polar = np.pi * ring / stacks
    azimuth = 2 * np.pi * slot / n
    r = 0.5 * (radius(ring, slot, polar, azimuth) if radius else np.ones(len(ring)))
    v = np.stack([r * np.sin(polar) * np.cos(azimuth), r * np.cos(polar),
                  r * np.sin(polar) * np.sin(azimuth)], axis=1)
    v[:2, [0, 2]] = 0.0

    def at(rg, i):
        return 2 + (rg - 1) * n + i % n

    tris, band, sl, half = [], [], [], []
    last = stacks - 1
    for i in range(n):
        tris.append([at(1, i), 0, at(1, i + 1)]); band.append(0); sl.append(i); half.append(0)
        tris.append([1, at(last, i), at(last, i + 1)]); band.append(last); sl.append(i); half.append(0)
        for upper in range(1, last):
            lower = upper + 1
            tris.append([at(lower, i), at(upper, i), at(upper, i + 1)])
            tris.append([at(lower, i), at(upper, i + 1), at(lower, i + 1)])
            band += [upper, upper]; sl += [i, i]; half += [0, 1]
    return v, np.array(tris, np.int64), np.array(band), np.array(sl), np.array(half)


def compact(v, f):
    """Only the vertices the triangles use, in their order."""
    used = np.zeros(len(v), bool)
    used[f.ravel()] = True
    index = np.cumsum(used) - 1
    return v[used], index[f]


def generate(name, stacks=128):
    """One of ``NAMES`` as (vertices float64 (V, 3), faces int64 (F, 3))."""
    stacks = max(int(stacks), 6)
    radius = scan_radius if name == "open-scan" else None
    v, f, band, sl, half = sphere_bands(stacks, radius)
    n = 2 * stacks
    if name == "capless-sphere":
        keep = band >= stacks // 3
    elif name == "slit-sphere":
        keep = ~((sl < max(1, n // 16)) & (band >= stacks // 6) & (band < 5 * stacks // 6))
    elif name == "open-scan":
        keep = (band < 2 * stacks // 3) & (hash01(band * 2 + half, sl, 2) >= 0.002)
    else:
        raise ValueError(f"no open mesh {name!r}; one of {', '.join(NAMES)}")
    return compact(v, f[keep])


def write_obj(path, vertices, faces):
    with open(path, "w") as o:
        o.write("".join("v %.9g %.9g %.9g\n" % tuple(p) for p in vertices))
        o.write("".join("f %d %d %d\n" % (a + 1, b + 1, c + 1) for a, b, c in faces))
    return path


def write_all(directory, stacks=128):
    """Writes the three meshes as OBJ files into ``directory``; returns their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return [write_obj(directory / f"{name}.obj", *generate(name, stacks)) for name in NAMES]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--stacks", type=int, default=128,
                        help="latitude bands (about 4 x stacks^2 triangles a mesh)")
    args = parser.parse_args(argv)
    for path in write_all(args.dir, args.stacks):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
