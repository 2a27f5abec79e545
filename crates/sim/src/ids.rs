//! Typed indices into the world's flat vectors.

use serde::Serialize;
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A node (host, router, station, access point).
    NodeId
);
id_type!(
    /// An application flow, numbered in scenario order.
    FlowId
);
id_type!(
    /// One direction of a point-to-point wired link.
    LinkId
);

impl FlowId {
    /// Packets that belong to no application flow (routing control, for instance).
    pub const NONE: FlowId = FlowId(u32::MAX);
}
