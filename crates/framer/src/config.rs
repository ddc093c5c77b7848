//! Framing policies: every choice the NDJSON, JSON Lines and RFC 7464 texts
//! leave open is a named setting here, with a documented default; and the
//! bounds of the Content-Length framing ([`HeaderConfig`]).

/// How records are delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// NDJSON / JSON Lines: one record per `\n`-terminated line. The default.
    #[default]
    Lines,
    /// RFC 7464 `application/json-seq`: a record starts with RS (0x1E) and
    /// ends with `\n`. A record is complete when the next RS or the end of the
    /// stream arrives, because a text may be pretty-printed over several
    /// lines. Consecutive RS bytes are ignored.
    JsonSeq,
}

/// What to do with a blank line: empty, or only JSON whitespace
/// (space, tab, carriage return).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum BlankLines {
    /// Skip it without an event (the NDJSON spec's "MAY silently ignore").
    /// The default.
    #[default]
    Skip,
    /// Report it as [`ProblemKind::Blank`](crate::ProblemKind::Blank)
    /// (JSON Lines: "a blank line is not" a valid value).
    Report,
}

/// What to do with a UTF-8 byte order mark (EF BB BF) at the very start of
/// the stream. A BOM anywhere else is ordinary line content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Bom {
    /// Report it as [`ProblemKind::Bom`](crate::ProblemKind::Bom) (JSON Lines
    /// forbids it, RFC 8259 says senders MUST NOT add one), then deliver the
    /// rest of the first line as usual. The default.
    #[default]
    Report,
    /// Drop it silently.
    Strip,
}

/// Framer configuration. Build it with the `with_*` methods, read it back
/// with the getters of the same name without the prefix:
///
/// ```
/// use rpcspec_framer::{BlankLines, Config};
/// let config = Config::default()
///     .with_max_line_len(1 << 20)
///     .with_blank_lines(BlankLines::Report);
/// assert_eq!(config.max_line_len(), 1 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub(crate) mode: Mode,
    pub(crate) max_line_len: usize,
    pub(crate) strip_cr: bool,
    pub(crate) blank_lines: BlankLines,
    pub(crate) bom: Bom,
    pub(crate) check_utf8: bool,
}

/// The default [`Config::with_max_line_len`]: 16 MiB, the cap MCP SDKs settled on.
pub const DEFAULT_MAX_LINE_LEN: usize = 16 << 20;

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Lines,
            max_line_len: DEFAULT_MAX_LINE_LEN,
            strip_cr: true,
            blank_lines: BlankLines::Skip,
            bom: Bom::Report,
            check_utf8: true,
        }
    }
}

impl Config {
    /// Record delimiting: NDJSON lines (default) or RFC 7464 records.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Maximum record length in bytes, counting everything before the `\n`
    /// (a trailing `\r` included; in [`Mode::JsonSeq`], everything between
    /// the RS and the next RS). Default [`DEFAULT_MAX_LINE_LEN`].
    ///
    /// A longer record is not buffered: its bytes are counted and dropped
    /// until its delimiter arrives, then one
    /// [`ProblemKind::Overlong`](crate::ProblemKind::Overlong)(crate::ProblemKind::Overlong) carrying its
    /// full length is reported and framing resumes with the next record. The
    /// framer therefore never holds more than `max_line_len` bytes.
    pub fn with_max_line_len(mut self, n: usize) -> Self {
        self.max_line_len = n;
        self
    }

    /// Whether one `\r` directly before `\n` is stripped from the line
    /// (default `true`: NDJSON parsers "MUST accept" `\r\n`). With `false`
    /// the `\r` stays part of the line. Either way the line's
    /// [`Ending`](crate::Ending) says which terminator was seen, and a lone
    /// `\r` elsewhere is never a line break.
    pub fn with_strip_cr(mut self, yes: bool) -> Self {
        self.strip_cr = yes;
        self
    }

    /// Blank-line policy, default [`BlankLines::Skip`].
    pub fn with_blank_lines(mut self, policy: BlankLines) -> Self {
        self.blank_lines = policy;
        self
    }

    /// Byte-order-mark policy, default [`Bom::Report`].
    pub fn with_bom(mut self, policy: Bom) -> Self {
        self.bom = policy;
        self
    }

    /// Whether each line must be valid UTF-8 (default `true`). A line that
    /// is not is reported as
    /// [`ProblemKind::InvalidUtf8`](crate::ProblemKind::InvalidUtf8) instead of
    /// being delivered; the next line is unaffected. Switch it off only when
    /// a later stage validates anyway (a JSON parser that checks UTF-8).
    pub fn with_check_utf8(mut self, yes: bool) -> Self {
        self.check_utf8 = yes;
        self
    }

    /// The configured record delimiting ([`Config::with_mode`]).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The configured maximum record length ([`Config::with_max_line_len`]).
    pub fn max_line_len(&self) -> usize {
        self.max_line_len
    }

    /// Whether a `\r` before `\n` is stripped ([`Config::with_strip_cr`]).
    pub fn strip_cr(&self) -> bool {
        self.strip_cr
    }

    /// The configured blank-line policy ([`Config::with_blank_lines`]).
    pub fn blank_lines(&self) -> BlankLines {
        self.blank_lines
    }

    /// The configured byte-order-mark policy ([`Config::with_bom`]).
    pub fn bom(&self) -> Bom {
        self.bom
    }

    /// Whether lines are checked for UTF-8 ([`Config::with_check_utf8`]).
    pub fn check_utf8(&self) -> bool {
        self.check_utf8
    }
}

/// The default bound on a header block: 8 KiB, a hundred times what a
/// `Content-Length` and a `Content-Type` take.
pub const DEFAULT_MAX_HEADER_LEN: usize = 8 << 10;

/// The bounds and checks of a [`HeaderFramer`](crate::HeaderFramer), each a `with_*` method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderConfig {
    pub(crate) max_body: usize,
    pub(crate) max_header: usize,
    pub(crate) check_utf8: bool,
}

impl Default for HeaderConfig {
    fn default() -> Self {
        HeaderConfig {
            max_body: DEFAULT_MAX_LINE_LEN,
            max_header: DEFAULT_MAX_HEADER_LEN,
            check_utf8: true,
        }
    }
}

impl HeaderConfig {
    /// The largest body kept (default 16 MiB, as a line in NDJSON): a longer
    /// one is counted and reported as [`ProblemKind::Overlong`](crate::ProblemKind::Overlong).
    pub fn with_max_body(mut self, n: usize) -> Self {
        self.max_body = n;
        self
    }

    /// The largest header block, and the most bytes kept of what comes
    /// between messages (default [`DEFAULT_MAX_HEADER_LEN`]).
    pub fn with_max_header(mut self, n: usize) -> Self {
        self.max_header = n;
        self
    }

    /// Whether a body must be UTF-8 (default on).
    pub fn with_check_utf8(mut self, yes: bool) -> Self {
        self.check_utf8 = yes;
        self
    }

    /// See [`HeaderConfig::with_max_body`].
    pub fn max_body(&self) -> usize {
        self.max_body
    }

    /// See [`HeaderConfig::with_max_header`].
    pub fn max_header(&self) -> usize {
        self.max_header
    }

    /// See [`HeaderConfig::with_check_utf8`].
    pub fn check_utf8(&self) -> bool {
        self.check_utf8
    }
}
