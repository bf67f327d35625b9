package trim

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func trimString(t *testing.T, in string, opts Options) (string, *Report, error) {
	t.Helper()
	p, err := MakePlan(strings.NewReader(in), opts)
	if err != nil {
		return "", nil, err
	}
	var out bytes.Buffer
	if _, err := p.Apply(strings.NewReader(in), &out); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := Validate(bytes.NewReader(out.Bytes())); err != nil {
		t.Fatalf("output does not validate: %v\n%s", err, out.String())
	}
	return out.String(), p.Report, nil
}

// lineByUUID maps each chain record of a transcript to its line.
func lineByUUID(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if u := gjson.Get(l, "uuid"); u.Exists() {
			m[u.Str] = l
		}
	}
	return m
}

// withoutParent removes parentUuid so kept records can be compared byte
// for byte with the originals.
func withoutParent(l string) string {
	s, _ := sjson.Delete(l, "parentUuid")
	return s
}

// checkCopied asserts every kept record is the original line except
// parentUuid (and, for trimmed results, the trimmed fields).
func checkCopied(t *testing.T, in, out string) {
	t.Helper()
	orig := lineByUUID(in)
	for u, l := range lineByUUID(out) {
		o, ok := orig[u]
		if !ok {
			t.Errorf("output has record %s that was not in the input", u)
			continue
		}
		if strings.Contains(l, "[trimmed by tether") {
			continue
		}
		if withoutParent(o) != withoutParent(l) {
			t.Errorf("record %s changed beyond parentUuid:\n in: %s\nout: %s", u, o, l)
		}
	}
}

func TestRealSamples(t *testing.T) {
	for _, name := range []string{"claude-code-2.0.77/sample-tool-session.jsonl", "claude-code-2.1.332/sample-tool-session.jsonl"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(testutil.Testdata(t, name))
			if err != nil {
				t.Fatal(err)
			}
			in := string(data)
			if err := Validate(strings.NewReader(in)); err != nil {
				t.Fatalf("real sample does not validate: %v", err)
			}
			out, rep, err := trimString(t, in, Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/notes"}})
			if err != nil {
				t.Fatal(err)
			}
			checkCopied(t, in, out)
			// The Bash pair and the intermediate text go; prompt and final answer stay.
			if strings.Contains(out, "toolu_fake") {
				t.Errorf("Bash tool pair survived a keep trim")
			}
			if !strings.Contains(out, "Done. Tool said: hi") || !strings.Contains(out, `"content": "TOOL_BASH please`) {
				t.Errorf("first prompt or final answer lost:\n%s", out)
			}
			if strings.Contains(out, "I'll run a command.") {
				t.Errorf("intermediate assistant text kept")
			}
			// Non-chain records pass through untouched, in order.
			var wantNC, gotNC []string
			for _, l := range strings.Split(strings.TrimSpace(in), "\n") {
				if !gjson.Get(l, "uuid").Exists() {
					l, _ = sjson.Delete(l, "leafUuid") // re-pointed when its record goes
					wantNC = append(wantNC, l)
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !gjson.Get(l, "uuid").Exists() {
					if lu := gjson.Get(l, "leafUuid"); lu.Exists() && !strings.Contains(out, `"uuid": "`+lu.Str+`"`) {
						t.Errorf("leafUuid %s dangles", lu.Str)
					}
					l, _ = sjson.Delete(l, "leafUuid")
					gotNC = append(gotNC, l)
				}
			}
			if strings.Join(wantNC, "\n") != strings.Join(gotNC, "\n") {
				t.Errorf("non-chain records changed")
			}
			if rep.RecordsAfter >= rep.RecordsBefore || rep.TokensAfter >= rep.TokensBefore {
				t.Errorf("report: %+v", rep)
			}
			// A budget the session already fits changes nothing.
			_, rep, err = trimString(t, in, Options{Policy: PolicyFit, FitTokens: 1 << 20})
			if err != nil || rep.Changed {
				t.Errorf("fit within budget: changed=%v err=%v", rep != nil && rep.Changed, err)
			}
		})
	}
}

