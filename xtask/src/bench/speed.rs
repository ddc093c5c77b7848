//! `check` beside `wc -l`, Python's `json.loads` and `jq -c .` on the
//! same generated file (issue 36's bars).

use std::{
    fs,
    io::{self, Write},
    path::Path,
    process::{Command, Stdio},
    time::Instant,
};

use super::{Row, at_least, conversation};

/// The programs `check` is measured beside, on the same 200 MB file of
/// MCP-style traffic: a name, the program and its arguments (`{rpcspec}`:
/// ours). One that is not installed is skipped, with a note.
const SIDE_BY_SIDE: &[(&str, &[&str])] = &[
    ("wc -l (memory-bandwidth floor)", &["wc", "-l"]),
    (
        "rpcspec check (JSON per line)",
        &["{rpcspec}", "check", "-"],
    ),
    (
        "rpcspec check --rpc jsonrpc2",
        &["{rpcspec}", "check", "--rpc", "jsonrpc2", "-"],
    ),
    (
        "Python json.loads per line",
        &[
            "python3",
            "-c",
            "import json, sys\nfor line in sys.stdin.buffer:\n    json.loads(line)",
        ],
    ),
    ("jq -c .", &["jq", "-c", "."]),
];

/// The side-by-side speeds: each program's median seconds over `runs`
/// interleaved runs (`None`: not installed), and the file's bytes.
pub(super) type Speeds = (Vec<(&'static str, Option<f64>)>, u64);

/// Every program of [`SIDE_BY_SIDE`] on the same generated file,
/// interleaved.
pub(super) fn check_speed(rpcspec: &Path, dir: &Path, runs: usize) -> Result<Speeds, String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("conversation.ndjson");
    let mut out = io::BufWriter::new(
        fs::File::create(&file).map_err(|e| format!("{}: {e}", file.display()))?,
    );
    let mut fill = conversation();
    let mut block = Vec::with_capacity(1 << 20);
    let mut bytes = 0u64;
    while bytes < 200_000_000 {
        block.clear();
        fill(&mut block);
        out.write_all(&block).map_err(|e| e.to_string())?;
        bytes += block.len() as u64;
    }
    out.flush().map_err(|e| e.to_string())?;
    drop(out);
    let time = |argv: &[&str]| -> Result<Option<f64>, String> {
        let input = fs::File::open(&file).map_err(|e| e.to_string())?;
        let program = argv[0].replace("{rpcspec}", &rpcspec.to_string_lossy());
        let t = Instant::now();
        let status = match Command::new(&program)
            .args(&argv[1..])
            .stdin(input)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(status) => status,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{program}: {e}")),
        };
        let elapsed = t.elapsed().as_secs_f64();
        if !status.success() {
            return Err(format!("{argv:?} failed ({status})"));
        }
        Ok(Some(elapsed))
    };
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); SIDE_BY_SIDE.len()];
    let mut missing = vec![false; SIDE_BY_SIDE.len()];
    for _ in 0..runs {
        for (n, (name, argv)) in SIDE_BY_SIDE.iter().enumerate() {
            if missing[n] {
                continue;
            }
            match time(argv)? {
                Some(t) => times[n].push(t),
                None => {
                    eprintln!(
                        "xtask bench: {name}: `{}` is not installed; skipped",
                        argv[0]
                    );
                    missing[n] = true;
                }
            }
        }
    }
    let _ = fs::remove_file(&file);
    let speeds = SIDE_BY_SIDE
        .iter()
        .zip(&mut times)
        .map(|((name, _), v)| {
            v.sort_by(f64::total_cmp);
            (*name, v.get(v.len() / 2).copied())
        })
        .collect();
    Ok((speeds, bytes))
}

/// The side-by-side table, then its bars (issue 36): how many times faster
/// than each other program `check` and `check --rpc` are.
pub(super) fn side_by_side_rows(speed: Option<&Speeds>, rows: &mut Vec<Row>) {
    let Some((speeds, bytes)) = speed else {
        return;
    };
    let of = |name: &str| {
        speeds
            .iter()
            .find(|(n, _)| n.starts_with(name))
            .and_then(|(_, t)| *t)
    };
    let (check, rpc) = (of("rpcspec check ("), of("rpcspec check --rpc"));
    println!("| program | wall (median) | throughput | vs `check --rpc` |");
    println!("|---|--:|--:|--:|");
    for (name, t) in speeds {
        match t {
            Some(t) => println!(
                "| {name} | {t:.2} s | {:.0} MB/s | {} |",
                *bytes as f64 / t / 1e6,
                rpc.map_or("n/a".into(), |r| format!("{:.1}x", t / r))
            ),
            None => println!("| {name} | not installed | | |"),
        }
    }
    println!();
    let ratio = |ours: Option<f64>, theirs: &str| ours.zip(of(theirs)).map(|(o, t)| t / o);
    for (bar, what, ours, theirs, min) in [
        (
            "7 check --rpc >= 5x Python json.loads",
            "check --rpc / Python",
            rpc,
            "Python",
            5.0,
        ),
        (
            "36 check >= 30x Python json.loads",
            "check / Python",
            check,
            "Python",
            30.0,
        ),
        (
            "36 check --rpc >= 12x Python json.loads",
            "check --rpc / Python",
            rpc,
            "Python",
            12.0,
        ),
        ("36 check >= 50x jq -c .", "check / jq", check, "jq", 50.0),
    ] {
        rows.push(at_least(
            bar,
            format!("200 MB conversation: {what}"),
            ratio(ours, theirs),
            min,
        ));
    }
}
