#!/usr/bin/env bash
# Whole-process benchmarks of tether's hot paths on a generated history,
# next to their floors and a peer tool (ccusage), with the issue's targets.
#
#   scripts/bench.sh            10,000 sessions (several GB), ~10 minutes
#   scripts/bench.sh --quick    500 sessions, smaller files, about a minute
#   options: --sessions N  --reps N  --keep (leave the temp dir)  --no-peer
#
# Every figure is the median of several runs; RSS is the peak over them.
# Nothing here fails on timing: only a broken command fails the script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0 keep=0 peer=1 sessions="" reps=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--keep) keep=1 ;;
	--no-peer) peer=0 ;;
	--sessions) sessions="$2"; shift ;;
	--reps) reps="$2"; shift ;;
	-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

if [ "$quick" = 1 ]; then
	: "${sessions:=500}" "${reps:=7}"
	projects=20 maxsize=8M trimsize=64M listreps=3 trimreps=2
else
	: "${sessions:=10000}" "${reps:=15}"
	projects=200 maxsize=256M trimsize=1G listreps=5 trimreps=3
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tether-bench.XXXXXX")"
cleanup() {
	if [ "$keep" = 1 ]; then echo "bench: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
log() { printf 'bench: %s\n' "$*" >&2; }

bin="$tmp/bin"
log "building tether, tether-hot, benchrun, gencorpus and an empty Go program"
go build -o "$bin/tether" ./cmd/tether
go build -o "$bin/tether-hot" ./cmd/tether-hot
go build -o "$bin/emptygo" ./tools/emptygo
go build -o "$bin/gowrap" ./tools/gowrap
go build -o "$bin/ftsfloor" ./tools/ftsfloor
go build -o "$bin/scanfloor" ./tools/scanfloor
go build -o "$bin/benchrun" ./tools/benchrun
go build -o "$bin/gencorpus" ./tools/gencorpus
# The programs whose start is timed (tether, tether-hot and the Go floors)
# are copied by read and write, as install.sh installs tether: the linker
# writes its output through a mapping, and an executable whose pages came
# into the page cache that way starts slower (docs/performance.md: ~0.5 ms
# of CPU for tether-hot, ~0.1 ms for the empty program).
for b in tether tether-hot emptygo gowrap; do
	dd if="$bin/$b" of="$bin/$b.installed" bs=1048576 2>/dev/null
	chmod 0755 "$bin/$b.installed"
	mv -f -- "$bin/$b.installed" "$bin/$b"
done
# The picker's keystroke benchmark, compiled now: below, HOME and the XDG
# dirs point at the throw-away corpus, which would hide Go's caches.
go test -c -o "$bin/picker.test" ./picker
tether="$bin/tether"
# The hooks, the statusLine, the shell scripts and the shims run tether-hot
# (what tether hooks install / tether init write when it is installed).
hot="$bin/tether-hot"

# A throw-away HOME and every XDG directory: nothing here touches the real
# ~/.claude, ~/.codex or the user's tether data (the listing archives every
# transcript it sees into $XDG_DATA_HOME/tether/archive), and no TETHER_*
# setting of the user's (TETHER_CONFIG, ...) applies.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^TETHER_' || true)
export HOME="$tmp/home"
export CLAUDE_CONFIG_DIR="$HOME/.claude" CODEX_HOME="$HOME/.codex"
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
export XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run"
mkdir -m 0700 "$XDG_RUNTIME_DIR"
export TETHER_EXIT_LINE=0 NO_COLOR=1

log "generating $sessions sessions (max $maxsize each), a 50M transcript and a $trimsize one"
gen_start=$SECONDS
"$bin/gencorpus" -dir "$HOME" -sessions "$sessions" -projects "$projects" -seed 1 -max-size "$maxsize" >"$tmp/corpus.txt"
"$bin/gencorpus" -dir "$tmp/big" -sessions 1 -projects 1 -seed 2 -size 50M -claude-only >"$tmp/big.txt"
"$bin/gencorpus" -dir "$tmp/trim" -sessions 1 -projects 1 -seed 3 -size "$trimsize" -claude-only >"$tmp/trim.txt"
corpus_bytes="$(du -sb "$HOME/.claude" "$HOME/.codex" | awk '{s += $1} END {printf "%.0f", s}')"
# The corpus's gigabytes are written back to disk in the background for
# a while: wait for it here, not during the hot paths' millisecond timings.
sync
log "corpus: $(cut -d' ' -f1-3 "$tmp/corpus.txt"), $((corpus_bytes >> 20)) MiB, in $((SECONDS - gen_start)) s"
big="$(awk '{print $NF}' "$tmp/big.txt")"
trimsrc="$(awk '{print $NF}' "$tmp/trim.txt")"
bigid="$(basename "$big" .jsonl)"
projdir="$(find "$tmp/big/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)/"

