# tether shell integration for fish, printed by `tether init fish`.
# Internal names start with __tether_. Sourcing it again replaces what it
# defined and never registers a hook twice.
#{{/* The #{{ }} lines are template directives; rendering removes them. */}}

set -g __tether_bin #{{.Bin}}

#{{if .Wrap}}
# The wrappers: everything goes to `tether run` untouched, and its exit
# status is the function's.
function claude --description 'claude, through tether run'
    command $__tether_bin run claude $argv
end
function codex --description 'codex, through tether run'
    command $__tether_bin run codex $argv
end
function opencode --description 'opencode, through tether run'
    command $__tether_bin run opencode $argv
end
#{{end}}

#{{if .Prompt}}
# The prompt segment: call tether_prompt from fish_prompt or
# fish_right_prompt. __tether_prompt_update runs on every fish_prompt event
# and asks tether only when the directory changed or the session state
# file's mtime no longer matches the stamp tether left for this shell.
set -q TETHER_PROMPT; or set -g TETHER_PROMPT ''
set -g __tether_prompt_key ''
set -g __tether_prompt_state ''
set -g __tether_prompt_stamp ''

function tether_prompt --description 'context use of the latest agent session here'
    set -l __tether_status $status
    printf '%s' "$TETHER_PROMPT"
    return $__tether_status
end

function __tether_prompt_changed
    if test -e "$__tether_prompt_state"
        not test -e "$__tether_prompt_stamp"
        or test "$__tether_prompt_state" -nt "$__tether_prompt_stamp"
        or test "$__tether_prompt_state" -ot "$__tether_prompt_stamp"
    else
        test -e "$__tether_prompt_stamp"
    end
end

function __tether_prompt_update --on-event fish_prompt
    set -l __tether_status $status
    set -l __tether_key "$PWD"\n"$TETHER_IDENTITY_ROOT"
    if test "$__tether_key" != "$__tether_prompt_key"; or test -z "$__tether_prompt_state"; or __tether_prompt_changed
        set -l __tether_lines (command $__tether_bin prompt --shell fish --stamp-id $fish_pid 2>/dev/null)
        or set __tether_lines
        if test (count $__tether_lines) -lt 3
            set __tether_lines '' '' ''
        end
        set -g TETHER_PROMPT $__tether_lines[1]
        set -g __tether_prompt_state $__tether_lines[2]
        set -g __tether_prompt_stamp $__tether_lines[3]
        set -g __tether_prompt_key $__tether_key
    end
    return $__tether_status
end
#{{end}}

#{{if .Completion}}
# Completion: `tether complete` answers from its index in milliseconds. The
# claude, codex and opencode entries only apply where a session id goes, so the
# completions those programs already have stay in place for the rest.
function __tether_complete
    # Exit status 1: tether has nothing to offer here (a file argument).
    command $__tether_bin complete --shell fish -- (commandline -opc) (commandline -ct) 2>/dev/null
    or __fish_complete_path (commandline -ct)
end

function __tether_wants_id
    set -l __tether_tokens (commandline -opc)
    switch $__tether_tokens[1]
        case claude
            contains -- $__tether_tokens[-1] -r --resume
        case codex
            test "$__tether_tokens[-1]" = resume
        case opencode
            contains -- $__tether_tokens[-1] -s --session
        case '*'
            return 1
    end
end
#{{end}}

#{{if .Bind}}
# The picker key (--bind): opens `tether pick --print` and, on Enter, puts
# the chosen resume command on the line and runs it (in history).
function __tether_pick_widget
    set -l cmd ($__tether_bin pick --print --shell fish)
    if test $status -eq 0 -a -n "$cmd"
        commandline -r -- $cmd
        commandline -f execute
    else
        commandline -f repaint
    end
end
#{{end}}

if status is-interactive
    set -gx TETHER_SHELL fish
    set -gx TETHER_SHELL_PID $fish_pid
    set -gx TETHER_SHELL_FEATURES #{{.Features}}
#{{if .Completion}}
    complete -c tether -e
    complete -c tether -f -k -a '(__tether_complete)'
    # complete adds, never replaces: register the entries once per shell.
    if not set -q __tether_completion_registered
        set -g __tether_completion_registered 1
        complete -c claude -n __tether_wants_id -f -k -a '(__tether_complete)'
        complete -c codex -n __tether_wants_id -f -k -a '(__tether_complete)'
        complete -c opencode -n __tether_wants_id -f -k -a '(__tether_complete)'
    end
#{{end}}
#{{if .Bind}}
    bind #{{.Bind}} __tether_pick_widget
    bind -M insert #{{.Bind}} __tether_pick_widget 2>/dev/null
#{{end}}
end

# Add this line to ~/.config/fish/config.fish:
#   #{{.EvalLine}}
