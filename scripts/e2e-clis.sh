#!/usr/bin/env bash
# Installs the pinned Claude Code, Codex and OpenCode CLIs used by the end-to-end suite
# into .cache/e2e-clis/<name>@<version>/ under the repository root (git-ignored),
# each only once, and prints one line per CLI on stdout:
#
#   claude-2.1.332=/abs/path/to/executable
#   claude-2.0.77=/abs/path/to/executable
#   codex-0.171.0=/abs/path/to/executable
#   opencode-1.18.33=/abs/path/to/executable
#   ccusage-20.0.24=/abs/path/to/executable (the usage tests' reference)
#
# Progress and npm's output go to stderr. Arguments, if any, select CLIs by
# key (e.g. `scripts/e2e-clis.sh codex-0.171.0`). E2E_CLIS_DIR overrides the
# install root. Exits non-zero with a message when npm is missing or an
# install fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${E2E_CLIS_DIR:-$root/.cache/e2e-clis}"

# key|npm package|version
clis=(
	"claude-2.1.332|@anthropic-ai/claude-code|2.1.332"
	"claude-2.0.77|@anthropic-ai/claude-code|2.0.77"
	"codex-0.171.0|@openai/codex|0.171.0"
	"opencode-1.18.33|opencode-ai|1.18.33"
	"ccusage-20.0.24|ccusage|20.0.24"
)

log() { printf 'e2e-clis: %s\n' "$*" >&2; }
die() {
	printf 'e2e-clis: error: %s\n' "$*" >&2
	exit 1
}

if ! command -v npm >/dev/null 2>&1; then
	die "npm not found; install Node.js/npm to run the real-CLI suite"
fi
if ! command -v node >/dev/null 2>&1; then
	die "node not found; install Node.js/npm to run the real-CLI suite"
fi

# Platform names as used by the packages' optional dependencies.
case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "unsupported OS $(uname -s)" ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x64 rust_arch=x86_64 ;;
aarch64 | arm64) arch=arm64 rust_arch=aarch64 ;;
*) die "unsupported CPU $(uname -m)" ;;
esac
libc=""
if [ "$os" = linux ] && { ldd --version 2>&1 || true; } | grep -qi musl; then
	libc="-musl"
fi
if [ "$os" = linux ]; then
	codex_triple="$rust_arch-unknown-linux-musl"
else
	codex_triple="$rust_arch-apple-darwin"
fi

# A throw-away HOME and XDG dirs for running --version, so that nothing
# touches the real ~/.claude, ~/.codex or the user's XDG directories.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

limit=()
if command -v timeout >/dev/null 2>&1; then
	limit=(timeout 60)
fi

# answers EXE VERSION: the executable runs and reports VERSION.
answers() {
	local exe="$1" version="$2" out
	[ -x "$exe" ] || return 1
	out="$(cd "$scratch" && HOME="$scratch" CLAUDE_CONFIG_DIR="$scratch/.claude" CODEX_HOME="$scratch/.codex" \
		XDG_CONFIG_HOME="$scratch/.config" XDG_DATA_HOME="$scratch/.local/share" XDG_STATE_HOME="$scratch/.local/state" \
		XDG_CACHE_HOME="$scratch/.cache" XDG_RUNTIME_DIR="$scratch/.run" \
		DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
		${limit[@]+"${limit[@]}"} "$exe" --version </dev/null 2>/dev/null)" || return 1
	case "$out" in
	*"$version"*) return 0 ;;
	*) return 1 ;;
	esac
}

