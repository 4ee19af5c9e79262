//! A choice among values named by words (a style, a mode, an evaluation, a scan kernel): the one
//! list of words a type gives its parsing, its printing, serde's form and the settings
//! registry's choices ([`crate::think::settings`]), so that no word is accepted in one place and
//! refused in another.

/// A type whose values are named by words, declared with [`choice!`].
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// What the words name, for messages (`style`).
    const WHAT: &'static str;
    /// Every value's word, in the order of [`Choice::VALUES`].
    const WORDS: &'static [&'static str];
    /// Every value.
    const VALUES: &'static [Self];

    /// The value's word.
    fn word(self) -> &'static str {
        let i = Self::VALUES.iter().position(|&v| v == self);
        // `choice!` lists every variant once, so every value has its word.
        i.map_or("?", |i| Self::WORDS[i])
    }

    /// The value a word names (case and surrounding spaces ignored); an error lists the words.
    fn from_word(text: &str) -> Result<Self, String> {
        let t = text.trim();
        Self::WORDS
            .iter()
            .position(|w| w.eq_ignore_ascii_case(t))
            .map(|i| Self::VALUES[i])
            .ok_or_else(|| {
                format!(
                    "unknown {} {text:?} ({})",
                    Self::WHAT,
                    Self::WORDS.join(", ")
                )
            })
    }
}

/// Declares an enum's words once: `choice!(Style, "style", [Imitate => "imitate", …])` gives
/// [`Choice`], `FromStr`, `Display` and serde's form (the word), so that a parameter file reads
/// the same words as UCI and the command line.
macro_rules! choice {
    ($ty:ident, $what:literal, [$($variant:ident => $word:literal),+ $(,)?]) => {
        impl $crate::choice::Choice for $ty {
            const WHAT: &'static str = $what;
            const WORDS: &'static [&'static str] = &[$($word),+];
            const VALUES: &'static [$ty] = &[$($ty::$variant),+];
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<$ty, String> {
                <$ty as $crate::choice::Choice>::from_word(s)
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::choice::Choice::word(*self))
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($crate::choice::Choice::word(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let word = <String as serde::Deserialize>::deserialize(d)?;
                <$ty as $crate::choice::Choice>::from_word(&word).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use choice;

#[cfg(test)]
mod tests {
    use super::Choice;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Colour {
        Red,
        Green,
    }
    super::choice!(Colour, "colour", [Red => "red", Green => "green"]);

    #[test]
    fn words_parse_back_to_their_values_and_a_misspelt_one_lists_them() {
        for &c in Colour::VALUES {
            assert_eq!(c.to_string().parse::<Colour>(), Ok(c));
        }
        assert_eq!(" GREEN ".parse::<Colour>(), Ok(Colour::Green));
        assert_eq!(
            "gren".parse::<Colour>(),
            Err("unknown colour \"gren\" (red, green)".to_string())
        );
    }
}
