//! The particles mode's panels: on the left the scene, the sliders, the
//! clock, events/s, the read-back latency against the look-ahead offset
//! and the frame's phases; on the right the chosen collider's impact map
//! as a live image with its legend (count, earliest time or largest
//! speed), the texel under the mouse described, and every collider's
//! totals.

use eframe::egui;

use super::{Channel, DT, MAX_BOUNCES, MAX_LOOK_AHEAD, ParticlesMode, Source};
use crate::app::shell::Shell;
use crate::app::shell::chrome::value_grid;
use crate::app::shell::image_view::{Coloring, Extent, Picture};
use crate::app::shell::legend::sig_figs;
use crate::app::shell::profiler::ms_label;
use crate::stages::particles::ImpactMap;
use crate::stages::particles::collider::{MapFrame, MapKind};
use crate::view::ColorMap;

/// The map resolutions the panel offers.
const MAP_RESOLUTIONS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

pub fn panel_ui(st: &mut ParticlesMode, _shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Particles and impact maps");
    ui.label("Closed-form particles against implicit colliders (Knott 2003, ch. 3).");
    ui.horizontal(|ui| {
        let name = match &st.source {
            Source::Hail => "hail (assets/hail.json)".to_string(),
            Source::File(p) => p.display().to_string(),
        };
        ui.label(format!("scene: {name}"));
        if st.source != Source::Hail && ui.button("hail").clicked() {
            st.error = st.open(Source::Hail).err();
        }
    });
    ui.label("open another scene: drop its .json file here (script: particles:PATH)");
    ui.separator();
    let k = &mut st.knobs;
    ui.add(
        egui::Slider::new(&mut k.particles, 1..=st.max_particles)
            .logarithmic(true)
            .text("particles"),
    )
    .on_hover_text(format!(
        "up to {}: as many as this adapter's largest buffer holds",
        st.max_particles
    ));
    egui::ComboBox::from_label("map resolution")
        .selected_text(format!("{0}×{0}", k.map_res))
        .show_ui(ui, |ui| {
            for r in MAP_RESOLUTIONS {
                ui.selectable_value(&mut k.map_res, r, format!("{r}×{r}"));
            }
        });
    ui.add(egui::Slider::new(&mut k.bounces, 0..=MAX_BOUNCES).text("bounces"));
    ui.add(egui::Slider::new(&mut k.restitution, 0.0..=1.0).text("restitution"));
    ui.add(egui::Slider::new(&mut st.look_ahead, 0..=MAX_LOOK_AHEAD).text("look-ahead (frames)"));
    ui.horizontal(|ui| {
        let label = if st.paused { "play" } else { "pause" };
        if ui.button(label).clicked() {
            st.paused = !st.paused;
        }
        if ui.button("clear maps").clicked() {
            st.restart_maps();
        }
        ui.label(format!("t = {:.2} s", st.time));
    });
    if let Some(e) = &st.error {
        ui.colored_label(egui::Color32::LIGHT_RED, e);
    }
    ui.separator();
    stats_ui(st, ui);
    ui.separator();
    ui.label("This frame's phases, ms (CPU wall / GPU):");
    value_grid(ui, "particles_phases", |row| {
        for p in &st.timings.phases {
            row(
                &p.name,
                format!("{} / {}", ms_label(Some(p.wall_ms)), ms_label(p.gpu_ms)),
            );
        }
    });
    ui.label(
        "Impact windows are recorded and read back asynchronously: their CPU time \
         is the recording, their read-back the wall time from submission to arrival.",
    );
}

fn stats_ui(st: &ParticlesMode, ui: &mut egui::Ui) {
    let s = &st.schedule.stats;
    let needed = st.schedule.needed_frames();
    value_grid(ui, "particles_stats", |row| {
        row(
            "events/s (simulated time)",
            sig_figs(st.schedule.events_per_second(), 3),
        );
        row(
            "events shown",
            st.maps
                .iter()
                .map(ImpactMap::total)
                .sum::<u64>()
                .to_string(),
        );
        row(
            "events waiting for their time",
            st.schedule.pending().to_string(),
        );
        row(
            "read-back latency",
            format!(
                "{} frames (max {}), {} ms",
                s.latency_frames,
                s.max_latency_frames,
                ms_label(Some(s.readback_ms))
            ),
        );
        row(
            "look-ahead offset",
            format!(
                "{} frames = {:.1} ms of simulated time",
                st.look_ahead,
                f64::from(st.look_ahead) * DT * 1e3
            ),
        );
        row(
            "look-ahead needed",
            format!(
                "≥ {needed} frames{}",
                if u64::from(st.look_ahead) >= needed {
                    " (covered)"
                } else {
                    " (NOT covered: decals come late)"
                }
            ),
        );
        row(
            "events on time / late",
            format!("{} / {}", s.on_time, s.late),
        );
        row(
            "ring stalls",
            st.live.as_ref().map_or(0, |l| l.stalls()).to_string(),
        );
    });
}