# measure NAME BENCHRUN-ARGS…: sets med, min (ms), cpu (median user+system
# ms, steadier than wall time when the machine is loaded) and rss (KiB).
med="" rss="" min="" cpu=""
measure() {
	local name="$1" out
	shift
	if ! out="$("$bin/benchrun" "$@")"; then
		echo "bench.sh: $name: the command failed" >&2
		exit 1
	fi
	med="${out#*median_ms=}" && med="${med%% *}"
	min="${out#*min_ms=}" && min="${min%% *}"
	cpu="${out#*cpu_ms=}" && cpu="${cpu%% *}"
	rss="${out#*rss_kib=}" && rss="${rss%% *}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }

rows=()
row() { rows+=("$(printf '%-40s|%12s|%10s|%-26s|%s' "$@")"); }

# --- hooks --------------------------------------------------------------
payload() { # EVENT EXTRA-JSON
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}\n' \
		"$bigid" "$big" "${projdir%/}" "$1" "$2"
}
payload Stop ',"stop_hook_active":false,"last_assistant_message":"done"' >"$tmp/stop.json"
payload SessionStart ',"source":"startup"' >"$tmp/start.json"
payload PostToolUse ',"tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok","stderr":"","interrupted":false},"tool_use_id":"toolu_1"' >"$tmp/tool.json"
# A PostToolUse after reading a large file: a 20 MiB tool_response.
payload PostToolUse ",\"tool_name\":\"Read\",\"tool_response\":{\"content\":\"$(head -c 15728640 /dev/zero | base64 -w0)\"}" >"$tmp/bigtool.json"

log "hooks"
measure floor -n "$reps" -stdin "$tmp/stop.json" -- cat
catfloor="$med"
row "cat >/dev/null (floor)" "$catfloor ms" "$(mib "$rss")" "" ""
# The floor the hot paths are judged by: starting an empty Go program.
measure "empty Go" -n "$reps" -stdin "$tmp/stop.json" -- "$bin/emptygo"
floor="$med" floormin="$min" floorcpu="$cpu"
row "empty Go program (floor)" "$floor ms" "$(mib "$rss")" "" "$(ratio "$floor" "$catfloor") cat; min $min ms, cpu $cpu ms"
# hotrow LABEL [MAX-MS MAX-RATIO]: a hot path's row, judged on the median
# by both targets (docs/performance.md: <= 5 ms and <= 2.5x the empty Go
# program unless given); the fastest run and the CPU time, which a loaded
# machine disturbs less, are compared with the empty program's too.
hotrow() {
	local ok=met maxms="${2:-5}" maxratio="${3:-2.5}"
	awk -v m="$med" -v f="$floor" -v t="$maxms" -v r="$maxratio" 'BEGIN { exit !(m <= t && m <= r * f) }' || ok=MISSED
	row "$1" "$med ms" "$(mib "$rss")" "<= $maxms ms, <= ${maxratio}x empty Go" \
		"$(ratio "$med" "$floor") empty Go, $ok; min $min ms ($(ratio "$min" "$floormin")), cpu $cpu ms ($(ratio "$cpu" "$floorcpu"))"
}
for ev in stop start tool; do
	case "$ev" in
	stop) label="hook Stop (50 MB transcript)" ;;
	start) label="hook SessionStart" ;;
	tool) label="hook PostToolUse" ;;
	esac
	measure "$label" -n "$reps" -stdin "$tmp/$ev.json" -- "$hot" hook
	hotrow "$label"
