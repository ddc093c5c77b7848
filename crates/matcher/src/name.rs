//! The error of parsing a name: [`Dialect`](crate::Dialect) and
//! [`Level`](crate::Level) are named on command lines and in case files.

use std::{error::Error, fmt};

/// A name that is none of the known names of its kind: the error of
/// `Dialect::from_str` and `Level::from_str`.
///
/// ```
/// use rpcspec_matcher::Dialect;
/// let e = "jsonrpc3".parse::<Dialect>().unwrap_err();
/// assert_eq!(e.name(), "jsonrpc3");
/// assert_eq!(
///     e.to_string(),
///     "unknown dialect `jsonrpc3` (known: jsonrpc2, lenient, mcp, claude, events)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    what: &'static str,
    name: Box<str>,
    known: &'static [&'static str],
}

impl UnknownName {
    /// `name` is not one of the `known` names of a `what` (`"dialect"`):
    /// for other tables of names to report the same way (rpcspec's runner
    /// parses its write plans and verdicts with it).
    pub fn new(what: &'static str, name: &str, known: &'static [&'static str]) -> Self {
        UnknownName {
            what,
            name: name.into(),
            known,
        }
    }

    /// The name that was given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names that would have been accepted.
    pub fn known(&self) -> &'static [&'static str] {
        self.known
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} `{}` (known: {})",
            self.what,
            self.name.escape_debug(),
            self.known.join(", ")
        )
    }
}

impl Error for UnknownName {}
