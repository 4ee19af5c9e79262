//! The parameter file (TOML, as `precedent tune --out` and `precedent fit` write it): the
//! registry's settings under their keys ([`Setting::file`]: `k`, `revise.tolerance`, …), and the
//! configuration's structures (`model`, `levels`, …) under the names serde reads them by. A file
//! is parsed once: every key is checked against those two, with its line, before anything is
//! read from it, so a misspelt key is an error naming the nearest valid one.

use std::ops::Range;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::think::config::EngineConfig;
use crate::think::settings::{
    Kind, Origin, SETTINGS, Setting, SettingError, Value, nearest_name, validate,
};

/// Why a parameter file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ParamsError {
    /// It could not be read.
    #[error("{path}: cannot read parameters: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// It is not TOML, or a value is not of its field's type.
    #[error("{path}: bad parameter file: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// The parser's message, with the line.
        message: String,
    },
    /// A setting is unknown or out of range.
    #[error(transparent)]
    Setting(#[from] SettingError),
}

type DeTable<'i> = toml::de::DeTable<'i>;
type DeValue<'i> = toml::de::DeValue<'i>;
type Spanned<T> = toml::Spanned<T>;

/// Where a span of a file starts, for messages.
type Lines<'a> = dyn Fn(Range<usize>) -> Origin + 'a;

/// The table of the registry's dotted keys (`revise.tolerance`): the file's only table of
/// settings.
const SETTINGS_TABLE: &str = "revise";

impl EngineConfig {
    /// Reads a parameter file; missing keys keep their defaults. Every key must be a setting of
    /// the registry or one of the structures (an unknown one is an error naming it, the file
    /// and the line, and the nearest valid key), every value in its range, every model's
    /// weights one per feature; `seed = 0` is a fresh seed every move.
    pub fn load(path: &std::path::Path) -> Result<EngineConfig, ParamsError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ParamsError::Read {
            path: name.clone(),
            source,
        })?;
        EngineConfig::parse(&text, &name)
    }

    /// A parameter file's text (`name` names it in messages): as [`EngineConfig::load`].
    pub fn parse(text: &str, name: &str) -> Result<EngineConfig, ParamsError> {
        let syntax = |message: String| ParamsError::Syntax {
            path: name.to_string(),
            message,
        };
        let mut root = DeTable::parse(text).map_err(|e| syntax(e.message().to_string()))?;
        let line = |span: Range<usize>| Origin::File {
            path: name.to_string(),
            line: line_of(text, span.start),
        };
        let structures = structure_keys();
        let mut given = Vec::new();
        read_settings(root.get_ref(), "", structures, &line, &mut given)?;
        let has = |key: &str| root.get_ref().contains_key(key);
        // The levels' network belongs to the levels it came with: a file's own levels, without
        // one, play its model's.
        let levels_without_network = has("levels") && !has("level_network");
        let settings: Vec<String> = (root.get_ref().keys())
            .map(|key| key.get_ref().to_string())
            .filter(|key| !structures.contains(&key.as_str()))
            .collect();
        for key in &settings {
            root.get_mut().remove(key.as_str());
        }
        let mut cfg =
            EngineConfig::deserialize(toml::de::Deserializer::from(root)).map_err(|e| {
                syntax(match e.span() {
                    Some(span) => format!(
                        "line {}: {}",
                        line_of(text, span.start),
                        e.message().trim_end()
                    ),
                    None => e.message().trim_end().to_string(),
                })
            })?;
        for (setting, value) in given {
            setting.set(&mut cfg, value);
        }
        if levels_without_network {
            cfg.level_network = None;
        }
        validate(&cfg).map_err(|e| {
            e.at(Origin::File {
                path: name.to_string(),
                line: 1,
            })
        })?;
        Ok(cfg)
    }

    /// Writes a parameter file.
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let text = toml::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, text)
            .map_err(|e| format!("{}: cannot write parameters: {e}", path.display()))
    }
}