done
# A 20 MiB payload cannot be read in 5 ms: it is judged against reading it
# (dd to /dev/null), and by its memory (streamed, not kept).
measure "payload read" -n "$reps" -stdin "$tmp/bigtool.json" -- dd of=/dev/null bs=1M status=none
payloadms="$med"
measure "hook big payload" -n "$reps" -stdin "$tmp/bigtool.json" -- "$hot" hook
row "hook PostToolUse (20 MiB payload)" "$med ms" "$(mib "$rss")" "streamed, bounded memory" \
	"$(ratio "$med" "$payloadms") reading the payload ($payloadms ms, dd); cpu $cpu ms"
# The same hook through the full binary (a tether installed without
# tether-hot): what tether-hot saves.
measure "hook via tether" -n "$reps" -stdin "$tmp/tool.json" -- "$tether" hook
row "  hook PostToolUse, full tether binary" "$med ms" "$(mib "$rss")" "" "$(ratio "$med" "$floor") empty Go; min $min ms ($(ratio "$min" "$floormin")), cpu $cpu ms ($(ratio "$cpu" "$floorcpu"))"

# statusLine: Claude Code runs it on every render (the payload's shape is
# that of claude-statusline-stdin in the format notes).
printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","model":{"id":"claude-opus-5-5","display_name":"Opus 5.5"},"workspace":{"current_dir":"%s","project_dir":"%s","added_dirs":[]},"version":"2.1.332","output_style":{"name":"default"},"cost":{"total_cost_usd":0.0033,"total_duration_ms":12838,"total_api_duration_ms":113,"total_lines_added":0,"total_lines_removed":0},"context_window":{"total_input_tokens":1136,"total_output_tokens":46,"context_window_size":1000000,"current_usage":{"input_tokens":136,"output_tokens":46,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000},"used_percentage":0,"remaining_percentage":100},"exceeds_200k_tokens":false}\n' \
	"$bigid" "$big" "${projdir%/}" "${projdir%/}" "${projdir%/}" >"$tmp/statusline.json"
measure statusline -n "$reps" -stdin "$tmp/statusline.json" -- "$hot" statusline
statusline_ms="$med"
hotrow "statusline"

# --- prompt and completion (the shell integration's hot paths)
notes=()
measure "prompt" -n "$reps" -- "$hot" prompt
hotrow "tether prompt"
# Completion answers from the session index; build it first, as the
# shell's background refresh would.
"$tether" complete --refresh-index >/dev/null 2>&1 || notes+=("tether complete --refresh-index failed")
measure "complete" -n "$reps" -- "$hot" complete --shell zsh -- claude --resume ''
hotrow "tether complete (claude --resume, $sessions sessions)" 10 5
# tether's own command line is completed from its command tree, which only
# the full binary has: tether-hot hands it over (one exec more).
measure "complete tether" -n "$reps" -- "$hot" complete --shell zsh -- tether sessions ''
row "  tether complete (tether sessions …)" "$med ms" "$(mib "$rss")" "" "$(ratio "$med" "$floor") empty Go, via tether"

# --- session list -----------------------------------------------------------
log "sessions list ($sessions sessions)"
measure "list cold" -n "$listreps" -pre "'$tether' sessions cache clear" -- "$tether" sessions list --all
cold="$med"
row "sessions list cold (cache cleared)" "$med ms" "$(mib "$rss")" "<= 3000 ms" "cpu $cpu ms"
measure "list warm" -n "$reps" -- "$tether" sessions list --all
warm="$med"
row "sessions list warm" "$med ms" "$(mib "$rss")" "<= 100 ms, <= 64 MiB" "cpu $cpu ms"
rchar() { sed -n 's/.*rchar: \([0-9]*\).*/\1/p' "$1"; }
"$tether" sessions cache clear >/dev/null
TETHER_DEBUG_IO=1 "$tether" sessions list --all 2>"$tmp/io-cold.txt" >/dev/null
TETHER_DEBUG_IO=1 "$tether" sessions list --all 2>"$tmp/io-warm.txt" >/dev/null
per() { awk -v b="$1" -v n="$sessions" 'BEGIN { printf "%.1f KiB", b / n / 1024 }'; }
row "  bytes read per file, cold" "$(per "$(rchar "$tmp/io-cold.txt")")" "" "<= 128 KiB" "all reads of the process / files"
row "  bytes read per file, warm" "$(per "$(rchar "$tmp/io-warm.txt")")" "" "stat + cache file" "all reads of the process / files"

