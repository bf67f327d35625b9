#!/usr/bin/env bash
# Build tether from this checkout, install it, and list the sessions it finds.
#
#   ./install.sh                 install into ~/.local/bin and print the line for your shell
#   ./install.sh --prefix DIR    install into DIR/bin
#   ./install.sh --shell zsh     also add the shell integration line to ~/.zshrc
#   ./install.sh --hooks         also install tether's Claude Code / Codex hooks
#   ./install.sh --shims         also make claude/codex/opencode shims that run tether's wrapper
#   ./install.sh --uninstall     remove what install put there (with --shell: only that line)
#
# It edits a shell rc file only with --shell: once, after a backup, with a
# line it can find and remove again. Running it again rebuilds and replaces
# the binaries in place: tether, the command you type, and tether-hot next
# to it, the small binary the hooks, shell scripts and shims run.
set -euo pipefail

prefix="${HOME}/.local"
action=install
run_after=1
shims=0
shell=
hooks=0
shimdir="${XDG_DATA_HOME:-${HOME}/.local/share}/tether/shims"

usage() {
	sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
	cat <<'USAGE'
Options:
  --prefix DIR   install into DIR/bin (default ~/.local)
  --shell SHELL  add the init line for bash, zsh or fish to its rc file (idempotent,
                 keeps a .tether-backup copy); with --uninstall, remove exactly that line
  --hooks        run 'tether hooks install' after installing
  --shims        create claude, codex and opencode symlinks to tether-hot in the shims directory
                 (put it first on PATH to wrap the real programs without shell functions)
  --uninstall    remove the installed binary and shims, and the init line from the rc files
  --no-run       do not run tether after installing
  -h, --help     show this help
USAGE
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix)
		[ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
		prefix="$2"
		shift 2
		;;
	--prefix=*)
		prefix="${1#--prefix=}"
		shift
		;;
	--shell)
		[ $# -ge 2 ] || { echo "install.sh: --shell needs bash, zsh or fish" >&2; exit 2; }
		shell="$2"
		shift 2
		;;
	--shell=*)
		shell="${1#--shell=}"
		shift
		;;
	--hooks) hooks=1; shift ;;
	--uninstall) action=uninstall; shift ;;
	--shims) shims=1; shift ;;
	--no-run) run_after=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*)
		echo "install.sh: unknown option: $1 (see ./install.sh --help)" >&2
		exit 2
		;;
	esac
done

case "$shell" in
"" | bash | zsh | fish) ;;
*) echo "install.sh: --shell: unsupported shell '$shell' (bash, zsh or fish)" >&2; exit 2 ;;
esac

# The line --shell adds ends with this marker, which is how it is found
# again (to skip adding it twice, and to remove exactly it).
marker='# tether shell integration (install.sh)'

rc_file() {
	case "$1" in
	bash) echo "${HOME}/.bashrc" ;;
	zsh) echo "${ZDOTDIR:-$HOME}/.zshrc" ;;
	fish) echo "${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish" ;;
	esac
}

init_line() {
	case "$1" in
	bash | zsh) echo "if command -v tether >/dev/null 2>&1; then eval \"\$(tether init $1)\"; fi  ${marker}" ;;
	fish) echo "if command -q tether; tether init fish | source; end  ${marker}" ;;
	esac
}

# rewrite_rc FILE CMD...: replace FILE (a symlink's target, so dotfile
# managers keep their link) by CMD's output, written next to it and renamed
# over it, after copying the original to FILE.tether-backup. It sets
# rc_note to what the caller should say about that backup ("" for a new
# file, which has nothing to back up).
rc_note=""
rewrite_rc() {
	local file="$1" tmp
	shift
	rc_note=""
	if [ -L "$file" ]; then
		file="$(readlink -f -- "$file")"
	fi
	mkdir -p -- "$(dirname -- "$file")"
	tmp="$(mktemp "${file}.XXXXXX")"
	if [ -e "$file" ]; then
		cp -p -- "$file" "${file}.tether-backup"
		cp -p -- "$file" "$tmp"
		rc_note=" (backup: ${file}.tether-backup)"
	else
		chmod 0644 "$tmp"
	fi
	if ! "$@" >"$tmp"; then
		rm -f -- "$tmp"
		echo "install.sh: could not rewrite ${file}; left unchanged" >&2
		return 1
	fi
	mv -f -- "$tmp" "$file"
}

add_init_line() {
	local file line
	file="$(rc_file "$1")"
	line="$(init_line "$1")"
	if [ -f "$file" ] && grep -qF -- "$marker" "$file"; then
		echo "install.sh: ${file} already loads tether; left unchanged" >&2
		return 0
	fi
	# shellcheck disable=SC2016 # $1 and $2 belong to the inner sh.
	rewrite_rc "$file" sh -c 'if [ -s "$1" ]; then cat -- "$1"; [ -z "$(tail -c 1 -- "$1")" ] || echo; fi; printf "%s\n" "$2"' sh "$file" "$line"
	if [ -n "$rc_note" ]; then
		echo "install.sh: added to ${file}${rc_note}:" >&2
	else
		echo "install.sh: created ${file} with:" >&2
	fi
	echo "  ${line}" >&2
}

