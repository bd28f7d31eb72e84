//! The look-ahead offset (Knott 2003 §3.5.1): impact windows are computed
//! ahead of the display clock so that their read-back has landed before
//! the particles arrive.
//!
//! The display shows time `now`. The windows submitted so far cover the
//! time up to `submitted_to`; each frame [`Schedule::windows`] hands out
//! the windows (one frame long) that carry the cover up to
//! `now + look-ahead + dt`. Their events come back some frames later
//! ([`Schedule::arrive`], with the read-back latency the ring measured) and
//! wait until the clock reaches each one's own sub-frame time
//! ([`Schedule::due`]). An event that arrives after its time has passed is
//! *late*: it is shown at once, and the panel reports how many were late
//! and the look-ahead that would have covered the latency.

use std::collections::VecDeque;

use crate::stages::particles::Event;
use crate::stages::particles::ring::Window;

/// Windows one frame may submit at most (after a jump of the clock or a
/// larger look-ahead the cover catches up over several frames).
pub const MAX_WINDOWS_PER_FRAME: usize = 4;

/// The windows submitted and the events waiting for their time.
#[derive(Debug, Default)]
pub struct Schedule {
    /// The end of the cover of submitted windows; `None` before the first.
    submitted_to: Option<f64>,
    next_frame: u32,
    /// The first window handed out since the last reset: earlier ones
    /// still in flight are dropped when they come back.
    epoch: u32,
    /// Read back, waiting for the clock.
    pending: Vec<Event>,
    pub stats: ScheduleStats,
    /// (clock, events shown) of the last second of simulated time.
    shown: VecDeque<(f64, usize)>,
}

/// What the panel reports about the look-ahead.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScheduleStats {
    /// Read-back latency of the last window, in frames submitted meanwhile.
    pub latency_frames: u64,
    pub max_latency_frames: u64,
    /// Wall-clock time from submission to read-back of the last window.
    pub readback_ms: f64,
    /// Events shown at their own time, and those that came back too late.
    pub on_time: u64,
    pub late: u64,
}

impl Schedule {
    /// Forgets the cover and the waiting events (the clock jumped, the
    /// scene changed); the statistics stay.
    pub fn reset(&mut self) {
        self.submitted_to = None;
        self.epoch = self.next_frame;
        self.pending.clear();
        self.shown.clear();
    }

    /// The windows to submit now so that the cover reaches
    /// `now + look_ahead + dt` (at most [`MAX_WINDOWS_PER_FRAME`]). A clock
    /// that ran past the cover (the first frame, a stalled stretch)
    /// restarts it at `now`.
    pub fn windows(&mut self, now: f64, look_ahead: f64, dt: f64) -> Vec<Window> {
        let goal = now + look_ahead + dt;
        let mut from = self.submitted_to.filter(|&t| t >= now).unwrap_or(now);
        let mut out = Vec::new();
        // Half a window of slack: float drift never adds a window.
        while from + 0.5 * dt < goal && out.len() < MAX_WINDOWS_PER_FRAME {
            out.push(Window {
                frame: self.next_frame,
                t_begin: from,
                dt,
            });
            self.next_frame += 1;
            from += dt;
        }
        self.submitted_to = Some(from);
        out
    }

    /// Window `frame`'s events have come back at display time `now`,
    /// `latency` frames after it was submitted and `readback_ms` of
    /// wall-clock time. A window from before the last reset is dropped.
    pub fn arrive(
        &mut self,
        now: f64,
        frame: u32,
        events: Vec<Event>,
        latency: u64,
        readback_ms: f64,
    ) {
        if frame < self.epoch {
            return;
        }
        self.stats.latency_frames = latency;
        self.stats.max_latency_frames = self.stats.max_latency_frames.max(latency);
        self.stats.readback_ms = readback_ms;
        let late = events.iter().filter(|e| e.t < now).count() as u64;
        self.stats.late += late;
        self.stats.on_time += events.len() as u64 - late;
        self.pending.extend(events);
    }

    /// The events whose time has come by `now` (late ones included), in
    /// time order.
    pub fn due(&mut self, now: f64) -> Vec<Event> {
        let (mut due, rest): (Vec<Event>, Vec<Event>) =
            self.pending.drain(..).partition(|e| e.t <= now);
        self.pending = rest;
        due.sort_by(|a, b| a.t.total_cmp(&b.t));
        self.shown.push_back((now, due.len()));
        while self.shown.front().is_some_and(|&(t, _)| t <= now - 1.0) {
            self.shown.pop_front();
        }
        due
    }

    /// Events waiting for their time.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Events shown per second of simulated time, over the last second.
    pub fn events_per_second(&self) -> f64 {
        let (Some(first), Some(last)) = (self.shown.front(), self.shown.back()) else {
            return 0.0;
        };
        let span = last.0 - first.0;
        if span <= 0.0 {
            return 0.0;
        }
        // The first entry's events fall before the span.
        let n: usize = self.shown.iter().skip(1).map(|s| s.1).sum();
        n as f64 / span
    }

