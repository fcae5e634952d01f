#!/usr/bin/env bash
# Builds the pgoutput libFuzzer target (src/tide/postgres/pgoutput_decoder_fuzz.cc) with clang, ASan and
# UBSan, and runs it for the given number of seconds (default 60) from the seed corpus in
# tests/fuzz/pgoutput_corpus/. New inputs go to build-fuzz/pgoutput_corpus/ (the seeds stay untouched);
# a crash leaves its input in build-fuzz/artifacts/ and makes the script exit non-zero.
# Fuzzing is optional, so clang is not in scripts/install-deps.sh: this script installs it when missing.
#
#   scripts/fuzz-pgoutput.sh [seconds] [extra libFuzzer flags...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true

if ! command -v clang++ >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "fuzz-pgoutput: installing clang (Debian package)"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends clang
fi

out="$root/build-fuzz"
mkdir -p "$out/obj" "$out/pgoutput_corpus" "$out/artifacts"
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -I"$root/src" $(pkg-config --cflags spdlog fmt))

sources=(
  "$root"/src/tide/base/*.cc
  "$root"/src/tide/types/*.cc
  "$root"/src/tide/postgres/lsn.cc
  "$root"/src/tide/postgres/pgoutput_message.cc
  "$root"/src/tide/postgres/pgoutput_decoder.cc
  "$root"/src/tide/postgres/pg_relation_cache.cc
  "$root"/src/tide/postgres/replication_envelope.cc
  "$root"/src/tide/postgres/pg_type.cc
  "$root"/src/tide/postgres/pg_type_mapping.cc
  "$root"/src/tide/postgres/pg_value_decoder.cc
)
objects=()
for src in "${sources[@]}"; do
  case "$src" in *_test.cc|*_fuzz.cc) continue ;; esac
  obj="$out/obj/$(echo "${src#$root/}" | tr '/' '_').o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/src" -name '*.h' -newer "$obj" -print -quit)" ]; then
    echo "fuzz-pgoutput: compiling ${src#$root/}"
    clang++ "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
  objects+=("$obj")
done
echo "fuzz-pgoutput: linking $out/pgoutput_decoder_fuzz"
clang++ "${flags[@]}" -fsanitize=fuzzer "$root/src/tide/postgres/pgoutput_decoder_fuzz.cc" "${objects[@]}" \
  $(pkg-config --libs spdlog fmt) -o "$out/pgoutput_decoder_fuzz"

echo "fuzz-pgoutput: running for ${seconds}s"
cd "$out"
./pgoutput_decoder_fuzz -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$@" "$out/pgoutput_corpus" "$root/tests/fuzz/pgoutput_corpus"
