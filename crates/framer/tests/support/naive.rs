//! A deliberately simple reference framer: the whole stream at once, split on
//! the delimiter, then the policies applied to each piece. No chunks, no
//! carry, no skipping. The real framer must agree with it on every input;
//! the tests and the `framer_oracle` fuzz target compare the two.

use std::borrow::Cow;

use rpcspec_framer::{BlankLines, Bom, Config, Ending, Event, Line, Mode, Problem, ProblemKind};

pub fn frame(config: &Config, input: &[u8]) -> Vec<Event<'static>> {
    let delim = match config.mode() {
        Mode::Lines => b'\n',
        _ => 0x1E,
    };
    let pieces: Vec<&[u8]> = input.split(|&b| b == delim).collect();
    let mut out = Vec::new();
    let mut number = 0;
    let mut start = 0u64;
    for (i, piece) in pieces.iter().enumerate() {
        let delimited = i + 1 < pieces.len();
        let offset = start;
        start += piece.len() as u64 + 1;
        let json_seq = config.mode() == Mode::JsonSeq;
        if piece.len() > config.max_line_len() {
            number += 1;
            let kind = ProblemKind::Overlong {
                len: piece.len() as u64,
                limit: config.max_line_len(),
                terminated: delimited || json_seq,
            };
            out.push(problem(kind, number, offset, b""));
            continue;
        }
        let (mut text, mut offset) = (*piece, offset);
        if offset == 0 && text.starts_with(b"\xEF\xBB\xBF") {
            if config.bom() == Bom::Report {
                out.push(problem(ProblemKind::Bom, number + 1, 0, b""));
            }
            text = &text[3..];
            offset = 3;
        }
        if json_seq {
            if i == 0 {
                if !text.is_empty() {
                    number += 1;
                    out.push(problem(ProblemKind::OutsideRecord, number, offset, text));
                }
                continue;
            }
            if text.is_empty() {
                continue;
            }
            number += 1;
            match text.strip_suffix(b"\n") {
                Some(t) => line(config, t, number, offset, &mut out),
                None if delimited => {
                    out.push(problem(ProblemKind::RecordCut, number, offset, text))
                }
                None => out.push(problem(ProblemKind::Truncated, number, offset, text)),
            }
            continue;
        }
        if !delimited {
            if !text.is_empty() {
                number += 1;
                out.push(problem(ProblemKind::Truncated, number, offset, text));
            }
            continue;
        }
        number += 1;
        line(config, text, number, offset, &mut out);
    }
    out
}

fn line(config: &Config, text: &[u8], number: u64, offset: u64, out: &mut Vec<Event<'static>>) {
    let ending = if text.ends_with(b"\r") {
        Ending::CrLf
    } else {
        Ending::Lf
    };
    let text = if ending == Ending::CrLf && config.strip_cr() {
        &text[..text.len() - 1]
    } else {
        text
    };
    if text.iter().all(|b| b" \t\r\n".contains(b)) {
        if config.blank_lines() == BlankLines::Report {
            out.push(problem(ProblemKind::Blank, number, offset, text));
        }
    } else if let (true, Err(e)) = (config.check_utf8(), std::str::from_utf8(text)) {
        let kind = ProblemKind::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        };
        out.push(problem(kind, number, offset, text));
    } else {
        out.push(Event::Line(Line {
            bytes: Cow::Owned(text.to_vec()),
            number,
            offset,
            ending,
        }));
    }
}

fn problem(kind: ProblemKind, number: u64, offset: u64, bytes: &[u8]) -> Event<'static> {
    Event::Problem(Problem {
        kind,
        number,
        offset,
        bytes: Cow::Owned(bytes.to_vec()),
    })
}