# --- picker -------------------------------------------------------------------
# First paint: the whole process, headless (no terminal), drawing the first
# frame from the picker's snapshot of the last listing; the first run lists
# the catalog and writes that snapshot. Per keystroke: a Go benchmark of the
# model re-filtering 10,000 synthetic sessions (and redrawing) per key.
log "picker ($sessions sessions)"
"$tether" pick --headless >/dev/null
measure "pick first paint" -n "$reps" -- "$tether" pick --headless
row "pick first paint (headless)" "$med ms" "$(mib "$rss")" "<= 100 ms at 10k sessions" "$(ratio "$med" "$floor") empty Go"
# The benchmark also reports CPU time per key: on a loaded machine the wall
# time is mostly the wait for a CPU.
keybench="$("$bin/picker.test" -test.run '^$' -test.bench '^BenchmarkKeystroke$' -test.benchtime 300x | grep '^BenchmarkKeystroke')"
keyms="$(awk '{ printf "%.2f", $3 / 1e6 }' <<<"$keybench")"
keycpu="$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-ms/op") printf "%.2f", $i }' <<<"$keybench")"
row "pick keystroke (10,000 rows, Go bench)" "$keyms ms" "" "<= 16 ms" "$keycpu ms CPU per key"
# --- archive ----------------------------------------------------------------
# archive sync over the whole corpus, into its own directory per mode: the
# first run links (or compresses) every transcript, the second finds
# nothing new (a stat per file, plus the 68-byte trailer in copy mode).
for mode in link copy; do
	adir="$tmp/archive-$mode"
	printf '[archive]\nmode = "%s"\ndir = "%s"\n' "$mode" "$adir" >"$tmp/archive-$mode.toml"
	log "archive sync, $mode mode ($sessions sessions)"
	measure "archive sync $mode" -n 1 -warmup 0 -pre "rm -rf '$adir'" -- env TETHER_CONFIG="$tmp/archive-$mode.toml" "$tether" archive sync
	first="$med" firstrss="$rss"
	measure "archive sync $mode again" -n "$listreps" -- env TETHER_CONFIG="$tmp/archive-$mode.toml" "$tether" archive sync
	# du counts an inode once across its arguments: what the archive adds
	# to the live transcripts (0 for links while they live).
	abytes="$(du -scb "$HOME/.claude" "$HOME/.codex" "$adir" | awk -v c="$corpus_bytes" 'END {printf "%.0f", $1 - c}')"
	rate="$(awk -v b="$corpus_bytes" -v ms="$first" 'BEGIN { printf "%.0f MB/s", b / 1e6 / (ms / 1000) }')"
	row "archive sync, $mode, first" "$first ms" "$(mib "$firstrss")" "" "$rate of transcripts"
	row "archive sync, $mode, nothing new" "$med ms" "$(mib "$rss")" "" "archive adds $((abytes >> 20)) MiB on disk (du)"
	rm -rf "$adir"
