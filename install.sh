#!/usr/bin/env bash
# Build tether from this checkout, install it, and list the sessions it finds.
#
#   ./install.sh                 install into ~/.local/bin
#   ./install.sh --prefix DIR    install into DIR/bin
#   ./install.sh --shims         also make claude/codex shims that run tether's wrapper
#   ./install.sh --uninstall     remove what install put there
#
# It never edits shell rc files. Running it again rebuilds and replaces the
# binary in place.
set -euo pipefail

prefix="${HOME}/.local"
action=install
run_after=1
shims=0
shimdir="${XDG_DATA_HOME:-${HOME}/.local/share}/tether/shims"

usage() {
	sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
	cat <<'USAGE'
Options:
  --prefix DIR   install into DIR/bin (default ~/.local)
  --shims        create claude and codex symlinks to tether in the shims directory
                 (put it first on PATH to wrap the real programs without shell functions)
  --uninstall    remove the installed binary and shims
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

bindir="${prefix%/}/bin"
target="${bindir}/tether"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ "$action" = uninstall ]; then
	for name in claude codex; do
		# Only our own links: a shim is a symlink that points at tether.
		if [ -L "${shimdir}/${name}" ] && [ "$(basename "$(readlink "${shimdir}/${name}")")" = tether ]; then
			rm -f -- "${shimdir:?}/${name}"
			echo "install.sh: removed shim ${shimdir}/${name}" >&2
		fi
	done
	rmdir -- "$shimdir" 2>/dev/null || true
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
trap 'rm -f -- "$tmp"' EXIT
echo "install.sh: building tether ${version}" >&2
(cd "$src" && go build -trimpath -ldflags "-s -w -X main.version=${version}" -o "$tmp" ./cmd/tether)
chmod 0755 "$tmp"
mv -f -- "$tmp" "$target"
trap - EXIT
echo "install.sh: installed ${target}" >&2

if [ "$shims" = 1 ]; then
	mkdir -p -- "$shimdir"
	for name in claude codex; do
		if [ -e "${shimdir}/${name}" ] && [ ! -L "${shimdir}/${name}" ]; then
			echo "install.sh: ${shimdir}/${name} exists and is not a shim; left alone" >&2
			continue
		fi
		ln -sfn -- "$target" "${shimdir}/${name}"
	done
	echo "install.sh: shims in ${shimdir}; put it first on PATH: export PATH=\"${shimdir}:\$PATH\"" >&2
fi

case ":${PATH}:" in
*":${bindir}:"*) ;;
*) echo "install.sh: ${bindir} is not on your PATH; add it, e.g.: export PATH=\"${bindir}:\$PATH\"" >&2 ;;
esac

if [ "$run_after" = 1 ]; then
	# Its main job: every Claude Code and Codex session on this machine.
	echo "install.sh: running: tether sessions --limit 15" >&2
	"$target" sessions --limit 15
fi
