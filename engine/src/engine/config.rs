//! The engine's configuration: how the cases are reused and how the search revises them. It is
//! also the contents of a parameter file (TOML, flat: `k`, `p`, `mode`, `weights`, `seed`,
//! and a `[revise]` table), as `precedent tune` writes it.

use serde::Serialize;

use crate::adapt::reuse::ReuseConfig;
use crate::revise::ReviseConfig;

/// Everything that decides how the engine chooses a move.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EngineConfig {
    /// Retrieval, adaptation and the vote.
    #[serde(flatten)]
    pub reuse: ReuseConfig,
    /// The revise stage (a tactical check of the cases' proposals).
    pub revise: ReviseConfig,
}

impl EngineConfig {
    /// Reads a parameter file (TOML, as `precedent tune --out` writes it); missing keys keep
    /// their defaults.
    pub fn load(path: &std::path::Path) -> Result<EngineConfig, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read parameters: {e}", path.display()))?;
        toml::from_str(&text)
            .map_err(|e| format!("{}: bad parameter file: {}", path.display(), e.message()))
    }

    /// Writes a parameter file.
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let text = toml::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, text)
            .map_err(|e| format!("{}: cannot write parameters: {e}", path.display()))
    }
}

#[cfg(test)]
mod params_tests {
    use super::*;
    use crate::retrieve::Mode;

    #[test]
    fn parameter_files_round_trip_and_fill_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        let mut cfg = EngineConfig::default();
        cfg.reuse.k = 17;
        cfg.reuse.p = 3.5;
        cfg.reuse.mode = Mode::Thesis;
        cfg.reuse.weights.0[4] = 10.0;
        cfg.revise.tolerance = 80;
        cfg.save(&path).expect("save");
        assert_eq!(EngineConfig::load(&path).expect("load"), cfg);
        std::fs::write(&path, "k = 5\n").expect("write");
        let partial = EngineConfig::load(&path).expect("partial");
        assert_eq!(
            (partial.reuse.k, partial.reuse.p),
            (5, EngineConfig::default().reuse.p)
        );
        std::fs::write(&path, "k = \"many\"\n").expect("write");
        assert!(
            EngineConfig::load(&path)
                .expect_err("bad")
                .contains("bad parameter file")
        );
    }
}
