// Package shellinit renders the shell integration `tether init` prints —
// wrapper functions, a prompt segment hook and completion — for bash, zsh
// and fish, and holds the pieces the hidden `tether prompt` command shares
// with those scripts (the completion index is shellinit/compindex's).
//
// Each script is a real file embedded in the binary. It is a template whose
// directives sit in shell comments (#{{ … }}), so the file itself stays
// valid shell; the only values pasted in are quoted for the target shell.
package shellinit

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	out, err := render(sh.file(), string(src), templateData{
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
	return squeezeBlank(out), nil
}

// render expands the scripts' directives: #{{.Name}} (a field's value),
// #{{if .Name}} … #{{end}} (kept when the field is true or non-empty,
// nestable) and #{{/* comments */}}, which is all they use of
// text/template. A template engine is not linked for that: tether-hot
// links this package, and text/template brings net/url and its package
// init to every hook. TestRenderMatchesTextTemplate holds render to
// text/template's output for every script and option.
func render(name, src string, d templateData) (string, error) {
	var b strings.Builder
	var conds []bool // the enclosing ifs
	on := func() bool { return !slices.Contains(conds, false) }
	for {
		i := strings.Index(src, "#{{")
		if i < 0 {
			break
		}
		if on() {
			b.WriteString(src[:i])
		}
		closing := "}}"
		if strings.HasPrefix(src[i+3:], "/*") {
			closing = "*/}}" // a comment may hold "}}"
		}
		end := strings.Index(src[i+3:], closing)
		if end < 0 {
			return "", fmt.Errorf("%s: unclosed action", name)
		}
		action := src[i+3 : i+3+end+len(closing)-2]
		src = src[i+3+end+len(closing):]
		switch {
		case strings.HasPrefix(action, "/*") && strings.HasSuffix(action, "*/"):
		case action == "end":
			if len(conds) == 0 {
				return "", fmt.Errorf("%s: unexpected {{end}}", name)
			}
			conds = conds[:len(conds)-1]
		case strings.HasPrefix(action, "if "):
			_, truth, err := d.field(strings.TrimPrefix(action, "if "))
			if err != nil {
				return "", fmt.Errorf("%s: %w", name, err)
			}
			conds = append(conds, truth)
		default:
			v, _, err := d.field(action)
			if err != nil {
				return "", fmt.Errorf("%s: %w", name, err)
			}
			if on() {
				b.WriteString(v)
			}
		}
	}
	if len(conds) != 0 {
		return "", fmt.Errorf("%s: unexpected EOF (an {{if}} without {{end}})", name)
	}
	b.WriteString(src)
	return b.String(), nil
}

// field is the value of .Name as text/template prints it, and whether
// {{if}} takes it as true (a true bool, a non-empty string).
func (d templateData) field(name string) (value string, truth bool, err error) {
	str := func(s string) (string, bool, error) { return s, s != "", nil }
	flag := func(b bool) (string, bool, error) { return strconv.FormatBool(b), b, nil }
	switch name {
	case ".Bin":
		return str(d.Bin)
	case ".Features":
		return str(d.Features)
	case ".EvalLine":
		return str(d.EvalLine)
	case ".Bind":
		return str(d.Bind)
	case ".Wrap":
		return flag(d.Wrap)
	case ".Prompt":
		return flag(d.Prompt)
	case ".Completion":
		return flag(d.Completion)
	}
	return "", false, fmt.Errorf("unknown template action %q", name)
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
