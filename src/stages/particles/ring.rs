//! Frames in flight: each window's impacts, flights and maps copied to a
//! staging buffer and mapped asynchronously (see [`super::gpu`]'s docs).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use eframe::egui_wgpu::wgpu;

use super::gpu::{
    Frame, GpuFlight, GpuImpact, GpuScene, MAP_FORMAT, ParticlesGpu, RING, WORKGROUP,
};
use super::phases::{CpuPhaseMs, GpuPhaseMs, PhaseQueries, TIMESTAMP_BYTES};
use crate::gpu::{
    BufferCheck, GpuContext, GpuError, dispatch_dims, staging_buffer, storage_buffer_zeroed,
};

/// The time channel's clear value: later than any sub-frame time.
pub(crate) const NO_TIME: f32 = 1e30;
const ALIGN: u64 = 256;
/// The counters: [impacts, 1, 0, 0, flights, particles the scan listed].
const COUNTERS: u64 = 24;
/// Where a window's resolved timestamps land in its staging buffer (after
/// the counters, before the impacts at [`ALIGN`]).
const TIMESTAMPS_AT: u64 = 64;

fn readback_error(reason: String) -> GpuError {
    GpuError::Readback {
        what: "particle impacts and maps".into(),
        reason,
    }
}

/// One frame window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub frame: u32,
    pub t_begin: f64,
    pub dt: f64,
}

/// A window's read-back.
#[derive(Clone, Debug)]
pub struct FrameResult {
    pub window: Window,
    pub impacts: Vec<GpuImpact>,
    pub flights: Vec<GpuFlight>,
    /// Impacts and flights the shader found; more than read back when the
    /// buffers overflowed (then the window must run again).
    pub impact_count: u32,
    pub flight_count: u32,
    /// Particles the scan listed for the solve (the rest kept their flight).
    pub solved: u32,
    /// The atlas channels (count, sub-frame time as a fraction of dt or
    /// `NO_TIME`, speed), `res` wide and `res`·colliders high.
    pub maps: [Vec<f32>; 3],
    /// Windows submitted after this one before it arrived.
    pub latency_frames: u64,
    /// Wall-clock time from submission to arrival.
    pub readback_ms: f64,
    /// GPU time per phase; `None` without timestamp queries.
    pub gpu_ms: Option<GpuPhaseMs>,
}

impl FrameResult {
    pub fn overflowed(&self) -> bool {
        self.impact_count as usize > self.impacts.len()
            || self.flight_count as usize > self.flights.len()
    }
}

struct Pending {
    window: Window,
    seq: u64,
    submitted: Instant,
    done: Arc<AtomicBool>,
}

struct Slot {
    capacity: u32,
    flight_capacity: u32,
    uniform: wgpu::Buffer,
    counters: wgpu::Buffer,
    /// The solve's indirect dispatch, counted by the scan.
    solve_args: wgpu::Buffer,
    impacts: wgpu::Buffer,
    flights: wgpu::Buffer,
    maps: [wgpu::Texture; 3],
    staging: wgpu::Buffer,
    scan_bind: wgpu::BindGroup,
    eval_bind: wgpu::BindGroup,
    map_bind: wgpu::BindGroup,
    queries: Option<PhaseQueries>,
    pending: Option<Pending>,
}

/// Offsets of the staging regions: counters, impacts, flights, maps.
struct Regions {
    impacts: u64,
    flights: u64,
    maps: u64,
    padded_row: u32,
    map_bytes: u64,
    total: u64,
}