// session builds a two-version-parametrised synthetic session with every
// record kind the policies distinguish.
func session(version string) (*tb, map[string]string) {
	b := newTB(version)
	ids := map[string]string{}
	b.nonChain("queue-operation", map[string]any{"operation": "dequeue"})
	ids["prompt1"] = b.prompt("first: read the notes")
	ids["attach"] = b.attachment("date", "<system-reminder>Today is 2026-11-30</system-reminder>")
	b.nonChain("file-history-snapshot", map[string]any{"messageId": "x", "snapshot": map[string]any{"trackedFileBackups": map[string]any{}}})
	m := b.newMessage()
	ids["think1"] = b.thinking(m, "hmm")
	ids["text1"] = b.text(m, "I'll read the notes.")
	ids["readKeptUse"] = b.toolUse(m, "toolu_keep", "Read", map[string]any{"file_path": "/home/example/src/proj/docs/notes.md"})
	ids["readKeptRes"] = b.toolResult("toolu_keep", "NOTES CONTENT")
	m = b.newMessage()
	ids["readOtherUse"] = b.toolUse(m, "toolu_other", "Read", map[string]any{"file_path": "/home/example/src/proj/main.go"})
	ids["readOtherRes"] = b.toolResult("toolu_other", strings.Repeat("package main\n", 400))
	m = b.newMessage()
	ids["bashUse"] = b.toolUse(m, "toolu_bash", "Bash", map[string]any{"command": "make"})
	ids["bashRes"] = b.toolResult("toolu_bash", strings.Repeat("build output\n", 300))
	m = b.newMessage()
	ids["mid"] = b.text(m, "Intermediate answer.")
	b.nonChain("custom-title", map[string]any{"customTitle": "my session"})
	ids["prompt2"] = b.prompt("second prompt")
	m = b.newMessage()
	ids["think2"] = b.thinking(m, strings.Repeat("long thought ", 200))
	ids["bash2Use"] = b.toolUse(m, "toolu_bash2", "Bash", map[string]any{"command": "ls"})
	ids["bash2Res"] = b.toolResult("toolu_bash2", "a b c")
	m = b.newMessage()
	ids["final"] = b.text(m, "Final answer: all done.")
	b.nonChain("last-prompt", map[string]any{"lastPrompt": "second prompt", "leafUuid": ids["final"]})
	return b, ids
}

