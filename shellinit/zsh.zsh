# tether shell integration for zsh, printed by `tether init zsh`.
# Internal names start with __tether_. Sourcing it again replaces what it
# defined and never registers a hook twice.
#{{/* The #{{ }} lines are template directives; rendering removes them. */}}

typeset -g __tether_bin=#{{.Bin}}

#{{if .Wrap}}
# The wrappers: everything goes to `tether run` untouched, and its exit
# status is the function's.
function claude { \command "$__tether_bin" run claude "$@"; }
function codex { \command "$__tether_bin" run codex "$@"; }
function opencode { \command "$__tether_bin" run opencode "$@"; }
#{{end}}

#{{if .Prompt}}
# The prompt segment, in TETHER_PROMPT with zsh prompt escapes (%F{…}):
#   setopt prompt_subst; RPROMPT='${TETHER_PROMPT}'
# __tether_prompt_update runs as a precmd hook and asks tether only when the
# directory changed or the session state file's mtime no longer matches the
# stamp tether left for this shell.
typeset -g TETHER_PROMPT=${TETHER_PROMPT-}
typeset -g __tether_prompt_key= __tether_prompt_state= __tether_prompt_stamp=

function __tether_prompt {
	\builtin local __tether_status=$?
	\builtin print -rn -- "${TETHER_PROMPT-}"
	\builtin return $__tether_status
}

function __tether_prompt_changed {
	\builtin emulate -L zsh
	if [[ -e $__tether_prompt_state ]]; then
		[[ ! -e $__tether_prompt_stamp || $__tether_prompt_state -nt $__tether_prompt_stamp || $__tether_prompt_state -ot $__tether_prompt_stamp ]]
	else
		[[ -e $__tether_prompt_stamp ]]
	fi
}

function __tether_prompt_update {
	\builtin local __tether_status=$? __tether_key __tether_out
	# The user's options (ksh_arrays, sh_word_split, …) stay outside.
	\builtin emulate -L zsh
	\builtin local -a __tether_lines
	__tether_key=$PWD$'\n'${TETHER_IDENTITY_ROOT-}
	if [[ $__tether_key != "$__tether_prompt_key" || -z $__tether_prompt_state ]] || __tether_prompt_changed; then
		__tether_out=$(\command "$__tether_bin" prompt --shell zsh --stamp-id $$ 2>/dev/null) || __tether_out=
		__tether_lines=("${(@f)__tether_out}")
		if (( ${#__tether_lines} < 3 )); then
			__tether_lines=('' '' '')
		fi
		TETHER_PROMPT=$__tether_lines[1]
		__tether_prompt_state=$__tether_lines[2]
		__tether_prompt_stamp=$__tether_lines[3]
		__tether_prompt_key=$__tether_key
	fi
	\builtin return $__tether_status
}
#{{end}}

#{{if .Completion}}
# Completion: `tether complete` answers from its index in milliseconds. When
# it has no opinion (exit status 1) the completion that was registered for
# the command before this script ran, or the default, takes over.
typeset -gA __tether_prev_comps

function __tether_complete {
	\builtin local __tether_out __tether_prev
	\builtin local -a __tether_lines
	if ! __tether_out=$(\command "$__tether_bin" complete --shell zsh -- "${(@)words[1,CURRENT]}" 2>/dev/null); then
		__tether_prev=${__tether_prev_comps[$service]-}
		if [[ -n $__tether_prev ]] && (( $+functions[$__tether_prev] )); then
			"$__tether_prev" "$@"
		else
			_default "$@"
		fi
		\builtin return
	fi
	[[ -n $__tether_out ]] || \builtin return 1
	__tether_lines=("${(@f)__tether_out}")
	if [[ $PREFIX == -*=* ]]; then
		compset -P '*='
	fi
	_describe -V -t tether 'candidates' __tether_lines
}

function __tether_register_completion {
	\builtin emulate -L zsh
	\builtin local __tether_cmd
	(( $+functions[compdef] )) || \builtin return 1
	for __tether_cmd in tether claude codex opencode; do
		if [[ ${_comps[$__tether_cmd]-} != __tether_complete ]]; then
			__tether_prev_comps[$__tether_cmd]=${_comps[$__tether_cmd]-}
		fi
		compdef __tether_complete $__tether_cmd
	done
}

# When compinit has not run yet, register at the first prompt instead:
# by then the whole .zshrc has run, so a compinit later in it (a plugin
# manager's, or the user's own) is used as it is, never run twice. A
# .zshrc that never loads the completion system gets it loaded here, once,
# as a plain `autoload -Uz compinit && compinit` would (-i: skip insecure
# directories silently instead of asking at the first prompt).
function __tether_register_completion_later {
	\builtin local __tether_status=$?
	add-zsh-hook -d precmd __tether_register_completion_later
	if ! (( $+functions[compdef] )); then
		\builtin autoload -Uz compinit && compinit -i
	fi
	__tether_register_completion
	add-zsh-hook precmd __tether_completion_guard
	\builtin return $__tether_status
}

# A compinit that runs again later (a lazy plugin loader, or a second one in
# .zshrc) rebuilds _comps and drops the registration: put it back. One
# hash lookup per prompt.
function __tether_completion_guard {
	\builtin local __tether_status=$?
	if [[ ${_comps[claude]-} != __tether_complete ]] && (( $+functions[compdef] )); then
		__tether_register_completion
	fi
	\builtin return $__tether_status
}
#{{end}}

#{{if .Bind}}
# The picker key (--bind): opens `tether pick --print` and, on Enter, puts
# the chosen resume command on the line and runs it (in history).
__tether_pick_widget() {
	\builtin local cmd
	if cmd="$("$__tether_bin" pick --print --shell zsh)" && [[ -n $cmd ]]; then
		BUFFER=$cmd
		CURSOR=${#BUFFER}
		\builtin zle accept-line
	else
		\builtin zle reset-prompt
	fi
}
#{{end}}

if [[ -o interactive ]]; then
	\builtin export TETHER_SHELL=zsh TETHER_SHELL_PID=$$ TETHER_SHELL_FEATURES=#{{.Features}}
	\builtin autoload -Uz add-zsh-hook
#{{if .Prompt}}
	add-zsh-hook precmd __tether_prompt_update
#{{end}}
#{{if .Completion}}
	if __tether_register_completion; then
		add-zsh-hook precmd __tether_completion_guard
	else
		add-zsh-hook precmd __tether_register_completion_later
	fi
#{{end}}
#{{if .Bind}}
	\builtin zle -N __tether_pick_widget
	\builtin bindkey #{{.Bind}} __tether_pick_widget
#{{end}}
	:
fi

# Add this line to ~/.zshrc:
#   #{{.EvalLine}}
