#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ into $OUT, with a seed corpus zip
# per target from corpus/<target>/ (the committed seeds and regressions).
#
# In the ClusterFuzzLite / OSS-Fuzz image: nightly Rust, and the sanitizer
# the base image's environment selects (AddressSanitizer for Rust).
# `cargo xtask cflite-build` runs this same script on a developer's machine
# or in rpcspec's own CI with RPCSPEC_CFLITE_LOCAL=1: stable Rust, no
# sanitizer, unoptimised (cargo fuzz build --dev -s none), $SRC and $OUT in
# a temporary folder.
set -euo pipefail # whoever runs it, whatever the shebang line says

cd "$SRC/rpcspec"

if [[ "${RPCSPEC_CFLITE_LOCAL:-0}" == 1 ]]; then
  # Unoptimised, with debug assertions, as CI's fuzz smoke builds (`cargo
  # xtask fuzz --dev`): the same flags, so that build is reused.
  cargo fuzz build --dev -s none
  profile=debug
else
  cargo fuzz build -O
  profile=release
fi

host=$(rustc -vV | sed -n 's/^host: //p')
built="fuzz/target/$host/$profile"

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