done
# --- search -----------------------------------------------------------------
log "sessions search ($sessions sessions)"
idx="$XDG_CACHE_HOME/tether/search.db"
# Building the index reads every transcript once: reading them (cat) is its floor.
# shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
measure "read corpus" -n 1 -warmup 0 -- sh -c 'find "$1" "$2" -name "*.jsonl" -exec cat {} + >/dev/null' sh "$CLAUDE_CONFIG_DIR" "$CODEX_HOME"
readall="$med"
measure "index build" -n 1 -warmup 0 -pre "rm -f '$idx' '$idx-journal'" -- "$tether" sessions search --json parser
row "search, first index build" "$med ms" "$(mib "$rss")" "<= 3x list cold" "$(ratio "$med" "$cold") list cold, $(ratio "$med" "$readall") cat corpus"
row "  cat every transcript (floor)" "$readall ms" "" "" "$((corpus_bytes >> 20)) MiB"
# The other floor: SQLite's FTS5 indexing the same text, alone (the text is
# copied out of the index just built into a plain table first).
floorout="$("$bin/ftsfloor" "$idx")"
ftsms="${floorout#*ms=}" && ftsms="${ftsms%% *}"
ftstext="${floorout#*text_bytes=}"
row "  FTS5 indexing the text alone (floor)" "$ftsms ms" "" "" "$(ratio "$ftsms" "$cold") list cold; $((ftstext >> 20)) MiB of text, one writer"
row "  index size" "$(du -k "$idx" | awk '{printf "%.0f MiB", $1 / 1024}')" "" "" ""
measure "search warm" -n "$reps" -- "$tether" sessions search --json parser
row "search warm (common word)" "$med ms" "$(mib "$rss")" "<= 100 ms" "$(ratio "$med" "$warm") list warm"
measure "search warm phrase" -n "$reps" -- "$tether" sessions search --json --all-text '"failing test"' 'pars*'
row "search warm (--all-text phrase + prefix)" "$med ms" "$(mib "$rss")" "<= 100 ms" "$(ratio "$med" "$warm") list warm"

# --- trim -------------------------------------------------------------------
log "trim ($trimsize transcript)"
trimbytes="$(stat -c %s "$trimsrc")"
work="$(dirname "$trimsrc")/work.jsonl"
mbs() { awk -v b="$trimbytes" -v ms="$1" 'BEGIN { printf "%.0f MB/s", b / 1e6 / (ms / 1000) }'; }
measure cp -n "$trimreps" -pre "rm -f '$tmp/cp.out'" -- cp "$trimsrc" "$tmp/cp.out"
cpms="$med"
row "cp (floor), $((trimbytes >> 20)) MiB" "$(mbs "$med")" "$(mib "$rss")" "" ""
rm -f "$tmp/cp.out"
for policy in fit keep; do
	case "$policy" in
	fit) args=(--fit 60%) ;;
	keep) args=(--keep internal/file1.go) ;;
	esac
	measure "trim $policy" -n "$trimreps" -pre "rm -f '$work'*; cp '$trimsrc' '$work'" -- "$tether" trim "${args[@]}" --force "$work"
	row "trim ${args[*]}" "$(mbs "$med")" "$(mib "$rss")" ">= 300 MB/s, <= 64 MiB + record" "$(ratio "$med" "$cpms") cp time, cpu $cpu ms"
done
rm -f "$work"*

# --- wrapper ------------------------------------------------------------------
log "wrapper"
mkdir -p "$tmp/fake"
printf '#!/bin/sh\nexit 0\n' >"$tmp/fake/claude"
chmod +x "$tmp/fake/claude"
measure direct -n "$reps" -- "$tmp/fake/claude" --version
direct="$med" directmin="$min"
# The floor of any transparent wrapper that stays the parent and is written
# in Go: an otherwise empty Go program that forks the child, passes on the
# signals sent to it, waits and exits with its status (tools/gowrap).
measure "Go wrapper floor" -n "$reps" -- "$bin/gowrap" "$tmp/fake/claude" --version
gowrap="$med" gowrapmin="$min"
export TETHER_CLAUDE_BIN="$tmp/fake/claude"
measure wrapped -n "$reps" -- "$hot" run claude --version
unset TETHER_CLAUDE_BIN
added="$(awk -v a="$med" -v b="$direct" 'BEGIN { printf "%.2f", a - b }')"
row "no-op claude, direct" "$direct ms" "" "" "min $directmin ms"
row "  minimal Go wrapper (floor)" "$gowrap ms" "" "" "+$(awk -v a="$gowrap" -v b="$direct" 'BEGIN { printf "%.2f", a - b }') ms; min $gowrapmin ms (+$(awk -v a="$gowrapmin" -v b="$directmin" 'BEGIN { printf "%.2f", a - b }') ms)"
row "tether run claude (no-op)" "$med ms" "$(mib "$rss")" "<= 2 ms added" "+$added ms; min $min ms (+$(awk -v a="$min" -v b="$directmin" 'BEGIN { printf "%.2f", a - b }') ms); $(ratio "$med" "$gowrap") Go wrapper floor"

