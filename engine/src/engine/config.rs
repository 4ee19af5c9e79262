//! The engine's configuration: how the cases are reused and how the search revises them. It is
//! also the contents of a parameter file (TOML, flat: `k`, `p`, `mode`, `weights`, `seed`,
//! and a `[revise]` table), as `precedent tune` writes it.

use serde::Serialize;

use crate::adapt::reuse::ReuseConfig;
use crate::model::ModelConfig;
use crate::revise::ReviseConfig;

/// How the engine picks its move among the legal ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// The move the model finds most probable for a player of the case base: imitation.
    #[default]
    Imitate,
    /// A move drawn from the model's probabilities (at a temperature): a sparring partner that
    /// errs like a person.
    Human,
    /// The strongest: the search's best value, the cases breaking ties between equal moves.
    Best,
}

impl std::str::FromStr for Style {
    type Err = String;
    fn from_str(s: &str) -> Result<Style, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "imitate" => Ok(Style::Imitate),
            "human" => Ok(Style::Human),
            "best" => Ok(Style::Best),
            _ => Err(format!("unknown style {s:?} (imitate, human or best)")),
        }
    }
}

impl std::fmt::Display for Style {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Style::Imitate => "imitate",
            Style::Human => "human",
            Style::Best => "best",
        })
    }
}

/// Everything that decides how the engine chooses a move.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EngineConfig {
    /// How the move is picked.
    pub style: Style,
    /// `human` style: moves are drawn with probability ∝ P^(1/temperature); 1 = the model's own
    /// probabilities, below 1 sharper. The default 0.8 makes the engine blunder as often as the
    /// humans it imitates: on 1,000 held-out positions of movers rated 1400–1799 (Stockfish
    /// depth 12, loss ≥ 200 cp) 9.3 % against the humans' 8.7 %; at 1 it was 11.8 %.
    pub temperature: f64,
    /// Retrieval, adaptation and the vote.
    #[serde(flatten)]
    pub reuse: ReuseConfig,
    /// The revise stage (a tactical check of the cases' proposals).
    pub revise: ReviseConfig,
    /// The move model's weights (fitted by `precedent fit`).
    pub model: ModelConfig,
}

/// The parameter file of the embedded default case base, fitted on games outside it.
const DEFAULT_PARAMS: &str = include_str!("../../../casebases/default.toml");

impl Default for EngineConfig {
    /// The defaults, with the move model fitted for the embedded case base.
    fn default() -> EngineConfig {
        static FITTED: std::sync::OnceLock<ModelConfig> = std::sync::OnceLock::new();
        // Only the model is read here: parsing a whole EngineConfig would call this function
        // for its defaults, from inside the initialisation.
        #[derive(serde::Deserialize)]
        struct Fitted {
            #[serde(default)]
            model: ModelConfig,
        }
        let model = FITTED
            .get_or_init(|| {
                toml::from_str::<Fitted>(DEFAULT_PARAMS)
                    .map(|f| f.model)
                    .unwrap_or_default()
            })
            .clone();
        EngineConfig {
            style: Style::default(),
            temperature: 0.8,
            reuse: ReuseConfig::default(),
            revise: ReviseConfig::default(),
            model,
        }
    }
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
    fn the_embedded_parameter_file_parses_with_a_model() {
        let cfg: EngineConfig = toml::from_str(DEFAULT_PARAMS).expect("default.toml parses");
        assert!(
            !cfg.model.is_empty(),
            "the default case base ships fitted weights"
        );
        assert_eq!(EngineConfig::default().model, cfg.model);
    }

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
