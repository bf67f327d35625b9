#!/usr/bin/env bash
# Regenerate the golden samples (testdata/<agent>-<version>/golden-*, e.g.
# testdata/claude-code-2.1.332/golden-tool-session.jsonl) from the real, pinned
# CLIs (Claude Code 2.1.332 and 2.0.77, Codex 0.171.0) run against the fake
# model API: transcripts (tool session, fork, prompt too long), a Codex
# rollout with its state-DB rows and schema, and hook payloads of both.
# Paths are rewritten to /home/example/..., ids and times renumbered, long
# vendor strings cut to 200 characters.
#
#   scripts/golden.sh            rewrite the samples
#   scripts/golden.sh --check    only check that today's output has the
#                                shape of the committed samples
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=(-update)
case "${1:-}" in
"") ;;
--check) mode=() ;;
-h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "golden.sh: unknown option: $1" >&2; exit 2 ;;
esac

set +e
go test -count=1 -tags e2e -timeout 15m ./e2e -run '^(TestClaude|TestCodex|TestOpenCode)$' -v "${mode[@]}" |
	grep -E '^(=== RUN|--- |ok|FAIL|PASS)|golden|_test\.go:[0-9]+: [^e]'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
	echo "golden.sh: the scenarios failed (status $status); see the output above" >&2
	exit "$status"
fi
if [ "${#mode[@]}" -gt 0 ]; then
	echo "golden.sh: samples written to testdata/*/golden-*; review with: git diff --stat testdata/" >&2
fi
