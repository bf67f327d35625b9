package main

import (
	"math"
	"strings"
	"testing"
)

// The LiteLLM list is cut to the kept models' price fields, entries
// without both prices dropped; models.dev's context tiers join the
// entries of the same id, per token.
func TestParseAndTiers(t *testing.T) {
	m, err := parse([]byte(`{"gpt-x":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6,"max_input_tokens":5,"mode":"chat"},
		"gpt-half":{"input_cost_per_token":1e-6},"mistral-y":{"i":1,"o":1},"claude-z":{"i":3e-6,"o":1.5e-5,"ctx":1000000}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["gpt-x"].I != 1e-6 || m["claude-z"].O != 1.5e-5 {
		t.Fatalf("%+v", m)
	}
	if err := addTiers(m, []byte(`{"gpt-x":{"cost":{"input":1,"output":2,"tiers":[{"input":2,"output":4,"cache_read":0.2,"tier":{"size":272000,"type":"context"}}]}}}`)); err != nil {
		t.Fatal(err)
	}
	tr := m["gpt-x"].Ctx
	if len(tr) != 1 || tr[0].Size != 272000 || tr[0].I != 2e-6 || math.Abs(*tr[0].CR-2e-7) > 1e-18 {
		t.Fatalf("tiers %+v", tr)
	}
	b, err := encode(table{Source: "s", Taken: "2026-12-02", Models: m})
	if err != nil || !strings.Contains(string(b), `"gpt-x":{"i":0.000001,"o":0.000002,"tiers":[{"size":272000`) {
		t.Fatalf("%s %v", b, err)
	}
	if _, err := parse([]byte(`{"mistral":{"i":1,"o":1}}`)); err == nil {
		t.Fatal("a list with no kept model parsed")
	}
}
