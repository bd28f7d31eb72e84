//! Animation channels (glTF 2.0's model): each drives one property —
//! translation, rotation or scale — of one joint from keyframes, with
//! linear (slerp for rotations) or step interpolation. A clip loops over
//! its duration.

use glam::{Quat, Vec3};

use super::skeleton::Trs;

/// How values between keyframes are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    /// The value of the last keyframe at or before the time.
    Step,
}

/// The keyframe values of one channel, one per keyframe time.
#[derive(Debug, Clone, PartialEq)]
pub enum Keys {
    Translation(Vec<Vec3>),
    Rotation(Vec<Quat>),
    Scale(Vec<Vec3>),
}

impl Keys {
    fn len(&self) -> usize {
        match self {
            Keys::Translation(v) | Keys::Scale(v) => v.len(),
            Keys::Rotation(v) => v.len(),
        }
    }
}

/// One animated property of one joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    pub joint: usize,
    /// Keyframe times in seconds, increasing.
    pub times: Vec<f32>,
    pub keys: Keys,
    pub interpolation: Interpolation,
}

/// Why a clip cannot be played.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnimationError {
    #[error("channel {channel}: {times} times for {keys} keyframe values")]
    KeyCount {
        channel: usize,
        times: usize,
        keys: usize,
    },
    #[error("channel {channel}: keyframe times must be finite and increasing")]
    Times { channel: usize },
    #[error("channel {channel} drives joint {joint}, but the skeleton has {joints}")]
    Joint {
        channel: usize,
        joint: usize,
        joints: usize,
    },
}

/// A looping set of channels.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clip {
    pub name: String,
    pub channels: Vec<Channel>,
}

impl Clip {
    /// The last keyframe time of any channel (0 for an empty clip).
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0, f32::max)
    }

    pub fn validate(&self, joints: usize) -> Result<(), AnimationError> {
        for (channel, c) in self.channels.iter().enumerate() {
            if c.times.is_empty() || c.times.len() != c.keys.len() {
                return Err(AnimationError::KeyCount {
                    channel,
                    times: c.times.len(),
                    keys: c.keys.len(),
                });
            }
            if !c.times.iter().all(|t| t.is_finite()) || c.times.windows(2).any(|w| w[1] <= w[0]) {
                return Err(AnimationError::Times { channel });
            }
            if c.joint >= joints {
                return Err(AnimationError::Joint {
                    channel,
                    joint: c.joint,
                    joints,
                });
            }
        }
        Ok(())
    }

    /// `rest` with every channel applied at time `t`, looped over the
    /// clip's duration.
    pub fn sample(&self, rest: &[Trs], t: f32) -> Vec<Trs> {
        let duration = self.duration();
        let t = if duration > 0.0 {
            t.rem_euclid(duration)
        } else {
            0.0
        };
        let mut pose = rest.to_vec();
        for c in &self.channels {
            let (k, f) = segment(&c.times, t, c.interpolation);
            let target = &mut pose[c.joint];
            match &c.keys {
                Keys::Translation(v) => target.translation = v[k].lerp(v[next(k, v.len())], f),
                Keys::Scale(v) => target.scale = v[k].lerp(v[next(k, v.len())], f),
                Keys::Rotation(v) => {
                    target.rotation = v[k].slerp(v[next(k, v.len())], f).normalize()
                }
            }
        }
        pose
    }
}

fn next(k: usize, len: usize) -> usize {
    (k + 1).min(len - 1)
}

/// The keyframe at or before `t` and the fraction towards the next one
/// (0 for step interpolation and outside the keyframes).
fn segment(times: &[f32], t: f32, interpolation: Interpolation) -> (usize, f32) {
    let after = times.partition_point(|&x| x <= t);
    if after == 0 {
        return (0, 0.0);
    }
    let k = after - 1;
    if after == times.len() || interpolation == Interpolation::Step {
        return (k, 0.0);
    }
    (k, (t - times[k]) / (times[k + 1] - times[k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(interpolation: Interpolation) -> Clip {
        Clip {
            name: "test".into(),
            channels: vec![
                Channel {
                    joint: 0,
                    times: vec![0.0, 1.0, 2.0],
                    keys: Keys::Translation(vec![Vec3::ZERO, Vec3::X * 2.0, Vec3::ZERO]),
                    interpolation,
                },
                Channel {
                    joint: 1,
                    times: vec![0.0, 2.0],
                    keys: Keys::Rotation(vec![
                        Quat::IDENTITY,
                        Quat::from_rotation_y(std::f32::consts::PI * 0.5),
                    ]),
                    interpolation,
                },
            ],
        }
    }

    #[test]
    fn linear_interpolates_and_loops() {
        let c = clip(Interpolation::Linear);
        let rest = [Trs::IDENTITY; 2];
        let p = c.sample(&rest, 0.5);
        assert!(
            p[0].translation.abs_diff_eq(Vec3::X, 1e-6),
            "{}",
            p[0].translation
        );
        let angle = p[1].rotation.angle_between(Quat::IDENTITY);
        assert!((angle - std::f32::consts::PI / 8.0).abs() < 1e-5, "{angle}");
        let looped = c.sample(&rest, 2.5);
        assert!(
            looped[0].translation.abs_diff_eq(Vec3::X, 1e-6),
            "loop: {}",
            looped[0].translation
        );
    }

    #[test]
    fn step_holds_the_previous_key() {
        let c = clip(Interpolation::Step);
        let p = c.sample(&[Trs::IDENTITY; 2], 1.9);
        assert_eq!(p[0].translation, Vec3::X * 2.0);
        assert_eq!(p[1].rotation, Quat::IDENTITY);
    }

    #[test]
    fn bad_channels_are_refused() {
        let mut c = clip(Interpolation::Linear);
        assert!(c.validate(2).is_ok());
        assert!(matches!(
            c.validate(1),
            Err(AnimationError::Joint { channel: 1, .. })
        ));
        c.channels[0].times = vec![0.0, 1.0];
        assert!(matches!(
            c.validate(2),
            Err(AnimationError::KeyCount { channel: 0, .. })
        ));
        c.channels[0].times = vec![0.0, 1.0, 1.0];
        assert!(matches!(
            c.validate(2),
            Err(AnimationError::Times { channel: 0 })
        ));
    }
}
