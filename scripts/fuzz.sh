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
		for attempt in 1 2; do
			crashers=$( (find "$dir/testdata/fuzz/$name" -type f 2>/dev/null || true) | wc -l)
			if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" "./$dir" 2>&1); then
				echo "$out" | grep -oE 'execs: [0-9]+' | tail -1 || echo ok
				break
			fi
			# Go 1.26's fuzz coordinator can fail a target with a bare
			# "context deadline exceeded" when -fuzztime ends while a worker
			# is busy (golang/go#75804, fixed in Go 1.27): no input failed and
			# no crasher is written. Run such a target once more; a crash, or
			# the same failure twice, fails the script.
			now=$( (find "$dir/testdata/fuzz/$name" -type f 2>/dev/null || true) | wc -l)
			if [ "$attempt" = 1 ] && [ "$now" = "$crashers" ] && echo "$out" | grep -q 'context deadline exceeded' &&
				! echo "$out" | grep -qE 'panic:|Failing input written|--- FAIL: .*#'; then
				printf 'deadline race (golang/go#75804, no crasher), again: '
				continue
			fi
			echo FAILED
			echo "$out" | tail -30
			status=1
			break
		done
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sed 's#^\./##' | sort)
exit $status
