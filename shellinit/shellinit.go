// Package shellinit renders the shell integration `tether init` prints —
// wrapper functions, a prompt segment hook and completion — for bash, zsh
// and fish, and holds the pieces the hidden `tether prompt` and
// `tether complete` commands share with those scripts.
//
// Each script is a real file embedded in the binary. It is a template whose
// directives sit in shell comments (#{{ … }}), so the file itself stays
// valid shell; the only values pasted in are quoted for the target shell.
package shellinit

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"text/template"
)

//go:embed bash.sh zsh.zsh fish.fish
var scripts embed.FS

// Shell is one supported shell.
type Shell interface {
	// Name is what `tether init` takes: bash, zsh or fish.
	Name() string
	// Quote returns s as one literal word of this shell: nothing in it is
	// expanded, whatever it holds.
	Quote(s string) string
	// EvalLine is the line a user adds to the shell's rc file; flags are
	// extra `tether init` flags (" --no-wrap"). It names the command
	// "tether": an rc file should not depend on where the binary is.
	EvalLine(flags string) string
	// RCFile is the rc file EvalLine goes in, for messages (~/.bashrc).
	RCFile() string
	file() string
}

var shells = map[string]Shell{"bash": Bash{}, "zsh": Zsh{}, "fish": Fish{}}

// ByName returns the shell called name.
func ByName(name string) (Shell, error) {
	if s, ok := shells[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("unsupported shell %q (supported: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the supported shells.
func Names() []string {
	names := make([]string, 0, len(shells))
	for n := range shells {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Options select what the rendered script sets up.
type Options struct {
	// Bin is how the script runs tether: an absolute path (the default,
	// from os.Executable) or a command name looked up on PATH (--cmd).
	Bin        string
	Wrap       bool
	Prompt     bool
	Completion bool
	// Bind, when set, is a key (ctrl-g, alt-p) that opens `tether pick`
	// and runs the chosen resume command in the shell.
	Bind string
}

// Features names the enabled parts, comma separated, as exported in
// TETHER_SHELL_FEATURES for `tether doctor`.
func (o Options) Features() string {
	var f []string
	if o.Wrap {
		f = append(f, "wrap")
	}
	if o.Prompt {
		f = append(f, "prompt")
	}
	if o.Completion {
		f = append(f, "completion")
	}
	if o.Bind != "" {
		f = append(f, "bind")
	}
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, ",")
}

// initArgs are the `tether init SHELL` flags that give these options, for
// the line at the end of the script.
func (o Options) initArgs() string {
	args := ""
	if !o.Wrap {
		args += " --no-wrap"
	}
	if !o.Prompt {
		args += " --no-prompt"
	}
	if !o.Completion {
		args += " --no-completion"
	}
	if o.Bind != "" {
		args += " --bind " + o.Bind
	}
	return args
}

type templateData struct {
	Bin, Features, EvalLine  string
	Wrap, Prompt, Completion bool
	// Bind is the picker key in the shell's notation ("" for none).
	Bind string
}

// Render returns the script for sh with opts.
func Render(sh Shell, opts Options) (string, error) {
	if opts.Bin == "" {
		return "", fmt.Errorf("no tether command to run")
	}
	if strings.ContainsRune(opts.Bin, 0) {
		return "", fmt.Errorf("tether command %q contains a NUL byte", opts.Bin)
	}
	bind := ""
	if opts.Bind != "" {
		k, err := BindKey(sh, opts.Bind)
		if err != nil {
			return "", err
		}
		bind = k
	}
	src, err := scripts.ReadFile(sh.file())
	if err != nil {
		return "", err
	}
	tmpl, err := template.New(sh.file()).Delims("#{{", "}}").Option("missingkey=error").Parse(string(src))
	if err != nil {
		return "", fmt.Errorf("%s: %w", sh.file(), err)
	}
	var b bytes.Buffer
	err = tmpl.Execute(&b, templateData{
		Bin:        sh.Quote(opts.Bin),
		Features:   sh.Quote(opts.Features()),
		EvalLine:   sh.EvalLine(opts.initArgs()),
		Wrap:       opts.Wrap,
		Prompt:     opts.Prompt,
		Completion: opts.Completion,
		Bind:       bind,
	})
	if err != nil {
		return "", err
	}
	return squeezeBlank(b.String()), nil
}

// squeezeBlank drops the runs of blank lines that template directives leave
// behind.
func squeezeBlank(s string) string {
	var out strings.Builder
	blank := 0
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out.WriteString(line)
	}
	return out.String()
}

// posixQuote single-quotes s for bash and zsh: inside single quotes nothing
// is special, and a single quote is written as '\”.
func posixQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
