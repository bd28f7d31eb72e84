//! The one definition of a backend enum: a closed list of named
//! implementations of a stage (or of the CLI's choice among them).
//!
//! [`backends!`] declares the enum from one line per variant — its name in
//! the CLI and the viewer, whether it runs on the GPU, older names it still
//! answers to, and its line in `--help` — and writes from that list what
//! every backend enum has:
//!
//! * `ALL`: every variant, in the order they are declared, which is the
//!   order the CLI and the viewer list them;
//! * `name`, `from_name` (the aliases included), `is_gpu`, `help`;
//! * [`clap::ValueEnum`], so that the enum is a CLI argument as it stands:
//!   its possible values are the names, with the help lines beside them.
//!
//! ```ignore
//! backends! {
//!     /// Which implementation answers.
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
//!     pub enum Backend {
//!         /// One thread, written to be obviously right.
//!         Cpu { name: "cpu", gpu: false, help: "CPU reference" },
//!         Gpu { name: "gpu", gpu: true, alias: "gpu-render" },
//!     }
//! }
//! ```

/// Declares a backend enum (see the module docs).
macro_rules! backends {
    (
        $(#[$meta:meta])*
        $vis:vis enum $ty:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident {
                    name: $name:literal,
                    gpu: $gpu:literal
                    $(, alias: $alias:literal)?
                    $(, help: $help:literal)?
                    $(,)?
                }
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $ty {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $ty {
            /// Every backend, in the order the CLI and the viewer list them.
            pub const ALL: [$ty; [$(stringify!($variant)),+].len()] = [$($ty::$variant),+];

            /// The name the CLI and the viewer use.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }

            /// The backend called `name` (or an older name of it).
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name $(| $alias)? => Some($ty::$variant),)+
                    _ => None,
                }
            }

            /// True for the backends that run on the GPU.
            pub fn is_gpu(self) -> bool {
                match self {
                    $($ty::$variant => $gpu,)+
                }
            }

            /// The backend's line in `--help`, where it has one.
            pub fn help(self) -> Option<&'static str> {
                match self {
                    $($ty::$variant => None::<&'static str> $(.or(Some($help)))?,)+
                }
            }
        }

        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &$ty::ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                let value = clap::builder::PossibleValue::new(self.name());
                let value = match self.help() {
                    Some(help) => value.help(help),
                    None => value,
                };
                Some(match self {
                    $($ty::$variant => value $(.alias($alias))?,)+
                })
            }
        }
    };
}

pub(crate) use backends;

#[cfg(test)]
mod tests {
    backends! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Example {
            Cpu { name: "cpu", gpu: false, help: "CPU reference" },
            Gpu { name: "gpu", gpu: true, alias: "gpu-render" },
        }
    }

    #[test]
    fn names_aliases_and_help_come_from_the_list() {
        assert_eq!(Example::ALL, [Example::Cpu, Example::Gpu]);
        for b in Example::ALL {
            assert_eq!(Example::from_name(b.name()), Some(b));
        }
        assert_eq!(Example::from_name("gpu-render"), Some(Example::Gpu));
        assert_eq!(Example::from_name("cuda"), None);
        assert!(Example::Gpu.is_gpu() && !Example::Cpu.is_gpu());
        assert_eq!(Example::Cpu.help(), Some("CPU reference"));
        assert_eq!(Example::Gpu.help(), None);
        let parsed = <Example as clap::ValueEnum>::from_str("gpu-render", false);
        assert_eq!(parsed, Ok(Example::Gpu));
    }
}