impl Serialize for EngineConfig {
    /// The parameter file's form (JSON's too): the registry's settings under their keys, those
    /// of a table in it, then the structures.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        let mut table = Vec::new();
        for setting in &SETTINGS {
            let (Some(key), value) = (setting.file, setting.get(self)) else {
                continue;
            };
            match key.split_once('.') {
                _ if value == Value::Unset => {}
                Some((_, key)) => table.push((key, value)),
                None => map.serialize_entry(key, &value)?,
            }
        }
        map.serialize_entry(SETTINGS_TABLE, &Table(table))?;
        // As many as `structure_keys` reads (a test holds them together).
        if let Some(errors) = &self.errors {
            map.serialize_entry("errors", errors)?;
        }
        map.serialize_entry("model", &self.model)?;
        map.serialize_entry("levels", &self.levels)?;
        if let Some(network) = &self.level_network {
            map.serialize_entry("level_network", network)?;
        }
        if !self.pace.is_empty() {
            map.serialize_entry("pace", &self.pace)?;
        }
        if !self.player.is_default() {
            map.serialize_entry("player", &self.player)?;
        }
        map.end()
    }
}

/// The settings of one table of the file, in the registry's order.
struct Table<'a>(Vec<(&'a str, Value)>);

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Serialize for Value {
    /// As the parameter file writes it: a word as a string, the weights as an array.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(n) => s.serialize_i64(*n),
            Value::Float(x) => s.serialize_f64(*x),
            Value::Choice(word) => s.serialize_str(word),
            Value::Weights(w) => w.serialize(s),
            Value::Unset => s.serialize_none(),
        }
    }
}

/// The 1-based line of `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The keys of the file's structures: the fields serde reads into an [`EngineConfig`] (it
/// skips the settings, which are the registry's).
fn structure_keys() -> &'static [&'static str] {
    let mut keys: &'static [&'static str] = &[];
    // Serde hands a struct's field names to its deserializer before reading anything; this
    // one keeps them and reads nothing.
    let _ = EngineConfig::deserialize(FieldNames(&mut keys));
    keys
}

/// A deserializer that only records the field names of the struct asked of it.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("field names read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Reads the registry's settings in the table at `prefix` (`""` or `"revise."`) into `given`,
/// each checked, and checks every other key: a structure's (whose models' weights must be one
/// per feature), or an error naming the nearest valid key.
fn read_settings(
    table: &DeTable<'_>,
    prefix: &str,
    structures: &[&str],
    line: &Lines<'_>,
    given: &mut Vec<(&'static Setting, Value)>,
) -> Result<(), SettingError> {
    let settings: Vec<(&str, &'static Setting)> = SETTINGS
        .iter()
        .filter_map(|s| Some((s.file?.strip_prefix(prefix)?, s)))
        .filter(|(k, _)| !k.contains('.'))
        .collect();
    let (tables, structures): (&[&str], &[&str]) = match prefix {
        "" => (&[SETTINGS_TABLE], structures),
        _ => (&[], &[]),
    };
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        let origin = line(key.span());
        if let Some((_, s)) = settings.iter().find(|(k, _)| *k == name) {
            let v = s
                .check(file_value(s, value.get_ref()))
                .map_err(|e| e.at(origin))?;
            given.push((s, v));
        } else if tables.contains(&name) {
            let Some(inner) = value.get_ref().as_table() else {
                return Err(not_a_table(prefix, name, origin));
            };
            read_settings(inner, &format!("{name}."), &[], line, given)?;
        } else if structures.contains(&name) {
            check_structure(value, name, line)?;
        } else {
            let names = settings
                .iter()
                .map(|(k, _)| *k)
                .chain(tables.iter().copied())
                .chain(structures.iter().copied());
            let nearest = nearest_name(name, names).map(|n| format!("{prefix}{n}"));
            return Err(SettingError::Unknown {
                key: format!("{prefix}{name}"),
                origin: Some(origin),
                nearest,
            });
        }
    }
    Ok(())
}

fn not_a_table(prefix: &str, name: &str, origin: Origin) -> SettingError {
    SettingError::NotA {
        name: format!("{prefix}{name}"),
        got: String::new(),
        expected: "a table".into(),
        origin: Some(origin),
    }
}

/// The value of `key` in `table`, if it is a table that has it.
fn field<'v, 'i>(table: &'v Spanned<DeValue<'i>>, key: &str) -> Option<&'v Spanned<DeValue<'i>>> {
    table.get_ref().as_table().and_then(|t| {
        t.iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(_, v)| v)
    })
}

