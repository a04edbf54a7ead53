#!/usr/bin/env bash
# fuzz.sh [SECONDS] - run every Go fuzz target in the module for SECONDS each
# (default 20), one after the other. Each target also runs on its seed corpus
# in plain `go test`; this adds coverage-guided inputs. A crash fails the
# script and leaves the failing input under the package's testdata/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
status=0
while IFS= read -r file; do
	dir=$(dirname "$file")
	for name in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
		printf '%s %s: ' "$dir" "$name"
		if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" "./$dir" 2>&1); then
			echo "$out" | grep -oE 'execs: [0-9]+' | tail -1 || echo ok
		else
			echo FAILED
			echo "$out" | tail -30
			status=1
		fi
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sed 's#^\./##' | sort)
exit $status
