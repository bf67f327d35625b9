#!/usr/bin/env bash
# Run every test: formatting, vet, unit tests, the end-to-end suite
# against the real Claude Code and Codex CLIs (installed from npm on first
# use into .cache/), then one quick run of the benchmark script.
#
#   ./test.sh           everything
#   ./test.sh --quick   skip the end-to-end suite and the benchmark script
#
# Runs under scripts/sentinel.sh: HOME and every XDG directory point at a
# sentinel tree, and the run fails if any test or script wrote there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [ -z "${TEST_SENTINEL:-}" ]; then
	exec scripts/sentinel.sh ./test.sh "$@"
fi

quick=0
for arg in "$@"; do
	case "$arg" in
	--quick) quick=1 ;;
	-h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test.sh: unknown option: $arg" >&2; exit 2 ;;
	esac
done

# Each step prints the seconds the run has taken so far: the suite is
# kept under ~15 minutes on a 2-core machine, and this shows where it goes.
step() { printf '\n== %s (at %ds)\n' "$*" "$SECONDS" >&2; }

# One build configuration for every step: install.sh builds with
# -trimpath, and without it here its test (TestInstallHotBinary) compiled
# every package a second time on a fresh machine, ~90 s of the suite.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"

step "gofmt"
unformatted="$(find . -name '*.go' -not -path './.cache/*' -print0 | xargs -0 gofmt -l)"
if [ -n "$unformatted" ]; then
	echo "test.sh: not gofmt-formatted:" >&2
	echo "$unformatted" >&2
	exit 1
fi

step "go vet"
go vet ./...
go vet -tags e2e ./...

if command -v shellcheck >/dev/null 2>&1; then
	step "shellcheck"
	shellcheck install.sh test.sh .ci/run scripts/*.sh
	# The bash template itself (the rendered scripts are checked by go test).
	shellcheck -s bash shellinit/bash.sh
else
	echo "test.sh: shellcheck not installed; skipping script lint" >&2
fi

# Test output is kept to count the packages that passed for the closing
# summary line.
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
summary() {
	printf '\n%s passed, 0 failed\n' "$(grep -c '^ok ' "$results")"
}

step "unit tests"
go test -count=1 ./... | tee -a "$results"

if [ "$quick" = 1 ]; then
	echo "test.sh: --quick: end-to-end suite skipped" >&2
	summary
	exit 0
fi

step "end-to-end suite (real CLIs, fake model API)"
go test -count=1 -tags e2e -timeout 15m -v ./e2e/... | tee -a "$results"

# Proves scripts/bench.sh still works end to end; its timings are printed,
# never checked (a loaded CI machine must not fail the build).
step "benchmark script (scripts/bench.sh --quick)"
scripts/bench.sh --quick
step "done"
summary
