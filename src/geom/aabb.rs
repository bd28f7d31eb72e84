//! Axis-aligned bounding boxes.

use glam::Vec3;

/// An axis-aligned box `[min, max]`. An empty box has `min > max` on every axis.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| b.including(*p))
    }

    /// Bounding box of a triangle's three corners.
    pub fn of_triangle(tri: [Vec3; 3]) -> Self {
        Self::from_points(&tri)
    }

    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    #[must_use]
    pub fn including(self, p: Vec3) -> Self {
        Aabb {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    #[must_use]
    pub fn union(self, other: Aabb) -> Self {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The box grown by `pad` on every side.
    #[must_use]
    pub fn grown(self, pad: f32) -> Self {
        Aabb {
            min: self.min - Vec3::splat(pad),
            max: self.max + Vec3::splat(pad),
        }
    }

    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    pub fn center(&self) -> Vec3 {
        0.5 * (self.min + self.max)
    }

    pub fn diagonal(&self) -> f32 {
        self.size().length()
    }

    pub fn contains(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// Squared distance from `p` to the box (0 inside).
    pub fn distance_squared_to_point(&self, p: Vec3) -> f32 {
        let d = (self.min - p).max(p - self.max).max(Vec3::ZERO);
        d.length_squared()
    }

    /// Whether the boxes share a point (touching counts).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Surface area (used by the SAH BVH builder).
    pub fn surface_area(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let s = self.size();
        2.0 * (s.x * s.y + s.y * s.z + s.z * s.x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_distance_is_zero_inside_and_euclidean_outside() {
        let b = Aabb {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        };
        assert_eq!(b.distance_squared_to_point(Vec3::splat(0.5)), 0.0);
        assert!((b.distance_squared_to_point(Vec3::new(2.0, 0.5, 3.0)) - 5.0).abs() < 1e-6);
        assert!(Aabb::EMPTY.is_empty());
        assert!(!b.is_empty());
        assert!((b.surface_area() - 6.0).abs() < 1e-6);
        let touching = Aabb {
            min: Vec3::new(1.0, 0.0, 0.0),
            max: Vec3::new(2.0, 1.0, 1.0),
        };
        assert!(b.overlaps(&touching));
        assert!(!b.overlaps(&Aabb {
            min: Vec3::splat(1.5),
            max: Vec3::splat(2.0)
        }));
    }
}