# --- usage --------------------------------------------------------------------
# tether usage daily: cold (usage caches and ledgers cleared), warm, and
# after appending one response to 10 sessions (bytes read), each as a
# ratio to ccusage 20's native binary on the same files (installed as the
# e2e suite installs it; it reads every transcript every time). ccusage
# reports one agent a run, so its time is that of `ccusage claude daily`
# and `ccusage codex daily` together, as tether counts both in one.
log "usage ($sessions sessions)"
ccu_ms=""
if [ "$peer" = 1 ] && ccu="$(scripts/e2e-clis.sh ccusage-20.0.24 2>/dev/null | sed -n 's/^ccusage-20.0.24=//p')" && [ -n "$ccu" ]; then
	measure "ccusage 20 claude daily" -n 1 -warmup 0 -- "$ccu" claude daily --json --offline
	ccu_claude="$med" ccu_rss="$rss"
	measure "ccusage 20 codex daily" -n 1 -warmup 0 -- "$ccu" codex daily --json --offline
	ccu_ms="$(awk -v a="$ccu_claude" -v b="$med" 'BEGIN { printf "%.1f", a + b }')"
	row "peer: ccusage 20 claude + codex daily" "$ccu_ms ms" "$(mib "$ccu_rss")" "" "claude $ccu_claude ms, codex $med ms ($(mib "$rss"))"
else
	notes+=("ccusage 20 not installable here; usage ratios skipped")
fi
# vs MS MIN-RATIO: how many times faster than ccusage 20, and whether the
# target is met.
vs() {
	[ -n "$ccu_ms" ] || { echo "no peer"; return; }
	awk -v p="$ccu_ms" -v m="$1" -v t="$2" 'BEGIN { printf "%.1fx faster than ccusage 20, %s", p / m, (p >= t * m) ? "met" : "MISSED" }'
}
clear_usage="rm -f '$XDG_CACHE_HOME'/tether/catalog-*-usage.gob '$XDG_CACHE_HOME'/tether/usage-*.ledger*"
measure "usage cold" -n "$listreps" -pre "$clear_usage" -- "$tether" usage daily --json
row "usage daily cold (caches cleared)" "$med ms" "$(mib "$rss")" ">= 5x ccusage, <= 128 MiB" "$(vs "$med" 5); cpu $cpu ms"
# A cold report reads every transcript: reading them on every core (cat,
# from the page cache) is its floor, and reading them as the count does,
# stopping at each byte its marker search stops at (tools/scanfloor),
# nothing parsed, the floor of any count that reads every file.
cores="$(getconf _NPROCESSORS_ONLN)"
# shellcheck disable=SC2016 # $1, $2 and $3 are the inner shell's arguments
measure "read transcripts" -n 3 -- sh -c 'find "$1" "$2" -name "*.jsonl" -print0 | xargs -0 -P "$3" -n 64 cat >/dev/null' sh "$CLAUDE_CONFIG_DIR" "$CODEX_HOME" "$cores"
catms="$med"
row "  cat transcripts, $cores at once (floor)" "$catms ms" "" "" "$((corpus_bytes >> 20)) MiB${ccu_ms:+; 5x ccusage would be $(awk -v p="$ccu_ms" 'BEGIN { printf "%.0f", p / 5 }') ms}"
measure "scan floor" -n 3 -- "$bin/scanfloor" "$CLAUDE_CONFIG_DIR" "$CODEX_HOME"
row "  read + search transcripts (floor)" "$med ms" "$(mib "$rss")" "" "tools/scanfloor, $(ratio "$med" "$catms") cat"
measure "usage warm" -n "$reps" -- "$tether" usage daily --json
row "usage daily warm" "$med ms" "$(mib "$rss")" ">= 50x ccusage" "$(vs "$med" 50); cpu $cpu ms"
# The statusLine with the today segment (the spend the reports above kept)
# against the same segments without it, alternately: it reads a stored sum.
segs='"model", "context", "branch", "cost"'
printf '[statusline]\nsegments = [%s]\n' "$segs" >"$tmp/without-today.toml"
printf '[statusline]\nsegments = [%s, "today"]\n' "$segs" >"$tmp/with-today.toml"
sl=""
for _ in 1 2; do
	for cfg in without-today with-today; do
		TETHER_CONFIG="$tmp/$cfg.toml" measure "statusline $cfg" -n "$((reps * 4))" -stdin "$tmp/statusline.json" -- "$hot" statusline
		sl="$sl${sl:+, }${cfg%-today} $cpu ms"
	done