/// The right panel: the chosen collider's map with its legend.
pub fn maps_ui(st: &mut ParticlesMode, shell: &mut Shell, ui: &mut egui::Ui) {
    ui.heading("Impact maps");
    let Some(scene) = &st.base else {
        ui.label("no scene");
        return;
    };
    ui.horizontal_wrapped(|ui| {
        for (i, c) in scene.colliders.iter().enumerate() {
            ui.selectable_value(&mut st.shown_collider, i, format!("{i}: {}", c.kind()));
        }
    });
    ui.horizontal(|ui| {
        for c in Channel::ALL {
            ui.selectable_value(&mut st.channel, c, c.name());
        }
    });
    let (Some(map), Some(col)) = (
        st.maps.get(st.shown_collider),
        st.colliders.get(st.shown_collider),
    ) else {
        ui.label("no map yet");
        return;
    };
    let kind = scene.colliders[st.shown_collider].kind();
    let key = (st.shown_collider, st.channel, st.maps_version);
    let channel = st.channel;
    let frame = col.map;
    let caption = format!(
        "collider {} ({kind}) — t = {:.2} s",
        st.shown_collider, st.time
    );
    st.map_view.show(
        ui,
        key,
        || picture(map, channel, &frame, caption),
        None,
        |[x, y]| Some(describe(map, x, y)),
    );
    let view = &st.map_view;
    crate::app::shell::export::figure_menu_ui(
        shell,
        ui,
        "Export map",
        "impact-map.png",
        |_, path, factor, caption| view.export(path, factor, caption),
    );
    ui.separator();
    value_grid(ui, "particles_map_totals", |row| {
        for (i, m) in st.maps.iter().enumerate() {
            let earliest = m.earliest.iter().copied().fold(f32::INFINITY, f32::min);
            let fastest = m.max_speed.iter().copied().fold(0.0f32, f32::max);
            row(
                &format!("{i}: {}", scene.colliders[i].kind()),
                format!(
                    "{} impacts, earliest {}, fastest {}",
                    m.total(),
                    if earliest.is_finite() {
                        format!("{earliest:.3} s")
                    } else {
                        "–".into()
                    },
                    sig_figs(f64::from(fastest), 3)
                ),
            );
        }
    });
}

/// The map's texel under image pixel (x, y) (the image shows v upwards).
fn texel(map: &ImpactMap, x: u32, y: u32) -> usize {
    ((map.res - 1 - y.min(map.res - 1)) * map.res + x.min(map.res - 1)) as usize
}

fn describe(map: &ImpactMap, x: u32, y: u32) -> String {
    let k = texel(map, x, y);
    let v = map.res - 1 - y.min(map.res - 1);
    if map.count[k] == 0 {
        return format!("texel ({x}, {v}): no impact");
    }
    format!(
        "texel ({x}, {v}): {} impacts, earliest at {:.4} s, fastest {}",
        map.count[k],
        map.earliest[k],
        sig_figs(f64::from(map.max_speed[k]), 3)
    )
}

/// One channel of a map as a picture, v up: counts everywhere (0 where no
/// impact landed), times and speeds NaN (hatched) where none did.
pub fn picture(map: &ImpactMap, channel: Channel, frame: &MapFrame, caption: String) -> Picture {
    let res = map.res;
    let values: Vec<f32> = (0..res * res)
        .map(|i| {
            let k = texel(map, i % res, i / res);
            match channel {
                Channel::Count => map.count[k] as f32,
                _ if map.count[k] == 0 => f32::NAN,
                Channel::Earliest => map.earliest[k],
                Channel::Speed => map.max_speed[k],
            }
        })
        .collect();
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (lo, hi) = match channel {
        _ if !lo.is_finite() => (0.0, 1.0),
        Channel::Count | Channel::Speed => (0.0, hi.max(1e-6)),
        Channel::Earliest => (lo, hi.max(lo + 1e-6)),
    };
    let title = match channel {
        Channel::Count => "impacts per texel",
        Channel::Earliest => "earliest impact time (s)",
        Channel::Speed => "largest impact speed (units/s)",
    };
    Picture {
        width: res,
        height: res,
        values,
        pixels: None,
        coloring: Coloring::Scale {
            map: ColorMap::Turbo,
            lo,
            hi,
            title: title.into(),
            threshold: None,
        },
        axes: Some(axes(frame)),
        caption,
        // Linear maps are lengths both ways; angle × height is not, and
        // azimuth × polar (360° × 180°) is at its aspect in pixels.
        world_aspect: matches!(frame.kind, MapKind::Linear | MapKind::Spherical),
    }
}

/// The map's axes in the collider's own parameters.
fn axes(frame: &MapFrame) -> [Extent; 2] {
    let e = |label: &str, lo: f64, hi: f64| Extent {
        label: label.into(),
        lo: lo as f32,
        hi: hi as f32,
    };
    match frame.kind {
        MapKind::Linear => [
            e("u (units)", -frame.scale.x, frame.scale.x),
            e("v (units)", -frame.scale.y, frame.scale.y),
        ],
        MapKind::AngleHeight => [
            e("angle (°)", 0.0, 360.0),
            e("height (units)", 0.0, frame.scale.z),
        ],
        MapKind::Spherical => [e("azimuth (°)", 0.0, 360.0), e("polar (°)", 0.0, 180.0)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// The picture shows v upwards: the map's first row is the image's
    /// last, empty texels are NaN, and the hover names the same texel.
    #[test]
    fn map_pictures_show_v_upwards() {
        let mut m = ImpactMap::new(4);
        m.add(1, 3, 0.5, 2.0); // row 0, column 1
        let frame = MapFrame {
            kind: MapKind::Linear,
            origin: DVec3::ZERO,
            axes: [DVec3::X, DVec3::Y, DVec3::Z],
            scale: DVec3::ONE,
        };
        let p = picture(&m, Channel::Count, &frame, String::new());
        assert_eq!(p.values[3 * 4 + 1], 3.0);
        assert_eq!(p.values.iter().filter(|&&v| v > 0.0).count(), 1);
        let t = picture(&m, Channel::Earliest, &frame, String::new());
        assert_eq!(t.values.iter().filter(|v| v.is_finite()).count(), 1);
        assert!(describe(&m, 1, 3).contains("3 impacts"));
        let speed = picture(&m, Channel::Speed, &frame, String::new());
        assert!(matches!(speed.coloring, Coloring::Scale { hi, .. } if hi == 2.0));
    }
}