/// The weights of a structure's models: the top-level `model`'s and each level's.
fn check_structure(
    value: &Spanned<DeValue<'_>>,
    name: &str,
    line: &Lines<'_>,
) -> Result<(), SettingError> {
    let models: Vec<(&Spanned<DeValue<'_>>, &str)> = match name {
        "model" => vec![(value, "model")],
        "levels" => value
            .get_ref()
            .as_array()
            .into_iter()
            .flat_map(|items| items.iter())
            .filter_map(|level| field(level, "model"))
            .map(|model| (model, "levels.model"))
            .collect(),
        _ => Vec::new(),
    };
    for (model, path) in models {
        if let Some(weights) = field(model, "weights") {
            check_weights(weights, &format!("{path}.weights"), line)?;
        }
    }
    Ok(())
}

/// A model's weights: one per feature of the model, no more, no fewer.
fn check_weights(
    value: &Spanned<DeValue<'_>>,
    path: &str,
    line: &Lines<'_>,
) -> Result<(), SettingError> {
    let Some(table) = value.get_ref().as_table() else {
        return Err(not_a_table("", path, line(value.span())));
    };
    let names = crate::model::FEATURES;
    for (key, _) in table.iter() {
        let name = key.get_ref().as_ref();
        if !names.contains(&name) {
            return Err(SettingError::Unknown {
                key: format!("{path}.{name}"),
                origin: Some(line(key.span())),
                nearest: nearest_name(name, names.iter().copied()).map(|n| format!("{path}.{n}")),
            });
        }
    }
    if let Some(missing) = names
        .iter()
        .find(|n| !table.iter().any(|(k, _)| k.get_ref().as_ref() == **n))
    {
        return Err(SettingError::MissingWeight {
            name: format!("{path}.{missing}"),
            origin: Some(line(value.span())),
        });
    }
    Ok(())
}

