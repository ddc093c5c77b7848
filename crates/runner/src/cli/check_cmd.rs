//! `rpcspec check`: a captured stream, validated as it is read.

use std::{
    fs,
    io::{self, Write},
    path::Path,
};

use rpcspec::{check, exit, render};

use crate::{
    args::{CheckArgs, CheckFormat, CheckFrom, StreamFraming},
    dialect_of, fail,
};

pub(crate) fn check_cmd(args: CheckArgs) -> u8 {
    let html = args.format == CheckFormat::Html;
    if html && args.framing_only {
        // As `--annotate`: a message is drawn by what it is in a dialect.
        return fail("--format html draws the messages: it cannot be given with --framing-only");
    }
    let annotate = args.annotate || html;
    let rpc = args.rpc.as_deref().or(annotate.then_some("jsonrpc2"));
    // The name is checked first: an unknown one is an error naming them all.
    if let Some(Err(code)) = rpc.map(dialect_of) {
        return code;
    }
    let descriptor = rpc.and_then(rpcspec::dialects::find).map(|(d, _)| d);
    let framing = args.framing.unwrap_or(match descriptor.map(|d| d.framing) {
        Some(rpcspec::dialects::Framed::ContentLength) => StreamFraming::ContentLength,
        _ => StreamFraming::Ndjson,
    });
    let opts = check::Options {
        texts: html,
        ..options(&args, descriptor, annotate, framing)
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let json = args.format == CheckFormat::Json;
    let (client_lane, server_lane) = opts.checking.lanes;
    let mut drawing = html.then(|| Drawing {
        diagram: check::Diagram::new(client_lane, server_lane),
        loose: Vec::new(),
        more: 0,
    });
    // Control messages' kinds and ids are longer: `control response`,
    // `request_id "req_1_init"`.
    let widths = if opts.checking.control {
        (16, 44)
    } else {
        (13, 34)
    };
    let name = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let (client_name, server_name) = (name(&args.client), name(&args.server));
    let sink = |o: check::Out<'_>| -> io::Result<()> {
        if let Some(d) = drawing.as_mut() {
            d.take(o);
            return Ok(());
        }
        match o {
            check::Out::Finding(f) if json => {
                out.write_all(render::envelope("finding", f).as_bytes())?
            }
            check::Out::Note(n) if json => out.write_all(render::envelope("note", n).as_bytes())?,
            check::Out::Finding(f) => {
                let names = (client_name.as_deref(), server_name.as_deref());
                write_finding(&mut out, f, names)?
            }
            check::Out::Note(n) => write_note(&mut out, n, widths)?,
        }
        out.write_all(b"\n")
    };
    let checked = match (&args.client, &args.server, &args.file) {
        (Some(client), Some(server), _) => match (open_stream(client), open_stream(server)) {
            (Ok(c), Ok(s)) => check::check_two(c, s, &opts, sink),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("rpcspec: {e}");
                return exit::CANNOT_START;
            }
        },
        (.., Some(path)) if path.as_os_str() != "-" => match open_stream(path) {
            Ok(f) => check::check(f, &opts, sink),
            Err(e) => {
                eprintln!("rpcspec: {e}");
                return exit::CANNOT_START;
            }
        },
        _ => check::check(io::stdin(), &opts, sink),
    };
    let summary = match checked {
        Ok(s) => s,
        // `rpcspec check big.log | head`: the reader has what it wanted.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return exit::FAILED,
        Err(e) => {
            eprintln!("rpcspec: read error: {e}");
            return exit::USAGE;
        }
    };
    // What the framing cuts the stream into.
    let unit = framing.unit();
    let has_rpc = opts.dialect.is_some();
    let written = if let Some(d) = drawing {
        let mut meta = Vec::new();
        let _ = write_check_summary(&mut meta, &summary, args.max_per_rule, unit, has_rpc);
        let meta = String::from_utf8_lossy(&meta).replace('\n', " ");
        let read = match (&client_name, &server_name, &args.file) {
            (Some(c), Some(s), _) => format!("{c} ⇄ {s}"),
            (.., Some(f)) if f.as_os_str() != "-" => f.display().to_string(),
            _ => "standard input".to_owned(),
        };
        let title = format!("rpcspec check --rpc {}: {read}", rpc.unwrap_or_default());
        out.write_all(
            d.diagram
                .page(&title, meta.trim_end(), (&d.loose, d.more))
                .as_bytes(),
        )
    } else if json {
        writeln!(out, "{}", render::envelope("summary", &summary))
    } else {
        write_check_summary(&mut out, &summary, args.max_per_rule, unit, has_rpc)
    };
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("rpcspec: cannot write to stdout: {e}");
    }
    if summary.findings == 0 {
        exit::OK
    } else {
        exit::FAILED
    }
}

impl StreamFraming {
    /// What the framing cuts a stream into: `line` or `message`.
    fn unit(self) -> &'static str {
        match self {
            StreamFraming::Ndjson => "line",
            StreamFraming::ContentLength => "message",
        }
    }
}

/// `check --format html`: the notes drawn, and the findings about no
/// message in particular kept for the page, at most [`check::diagram::LOOSE`].
struct Drawing {
    diagram: check::Diagram,
    loose: Vec<check::Finding>,
    /// Findings past those kept.
    more: u64,
}

impl Drawing {
    fn take(&mut self, o: check::Out<'_>) {
        match o {
            check::Out::Note(n) => self.diagram.push(n.clone(), None),
            check::Out::Finding(f) if self.loose.len() < check::diagram::LOOSE => {
                self.loose.push(f.clone())
            }
            check::Out::Finding(_) => self.more += 1,
        }
    }
}

