use rpcspec_matcher::Dialect;

use super::*;
use crate::dialects::mcp::Revision;

#[test]
fn names_are_unique_and_every_revision_is_a_name() {
    let each: Vec<String> = DIALECTS.iter().flat_map(Descriptor::names).collect();
    let mut sorted = each.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), each.len(), "{each:?}");
    assert_eq!(
        names(),
        "jsonrpc2, lenient, codex, codex-exec, mcp, mcp@REVISION, lsp, acp, claude, events"
    );
    for r in Revision::ALL {
        let name = format!("mcp@{r}");
        let (d, pinned) = find(&name).expect(&name);
        assert_eq!((d.name, pinned), ("mcp", Some(r.as_str())));
    }
    assert!(find("mcp@1999-01-01").is_none());
    assert!(find("jsonrpc2@1").is_none());
}

#[test]
fn the_server_role_takes_what_the_matcher_judges() {
    for d in DIALECTS {
        let named = dialect_named(d.name);
        assert_eq!(named.is_some(), d.roles.server, "{}", d.name);
        if let Some((dialect, handshake)) = named {
            assert_eq!(handshake, d.name);
            assert_eq!(Some(dialect), d.matcher.map(|m| m()));
        }
    }
    // A matcher dialect's own name is its dialect's name.
    for name in Dialect::NAMES {
        assert_eq!(dialect_named(name).map(|(d, _)| d.name()), Some(*name));
    }
    assert_eq!(
        dialect_named("mcp@2025-11-25"),
        Some((Dialect::Mcp, "mcp".to_owned()))
    );
}

#[test]
fn a_reference_server_exists_for_each_dialect_that_says_so() {
    for d in DIALECTS {
        assert_eq!(d.serve.reference.is_some(), d.roles.reference, "{}", d.name);
        let Some(reference) = &d.serve.reference else {
            continue;
        };
        // It reads messages as the matcher does, and answers what it
        // cannot parse.
        assert_eq!(
            Some((reference.reads)()),
            d.matcher.map(|m| m()),
            "{}",
            d.name
        );
        let reply = crate::serve::Server::new(reference)
            .respond("{")
            .expect("an answer");
        assert!(reply.contains("-32700"), "{}: {reply}", d.name);
    }
}

#[test]
fn framing_is_the_descriptors() {
    assert!(matches!(framing_of("lsp"), Framing::ContentLength(_)));
    for name in ["jsonrpc2", "mcp", "codex", "claude", "nonsense"] {
        assert!(matches!(framing_of(name), Framing::Ndjson(_)), "{name}");
    }
}

#[test]
fn errors_name_every_dialect_or_the_role_that_takes_it() {
    let all = names();
    assert_eq!(
        unknown("xml-rpc", |r| r.server, "this role"),
        format!("unknown dialect `xml-rpc` (known: {all})")
    );
    let exec = unknown("codex-exec", |r| r.server, "this role");
    assert_eq!(
        exec,
        "this role takes no `codex-exec` (it is for run --role client, serve --role client); it takes: jsonrpc2, lenient, codex, mcp, mcp@REVISION, lsp, acp, claude, events"
    );
    let help = help("The dialect.", |r| r.server);
    for d in DIALECTS {
        assert!(help.contains(&format!("\n  {}", d.name)), "{help}");
    }
    assert!(help.contains("codex-exec: the Codex CLI's `exec --json` event stream, read by a decoder [for run --role client, serve --role client]"), "{help}");
    assert!(help.contains("mcp, mcp@REVISION: "), "{help}");
}

#[test]
fn directions_come_from_the_schemas() {
    let mcp = crate::dialects::mcp::directions();
    assert_eq!(mcp.sender("initialize"), Some(Sender::Client));
    assert_eq!(mcp.sender("tools/call"), Some(Sender::Client));
    assert_eq!(mcp.sender("roots/list"), Some(Sender::Server));
    assert_eq!(mcp.sender("sampling/createMessage"), Some(Sender::Server));
    assert_eq!(mcp.sender("notifications/message"), Some(Sender::Server));
    assert_eq!(
        mcp.sender("notifications/tools/list_changed"),
        Some(Sender::Server)
    );
    assert_eq!(
        mcp.sender("notifications/initialized"),
        Some(Sender::Client)
    );
    assert_eq!(mcp.sender("ping"), Some(Sender::Either));
    assert_eq!(mcp.sender("notifications/progress"), Some(Sender::Either));
    assert_eq!(mcp.sender("notifications/cancelled"), Some(Sender::Either));
    assert_eq!(mcp.sender("no/such"), None);
    assert!(mcp.len() > 30, "{}", mcp.len());
    let lsp = crate::dialects::lsp::directions();
    assert_eq!(lsp.sender("initialize"), Some(Sender::Client));
    assert_eq!(lsp.sender("textDocument/hover"), Some(Sender::Client));
    assert_eq!(
        lsp.sender("textDocument/publishDiagnostics"),
        Some(Sender::Server)
    );
    assert_eq!(
        lsp.sender("client/registerCapability"),
        Some(Sender::Server)
    );
    assert_eq!(
        lsp.sender("window/workDoneProgress/create"),
        Some(Sender::Server)
    );
    assert_eq!(lsp.sender("$/progress"), Some(Sender::Either));
    assert_eq!(
        lsp.token_made("window/workDoneProgress/create"),
        Some("/params/token")
    );
    assert_eq!(lsp.cancelled_id("$/cancelRequest"), Some("/params/id"));
    assert!(lsp.len() > 90, "{}", lsp.len());
}

#[test]
fn an_event_streams_ends_are_the_matchers() {
    let (events, _) = find("events").expect("events");
    let Some(Dialect::Events(config)) = events.matcher.map(|m| m()) else {
        panic!("the events dialect judges events");
    };
    assert_eq!(events.check.ends, config.end);
    assert!(events.matcher.is_some_and(|m| !m().pairs()));
    assert!(
        DIALECTS
            .iter()
            .filter_map(|d| d.matcher)
            .filter(|m| !m().pairs())
            .count()
            == 1
    );
}

#[test]
fn the_client_role_plays_each_dialect_it_takes_from_its_own_folder() {
    let playing: Vec<&Descriptor> = DIALECTS.iter().filter(|d| d.play.is_some()).collect();
    for d in DIALECTS {
        assert_eq!(d.play.is_some(), d.roles.client, "{}", d.name);
    }
    let mut folders: Vec<&str> = playing
        .iter()
        .filter_map(|d| Some(d.play.as_ref()?.folder))
        .collect();
    folders.sort_unstable();
    folders.dedup();
    assert_eq!(folders.len(), playing.len(), "two dialects in one folder");
    for d in playing {
        let play = d.play.as_ref().expect("filtered");
        assert!(
            play.folder.starts_with("client/") && play.folder.ends_with('/'),
            "{}",
            d.name
        );
        assert!(!play.steps.is_empty(), "{}", d.name);
        // A dialect of one framing plays in the framing it is read in.
        if let Some((own, why)) = play.framing {
            assert_eq!(own, d.framing, "{}", d.name);
            assert!(!why.is_empty());
        }
    }
}