func TestKeepPolicy(t *testing.T) {
	for _, version := range []string{"2.0.77", "2.1.332"} {
		t.Run(version, func(t *testing.T) {
			b, ids := session(version)
			in := b.String()
			out, rep, err := trimString(t, in, Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/docs"}})
			if err != nil {
				t.Fatal(err)
			}
			checkCopied(t, in, out)
			got := lineByUUID(out)
			kept := []string{"prompt1", "attach", "readKeptUse", "readKeptRes", "final"}
			dropped := []string{"think1", "text1", "readOtherUse", "readOtherRes", "bashUse", "bashRes", "mid", "prompt2", "think2", "bash2Use", "bash2Res"}
			for _, k := range kept {
				if _, ok := got[ids[k]]; !ok {
					t.Errorf("%s dropped, want kept", k)
				}
			}
			for _, k := range dropped {
				if _, ok := got[ids[k]]; ok {
					t.Errorf("%s kept, want dropped", k)
				}
			}
			// Re-linked to the nearest kept ancestor.
			wantParent := map[string]string{"prompt1": "", "attach": ids["prompt1"], "readKeptUse": ids["attach"],
				"readKeptRes": ids["readKeptUse"], "final": ids["readKeptRes"]}
			for k, p := range wantParent {
				if g := gjson.Get(got[ids[k]], "parentUuid").Str; g != p {
					t.Errorf("%s parent %q, want %q", k, g, p)
				}
			}
			for _, nc := range []string{"file-history-snapshot", "custom-title", "queue-operation", "last-prompt"} {
				if !strings.Contains(out, `"type":"`+nc+`"`) {
					t.Errorf("%s record lost", nc)
				}
			}
			if rep.Relinked == 0 || !rep.Changed {
				t.Errorf("report: %+v", rep)
			}
		})
	}
}

func TestKeepPolicySingleFileAndRelativeReads(t *testing.T) {
	b, ids := session("2.1.332")
	out, _, err := trimString(t, b.String(), Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	got := lineByUUID(out)
	if _, ok := got[ids["readOtherRes"]]; !ok {
		t.Error("Read of the kept file dropped")
	}
	if _, ok := got[ids["readKeptRes"]]; ok {
		t.Error("Read of another file kept")
	}
	// A prefix that is not a path component does not match.
	out, _, _ = trimString(t, b.String(), Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/doc"}})
	if _, ok := lineByUUID(out)[ids["readKeptRes"]]; ok {
		t.Error("/docs/notes.md matched kept path /doc")
	}
}

func TestFitPolicyStages(t *testing.T) {
	b, ids := session("2.1.332")
	in := b.String()
	_, full, err := trimString(t, in, Options{Policy: PolicyFit, FitTokens: 1 << 30})
	if err != nil || full.Changed {
		t.Fatalf("huge budget: %v %+v", err, full)
	}
	before := full.TokensBefore

	// Stage 1: dropping older thinking is enough.
	out, rep, err := trimString(t, in, Options{Policy: PolicyFit, FitTokens: int(before) - 2})
	if err != nil {
		t.Fatal(err)
	}
	got := lineByUUID(out)
	if _, ok := got[ids["think1"]]; ok {
		t.Error("stage 1 kept old thinking")
	}
	if _, ok := got[ids["think2"]]; !ok {
		t.Error("stage 1 dropped the last turn's thinking")
	}
	if _, ok := got[ids["bashRes"]]; !ok || strings.Contains(out, "[trimmed by tether") {
		t.Error("stage 1 went further than needed")
	}
	if rep.TokensAfter > rep.Target {
		t.Errorf("estimate %d over target %d", rep.TokensAfter, rep.Target)
	}

	// Stage 2: large results become markers, pairs intact.
	out, rep, err = trimString(t, in, Options{Policy: PolicyFit, FitTokens: int(before) - 1500})
	if err != nil {
		t.Fatal(err)
	}
	got = lineByUUID(out)
	res := got[ids["readOtherRes"]]
	if c := gjson.Get(res, "message.content.0.content").Str; !strings.HasPrefix(c, "[trimmed by tether: ") {
		t.Errorf("large Read result not trimmed: %q", c)
	}
	if c := gjson.Get(res, "toolUseResult").Str; !strings.HasPrefix(c, "[trimmed by tether: ") {
		t.Errorf("toolUseResult not trimmed: %q", c)
	}
	if _, ok := got[ids["readOtherUse"]]; !ok {
		t.Error("tool_use of a trimmed result dropped")
	}
	if gjson.Get(got[ids["readKeptRes"]], "message.content.0.content").Str != "NOTES CONTENT" {
		t.Error("small result trimmed")
	}
	if rep.TokensAfter > rep.Target {
		t.Errorf("estimate %d over target %d", rep.TokensAfter, rep.Target)
	}
	// Everything but the trimmed fields and parentUuid is byte-identical.
	orig := lineByUUID(in)[ids["readOtherRes"]]
	strip := func(s string) string {
		s, _ = sjson.Delete(s, "message.content.0.content")
		s, _ = sjson.Delete(s, "toolUseResult")
		return withoutParent(s)
	}
	if strip(orig) != strip(res) {
		t.Errorf("trimmed record changed elsewhere:\n%s\n%s", orig, res)
	}

	// Stage 3: whole old turns go; the last turn stays.
	out, rep, err = trimString(t, in, Options{Policy: PolicyFit, FitTokens: int(rep.TokensAfter) - 50})
	if err != nil {
		t.Fatal(err)
	}
	got = lineByUUID(out)
	for _, k := range []string{"prompt1", "readKeptUse", "readKeptRes", "mid"} {
		if _, ok := got[ids[k]]; ok {
			t.Errorf("stage 3 kept %s of the old turn", k)
		}
	}
	for _, k := range []string{"attach", "prompt2", "think2", "bash2Use", "bash2Res", "final"} {
		if _, ok := got[ids[k]]; !ok {
			t.Errorf("stage 3 dropped %s", k)
		}
	}
	if p := gjson.Get(got[ids["prompt2"]], "parentUuid").Str; p != ids["attach"] {
		t.Errorf("prompt2 re-linked to %q, want the kept attachment", p)
	}

	// Too small: refused.
	_, _, err = trimString(t, in, Options{Policy: PolicyFit, FitTokens: 10})
	var fe *FitError
	if !errors.As(err, &fe) {
		t.Errorf("impossible budget: %v", err)
	}

	// Percent of the model's window.
	_, rep, err = trimString(t, in, Options{Policy: PolicyFit, FitPercent: 60})
	if err != nil || rep.Window != DefaultWindow || rep.Target != DefaultWindow*60/100 {
		t.Errorf("percent: %v %+v", err, rep)
	}
}

func TestCompactionAndSidechains(t *testing.T) {
	b := newTB("2.0.77")
	b.turn("before compaction", strings.Repeat("x", 5000), "Bash:make")
	logical := b.last
	b.last = ""
	boundary := b.chain("system", map[string]any{"subtype": "compact_boundary", "content": "Conversation compacted",
		"logicalParentUuid": logical, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
	summary := b.chain("user", map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": "This session is being continued... summary"}})
	b.turn("after compaction", "ok", "Read:/home/example/src/proj/a.go")
	// A sidechain (2.0 wrote Task subagents into the file with isSidechain).
	main := b.last
	b.last, b.sidechain = "", true
	side1 := b.prompt("subagent task")
	sm := b.newMessage()
	b.toolUse(sm, "toolu_side", "Bash", map[string]any{"command": "ls"})
	b.toolResult("toolu_side", "files")
	b.text(b.newMessage(), "subagent done")
	b.last, b.sidechain = main, false
	b.turn("last", "ok")
	in := b.String()
	if err := Validate(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{
		{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj"}},
		{Policy: PolicyFit, FitTokens: 60},
	} {
		out, _, err := trimString(t, in, opts)
		if err != nil {
			t.Fatalf("%s: %v", opts.Policy, err)
		}
		got := lineByUUID(out)
		bl, ok := got[boundary]
		if !ok || gjson.Get(bl, "parentUuid").Type != gjson.Null {
			t.Fatalf("%s: boundary lost or re-parented: %s", opts.Policy, bl)
		}
		if l := gjson.Get(bl, "logicalParentUuid").Str; l != "" {
			if _, ok := got[l]; !ok {
				t.Errorf("%s: logicalParentUuid %s dangles", opts.Policy, l)
			}
		}
		if gjson.Get(got[summary], "parentUuid").Str != boundary {
			t.Errorf("%s: summary not under the boundary", opts.Policy)
		}
		if _, ok := got[side1]; !ok || !strings.Contains(out, "toolu_side") {
			t.Errorf("%s: sidechain records changed", opts.Policy)
		}
		// Nothing before the compaction counts toward the estimate: the 5000-byte
		// result before the boundary is never trimmed by fit.
		if opts.Policy == PolicyFit && strings.Contains(out, "[trimmed by tether") {
			t.Errorf("fit trimmed history a resume does not send")
		}
	}
}

func TestFormatGuard(t *testing.T) {
	base, _ := session("2.1.332")
	good := base.String()
	lines := strings.Split(strings.TrimSpace(good), "\n")
	mutate := func(i int, f func(string) string) string {
		c := append([]string(nil), lines...)
		c[i] = f(c[i])
		return strings.Join(c, "\n") + "\n"
	}
	set := func(path string, v any) func(string) string {
		return func(l string) string { s, _ := sjson.Set(l, path, v); return s }
	}
	del := func(path string) func(string) string {
		return func(l string) string { s, _ := sjson.Delete(l, path); return s }
	}
	keep := Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/docs"}}
	// Line 5 is think1 (an assistant record the keep policy drops); line 2 the first prompt.
	if gjson.Get(lines[4], "message.content.0.type").Str != "thinking" {
		t.Fatalf("fixture moved: %s", lines[4])
	}
	cases := []struct {
		name, in string
		wantLine int
		want     string
	}{
		{"unknown chain type", mutate(4, set("type", "assistant_v2")), 5, `unknown chain record type (type "assistant_v2", version 2.1.332)`},
		{"unknown block in a dropped record", mutate(4, set("message.content.0.type", "server_tool_use")), 5, `unknown content block type "server_tool_use"`},
		{"missing envelope key", mutate(4, del("sessionId")), 5, `without "sessionId"`},
		{"missing parentUuid", mutate(1, del("parentUuid")), 2, `without "parentUuid"`},
		{"content neither string nor array", mutate(1, set("message.content", 5)), 2, "neither a string nor an array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := trimString(t, c.in, keep)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Line != c.wantLine || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want line %d %q", err, c.wantLine, c.want)
			}
			if !strings.Contains(err.Error(), "version 2.1.332") {
				t.Errorf("error does not name the version: %v", err)
			}
			// The escape hatch passes unknown types through (not missing keys).
			if strings.HasPrefix(c.name, "unknown") {
				if _, _, err := trimString(t, c.in, Options{Policy: keep.Policy, KeepPaths: keep.KeepPaths, AllowUnknown: true}); err != nil {
					t.Errorf("--allow-unknown: %v", err)
				}
			}
		})
	}
	// Unknown non-chain types pass through untouched.
	in := good + `{"type":"brand-new-thing","sessionId":"s","payload":{"a":[1,2]}}` + "\n"
	out, _, err := trimString(t, in, keep)
	if err != nil || !strings.Contains(out, `{"type":"brand-new-thing","sessionId":"s","payload":{"a":[1,2]}}`) {
		t.Errorf("unknown non-chain record: %v", err)
	}
	// An unknown block in a record the policy keeps unchanged is fine.
	in = mutate(1, set("message.content", []any{map[string]any{"type": "text", "text": "first"}, map[string]any{"type": "new_block"}}))
	if _, _, err := trimString(t, in, keep); err != nil {
		t.Errorf("unknown block in an untouched record: %v", err)
	}
	// Invalid JSON mid-file is refused; a truncated last line is dropped.
	if _, _, err := trimString(t, mutate(3, func(string) string { return "{not json" }), keep); err == nil || !strings.Contains(err.Error(), "line 4: not valid JSON") {
		t.Errorf("garbage line: %v", err)
	}
	out, rep, err := trimString(t, good+`{"parentUuid":"x","type":"assis`, keep)
	if err != nil || strings.Contains(out, `"parentUuid":"x"`) || rep.RecordsBefore != len(lines)+1 {
		t.Errorf("truncated last line: %v %v %d %d", err, strings.Contains(out, `"parentUuid":"x"`), rep.RecordsBefore, len(lines))
	}
}

func TestUnpairedToolBlocksAreDropped(t *testing.T) {
	b := newTB("2.1.332")
	b.turn("one", "r1", "Bash:a")
	b.prompt("two")
	m := b.newMessage()
	dangling := b.toolUse(m, "toolu_dangling", "Bash", map[string]any{"command": "sleep 100"})
	in := b.String()
	if err := Validate(strings.NewReader(in)); err == nil {
		t.Fatal("validator accepted a dangling tool_use")
	}
	for _, opts := range []Options{{Policy: PolicyKeep, KeepPaths: []string{"/x"}}, {Policy: PolicyFit, FitTokens: 1}} {
		out, _, err := trimString(t, in, opts)
		if err != nil {
			var fe *FitError
			if errors.As(err, &fe) {
				continue
			}
			t.Fatal(err)
		}
		if _, ok := lineByUUID(out)[dangling]; ok {
			t.Errorf("%s kept a dangling tool_use", opts.Policy)
		}
	}
}

func TestNonChainRecordWithUUIDIsRelinked(t *testing.T) {
	b, ids := session("2.1.332")
	in := b.String() + `{"type":"summary","summary":"s","uuid":"odd-1","parentUuid":"` + ids["bashRes"] + `"}` + "\n"
	if err := Validate(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	out, _, err := trimString(t, in, Options{Policy: PolicyKeep, KeepPaths: []string{"/x"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := gjson.Get(lineByUUID(out)["odd-1"], "parentUuid").Str; p != ids["attach"] {
		t.Errorf("re-linked to %q, want the kept attachment %q", p, ids["attach"])
	}
}