fn regions(capacity: u32, flight_capacity: u32, res: u32, height: u32) -> Regions {
    let up = |x: u64| x.next_multiple_of(ALIGN);
    let impacts = ALIGN;
    let flights = up(impacts + u64::from(capacity) * 80);
    let maps = up(flights + u64::from(flight_capacity) * 48);
    let padded_row = (res * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let map_bytes = u64::from(padded_row) * u64::from(height);
    Regions {
        impacts,
        flights,
        maps,
        padded_row,
        map_bytes,
        total: maps + 3 * map_bytes,
    }
}

/// [`RING`] windows in flight over one scene.
pub struct FrameRing {
    slots: Vec<Slot>,
    seq: u64,
    /// Impacts and flights one window holds; grown after an overflow.
    pub capacity: u32,
    pub flight_capacity: u32,
    /// Submissions that had to wait for a slot.
    pub stalls: u64,
    /// Most windows in flight at once (the ring depth used).
    pub max_in_flight: usize,
    /// CPU time spent so far, per phase.
    pub cpu: CpuPhaseMs,
    res: u32,
    height: u32,
}

impl FrameRing {
    pub fn new(scene: &GpuScene, capacity: u32, flight_capacity: u32) -> Self {
        FrameRing {
            slots: Vec::new(),
            seq: 0,
            capacity: capacity.max(64),
            flight_capacity: flight_capacity.max(1),
            stalls: 0,
            max_in_flight: 0,
            cpu: CpuPhaseMs::default(),
            res: scene.frame.map_res,
            height: scene.frame.map_res * scene.frame.num_colliders.max(1),
        }
    }

    fn slot(
        &self,
        gpu: &GpuContext,
        pipes: &ParticlesGpu,
        scene: &GpuScene,
    ) -> Result<Slot, GpuError> {
        let device = &gpu.device;
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles::frame"),
            size: std::mem::size_of::<Frame>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let counters = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles::counters"),
            size: COUNTERS,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let solve_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles::solve_args"),
            size: 12,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let impacts = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "particles::impacts",
                bytes: u64::from(self.capacity) * 80,
            },
        )?;
        let flights = storage_buffer_zeroed(
            gpu,
            BufferCheck {
                label: "particles::flights",
                bytes: u64::from(self.flight_capacity) * 48,
            },
        )?;
        let maps = ["count", "time", "speed"].map(|name| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(&format!("particles::map_{name}")),
                size: wgpu::Extent3d {
                    width: self.res,
                    height: self.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: MAP_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::COPY_SRC
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        });
        let r = regions(self.capacity, self.flight_capacity, self.res, self.height);
        let staging = staging_buffer(device, "particles::staging", r.total);
        let state = &scene.state;
        let scan_bind = pipes.scan_kernels.bind(
            gpu,
            &[
                ("frame", &uniform),
                ("emitters", &scene.emitters),
                ("colliders", &scene.colliders),
                ("check", &state.check),
                ("work", &state.work),
                ("counters", &counters),
                ("solve_args", &solve_args),
            ],
        );
        let eval_bind = pipes.kernels.bind(
            gpu,
            &[
                ("frame", &uniform),
                ("emitters", &scene.emitters),
                ("colliders", &scene.colliders),
                ("impacts", &impacts),
                ("flights", &flights),
                ("counters", &counters),
                ("check", &state.check),
                ("kept", &state.kept),
                ("work", &state.work),
            ],
        );
        let map_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("particles::map_bind"),
            layout: &pipes.map_layout,
            entries: &[&uniform, &scene.emitters, &scene.colliders, &impacts]
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect::<Vec<_>>(),
        });
        Ok(Slot {
            capacity: self.capacity,
            flight_capacity: self.flight_capacity,
            uniform,
            counters,
            solve_args,
            impacts,
            flights,
            maps,
            staging,
            scan_bind,
            eval_bind,
            map_bind,
            queries: PhaseQueries::new(gpu),
            pending: None,
        })
    }

    /// Bytes one window copies back: counters, impact and flight buffers
    /// at their capacities, the atlas's three channels.
    pub fn readback_bytes(&self) -> u64 {
        regions(self.capacity, self.flight_capacity, self.res, self.height).total
    }

    /// Windows in flight.
    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| s.pending.is_some()).count()
    }

    /// Records and submits `window` (with its flights when asked); waits
    /// only when every slot is in flight.
    /// Results that land meanwhile go to `ready`.
    pub fn submit(
        &mut self,
        gpu: &GpuContext,
        pipes: &ParticlesGpu,
        scene: &GpuScene,
        window: Window,
        record_flights: bool,
        ready: &mut Vec<FrameResult>,
    ) -> Result<(), GpuError> {
        let started = Instant::now();
        if self.slots.len() < RING {
            self.slots.push(self.slot(gpu, pipes, scene)?);
        }
        let mut free = self.slots.iter().position(|s| s.pending.is_none());
        if free.is_none() {
            self.stalls += 1;
        }
        let mut waited = 0.0;
        while free.is_none() {
            let wait = Instant::now();
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| readback_error(e.to_string()))?;
            waited += wait.elapsed().as_secs_f64() * 1e3;
            ready.extend(self.collect()?);
            free = self.slots.iter().position(|s| s.pending.is_none());
        }
        self.cpu.readback_wait += waited;
        let i = free.unwrap_or_default();
        if self.slots[i].capacity < self.capacity
            || self.slots[i].flight_capacity < self.flight_capacity
        {
            self.slots[i] = self.slot(gpu, pipes, scene)?;
        }
        let slot = &mut self.slots[i];
        let frame = Frame {
            t_begin: window.t_begin as f32,
            dt: window.dt as f32,
            capacity: slot.capacity,
            flight_capacity: slot.flight_capacity,
            record_flights: u32::from(record_flights),
            ..scene.frame
        };
        gpu.queue
            .write_buffer(&slot.uniform, 0, bytemuck::bytes_of(&frame));
        gpu.queue.write_buffer(
            &slot.counters,
            0,
            bytemuck::cast_slice(&[0u32, 1, 0, 0, 0, 0]),
        );
        gpu.queue
            .write_buffer(&slot.solve_args, 0, bytemuck::cast_slice(&[0u32, 1, 1]));
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("particles::frame"),
            });
        let (x, y) = dispatch_dims(frame.num_particles.div_ceil(WORKGROUP));
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("particles::scan"),
                timestamp_writes: slot.queries.as_ref().map(PhaseQueries::scan),
            });
            pass.set_bind_group(0, &slot.scan_bind, &[]);
            pass.set_pipeline(&pipes.scan);
            pass.dispatch_workgroups(x, y, 1);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("particles::solve"),
                timestamp_writes: slot.queries.as_ref().map(PhaseQueries::solve),
            });
            pass.set_bind_group(0, &slot.eval_bind, &[]);
            pass.set_pipeline(&pipes.solve);
            pass.dispatch_workgroups_indirect(&slot.solve_args, 0);
        }
        let views = slot
            .maps
            .each_ref()
            .map(|t| t.create_view(&Default::default()));
        {
            let clear = |v: f32| wgpu::Color {
                r: f64::from(v),
                g: 0.0,
                b: 0.0,
                a: 0.0,
            };
            let attach = |view, v| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(clear(v)),
                        store: wgpu::StoreOp::Store,
                    },
                })
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("particles::map_rendering"),
                color_attachments: &[
                    attach(&views[0], 0.0),
                    attach(&views[1], NO_TIME),
                    attach(&views[2], 0.0),
                ],
                depth_stencil_attachment: None,
                timestamp_writes: slot.queries.as_ref().map(PhaseQueries::map_rendering),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipes.map_pipeline);
            pass.set_bind_group(0, &slot.map_bind, &[]);
            pass.draw_indirect(&slot.counters, 0);
        }
        let (res, height) = (self.res, self.height);
        let r = regions(slot.capacity, slot.flight_capacity, res, height);
        let copies = |encoder: &mut wgpu::CommandEncoder| {
            encoder.copy_buffer_to_buffer(&slot.counters, 0, &slot.staging, 0, COUNTERS);
            encoder.copy_buffer_to_buffer(
                &slot.impacts,
                0,
                &slot.staging,
                r.impacts,
                u64::from(slot.capacity) * 80,
            );
            encoder.copy_buffer_to_buffer(
                &slot.flights,
                0,
                &slot.staging,
                r.flights,
                u64::from(slot.flight_capacity) * 48,
            );
            for (k, texture) in slot.maps.iter().enumerate() {
                encoder.copy_texture_to_buffer(
                    wgpu::TexelCopyTextureInfo {
                        texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::TexelCopyBufferInfo {
                        buffer: &slot.staging,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: r.maps + k as u64 * r.map_bytes,
                            bytes_per_row: Some(r.padded_row),
                            rows_per_image: Some(height),
                        },
                    },
                    wgpu::Extent3d {
                        width: res,
                        height,
                        depth_or_array_layers: 1,
                    },
                );
            }
        };
        match &slot.queries {
            Some(q) => q.around_copies(&mut encoder, &slot.staging, TIMESTAMPS_AT, copies),
            None => copies(&mut encoder),
        }
        gpu.queue.submit([encoder.finish()]);
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        slot.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                flag.store(r.is_ok(), Ordering::Release)
            });
        self.seq += 1;
        self.cpu.recording += started.elapsed().as_secs_f64() * 1e3 - waited;
        slot.pending = Some(Pending {
            window,
            seq: self.seq,
            submitted: Instant::now(),
            done,
        });
        self.max_in_flight = self.max_in_flight.max(self.in_flight());
        Ok(())
    }

    /// The windows whose read-back has landed, without waiting.
    pub fn poll(&mut self, gpu: &GpuContext) -> Result<Vec<FrameResult>, GpuError> {
        gpu.device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| readback_error(e.to_string()))?;
        self.collect()
    }

    /// Waits for every window in flight.
    pub fn drain(&mut self, gpu: &GpuContext) -> Result<Vec<FrameResult>, GpuError> {
        let mut out = Vec::new();
        while self.in_flight() > 0 {
            let wait = Instant::now();
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| readback_error(e.to_string()))?;
            self.cpu.readback_wait += wait.elapsed().as_secs_f64() * 1e3;
            out.extend(self.collect()?);
        }
        Ok(out)
    }

    fn collect(&mut self) -> Result<Vec<FrameResult>, GpuError> {
        let (res, height, seq) = (self.res, self.height, self.seq);
        let started = Instant::now();
        let mut out = Vec::new();
        for slot in &mut self.slots {
            let Some(p) = slot.pending.take_if(|p| p.done.load(Ordering::Acquire)) else {
                continue;
            };
            let r = regions(slot.capacity, slot.flight_capacity, res, height);
            {
                let data = slot
                    .staging
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| readback_error(e.to_string()))?;
                let counters: &[u32] = bytemuck::cast_slice(&data[..COUNTERS as usize]);
                let gpu_ms = slot.queries.as_ref().map(|q| {
                    let at = TIMESTAMPS_AT as usize;
                    let ticks: Vec<u64> =
                        bytemuck::pod_collect_to_vec(&data[at..at + TIMESTAMP_BYTES as usize]);
                    GpuPhaseMs::from_ticks(&ticks, q.period_ns)
                });
                let (impact_count, flight_count) = (counters[0], counters[4]);
                let take = |off: u64, n: u32, size: u64| {
                    &data[off as usize..(off + u64::from(n) * size) as usize]
                };
                let impacts = bytemuck::pod_collect_to_vec(take(
                    r.impacts,
                    impact_count.min(slot.capacity),
                    80,
                ));
                let flights = bytemuck::pod_collect_to_vec(take(
                    r.flights,
                    flight_count.min(slot.flight_capacity),
                    48,
                ));
                let maps = [0u64, 1, 2].map(|k| {
                    let base = (r.maps + k * r.map_bytes) as usize;
                    let mut channel = Vec::with_capacity((res * height) as usize);
                    for row in 0..height as usize {
                        let at = base + row * r.padded_row as usize;
                        channel.extend_from_slice(bytemuck::cast_slice::<u8, f32>(
                            &data[at..at + 4 * res as usize],
                        ));
                    }
                    channel
                });
                out.push(FrameResult {
                    window: p.window,
                    impacts,
                    flights,
                    impact_count,
                    flight_count,
                    solved: counters[5],
                    maps,
                    latency_frames: seq - p.seq,
                    readback_ms: p.submitted.elapsed().as_secs_f64() * 1e3,
                    gpu_ms,
                });
            }
            slot.staging.unmap();
        }
        out.sort_by_key(|r| r.window.frame);
        self.cpu.unpacking += started.elapsed().as_secs_f64() * 1e3;
        Ok(out)
    }
}