/// A finding, `file:line:offset: rule: message`, the file named only of two
/// streams (`names`: the client's and the server's).
fn write_finding(
    out: &mut impl Write,
    f: &check::Finding,
    names: (Option<&str>, Option<&str>),
) -> io::Result<()> {
    let file = match f.stream {
        Some("client") => names.0,
        Some(_) => names.1,
        None => None,
    };
    if let Some(file) = file {
        write!(out, "{file}:")?;
    }
    write!(out, "{}:{}: {}: ", f.line, f.offset, f.rule.id)?;
    out.write_all(f.message.as_bytes())
}

/// What to check, as the arguments say (`descriptor`: the dialect
/// `--rpc` names, or that `--annotate` implies).
fn options(
    args: &CheckArgs,
    descriptor: Option<&'static rpcspec::dialects::Descriptor>,
    annotate: bool,
    framing: StreamFraming,
) -> check::Options {
    let dialect = descriptor.map_or_else(check::Options::default, check::Options::in_dialect);
    check::Options {
        sides: match args.from {
            CheckFrom::Both => check::Sides::Both,
            CheckFrom::Client => check::Sides::Client,
            CheckFrom::Server => check::Sides::Server,
        },
        framing_only: args.framing_only,
        seq: args.seq,
        content_length: framing == StreamFraming::ContentLength,
        per_rule: (args.max_per_rule > 0).then_some(args.max_per_rule),
        window: args.window as usize,
        annotate,
        texts: false,
        ..dialect
    }
}

/// A note of `--annotate`: its line, sender, kind and detail in columns of
/// `widths`, its pairing, and its findings beneath.
fn write_note(out: &mut impl Write, n: &check::Note, widths: (usize, usize)) -> io::Result<()> {
    // Of two streams, the arrow says whose file the line is in.
    write!(out, "{:>5}", n.line)?;
    let arrow = match n.from {
        Some("client") => "-->",
        Some(_) => "<--",
        None => "   ",
    };
    let (kind, detail) = widths;
    let line = format!(
        "  {arrow}  {:<kind$} {:<detail$} {}",
        n.kind, n.detail, n.pairing
    );
    out.write_all(line.trim_end().as_bytes())?;
    for f in &n.findings {
        write!(out, "\n        {}: {}", f.rule.id, f.message)?;
    }
    Ok(())
}

/// Opens a stream to check: a regular file, a FIFO or a character device;
/// never a directory.
fn open_stream(path: &Path) -> Result<fs::File, String> {
    let f = fs::File::open(path).map_err(|e| {
        let why = e.to_string();
        let why = why.split(" (os error").next().unwrap_or(&why);
        format!("cannot open {}: {why}", path.display())
    })?;
    match f.metadata() {
        Ok(m) if m.is_dir() => Err(format!("{} is a directory", path.display())),
        _ => Ok(f),
    }
}

/// The closing lines of a human `check` report, printed on a clean stream
/// too: counts by rule, with `rpc` the messages and how their senders were
/// known, what was not shown, and advice for pretty-printed JSON. `unit`
/// is what the framing cuts the stream into (`line`, `message`).
fn write_check_summary(
    out: &mut impl Write,
    s: &check::Summary,
    per_rule: u64,
    unit: &str,
    rpc: bool,
) -> io::Result<()> {
    let rules: Vec<String> = s
        .by_rule
        .iter()
        .map(|(id, n)| format!("{id} {n}"))
        .collect();
    let messages = if rpc {
        let mark = if unit == "line" {
            "mark the lines `-->`/`<--` or give --from"
        } else {
            "give --from client or --from server"
        };
        let senders = match s.senders {
            "marked" => "senders as marked".to_owned(),
            "client" => "all the client's".to_owned(),
            "server" => "all the server's".to_owned(),
            "streams" => "each side's own stream".to_owned(),
            "inferred" => "senders from the protocol's method directions and pairing".to_owned(),
            "ambiguous" => format!(
                "senders from the protocol's method directions and pairing, but {} either side may send: {mark}",
                plural(s.ambiguous, "message")
            ),
            _ => format!("senders guessed: {mark}"),
        };
        let replies = if s.replies == 1 { "reply" } else { "replies" };
        // In Content-Length framing the unit is already the message.
        let messages = if unit == "message" {
            String::new()
        } else {
            format!(", {}", plural(s.messages, "message"))
        };
        format!(
            "{messages} ({}, {} {replies}, {} paired; {senders})",
            plural(s.requests, "request"),
            s.replies,
            s.paired
        )
    } else {
        String::new()
    };
    write!(
        out,
        "{} in {}{messages} ({} bytes)",
        plural(s.findings, "finding"),
        plural(s.lines, unit),
        s.bytes,
    )?;
    if rules.is_empty() {
        writeln!(out)?;
    } else {
        writeln!(out, ": {}", rules.join(", "))?;
    }
    if s.withheld > 0 {
        let (it, depends) = if s.withheld == 1 {
            ("it", "depends")
        } else {
            ("they", "depend")
        };
        writeln!(
            out,
            "{} withheld: {it} {depends} on who sent a message either side may send (mark the lines `-->`/`<--`)",
            plural(s.withheld, "finding"),
        )?;
    }
    if s.not_shown > 0 {
        writeln!(
            out,
            "{} not shown: at most {per_rule} of each rule are (--max-per-rule N; 0 shows all)",
            plural(s.not_shown, "finding"),
        )?;
    }
    if s.multi_line_values > 0 {
        writeln!(
            out,
            "hint: {} spread over several lines (pretty-printed JSON); NDJSON needs one \
             compact value per line: `json.dumps(v)` without indent, `JSON.stringify(v)`, `jq -c .`",
            if s.multi_line_values == 1 {
                "1 value is".to_owned()
            } else {
                format!("{} values are", s.multi_line_values)
            }
        )?;
    }
    Ok(())
}

fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
