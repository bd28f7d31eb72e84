//! The staging ring (`gpu::StagingRing`) on the device: reads through
//! more chunks than slots, of several sources, come back whole and in
//! order, and a reused ring reads what was written since.

mod common;

use collidoscope::gpu::{StagingRing, storage_buffer_init};

#[test]
fn ring_reads_every_chunk_of_every_source_in_order_and_again_after_a_write() {
    let gpu = common::gpu();
    let a: Vec<u32> = (0..1000).collect();
    let b: Vec<u32> = (0..37).map(|i| 0xdead_0000 | i).collect();
    let buf_a = storage_buffer_init(&gpu, "ring test a", &a).unwrap();
    let buf_b = storage_buffer_init(&gpu, "ring test b", &b).unwrap();
    // Chunks of 64 bytes: 63 of `a`, 3 of `b`'s first 36 values, through
    // two slots.
    let chunk = 64;
    let mut ring = StagingRing::with_chunk(&gpu, "ring test", 4000 + 144, chunk);
    for round in 0..2 {
        let a_now: Vec<u32> = if round == 0 {
            a.clone()
        } else {
            // Written before the ring's first copy, which must see it.
            let reversed: Vec<u32> = a.iter().rev().copied().collect();
            gpu.queue
                .write_buffer(&buf_a, 0, bytemuck::cast_slice(&reversed));
            reversed
        };
        let mut got = [Vec::new(), Vec::new()];
        let mut next = [0u64; 2];
        let mut order = Vec::new();
        ring = ring
            .read(
                &gpu,
                &[(&buf_a, 4000), (&buf_b, 144)],
                "ring test",
                |source, at, bytes| {
                    assert_eq!(
                        at, next[source],
                        "round {round}: source {source} skipped or repeated"
                    );
                    assert!(
                        bytes.len() as u64 <= chunk,
                        "round {round}: chunk of {}",
                        bytes.len()
                    );
                    next[source] += bytes.len() as u64;
                    order.push(source);
                    got[source].extend_from_slice(bytemuck::cast_slice::<u8, u32>(bytes));
                },
            )
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(order.len(), 63 + 3, "round {round}: chunks");
        assert!(
            order.is_sorted(),
            "round {round}: sources interleaved: {order:?}"
        );
        if let Some(i) = (0..a_now.len()).find(|&i| got[0].get(i) != Some(&a_now[i])) {
            panic!(
                "round {round}: a[{i}] = {:?}, want {}",
                got[0].get(i),
                a_now[i]
            );
        }
        assert_eq!(got[0].len(), a_now.len(), "round {round}: a's length");
        assert_eq!(got[1], b[..36], "round {round}: b");
    }
}
