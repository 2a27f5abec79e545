//! Scenarios: the schema, validation with key paths, topology generators, assembly of a
//! simulation from a scenario, and the run report.

pub mod api;
pub mod build;
pub mod error;
pub mod parse;
pub mod report;
pub mod schema;
pub mod topology;

pub use error::{ConfigError, ConfigErrors};
pub use parse::{from_json_str, from_toml_str, parse_value};
pub use topology::validate_and_place;