done
row "  statusline + today segment (cpu)" "" "" "adds nothing measurable" "$sl (alternately, twice)"
ledgers=("$XDG_CACHE_HOME"/tether/usage-*.ledger)
ledger_bytes="$(cat "${ledgers[@]}" 2>/dev/null | wc -c)"
find "$CLAUDE_CONFIG_DIR/projects" -name '*.jsonl' | sed -n '1,10p' >"$tmp/appended.txt"
added=0
while IFS= read -r f; do
	line='{"type":"assistant","timestamp":"2026-03-01T10:00:00.000Z","requestId":"req_bench","message":{"id":"msg_bench_'"$added"'","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":3,"output_tokens":2}}}'
	printf '%s\n' "$line" >>"$f"
	added=$((added + ${#line} + 1))
done <"$tmp/appended.txt"
TETHER_DEBUG_IO=1 "$tether" usage daily --json 2>"$tmp/io-usage.txt" >/dev/null
read_bytes="$(rchar "$tmp/io-usage.txt")"
# Every read of the process less the ledgers (read whole): the
# transcripts' appended bytes, a 4 KiB check of each grown file's head,
# ~20 keys of the keys files per appended response, the configuration.
row "  usage after appending to 10 sessions" "$((read_bytes >> 10)) KiB read" "" "reads what was appended" \
	"$(((read_bytes - ledger_bytes) >> 10)) KiB besides the ledgers ($((ledger_bytes >> 10)) KiB) for $added bytes appended; ccusage reads $(du -sm "$CLAUDE_CONFIG_DIR/projects" "$CODEX_HOME/sessions" | awk '{s += $1} END {print s}') MiB"

# --- peer: ccusage ------------------------------------------------------------
if [ "$peer" = 1 ]; then
	ccusage=".cache/ccusage/node_modules/.bin/ccusage"
	if [ ! -x "$ccusage" ] && command -v npm >/dev/null 2>&1; then
		log "installing ccusage@18.0.11 into .cache/ccusage"
		npm install --prefix .cache/ccusage --no-audit --no-fund --silent ccusage@18.0.11 >&2 || true
	fi
	if [ -x "$ccusage" ]; then
		log "ccusage (peer)"
		measure "ccusage session" -n 1 -warmup 0 -- "$ccusage" session --json --offline
		row "peer: ccusage session --json" "$med ms" "$(mib "$rss")" "" "$(ratio "$med" "$cold") tether cold, $(ratio "$med" "$warm") warm"
		measure "ccusage statusline" -n 1 -warmup 0 -stdin "$tmp/statusline.json" -- "$ccusage" statusline --offline --no-cache
		row "peer: ccusage statusline" "$med ms" "$(mib "$rss")" "" "$(ratio "$med" "$statusline_ms") tether statusline"
	else
		notes+=("ccusage not installable here (no npm or offline); peer ratios skipped")
	fi
fi
notes+=("claude --resume (Claude Code's own picker) is an interactive TUI and cannot be scripted: not compared")

# --- report -------------------------------------------------------------------
echo
printf 'tether benchmarks: %s sessions, %d MiB, %s cores, load %s, %s\n' "$sessions" "$((corpus_bytes >> 20))" \
	"$(nproc 2>/dev/null || echo '?')" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" "$(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-40s|%12s|%10s|%-26s|%s\n' "figure" "median" "peak RSS" "target" "ratio"
printf '%s\n' "${rows[@]}"
for n in "${notes[@]}"; do echo "note: $n"; done
