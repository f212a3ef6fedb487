#!/usr/bin/env bash
# Runs every fuzz target in the repository for FUZZTIME (default 5s) each.
# `go test -fuzz` accepts one target per run, hence the loop.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
fuzztime=${FUZZTIME:-5s}

found=0
while IFS= read -r file; do
	dir=$(dirname "$file")
	for target in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file"); do
		found=1
		echo "== $dir $target ($fuzztime)"
		"$go" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$dir"
	done
done < <(find . -path './.*' -prune -o -name '*_test.go' -exec grep -lE '^func Fuzz' {} + | sort)

if [ "$found" -eq 0 ]; then
	echo "no fuzz targets yet"
fi
