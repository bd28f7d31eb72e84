//! Writing decoded contacts past the cache.
//!
//! A detect of 1000 body pairs decodes about 565 K contacts, 27 MB of
//! [`Contact`]s, which the caller reads later if at all. An ordinary store
//! first reads each line it writes into the cache (the read for ownership),
//! so the decode moves about twice the bytes it writes; on a many-core host
//! it is bound by that traffic, not by arithmetic: it stops scaling with
//! the threads once the memory bus is full. x86-64's non-temporal
//! stores (`movntdq`, SSE2, so on every x86-64 CPU) write whole lines
//! through write-combining buffers without reading them. A contact is 48
//! bytes, three 16-byte stores; a slot that is not 16-byte aligned (a
//! vector whose allocation is not) and other targets get the ordinary
//! store. The stores are weakly ordered: a job ends with [`fence`] before
//! its results are handed to another thread.
//!
//! What the stores save depends on the memory the decode reads and writes
//! (the mapped read-back, the caller's kept vector): `bench collide` at
//! 1000 pairs gains from them, a synthetic decode from ordinary memory
//! does not (the numbers are in `docs/bench/design-measurements.md`).
//!
//! A small decode keeps the ordinary stores ([`STREAM_MIN`]): its contacts
//! fit in the caches, where its caller (the pipeline's response, the
//! viewer) reads them next; streamed, they would be read from memory.
//!
//! The words stored are the contact's fields at their `repr(C)` offsets
//! (checked below), the padding after `feature` stored as zeros, so no
//! padding byte is ever read.

use std::mem::{MaybeUninit, offset_of, size_of};

use super::Contact;

const _: () = {
    assert!(size_of::<Contact>() == 48);
    assert!(offset_of!(Contact, position) == 0);
    assert!(offset_of!(Contact, normal) == 12);
    assert!(offset_of!(Contact, depth) == 24);
    assert!(offset_of!(Contact, depth_cell) == 28);
    assert!(offset_of!(Contact, body) == 32);
    assert!(offset_of!(Contact, other) == 36);
    assert!(offset_of!(Contact, feature) == 40);
    assert!(offset_of!(Contact, sample) == 44);
};

/// Fewest records whose contacts are streamed: 65,536 contacts are 3 MB,
/// more than a core's L2 cache.
pub(super) const STREAM_MIN: usize = 1 << 16;

/// The contact's bytes as twelve words (its padding zero).
fn words(c: &Contact) -> [u32; 12] {
    [
        c.position.x.to_bits(),
        c.position.y.to_bits(),
        c.position.z.to_bits(),
        c.normal.x.to_bits(),
        c.normal.y.to_bits(),
        c.normal.z.to_bits(),
        c.depth.to_bits(),
        c.depth_cell.to_bits(),
        c.body,
        c.other,
        // `FeatureKind` is `repr(u8)`: its byte is its discriminant, and
        // the three bytes after it are padding.
        u32::from(c.feature as u8).to_le(),
        c.sample,
    ]
}

/// Writes `contact` into `slot`, past the cache where the target allows.
#[inline]
pub(super) fn store(slot: &mut MaybeUninit<Contact>, contact: Contact) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let dst = slot.as_mut_ptr().cast::<__m128i>();
        if dst.is_aligned() {
            let src = words(&contact);
            let src = src.as_ptr().cast::<__m128i>();
            // SAFETY: `dst` is 16-byte aligned and points to 48 writable
            // bytes (the slot); `src` to 48 initialised bytes. Every byte
            // of the slot is written, with the value `words` gives for it
            // under `Contact`'s layout (asserted above), so the slot holds
            // `contact` once the stores are visible (`fence`).
            unsafe {
                for line in 0..3 {
                    _mm_stream_si128(dst.add(line), _mm_loadu_si128(src.add(line)));
                }
            }
            return;
        }
    }
    slot.write(contact);
}

/// Orders this thread's streamed stores before its later stores, so that
/// a thread that sees the job finished sees its contacts.
#[inline]
pub(super) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` has no preconditions (SSE, on every x86-64 CPU).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::sampling::FeatureKind;
    use glam::Vec3;

    fn contact(i: u32) -> Contact {
        Contact {
            position: Vec3::new(i as f32, -0.5, 1e-7 * i as f32),
            normal: Vec3::new(0.0, -1.0, f32::MIN_POSITIVE),
            depth: 0.25 + i as f32,
            depth_cell: -3.5,
            body: i,
            other: u32::MAX - i,
            feature: FeatureKind::ALL[i as usize % FeatureKind::ALL.len()],
            sample: 7 * i,
        }
    }

    #[test]
    fn streamed_contacts_read_back_equal_at_any_alignment() {
        // A vector's slots (streamed where its allocation is aligned),
        // then slots at every 4-byte offset from a 16-byte boundary: the
        // aligned ones take the streamed path, the others the plain one.
        let mut stored: Vec<Contact> = Vec::with_capacity(64);
        for (i, slot) in stored.spare_capacity_mut()[..64].iter_mut().enumerate() {
            store(slot, contact(i as u32));
        }
        fence();
        // SAFETY: the first 64 slots were written above.
        unsafe { stored.set_len(64) };
        assert_eq!(stored, (0..64).map(contact).collect::<Vec<_>>());

        let mut bytes = vec![0u8; 48 * 5 + 16];
        for offset in [0usize, 4, 8, 12] {
            let start = bytes.as_ptr().align_offset(16) + offset;
            for k in 0..4 {
                let p = bytes[start + 48 * k..]
                    .as_mut_ptr()
                    .cast::<MaybeUninit<Contact>>();
                // SAFETY: the slot lies inside `bytes`; Contact's
                // alignment is 4, which every offset here keeps.
                store(unsafe { &mut *p }, contact(k as u32 + 10));
            }
            fence();
            for k in 0..4 {
                let p = bytes[start + 48 * k..].as_ptr().cast::<Contact>();
                // SAFETY: written just above, fenced.
                assert_eq!(
                    unsafe { p.read() },
                    contact(k as u32 + 10),
                    "offset {offset}"
                );
            }
        }
    }
}
