#!/usr/bin/env bash
# Run a command with HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and every XDG
# directory pointed at a throw-away sentinel tree, then fail if anything
# was written there: a test or script that inherits one of those variables
# instead of setting its own would have written into the user's real
# directories (issue 23: bench.sh filled the user's archive).
#
#   scripts/sentinel.sh COMMAND [ARG...]
#
# Exits with COMMAND's status, or 1 if the sentinel tree changed (the paths
# written are listed). Go's and npm's own caches are pinned to where they
# were before, so the tools behave as usual; TETHER_* variables are unset so
# the user's tether settings (TETHER_CONFIG, ...) cannot leak in.
set -euo pipefail

if [ $# -eq 0 ]; then
	echo "sentinel.sh: usage: scripts/sentinel.sh COMMAND [ARG...]" >&2
	exit 2
fi

# Where the tools keep their caches, computed from the real environment
# before it is replaced.
if command -v go >/dev/null 2>&1; then
	GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)" GOENV="$(go env GOENV)"
	export GOCACHE GOMODCACHE GOPATH GOENV
fi
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"

sentinel="$(mktemp -d "${TMPDIR:-/tmp}/tether-sentinel.XXXXXX")"
marker="SENTINEL: tests must not write here"
dirs=(home home/.claude home/.codex config data state cache runtime)
for d in "${dirs[@]}"; do
	mkdir -p "$sentinel/$d"
	printf '%s\n' "$marker" >"$sentinel/$d/SENTINEL"
done
chmod 0700 "$sentinel/runtime"
# Go's telemetry counters live under XDG_CONFIG_HOME: off for this tree.
mkdir -p "$sentinel/config/go/telemetry"
echo "off 2000-01-01" >"$sentinel/config/go/telemetry/mode"

while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^TETHER_' || true)
# OpenCode's database is under XDG_DATA_HOME unless OPENCODE_DB names one.
unset OPENCODE_DB
export HOME="$sentinel/home"
export CLAUDE_CONFIG_DIR="$HOME/.claude" CODEX_HOME="$HOME/.codex"
export XDG_CONFIG_HOME="$sentinel/config" XDG_DATA_HOME="$sentinel/data" XDG_STATE_HOME="$sentinel/state"
export XDG_CACHE_HOME="$sentinel/cache" XDG_RUNTIME_DIR="$sentinel/runtime"
# Tells test.sh it already runs inside a sentinel.
export TEST_SENTINEL="$sentinel"

# Every path with its type, size and modification time: a new file, a
# rewritten marker or a touched directory all show up.
listing() { (cd "$sentinel" && find . -printf '%p %y %s %T@\n' | LC_ALL=C sort); }
before="$(listing)"

status=0
"$@" || status=$?

after="$(listing)"
if [ "$before" != "$after" ]; then
	echo "sentinel.sh: $1 wrote into the sentinel HOME/XDG tree $sentinel (kept for inspection):" >&2
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | awk '
		/^[<>] \.\// { p = substr($2, 3); if (!(p in seen)) paths[++n] = p; seen[p] = seen[p] $1 }
		END {
			if (n > 50) print "  (" n " paths, the first 50:)"
			for (i = 1; i <= n && i <= 50; i++) {
				s = seen[paths[i]]
				print "  " (s == ">" ? "new      " : s == "<" ? "removed  " : "changed  ") paths[i]
			}
		}' >&2
	exit 1
fi
rm -rf "$sentinel"
exit "$status"
