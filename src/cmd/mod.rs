//! One module per subcommand: each parses nothing itself (clap did) and calls the library.

pub mod build;
pub mod info;
