#!/usr/bin/env bash
# Builds the Java side of the interoperability tests (interop/java: Apache Paimon's Java library behind
# a small CLI) into interop/java/target/tide-interop.jar with Maven (local repository ~/.m2). Skips the
# build when the jar is newer than the pom and every source; offline when ~/.m2 already holds what the
# build needs. Java 17 and Maven come from scripts/install-deps.sh; a missing one is an error.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="$root/interop/java"
jar="$project/target/tide-interop.jar"
for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-interop: $tool is missing; run scripts/install-deps.sh (it installs openjdk-17-jdk-headless and maven)" >&2
    exit 1
  fi
done
if [ -f "$jar" ] && [ -z "$(find "$project/pom.xml" "$project/src" -newer "$jar" -print -quit)" ]; then
  exit 0
fi
cd "$project"
echo "build-interop: building $jar"
# Offline first (fast when ~/.m2 has everything), then online.
mvn -q -B -o package 2>/dev/null || mvn -q -B package
test -f "$jar"
