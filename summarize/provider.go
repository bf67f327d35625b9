package summarize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// Provider names.
const (
	ProviderClaude    = "claude"
	ProviderCodex     = "codex"
	ProviderAnthropic = "anthropic"
	ProviderCommand   = "command"
	ProviderOpenCode  = "opencode"
)

// Providers lists the provider names, for messages.
var Providers = []string{ProviderClaude, ProviderCodex, ProviderOpenCode, ProviderAnthropic, ProviderCommand}

// Default models: small and cheap; a summary needs no more.
const (
	DefaultClaudeModel    = "haiku"
	DefaultAnthropicModel = "claude-haiku-4-5"
)

// Provider turns an input into a reply. The input leaves the machine only
// through the provider the user chose.
type Provider interface {
	Name() string
	Model() string
	// Describe is the command run or the request made, for --dry-run. It
	// never holds a key.
	Describe() string
	// Check refuses a provider that cannot work (no program, no key, a
	// CLI without the no-persistence flag) before any input is sent.
	Check(ctx context.Context) error
	// Summarize sends the input and returns the reply's text.
	Summarize(ctx context.Context, in Input) (string, error)
}

// Options configure a provider.
type Options struct {
	Provider string
	Model    string
	// Bin is the claude, codex or opencode program (found by the caller, skipping
	// tether's own shims).
	Bin string
	// Command is the argv of the command provider.
	Command []string
	Getenv  func(string) string
	// Env is the environment of the programs run ("" entries ignored).
	Env []string
}

// ErrNoProvider is returned when none is configured.
var ErrNoProvider = errors.New("no summary provider configured: set [summarize] provider = \"claude\" (or codex, opencode, anthropic, command) in the config, or pass --provider; summaries cost money, so they are off until you opt in")

// ErrRefused marks a provider that cannot be used as configured.
var ErrRefused = errors.New("refused")

// New returns the provider named in opts.
func New(opts Options) (Provider, error) {
	switch opts.Provider {
	case "":
		return nil, ErrNoProvider
	case ProviderClaude:
		if opts.Model == "" {
			opts.Model = DefaultClaudeModel
		}
		return &claudeProvider{opts}, nil
	case ProviderCodex:
		return &codexProvider{opts}, nil
	case ProviderOpenCode:
		return &openCodeProvider{opts}, nil
	case ProviderAnthropic:
		if opts.Model == "" {
			opts.Model = DefaultAnthropicModel
		}
		return newAnthropic(opts), nil
	case ProviderCommand:
		if len(opts.Command) == 0 {
			return nil, fmt.Errorf("%w: provider command needs [summarize] command = [\"program\", \"arg\", …] in the config", ErrRefused)
		}
		return &commandProvider{opts}, nil
	}
	return nil, fmt.Errorf("unknown summary provider %q (want one of %s)", opts.Provider, strings.Join(Providers, ", "))
}

// run runs argv with stdin, in the temp dir (no project files are picked
// up there), and returns stdout. A failure names the program, the exit
// status and the last line of its stderr. The program runs in its own
// process group, killed whole on ctx's end; its output is capped.
func run(ctx context.Context, argv, env []string, stdin string) ([]byte, error) {
	return runIn(ctx, "", argv, env, stdin)
}

// runIn is run in dir ("": the temp dir).
func runIn(ctx context.Context, dir string, argv, env []string, stdin string) ([]byte, error) {
	p := newProc(ctx, argv, env, stdin, false)
	if dir != "" {
		p.cmd.Dir = dir
	}
	err := p.run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], ctx.Err())
	}
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	if err != nil {
		msg := lastLine(p.errb.String())
		if msg == "" {
			msg = lastLine(p.out.String())
		}
		if msg != "" {
			return nil, fmt.Errorf("%s: %v: %s", argv[0], err, msg)
		}
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	return p.out.Bytes(), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return oneLine(lines[len(lines)-1], 300)
}

// helpHas runs `argv --help` and reports whether its output mentions flag.
func helpHas(ctx context.Context, argv, env []string, flag string) (bool, error) {
	p := newProc(ctx, append(argv[:len(argv):len(argv)], "--help"), env, "", true)
	err := p.run()
	out := p.out.Bytes()
	if ctx.Err() != nil {
		return false, fmt.Errorf("%s --help: %w", shquote.Join(argv), ctx.Err())
	}
	if err != nil && len(out) == 0 {
		return false, fmt.Errorf("%s --help: %w", shquote.Join(argv), err)
	}
	return bytes.Contains(out, []byte(flag)), nil
}

// commandProvider runs any program: the prompt on stdin, the reply JSON
// on stdout.
type commandProvider struct{ o Options }

func (p *commandProvider) Name() string     { return ProviderCommand }
func (p *commandProvider) Model() string    { return p.o.Model }
func (p *commandProvider) Describe() string { return shquote.Join(p.o.Command) + " < input" }

func (p *commandProvider) Check(context.Context) error {
	if _, err := exec.LookPath(p.o.Command[0]); err != nil {
		return fmt.Errorf("%w: summary command %s: %v", ErrRefused, p.o.Command[0], err)
	}
	return nil
}

func (p *commandProvider) Summarize(ctx context.Context, in Input) (string, error) {
	env := p.o.Env
	if p.o.Model != "" {
		env = append(env, "TETHER_SUMMARIZE_MODEL="+p.o.Model)
	}
	out, err := run(ctx, p.o.Command, env, Prompt(in))
	return string(out), err
}
