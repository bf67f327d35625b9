package shellinit

import (
	"bytes"
	"strings"
	"testing"
	"text/template"
)

// TestRenderMatchesTextTemplate: render is a stand-in for text/template
// (which tether-hot must not link): for every script, option combination
// and hostile path it writes what text/template wrote, and it refuses the
// templates text/template refuses.
func TestRenderMatchesTextTemplate(t *testing.T) {
	viaTemplate := func(name, src string, d templateData) (string, error) {
		tmpl, err := template.New(name).Delims("#{{", "}}").Option("missingkey=error").Parse(src)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		err = tmpl.Execute(&b, d)
		return b.String(), err
	}
	n := 0
	for _, name := range Names() {
		sh, _ := ByName(name)
		src, err := scripts.ReadFile(sh.file())
		if err != nil {
			t.Fatal(err)
		}
		for _, bin := range []string{"/usr/local/bin/tether", "/tmp/odd dir/$(touch pwned)/it's `x`/\n/tether", "false", ""} {
			for _, o := range allOptions(bin) {
				bind := ""
				if o.Bind != "" {
					bind, _ = BindKey(sh, o.Bind)
				}
				for _, d := range []templateData{
					{Bin: sh.Quote(o.Bin), Features: sh.Quote(o.Features()), EvalLine: sh.EvalLine(o.initArgs()), Wrap: o.Wrap, Prompt: o.Prompt, Completion: o.Completion, Bind: bind},
					{Bin: o.Bin, Features: "false", Bind: "false", Wrap: o.Wrap}, // raw values: "false" is a true string
				} {
					want, wantErr := viaTemplate(sh.file(), string(src), d)
					got, err := render(sh.file(), string(src), d)
					if got != want || (err == nil) != (wantErr == nil) {
						t.Fatalf("%s %v %+v: render differs from text/template (err %v, want %v)", name, o, d, err, wantErr)
					}
					n++
				}
			}
		}
	}
	for _, src := range []string{"a #{{if .Wrap}}b", "#{{end}}", "#{{.Nope}}", "#{{.Bin", "x#{{if .Bind}}#{{if .Wrap}}y#{{end}}z#{{end}}w", "#{{/* c */}}q"} {
		for _, d := range []templateData{{}, {Bind: "k", Wrap: true}} {
			want, wantErr := viaTemplate("t", src, d)
			got, err := render("t", src, d)
			if (err == nil) != (wantErr == nil) || (err == nil && got != want) {
				t.Errorf("%q %+v: got %q %v, want %q %v", src, d, got, err, want, wantErr)
			}
		}
	}
	if n == 0 || !strings.Contains(string(must(scripts.ReadFile("bash.sh"))), "#{{if") {
		t.Fatal("nothing compared")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
