//! Reading staging memory on the device. The staging ring
//! (`gpu::StagingRing`): reads through more chunks than slots, of several
//! sources, come back whole and in order, a reused ring reads what was
//! written since, and so does a read whose first chunks were copied with
//! the caller's submission and mapped by its wait. A mapping asked for ahead of the wait
//! (`gpu::MapRequest`): read after the run's wait, or dropped unread
//! (pending or done), it leaves the buffer ready for the next copy.

use crate::common;

use collidoscope::gpu::{
    FirstChunks, GpuContext, MapRequest, StagingRing, map_staging, staging_buffer,
    storage_buffer_init,
};
use eframe::egui_wgpu::wgpu;

#[test]
fn ring_reads_every_chunk_of_every_source_in_order_and_again_after_a_write_and_ahead() {
    let gpu = common::gpu();
    let a: Vec<u32> = (0..1000).collect();
    let b: Vec<u32> = (0..37).map(|i| 0xdead_0000 | i).collect();
    let buf_a = storage_buffer_init(&gpu, "ring test a", &a).unwrap();
    let buf_b = storage_buffer_init(&gpu, "ring test b", &b).unwrap();
    // Chunks of 64 bytes: 63 of `a`, 3 of `b`'s first 36 values, through
    // two slots.
    let chunk = 64;
    let sources = [(&buf_a, 4000), (&buf_b, 144)];
    let mut ring = StagingRing::with_chunk(&gpu, "ring test", &[4000, 144], chunk);
    for round in 0..3 {
        let a_now: Vec<u32> = match round {
            0 => a.clone(),
            // Written before the ring's first copy, which must see it.
            1 => a.iter().rev().copied().collect(),
            // Written before the submission the first chunks are copied in.
            _ => a.iter().map(|v| v * 7).collect(),
        };
        if round > 0 {
            gpu.queue
                .write_buffer(&buf_a, 0, bytemuck::cast_slice(&a_now));
        }
        let first = if round == 2 {
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            let copied = ring.record_first(&mut encoder, &sources);
            assert_eq!(copied, 2, "chunks copied ahead: one per slot");
            gpu.queue.submit([encoder.finish()]);
            let first = ring.map_first(&sources, copied);
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
            first
        } else {
            FirstChunks::none()
        };
        let mut got = [Vec::new(), Vec::new()];
        let mut next = [0u64; 2];
        let mut order = Vec::new();
        ring = ring
            .read(&gpu, &sources, "ring test", first, |source, at, bytes| {
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
            })
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

/// Copies `source` into `staging` in a submission of its own.
fn copy_into(gpu: &GpuContext, source: &wgpu::Buffer, staging: &wgpu::Buffer) {
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_buffer_to_buffer(source, 0, staging, 0, source.size());
    gpu.queue.submit([encoder.finish()]);
}

#[test]
fn a_map_request_reads_after_the_wait_and_a_dropped_one_frees_the_buffer() {
    let gpu = common::gpu();
    let values: Vec<u32> = (0..256).map(|i| i * 3 + 1).collect();
    let source = storage_buffer_init(&gpu, "map request source", &values).unwrap();
    let staging = staging_buffer(&gpu.device, "map request staging", source.size());
    // Asked for right after the submission, completed by a later wait.
    copy_into(&gpu, &source, &staging);
    let request = MapRequest::new(&staging, staging.size());
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let read: Vec<u32> = request
        .read(&gpu, "map request", None, bytemuck::pod_collect_to_vec)
        .unwrap();
    assert_eq!(read, values);
    // Dropped while pending, and dropped once mapped: either way the
    // buffer takes the next copy and maps again.
    for wait_first in [false, true] {
        copy_into(&gpu, &source, &staging);
        let request = MapRequest::new(&staging, staging.size());
        if wait_first {
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
        }
        drop(request);
        copy_into(&gpu, &source, &staging);
        let again: Vec<u32> = map_staging(&gpu, &staging, "map request again").unwrap();
        assert_eq!(
            again, values,
            "after a request dropped (waited first: {wait_first})"
        );
    }
}
