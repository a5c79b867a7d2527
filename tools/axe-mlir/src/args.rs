//! A small command-line reader with LLVM `cl` conventions.
//!
//! Options may start with one or two dashes (`-split-input-file` and
//! `--split-input-file` are the same) and take values as `--name=value` or
//! `--name value`; `-` alone and words without a dash are positional. The
//! tools match on [`Arg`] themselves, so pass flags can come from a registry.

use anyhow::{anyhow, bail, Result};
use std::ffi::OsString;

/// One command-line word, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// An option: its name without dashes, and the value after `=` if any.
    Flag {
        /// Name without leading dashes, e.g. `pass-pipeline`.
        name: String,
        /// The text after the first `=`, if present.
        value: Option<String>,
    },
    /// A positional word (input file, or `-` for stdin).
    Positional(String),
}

/// Reads the command line, one [`Arg`] at a time.
pub struct Args {
    words: std::vec::IntoIter<String>,
}

impl Args {
    /// Wraps the words after the program name; fails on non-UTF-8 words.
    pub fn new(words: impl IntoIterator<Item = OsString>) -> Result<Self> {
        let words = words
            .into_iter()
            .map(|word| word.into_string().map_err(|word| anyhow!("argument is not valid UTF-8: {word:?}")))
            .collect::<Result<Vec<_>>>()?;
        Ok(Args { words: words.into_iter() })
    }

    /// The next word, classified; `None` at the end.
    pub fn next_arg(&mut self) -> Option<Arg> {
        let word = self.words.next()?;
        if word == "-" || !word.starts_with('-') {
            return Some(Arg::Positional(word));
        }
        let body = word.strip_prefix("--").unwrap_or(&word[1..]);
        Some(match body.split_once('=') {
            Some((name, value)) => Arg::Flag { name: name.to_string(), value: Some(value.to_string()) },
            None => Arg::Flag { name: body.to_string(), value: None },
        })
    }

    /// The value of option `name`: the inline `=value`, else the next word.
    pub fn value(&mut self, name: &str, inline: Option<String>) -> Result<String> {
        match inline {
            Some(value) => Ok(value),
            None => self.words.next().ok_or_else(|| anyhow!("option '-{name}' requires a value")),
        }
    }
}

/// Fails when a flag that takes no value was given one.
pub fn no_value(name: &str, value: &Option<String>) -> Result<()> {
    if value.is_some() {
        bail!("option '--{name}' takes no value");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(words: &[&str]) -> Vec<Arg> {
        let mut args = Args::new(words.iter().map(OsString::from)).expect("utf-8");
        std::iter::from_fn(|| args.next_arg()).collect()
    }

    fn flag(name: &str, value: Option<&str>) -> Arg {
        Arg::Flag { name: name.into(), value: value.map(Into::into) }
    }

    #[test]
    fn one_or_two_dashes_and_inline_values() {
        assert_eq!(
            read(&["-split-input-file", "--o=x", "in.mlir", "-", "--pass-pipeline=a(b=c)"]),
            vec![
                flag("split-input-file", None),
                flag("o", Some("x")),
                Arg::Positional("in.mlir".into()),
                Arg::Positional("-".into()),
                flag("pass-pipeline", Some("a(b=c)")),
            ]
        );
    }

    #[test]
    fn separate_values_and_missing_values() {
        let mut args = Args::new(["-o", "out.mlir", "-o"].map(OsString::from)).expect("utf-8");
        let Some(Arg::Flag { name, value }) = args.next_arg() else { panic!("flag expected") };
        assert_eq!(args.value(&name, value).expect("value"), "out.mlir");
        let Some(Arg::Flag { name, value }) = args.next_arg() else { panic!("flag expected") };
        assert!(args.value(&name, value).is_err());
        assert!(no_value("x", &Some("1".into())).is_err());
    }
}
