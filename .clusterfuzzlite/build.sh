#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ into $OUT, with a seed corpus zip
# per target from corpus/<target>/ (the committed seeds and regressions).
#
# In the ClusterFuzzLite / OSS-Fuzz image: nightly Rust, and the sanitizer
# the base image's environment selects (AddressSanitizer for Rust).
# `cargo xtask cflite-build` runs this same script on a developer's machine
# or in rpcspec's own CI with RPCSPEC_CFLITE_LOCAL=1: stable Rust, no
# sanitizer (cargo fuzz build -s none), $SRC and $OUT in a temporary folder.
set -euo pipefail # whoever runs it, whatever the shebang line says

cd "$SRC/rpcspec"

if [[ "${RPCSPEC_CFLITE_LOCAL:-0}" == 1 ]]; then
  # Release with debug assertions, as `cargo fuzz run` (and so `cargo xtask
  # fuzz`) builds: the same flags, so the build of the fuzz smoke is reused.
  cargo fuzz build -s none
else
  cargo fuzz build -O
fi

host=$(rustc -vV | sed -n 's/^host: //p')
built="fuzz/target/$host/release"

for source in fuzz/fuzz_targets/*.rs; do
  target=$(basename "$source" .rs)
  cp "$built/$target" "$OUT/"
  seeds="corpus/$target"
  if [[ -d "$seeds" ]] && [[ -n "$(ls -A "$seeds")" ]]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    # -j: the files alone, no folder inside the zip.
    zip -q -j "$OUT/${target}_seed_corpus.zip" "$seeds"/*
  fi
done
