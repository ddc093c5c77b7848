//! The optional JSON layer: exactly one value per line, and the encoder.

use rpcspec_framer::{Config, Event, encode, encode_to_vec, frame};
use serde_json::{Value, json, value::RawValue};

fn first_line(input: &[u8]) -> rpcspec_framer::Line<'static> {
    match frame(&Config::default(), input).into_iter().next() {
        Some(Event::Line(line)) => line,
        other => panic!("no line: {other:?}"),
    }
}

#[test]
fn exactly_one_value_per_line() {
    for bad in ["{}{}", "1 2", "[][]", "{} x", "\"a\"\"b\""] {
        let err = first_line(format!("{bad}\n").as_bytes())
            .parse_value()
            .unwrap_err();
        assert!(err.is_syntax(), "{bad}: {err}");
        assert_eq!(err.message(), "trailing characters", "{bad}");
    }
    for good in [" {} ", "\t[1]\t", "null", " 1 "] {
        assert!(
            first_line(format!("{good}\n").as_bytes())
                .parse_value()
                .is_ok(),
            "{good}"
        );
    }
}

#[test]
fn errors_point_at_the_stream_offset() {
    let events = frame(&Config::default(), b"{}\n{\"a\":tru}\n");
    let Event::Line(line) = &events[1] else {
        panic!()
    };
    let err = line.parse_value().unwrap_err();
    assert_eq!((err.number(), err.offset()), (2, 11));
    assert_eq!(&b"{}\n{\"a\":tru}\n"[11..12], b"}");
}

#[test]
fn parses_into_borrowed_types() {
    #[derive(serde::Deserialize)]
    struct Msg<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
    }
    let line = first_line(b"{\"id\": 18446744073709551616}\n");
    let msg: Msg<'_> = line.parse().unwrap();
    assert_eq!(msg.id.get(), "18446744073709551616");
    let err = line.parse::<Vec<u8>>().unwrap_err();
    assert!(!err.is_syntax(), "wrong shape is not a syntax error: {err}");
}

#[test]
fn encoder_round_trips_through_the_framer() {
    let values = [
        json!({"jsonrpc": "2.0", "method": "x\ny\r\u{2028}", "id": 1}),
        json!("line\nbreak"),
        json!([1, {"a": null}]),
    ];
    let mut stream = Vec::new();
    for v in &values {
        encode(v, &mut stream).unwrap();
    }
    assert_eq!(stream.iter().filter(|&&b| b == b'\n').count(), values.len());
    let back: Vec<Value> = frame(&Config::default(), &stream)
        .into_iter()
        .map(|e| match e {
            Event::Line(l) => l.parse_value().unwrap(),
            Event::Problem(p) => panic!("{p}"),
        })
        .collect();
    assert_eq!(back, values);
}

#[test]
fn encoder_never_emits_a_raw_newline_from_a_raw_value() {
    let raw =
        RawValue::from_string("{\n  \"a\": \"b\\nc\",\r\n  \"d\": [1,\n2]\n}".into()).unwrap();
    let out = encode_to_vec(&raw).unwrap();
    assert_eq!(out, b"{  \"a\": \"b\\nc\",  \"d\": [1,2]}\n");
}