# find_exe KEY DIR VERSION: prints the absolute path of a directly executable
# program of that install that answers with VERSION.
find_exe() {
	local key="$1" dir="$2" version="$3" c
	local -a candidates
	case "$key" in
	claude-*)
		# 2.1.x: bin/claude.exe (linked to .bin/claude) is replaced by the
		# native binary at postinstall; the binary itself lives in an
		# optional dependency package. 2.0.x: .bin/claude -> cli.js (node).
		candidates=(
			"$dir/node_modules/.bin/claude"
			"$dir/node_modules/@anthropic-ai/claude-code-$os-$arch$libc/claude"
			"$dir/node_modules/@anthropic-ai/claude-code/cli.js"
		)
		;;
	codex-*)
		# The native binary from the platform package; .bin/codex (a node
		# launcher) as a fallback.
		candidates=(
			"$dir/node_modules/@openai/codex-$os-$arch/vendor/$codex_triple/bin/codex"
			"$dir/node_modules/@openai/codex/vendor/$codex_triple/bin/codex"
			"$dir/node_modules/.bin/codex"
		)
		;;
	opencode-*)
		# The Bun-compiled binary from the platform package (the baseline
		# build for CPUs without AVX2); .bin/opencode (a node launcher)
		# as a fallback.
		candidates=(
			"$dir/node_modules/opencode-$os-$arch$libc/bin/opencode"
			"$dir/node_modules/opencode-$os-$arch-baseline$libc/bin/opencode"
			"$dir/node_modules/.bin/opencode"
		)
		;;
	ccusage-*)
		# A native binary in the platform package, installed without its
		# execute bit (the node launcher sets it on first run).
		c="$dir/node_modules/@ccusage/ccusage-$os-$arch/bin/ccusage"
		[ -f "$c" ] && [ ! -x "$c" ] && chmod +x "$c"
		candidates=("$c" "$dir/node_modules/.bin/ccusage")
		;;
	*) return 1 ;;
	esac
	for c in "${candidates[@]}"; do
		if answers "$c" "$version"; then
			printf '%s\n' "$c"
			return 0
		fi
	done
	return 1
}

install_one() {
	local key="$1" pkg="$2" version="$3"
	local name="${key%-"$version"}"
	local dir="$cache/$name@$version" exe tmp
	if exe="$(find_exe "$key" "$dir" "$version")"; then
		log "$key: already installed ($exe)"
		printf '%s=%s\n' "$key" "$exe"
		return 0
	fi
	log "$key: installing $pkg@$version into $dir"
	mkdir -p "$cache"
	tmp="$(mktemp -d "$cache/.$name@$version.XXXXXX")"
	chmod 755 "$tmp"
	# A package's postinstall may run what it installed (opencode-ai's runs
	# `opencode --version`, which makes its XDG directories): the XDG dirs
	# point at the scratch tree, npm's own cache stays in HOME.
	if ! (cd "$tmp" && XDG_CONFIG_HOME="$scratch/.config" XDG_DATA_HOME="$scratch/.local/share" \
		XDG_STATE_HOME="$scratch/.local/state" XDG_CACHE_HOME="$scratch/.cache" XDG_RUNTIME_DIR="$scratch/.run" \
		OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
		npm install --no-audit --no-fund --prefix "$tmp" "$pkg@$version" >&2); then
		rm -rf "$tmp"
		die "$key: npm install $pkg@$version failed (see npm output above)"
	fi
	rm -rf "$dir"
	mv "$tmp" "$dir"
	if ! exe="$(find_exe "$key" "$dir" "$version")"; then
		die "$key: installed $pkg@$version into $dir but found no executable that answers --version with $version"
	fi
	log "$key: installed ($exe)"
	printf '%s=%s\n' "$key" "$exe"
}

want() {
	local key="$1" a
	[ "${#selected[@]}" -eq 0 ] && return 0
	for a in ${selected[@]+"${selected[@]}"}; do
		[ "$a" = "$key" ] && return 0
	done
	return 1
}

selected=("$@")
for a in ${selected[@]+"${selected[@]}"}; do
	known=false
	for entry in "${clis[@]}"; do
		[ "${entry%%|*}" = "$a" ] && known=true
	done
	$known || die "unknown CLI $a (known: claude-2.1.332 claude-2.0.77 codex-0.171.0 opencode-1.18.33 ccusage-20.0.24)"
done

mkdir -p "$cache"
# Serialise concurrent runs (several e2e test binaries may start at once).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$cache/.lock"
	flock 9
fi

for entry in "${clis[@]}"; do
	IFS='|' read -r key pkg version <<<"$entry"
	if want "$key"; then
		install_one "$key" "$pkg" "$version"
	fi
done