/// A parameter file's value as a setting's value (a whole number where a number is expected
/// is that number; anything of another type is refused by [`Setting::check`]).
fn file_value(s: &Setting, v: &DeValue<'_>) -> Value {
    let number = |v: &DeValue<'_>| match v {
        DeValue::Integer(i) => i64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
            .ok()
            .map(|n| n as f64),
        DeValue::Float(f) => f.as_str().replace('_', "").parse().ok(),
        _ => None,
    };
    match (s.kind, v) {
        (_, DeValue::Boolean(b)) => Value::Bool(*b),
        (Kind::Float { .. }, v) if number(v).is_some() => Value::Float(number(v).unwrap_or(0.0)),
        (_, DeValue::Integer(i)) => {
            match i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()) {
                Ok(n) => Value::Int(n),
                Err(_) => Value::Choice(i.as_str().to_string()),
            }
        }
        (_, DeValue::Float(f)) => {
            Value::Float(f.as_str().replace('_', "").parse().unwrap_or(f64::NAN))
        }
        (_, DeValue::String(t)) => Value::Choice(t.to_string()),
        (Kind::Weights { .. }, DeValue::Array(a)) => {
            let w: Vec<f64> = a.iter().filter_map(|x| number(x.get_ref())).collect();
            match <[f64; 6]>::try_from(w) {
                Ok(w) => Value::Weights(w),
                Err(_) => Value::Choice(format!("an array of {} numbers", a.len())),
            }
        }
        _ => Value::Choice(v.type_str().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::Mode;
    use crate::think::ErringRule;

    /// The parameter file of the embedded default case base.
    const DEFAULT_PARAMS: &str = include_str!("../../../casebases/default.toml");

    #[test]
    fn an_empty_file_is_the_defaults() {
        assert_eq!(
            EngineConfig::parse("", "empty.toml").expect("empty"),
            EngineConfig::default()
        );
    }

    /// The structures serde reads are the ones the file's form writes, and no setting is one.
    #[test]
    fn the_structures_written_are_the_structures_read() {
        let cfg = EngineConfig {
            errors: Some(ErringRule {
                loss: 200,
                ratio: 0.1,
                hidden: None,
            }),
            ..EngineConfig::default()
        };
        assert!(cfg.level_network.is_some() && !cfg.pace.is_empty());
        let toml::Value::Table(table) = toml::Value::try_from(&cfg).expect("serialises") else {
            panic!("not a table");
        };
        let settings: Vec<&str> = SETTINGS
            .iter()
            .filter_map(|s| Some(s.file?.split('.').next().unwrap_or_default()))
            .collect();
        let mut written: Vec<&str> = table
            .keys()
            .map(String::as_str)
            .filter(|k| !settings.contains(k))
            .collect();
        let mut read = structure_keys().to_vec();
        written.sort_unstable();
        read.sort_unstable();
        if cfg.player.is_default() {
            read.retain(|k| *k != "player");
        }
        assert_eq!(written, read);
        assert!(read.iter().all(|k| !settings.contains(k)), "{read:?}");
    }

    #[test]
    fn the_embedded_parameter_file_passes_the_registry_and_its_models_are_complete() {
        let cfg = EngineConfig::parse(DEFAULT_PARAMS, "default.toml").expect("default.toml");
        assert_eq!(cfg.levels, EngineConfig::default().levels);
        // A weight misspelt or left out of a level's model is an error, not a weight of 0.
        let misspelt = DEFAULT_PARAMS.replacen("loss_last =", "loss_lst =", 1);
        let e = EngineConfig::parse(&misspelt, "d.toml").expect_err("misspelt");
        assert!(
            e.to_string()
                .starts_with("unknown setting `model.weights.loss_lst` in d.toml line "),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with("did you mean `model.weights.loss_last`?"),
            "{e}"
        );
        let (head, tail) =
            DEFAULT_PARAMS.split_at(DEFAULT_PARAMS.find("[[levels]]").expect("levels"));
        let missing = format!("{head}{}", tail.replacen("exact =", "# exact =", 1));
        let e = EngineConfig::parse(&missing, "d.toml").expect_err("missing");
        assert!(
            e.to_string()
                .starts_with("missing weight `levels.model.weights.exact` in d.toml"),
            "{e}"
        );
    }

    #[test]
    fn a_misspelt_key_of_a_level_or_its_errors_rule_is_refused_with_its_line() {
        // The structures' own fields are their schema: serde refuses any other key.
        let (head, tail) =
            DEFAULT_PARAMS.split_at(DEFAULT_PARAMS.find("[[levels]]").expect("levels"));
        for (key, typo) in [("temperature =", "tempreature ="), ("ratio =", "ration =")] {
            let text = format!("{head}{}", tail.replacen(key, typo, 1));
            let at = text.find(typo).expect("replaced");
            let line = text[..at].matches('\n').count() + 1;
            let e = EngineConfig::parse(&text, "d.toml").expect_err("misspelt");
            let field = typo.trim_end_matches(" =");
            assert!(
                e.to_string().starts_with(&format!(
                    "d.toml: bad parameter file: line {line}: unknown field `{field}`, expected"
                )),
                "{e}"
            );
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
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
        std::fs::write(&path, "errors = { loss = 200, ratio = 0.1 }\n").expect("write");
        assert_eq!(
            EngineConfig::load(&path).expect("errors").errors,
            Some(ErringRule {
                loss: 200,
                ratio: 0.1,
                hidden: None,
            })
        );
        std::fs::write(&path, "errors = { loss = 200, ratio = 0.1, hidden = 80 }\n")
            .expect("write");
        assert_eq!(
            EngineConfig::load(&path).expect("hidden errors").errors,
            Some(ErringRule {
                loss: 200,
                ratio: 0.1,
                hidden: Some(80),
            })
        );
        std::fs::write(&path, "errors = { loss = 200, ratio = -1.0 }\n").expect("write");
        let e = EngineConfig::load(&path)
            .expect_err("negative ratio")
            .to_string();
        assert!(e.contains("errors.ratio") && e.contains("p.toml"), "{e}");
        std::fs::write(&path, "k = \"many\"\n").expect("write");
        let e = EngineConfig::load(&path).expect_err("bad").to_string();
        assert!(e.contains("`k`") && e.contains("p.toml line 1"), "{e}");
    }
}
