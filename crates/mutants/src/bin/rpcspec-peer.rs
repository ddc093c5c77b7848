//! `rpcspec-peer peer --connect SOCKET`: the client role's scripted server
//! (`rpcspec peer`, hidden), as a binary of this crate, so that the client
//! self-test runs scenarios through the library without the `rpcspec`
//! binary.

use std::{path::PathBuf, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (socket, rest) = match args.as_slice() {
        [peer, flag, path, rest @ ..] if peer == "peer" && flag == "--connect" => {
            (PathBuf::from(path), rest)
        }
        _ => {
            eprintln!("usage: rpcspec-peer peer --connect SOCKET [ARGS...]");
            return ExitCode::from(2);
        }
    };
    let rest = rest.strip_prefix(&["--".to_owned()][..]).unwrap_or(rest);
    ExitCode::from(u8::try_from(rpcspec::client::peer::serve(&socket, rest)).unwrap_or(1))
}