remove_init_line() {
	local file
	file="$(rc_file "$1")"
	if [ -f "$file" ] && grep -qF -- "$marker" "$file"; then
		# grep -v exits 1 when nothing is left, which is fine here.
		# shellcheck disable=SC2016 # $1 and $2 belong to the inner sh.
		rewrite_rc "$file" sh -c 'grep -vF -- "$1" "$2" || [ $? -eq 1 ]' sh "$marker" "$file"
		echo "install.sh: removed the tether line from ${file}${rc_note}" >&2
	fi
}

bindir="${prefix%/}/bin"
target="${bindir}/tether"
# tether-hot, the small binary the hooks, the shell scripts and the shims
# run (it starts several times faster), always sits next to tether.
hot="${bindir}/tether-hot"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ "$action" = uninstall ]; then
	if [ -n "$shell" ]; then
		remove_init_line "$shell"
		exit 0
	fi
	for sh in bash zsh fish; do
		remove_init_line "$sh"
	done
	for name in claude codex opencode; do
		# Only our own links: a shim is a symlink that points at tether
		# (or, since tether-hot, at tether-hot).
		if [ -L "${shimdir}/${name}" ] && case "$(basename "$(readlink "${shimdir}/${name}")")" in tether | tether-hot) true ;; *) false ;; esac then
			rm -f -- "${shimdir:?}/${name}"
			echo "install.sh: removed shim ${shimdir}/${name}" >&2
		fi
	done
	rmdir -- "$shimdir" 2>/dev/null || true
	if [ -e "$hot" ]; then
		rm -f -- "$hot"
		echo "install.sh: removed ${hot}" >&2
	fi
	if [ -e "$target" ]; then
		rm -f -- "$target"
		echo "install.sh: removed ${target}" >&2
	else
		echo "install.sh: nothing to remove at ${target}" >&2
	fi
	exit 0
fi

if ! command -v go >/dev/null 2>&1; then
	echo "install.sh: go not found on PATH; install Go 1.26 or newer (https://go.dev/dl/)" >&2
	exit 1
fi

version="$(git -C "$src" describe --tags --always --dirty 2>/dev/null || echo dev)"
mkdir -p -- "$bindir"
tmp="$(mktemp "${bindir}/.tether.XXXXXX")"
tmphot="$(mktemp "${bindir}/.tether-hot.XXXXXX")"
trap 'rm -f -- "$tmp" "$tmphot" "${tmp}.build" "${tmphot}.build"' EXIT
echo "install.sh: building tether and tether-hot ${version}" >&2
(cd "$src" && go build -trimpath -ldflags "-s -w -X main.version=${version}" -o "${tmp}.build" ./cmd/tether)
(cd "$src" && go build -trimpath -ldflags "-s -w -X main.version=${version}" -o "${tmphot}.build" ./cmd/tether-hot)
# Installed by read and write: the linker writes its output through a
# mapping, and a binary whose pages came into the page cache that way
# starts ~0.6 ms slower (CPU), on every hook, statusLine render, prompt
# and TAB, than one whose pages were written (docs/performance.md). dd,
# not cp or cat, which may clone the file or copy it inside the kernel.
dd if="${tmp}.build" of="$tmp" bs=1048576 2>/dev/null
dd if="${tmphot}.build" of="$tmphot" bs=1048576 2>/dev/null
rm -f -- "${tmp}.build" "${tmphot}.build"
chmod 0755 "$tmp" "$tmphot"
# tether-hot first: a tether whose tether-hot is missing or older would
# write hooks and scripts for the wrong binary.
mv -f -- "$tmphot" "$hot"
mv -f -- "$tmp" "$target"
trap - EXIT
echo "install.sh: installed ${target} and ${hot}" >&2

if [ "$shims" = 1 ]; then
	mkdir -p -- "$shimdir"
	for name in claude codex opencode; do
		if [ -e "${shimdir}/${name}" ] && [ ! -L "${shimdir}/${name}" ]; then
			echo "install.sh: ${shimdir}/${name} exists and is not a shim; left alone" >&2
			continue
		fi
		ln -sfn -- "$hot" "${shimdir}/${name}"
	done
	echo "install.sh: shims in ${shimdir}; put it first on PATH: export PATH=\"${shimdir}:\$PATH\"" >&2
fi

case ":${PATH}:" in
*":${bindir}:"*) ;;
*) echo "install.sh: ${bindir} is not on your PATH; add it, e.g.: export PATH=\"${bindir}:\$PATH\"" >&2 ;;
esac

if [ -n "$shell" ]; then
	add_init_line "$shell"
else
	login_shell="$(basename -- "${SHELL:-bash}")"
	case "$login_shell" in
	bash | zsh | fish) ;;
	*) login_shell=bash ;;
	esac
	echo "install.sh: for the claude/codex wrappers, the context prompt segment and completion, add to $(rc_file "$login_shell"):" >&2
	case "$login_shell" in
	fish) echo "  tether init fish | source" >&2 ;;
	*) echo "  eval \"\$(tether init ${login_shell})\"" >&2 ;;
	esac
	echo "  (or run: ./install.sh --shell ${login_shell})" >&2
fi

if [ "$hooks" = 1 ]; then
	# The hooks command arrived after the first releases: check for it.
	if "$target" hooks --help >/dev/null 2>&1; then
		echo "install.sh: running: tether hooks install" >&2
		"$target" hooks install
	else
		echo "install.sh: this tether has no 'hooks' command; skipped --hooks" >&2
	fi
fi

if [ "$run_after" = 1 ]; then
	# Its main job: every Claude Code and Codex session on this machine.
	# With none yet, tether says so in one line instead of a table.
	"$target" sessions --limit 15
fi
