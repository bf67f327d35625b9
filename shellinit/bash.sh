# tether shell integration for bash, printed by `tether init bash`.
# Internal names start with __tether_. Sourcing it again replaces what it
# defined and never registers a hook twice.
#{{/* The #{{ }} lines are template directives; rendering removes them. */}}

# The path is quoted to be taken literally, whatever it holds.
# shellcheck disable=SC2016
__tether_bin=#{{.Bin}}

#{{if .Wrap}}
# The wrappers: everything goes to `tether run` untouched, and its exit
# status is the function's.
function claude { \command "$__tether_bin" run claude "$@"; }
function codex { \command "$__tether_bin" run codex "$@"; }
function opencode { \command "$__tether_bin" run opencode "$@"; }
#{{end}}

#{{if .Prompt}}
# The prompt segment. __tether_prompt_update runs before each prompt and
# asks tether only when the directory changed or the session state file's
# mtime no longer matches the stamp tether left for this shell; otherwise
# the cached TETHER_PROMPT stands.
TETHER_PROMPT=${TETHER_PROMPT-}
__tether_prompt_key=
__tether_prompt_state=
__tether_prompt_stamp=

# For PS1='…$(__tether_prompt)…' (or use \${TETHER_PROMPT} directly).
__tether_prompt() {
	\builtin local __tether_status=$?
	\builtin printf '%s' "${TETHER_PROMPT-}"
	\builtin return "$__tether_status"
}

__tether_prompt_changed() {
	if [[ -e $__tether_prompt_state ]]; then
		[[ ! -e $__tether_prompt_stamp || $__tether_prompt_state -nt $__tether_prompt_stamp || $__tether_prompt_state -ot $__tether_prompt_stamp ]]
	else
		[[ -e $__tether_prompt_stamp ]]
	fi
}

__tether_prompt_update() {
	\builtin local __tether_status=$? __tether_key __tether_out
	__tether_key=$PWD$'\n'${TETHER_IDENTITY_ROOT-}
	if [[ $__tether_key != "$__tether_prompt_key" || -z $__tether_prompt_state ]] || __tether_prompt_changed; then
		__tether_out=$(\command "$__tether_bin" prompt --shell bash --stamp-id "$$" 2>/dev/null) || __tether_out=
		case $__tether_out in
		*$'\n'*$'\n'*) ;;
		*) __tether_out=$'\n\n' ;;
		esac
		TETHER_PROMPT=${__tether_out%%$'\n'*}
		__tether_out=${__tether_out#*$'\n'}
		__tether_prompt_state=${__tether_out%%$'\n'*}
		__tether_prompt_stamp=${__tether_out#*$'\n'}
		__tether_prompt_key=$__tether_key
	fi
	\builtin return "$__tether_status"
}
#{{end}}

#{{if .Completion}}
# Completion: `tether complete` answers from its index in milliseconds. When
# it has no opinion (exit status 1) the completion that was registered for
# the command before this script ran, or file names, take over.
__tether_complete() {
	\builtin local __tether_out __tether_prev
	if ! __tether_out=$(\command "$__tether_bin" complete --shell bash --line "${COMP_LINE:0:COMP_POINT}" 2>/dev/null); then
		__tether_prev=__tether_prev_${1##*/}
		__tether_prev=${!__tether_prev-}
		if [[ -n $__tether_prev ]] && \builtin declare -F "$__tether_prev" >/dev/null; then
			"$__tether_prev" "$@"
			\builtin return
		fi
		COMPREPLY=()
		\builtin compopt -o default 2>/dev/null
		\builtin return 0
	fi
	COMPREPLY=()
	if [[ -n $__tether_out ]]; then
		\builtin mapfile -t COMPREPLY <<<"$__tether_out"
	fi
}

__tether_register_completion() {
	\builtin local __tether_cmd __tether_spec __tether_fn
	for __tether_cmd in "$@"; do
		__tether_spec=$(\builtin complete -p "$__tether_cmd" 2>/dev/null) || __tether_spec=
		__tether_fn=
		if [[ $__tether_spec =~ \ -F\ ([^ ]+) ]]; then
			__tether_fn=${BASH_REMATCH[1]}
		fi
		if [[ $__tether_fn != __tether_complete ]]; then
			\builtin printf -v "__tether_prev_$__tether_cmd" '%s' "$__tether_fn"
		fi
		\builtin complete -o nosort -F __tether_complete "$__tether_cmd" 2>/dev/null ||
			\builtin complete -F __tether_complete "$__tether_cmd"
	done
}
#{{end}}

#{{if .Bind}}
# The picker key (--bind): opens `tether pick --print` and, on Enter, runs
# the chosen resume command in this shell, as a typed line (in history).
# bind -x cannot accept the line itself, so the key is a macro of two keys:
# this widget, then \C-x\C-t2, which the widget binds to accept-line when a
# command was chosen and to redraw-current-line when the picker was left.
__tether_pick_widget() {
	\builtin local cmd
	if cmd="$("$__tether_bin" pick --print --shell bash)" && [[ -n $cmd ]]; then
		READLINE_LINE=$cmd
		READLINE_POINT=${#cmd}
		\builtin bind '"\C-x\C-t2": accept-line'
	else
		\builtin bind '"\C-x\C-t2": redraw-current-line'
	fi
}
#{{end}}

if [[ $- == *i* ]]; then
	# For `tether doctor`: which shell loaded the integration, and what parts.
	# shellcheck disable=SC2034
	\builtin export TETHER_SHELL=bash TETHER_SHELL_PID="$$" TETHER_SHELL_FEATURES=#{{.Features}}
#{{if .Prompt}}
	# Prepend the hook once, to PROMPT_COMMAND as an array (bash 5.1+) or as
	# a string, leaving whatever is there in place.
	case "$(\builtin declare -p PROMPT_COMMAND 2>/dev/null)" in
	"declare -a"*)
		if [[ " ${PROMPT_COMMAND[*]} " != *" __tether_prompt_update "* ]]; then
			PROMPT_COMMAND=(__tether_prompt_update "${PROMPT_COMMAND[@]}")
		fi
		;;
	*)
		# A string here (the array case is above).
		# shellcheck disable=SC2128,SC2178
		case ";${PROMPT_COMMAND-};" in
		*";__tether_prompt_update;"*) ;;
		*) PROMPT_COMMAND="__tether_prompt_update${PROMPT_COMMAND:+;$PROMPT_COMMAND}" ;;
		esac
		;;
	esac
#{{end}}
#{{if .Completion}}
	__tether_register_completion tether claude codex opencode
#{{end}}
#{{if .Bind}}
	\builtin bind -x '"\C-x\C-t1": __tether_pick_widget'
	\builtin bind '"\C-x\C-t2": redraw-current-line'
	\builtin bind '#{{.Bind}}: "\C-x\C-t1\C-x\C-t2"'
#{{end}}
	:
fi

# Add this line to ~/.bashrc:
#   #{{.EvalLine}}
