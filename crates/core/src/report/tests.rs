//! The report model's tests: verdict names, base64, and what a result
//! keeps under its budget.

mod verdicts {
    use super::super::{Verdict, base64};

    #[test]
    fn every_verdict_parses_back() {
        let names: Vec<_> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(names, Verdict::NAMES);
        for verdict in Verdict::ALL {
            assert_eq!(verdict.to_string().parse::<Verdict>(), Ok(verdict));
        }
    }

    #[test]
    fn an_unknown_verdict_lists_the_known_ones() {
        let e = "pass".parse::<Verdict>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown verdict `pass` (known: PASS, NON-STRICT, SKIPPED, N/A, FAIL, TIMEOUT, CRASH, ERROR)"
        );
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, output) in cases {
            assert_eq!(base64(input.as_bytes()), output);
        }
    }
}

mod fit {
    use super::super::*;
    use crate::budget::Budget;

    fn received(line: u64, text: &str) -> Received {
        Received {
            at_ms: 0,
            line,
            offset: 0,
            bytes: Bytes::Text(text.to_owned()),
            unit: Default::default(),
        }
    }

    #[test]
    fn a_huge_string_keeps_a_head_a_tail_its_length_and_hash() {
        let mut text = format!("{}{}", "a".repeat(100_000), "z".repeat(100));
        let whole = text.clone();
        clip(&mut text, 1000);
        assert!(text.len() < 1100, "{}", text.len());
        assert!(text.starts_with(&"a".repeat(700)));
        assert!(text.ends_with(&"z".repeat(100)));
        let note = format!(
            "… (100100 bytes in all, fnv1a {:016x}) …",
            crate::budget::fnv1a(whole.as_bytes())
        );
        assert!(text.contains(&note), "{text}");
        // Clipped again, smaller: the note still tells of the whole.
        clip(&mut text, 400);
        assert!(text.len() < 500, "{}", text.len());
        assert!(text.contains(&note), "{text}");
        assert!(text.ends_with("zzz"));
        // Not cut inside a character.
        let mut wide = "é".repeat(10_000);
        clip(&mut wide, 1001);
        assert!(wide.contains("20000 bytes in all"));
    }

    #[test]
    fn a_result_is_cut_to_its_share_of_the_budget_and_keeps_its_verdict() {
        let budget = Budget::new(Budget::MIN).unwrap();
        let mut r = CaseResult::new("a/b".into(), "whole".into(), "t".into(), "s".into());
        r.received = (1..=5000).map(|n| received(n, &"x".repeat(300))).collect();
        r.sent = (0..3000)
            .map(|n| Sent {
                at_ms: n,
                bytes: Bytes::Text("y".into()),
            })
            .collect();
        for i in 0..40 {
            let mut e = Evidence::note(Verdict::NonStrict, format!("note {i}"));
            e.actual = vec!["q".repeat(50_000); 30];
            r.evidence.push(e);
        }
        r.evidence
            .push(Evidence::note(Verdict::Fail, "the failure".into()));
        r.settle();
        assert_eq!(r.verdict, Verdict::Fail);
        r.fit(&budget);
        assert_eq!(
            r.verdict,
            Verdict::Fail,
            "fitting never changes the verdict"
        );
        assert_eq!(
            r.evidence[0].message, "the failure",
            "its evidence is kept first"
        );
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.len() < 3 * budget.report(), "{} bytes", json.len());
        // The first and the last lines are kept, the rest counted.
        assert_eq!(r.received.first().unwrap().line, 1);
        assert_eq!(r.received.last().unwrap().line, 5000);
        let notes: Vec<&str> = r.evidence.iter().map(|e| e.message.as_str()).collect();
        assert!(
            notes
                .iter()
                .any(|m| m.ends_with("lines received are not kept in the report")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|m| m.ends_with("writes are not kept in the report")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_small_result_is_left_as_it_is() {
        let mut r = CaseResult::new("a/b".into(), "whole".into(), "t".into(), "s".into());
        r.received = vec![received(1, "{}")];
        r.evidence.push(Evidence::note(Verdict::Fail, "f".into()));
        let before = serde_json::to_string(&r).unwrap();
        r.fit(&Budget::DEFAULT);
        assert_eq!(serde_json::to_string(&r).unwrap(), before);
    }
}

mod cuts {
    use super::super::{LEAST_CUT, head_of};

    #[test]
    fn a_cut_leaves_out_at_least_forty_characters_and_counts_bytes() {
        let short_tail = "x".repeat(10 + LEAST_CUT - 1);
        assert_eq!(
            head_of(&short_tail, 10),
            short_tail,
            "a tail under the least cut stays"
        );
        let long = "é".repeat(10 + LEAST_CUT);
        let cut = head_of(&long, 10);
        assert!(cut.starts_with(&"é".repeat(10)), "{cut}");
        // 40 characters of 2 bytes each.
        assert!(
            cut.ends_with(&format!("… ({} more bytes)", 2 * LEAST_CUT)),
            "{cut}"
        );
        assert_eq!(head_of("short", 10), "short");
    }
}

/// The matrix reads the report's own types back from its JSON.
mod read_back {
    use super::super::{Bytes, Evidence, Received, RuleRef, Sent, Verdict};

    #[test]
    fn evidence_and_traffic_read_back_as_written() {
        let evidence = Evidence {
            rule: Some(RuleRef::from_rule(&crate::rules::PROCESS_OUTPUT_FLOOD)),
            step: Some(2),
            expected: vec!["{}".into()],
            actual: vec!["[]".into()],
            ..Evidence::note(Verdict::NonStrict, "m".into())
        };
        let json = serde_json::to_string(&evidence).unwrap();
        assert_eq!(serde_json::from_str::<Evidence>(&json).unwrap(), evidence);
        let sent = Sent {
            at_ms: 3,
            bytes: Bytes::new(b"\xFF\n"),
        };
        let json = serde_json::to_string(&sent).unwrap();
        assert_eq!(serde_json::from_str::<Sent>(&json).unwrap(), sent);
        // What a report may leave out reads as its default.
        let received: Received = serde_json::from_str(r#"{"bytes":{"text":"x"}}"#).unwrap();
        assert_eq!(
            (received.line, received.bytes),
            (0, Bytes::Text("x".into()))
        );
        let bare: Evidence = serde_json::from_str(r#"{"verdict":"PASS","message":""}"#).unwrap();
        assert_eq!(bare, Evidence::note(Verdict::Pass, String::new()));
        let bad = serde_json::from_str::<Evidence>(r#"{"verdict":"pass","message":""}"#);
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("unknown verdict `pass`")
        );
    }
}