    /// The smallest look-ahead, in frames, that covers the largest
    /// latency seen: a window submitted at frame k comes back at frame
    /// k + latency, and it must have come back before its own start.
    pub fn needed_frames(&self) -> u64 {
        self.stats.max_latency_frames
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::*;
    use crate::stages::particles::FlightStart;

    fn event(t: f64) -> Event {
        Event {
            frame: 0,
            start: FlightStart {
                particle: 0,
                generation: 0,
                flight: 0,
                t0: 0.0,
                p0: DVec3::ZERO,
                v0: DVec3::ZERO,
            },
            collider: 0,
            t,
            p: DVec3::ZERO,
            n: DVec3::Y,
            speed: 1.0,
        }
    }

    /// Runs `frames` display frames of `dt` with the given look-ahead
    /// (frames) against a GPU whose windows come back `latency` frames
    /// after submission, each window holding one event at 0.4 of its
    /// length. Returns the schedule and (clock when shown, event time).
    fn run(look_ahead: u32, latency: usize, frames: usize) -> (Schedule, Vec<(f64, f64)>) {
        let dt = 0.25;
        let mut s = Schedule::default();
        let mut in_flight: Vec<(usize, Window)> = Vec::new();
        let mut shown = Vec::new();
        for k in 0..frames {
            let now = k as f64 * dt;
            for w in s.windows(now, f64::from(look_ahead) * dt, dt) {
                in_flight.push((k, w));
            }
            let (back, still): (Vec<_>, Vec<_>) = in_flight
                .into_iter()
                .partition(|&(at, _)| k >= at + latency);
            in_flight = still;
            for (_, w) in back {
                s.arrive(
                    now,
                    w.frame,
                    vec![event(w.t_begin + 0.4 * w.dt)],
                    latency as u64,
                    1.0,
                );
            }
            shown.extend(s.due(now).into_iter().map(|e| (now, e.t)));
        }
        (s, shown)
    }

    #[test]
    fn windows_cover_the_look_ahead_once_each() {
        let mut s = Schedule::default();
        let first = s.windows(1.0, 0.5, 0.25);
        let starts: Vec<f64> = first.iter().map(|w| w.t_begin).collect();
        assert_eq!(starts, [1.0, 1.25, 1.5]);
        // The next frame adds just the one window the clock moved by.
        let next = s.windows(1.25, 0.5, 0.25);
        assert_eq!(next.len(), 1);
        assert_eq!((next[0].frame, next[0].t_begin), (3, 1.75));
        // A smaller look-ahead submits nothing until the clock catches up.
        assert!(s.windows(1.5, 0.0, 0.25).is_empty());
        // After a reset (a jump back in time) the cover restarts at the
        // clock, and windows from before it are dropped when they land.
        s.reset();
        let after = s.windows(0.0, 0.0, 0.25);
        assert_eq!(after[0].t_begin, 0.0);
        s.arrive(0.0, next[0].frame, vec![event(1.8)], 1, 1.0);
        assert_eq!(s.pending(), 0);
        s.arrive(0.0, after[0].frame, vec![event(0.1)], 1, 1.0);
        assert_eq!(s.pending(), 1);
    }

    /// An event read back k frames late is shown at its own sub-frame
    /// time: on the first frame whose clock has reached it, never before,
    /// when the look-ahead covers the latency. Only the windows of the
    /// first frame, submitted with no head start, come back late.
    #[test]
    fn a_covered_latency_shows_each_event_at_its_own_time() {
        let dt = 0.25;
        for latency in 1..=3 {
            let (s, shown) = run(latency as u32, latency, 40);
            assert!(shown.len() > 30, "latency {latency}: {} shown", shown.len());
            let head_start = latency as f64 * dt;
            for &(clock, t) in shown.iter().filter(|&&(_, t)| t > head_start) {
                assert!(
                    t <= clock && clock - t < dt,
                    "latency {latency}: event at {t} shown at {clock}"
                );
            }
            assert_eq!(s.stats.late, latency as u64, "latency {latency}");
            assert_eq!(s.needed_frames(), latency as u64);
        }
    }

    /// Without look-ahead the same events come back after their time:
    /// counted late, still shown (at once).
    #[test]
    fn a_short_look_ahead_counts_late_events() {
        let (s, shown) = run(0, 2, 40);
        assert!(s.stats.late > 30 && s.stats.on_time == 0, "{:?}", s.stats);
        assert!(shown.iter().any(|&(clock, t)| clock - t >= 0.25));
    }

    #[test]
    fn events_per_second_counts_the_last_second() {
        let (s, _) = run(2, 1, 40);
        // One event per window of 0.25 s: 4 per second.
        assert!(
            (s.events_per_second() - 4.0).abs() < 1e-9,
            "{}",
            s.events_per_second()
        );
    }
}
