//! The syntax checker against serde_json, the reference parser: on texts
//! made of JSON's own tokens, mostly valid and often broken, both say the
//! same, and pieces of any size give the checker's whole-text answer (the
//! same offset; a character cut by a piece is named U+FFFD).

use proptest::prelude::*;
use rpcspec_framer::syntax::{self, Syntax};
use serde::de::IgnoredAny;

/// Tokens, valid ones weighted up, broken ones mixed in.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\t",
        "\r\n",
        "\"a\"",
        "\"\"",
        "\"\\n\\u00e9\"",
        "\"é😀\"",
        "0",
        "-1",
        "12.5",
        "1e3",
        "-0.0E+1",
        "true",
        "false",
        "null",
        "{\"k\":",
        "[1,2]",
        "{\"a\":[]}", // valid pieces
        "01",
        "1.",
        ".5",
        "+1",
        "-",
        "1e",
        "tru",
        "nul",
        "'a'",
        "\"\\x\"",
        "\"\\u12\"",
        "\"a",
        "\u{0}",
        "\u{1}",
        "//",
        "\u{a0}",
        "NaN",
        "x",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        // Long enough for the whole-text pass's eight-byte steps.
        "\"abcdefghijklmnopq\"",
        "\"abcdefgh\\\"ijklmnop\\u00e9qrstuvwx\"",
        "\"abcdefghij\u{1}klmnop\"",
        "\"abcdefghij\u{7f}\u{1f}klmnop\"",
        "\u{7f}",
    ])
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..24).prop_map(|t| t.concat())
}

fn serde_accepts(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn agrees_with_serde_json(text in text()) {
        // serde_json stops at 128 levels; these texts stay far below.
        prop_assert_eq!(syntax::check(text.as_bytes()).is_ok(), serde_accepts(&text), "{:?}", text);
    }

    #[test]
    fn the_whole_text_pass_agrees_with_the_checker(text in text()) {
        // `is_one_value` follows 64 levels; these texts stay below 24.
        prop_assert_eq!(syntax::is_one_value(text.as_bytes()), syntax::check(text.as_bytes()).is_ok(), "{:?}", text);
    }

    #[test]
    fn pieces_never_change_the_answer(text in text(), size in 1usize..8) {
        let whole = syntax::check(text.as_bytes());
        let mut s = Syntax::new();
        let mut got = Ok(());
        for piece in text.as_bytes().chunks(size) {
            got = s.feed(piece);
            if got.is_err() {
                break;
            }
        }
        // Where and whether, always; the character named can only be whole
        // when the piece holds it (U+FFFD otherwise).
        let at = |r: Result<(), syntax::SyntaxError>| r.map_err(|e| (e.offset(), e.is_incomplete()));
        prop_assert_eq!(at(got.and_then(|()| s.finish())), at(whole));
    }
}

#[test]
fn valid_documents_of_every_shape_agree() {
    let docs = [
        serde_json::json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "x", "arguments": {"a": [1, 2.5, -3e-7, null, true, "é\n\"\\"]}}, "id": 7}),
        serde_json::json!([[], {}, [[[]]], {"": {"": ""}}]),
        serde_json::json!("\u{2028}\u{0}\u{1f}"),
    ];
    for doc in docs {
        for text in [
            serde_json::to_string(&doc).unwrap(),
            serde_json::to_string_pretty(&doc).unwrap(),
        ] {
            assert!(syntax::check(text.as_bytes()).is_ok(), "{text}");
        }
    }
}
