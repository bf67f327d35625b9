package usage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// The bundled table: generated from the list ccusage prices by (see
// tools/genpricing and docs/usage.md); CCUSAGE_BIN is a ccusage native
// binary of the version to match.
//go:generate sh -c "go run ../tools/genpricing -ccusage \"$CCUSAGE_BIN\" -source \"$PRICING_SOURCE\" -o pricing.json"

//go:embed pricing.json
var bundled []byte

// Price is one model's prices in USD per token. The *Above prices apply to
// the tokens of a field past 200,000 in one record; 0 when the model has
// no tier.
type Price struct {
	Input, Output, CacheWrite, CacheRead                     float64
	InputAbove, OutputAbove, CacheWriteAbove, CacheReadAbove float64
	// CacheReadListed: the list gives a cache-read price (else CacheRead
	// is a tenth of Input, and a flat-billed cached token costs Input).
	CacheReadListed bool
	// Fast multiplies the price of a fast-tier record (1 when unknown).
	Fast float64
	// Tiers price a whole flat-billed request whose input passes their
	// Size (OpenAI's long-context prices), largest Size last.
	Tiers []Tier
	// Near: the price is another id's, found by the loose match. ccusage
	// 20.0.24 then starts the tiers at 200,000 input tokens, whatever
	// their size (observed; see docs/usage.md).
	Near bool
}

// Tier is a context tier's prices per token.
type Tier struct {
	Size                     int64
	Input, Output, CacheRead float64
	CacheReadListed          bool
}

// Pricing is a table of prices by model id.
type Pricing struct {
	// Source and Taken say where the table came from and when.
	Source, Taken string
	models        map[string]Price
	mu            sync.Mutex
	found         map[string]*Price // Find's answers, nil for none
}

type listFile struct {
	Source string                     `json:"source"`
	Taken  string                     `json:"taken"`
	Models map[string]json.RawMessage `json:"models"`
}

type listPrice struct {
	I, O                *float64
	CC, CR, IA, OA, CCA *float64
	CRA, Fast           *float64
	Tiers               []struct {
		Size int64
		I, O float64
		CR   *float64
	}
}

var (
	bundledOnce    sync.Once
	bundledPricing *Pricing
)

// Bundled is the table built into tether.
func Bundled() *Pricing {
	bundledOnce.Do(func() {
		p, err := ParsePricing(bundled)
		if err != nil {
			panic("usage: the bundled pricing.json does not parse: " + err.Error())
		}
		bundledPricing = p
	})
	return bundledPricing
}

// LoadPricing reads a table from path: the bundled table's form, or a
// LiteLLM price list (model_prices_and_context_window.json).
func LoadPricing(path string) (*Pricing, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePricing(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Source == "" {
		p.Source = path
	}
	return p, nil
}

// ParsePricing reads a table in the bundled form or as a LiteLLM list.
func ParsePricing(b []byte) (*Pricing, error) {
	var f listFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a price table: %w", err)
	}
	entries := f.Models
	if entries == nil { // a LiteLLM list: models at the top
		if err := json.Unmarshal(b, &entries); err != nil {
			return nil, fmt.Errorf("not a price table: %w", err)
		}
	}
	p := &Pricing{Source: f.Source, Taken: f.Taken, models: map[string]Price{}, found: map[string]*Price{}}
	for model, raw := range entries {
		if lp, ok := parseEntry(raw); ok {
			p.models[model] = lp
		}
	}
	if len(p.models) == 0 {
		return nil, fmt.Errorf("no model has both an input and an output price")
	}
	return p, nil
}

// parseEntry reads one model's prices under the compact or the LiteLLM
// names; a model without input and output prices is not priced (as in
// ccusage), and missing cache prices default to 1.25 × and 0.1 × input.
func parseEntry(raw json.RawMessage) (Price, bool) {
	var full map[string]json.RawMessage
	if json.Unmarshal(raw, &full) != nil {
		return Price{}, false
	}
	names := map[string]string{"input_cost_per_token": "i", "output_cost_per_token": "o",
		"cache_creation_input_token_cost": "cc", "cache_read_input_token_cost": "cr",
		"input_cost_per_token_above_200k_tokens": "ia", "output_cost_per_token_above_200k_tokens": "oa",
		"cache_creation_input_token_cost_above_200k_tokens": "cca", "cache_read_input_token_cost_above_200k_tokens": "cra"}
	compact := map[string]json.RawMessage{}
	for k, v := range full {
		if c, ok := names[k]; ok {
			compact[c] = v
		} else {
			compact[k] = v
		}
	}
	b, _ := json.Marshal(compact)
	var lp listPrice
	if json.Unmarshal(b, &lp) != nil || lp.I == nil || lp.O == nil {
		return Price{}, false
	}
	val := func(p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		return *p
	}
	pr := Price{Input: *lp.I, Output: *lp.O, CacheWrite: val(lp.CC, *lp.I*1.25), CacheRead: val(lp.CR, *lp.I*0.1),
		InputAbove: val(lp.IA, 0), OutputAbove: val(lp.OA, 0), CacheWriteAbove: val(lp.CCA, 0), CacheReadAbove: val(lp.CRA, 0),
		CacheReadListed: lp.CR != nil, Fast: val(lp.Fast, 1)}
	for _, t := range lp.Tiers {
		if t.Size > 0 {
			pr.Tiers = append(pr.Tiers, Tier{Size: t.Size, Input: t.I, Output: t.O, CacheRead: val(t.CR, t.I*0.1), CacheReadListed: t.CR != nil})
		}
	}
	sort.Slice(pr.Tiers, func(i, j int) bool { return pr.Tiers[i].Size < pr.Tiers[j].Size })
	return pr, true
}

// Len is how many models the table prices.
func (p *Pricing) Len() int { return len(p.models) }

// Find is model's price, matched as ccusage matches: the id itself, else
// the longest listed id that one contains at word boundaries (or that
// contains it), dots and @ read as dashes, never across a version number
// ("claude-opus-4" does not price "claude-opus-4-5").
func (p *Pricing) Find(model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if got, ok := p.found[model]; ok {
		if got == nil {
			return Price{}, false
		}
		return *got, true
	}
	got := p.find(model)
	if got == nil && model == "gpt-5.3-spark" { // a Codex label the lists do not publish
		got = p.find("gpt-5.3-codex-spark")
	}
	p.found[model] = got
	if got == nil {
		return Price{}, false
	}
	return *got, true
}

func (p *Pricing) find(model string) *Price {
	if pr, ok := p.models[model]; ok {
		return &pr
	}
	norm := normalizeKey(model)
	best := ""
	for cand := range p.models {
		if !keyMatches(cand, model, norm) {
			continue
		}
		if len(cand) > len(best) || (len(cand) == len(best) && cand < best) {
			best = cand
		}
	}
	if best == "" {
		return nil
	}
	pr := p.models[best]
	pr.Near = true
	return &pr
}

func normalizeKey(s string) string { return strings.NewReplacer(".", "-", "@", "-").Replace(s) }

func keyMatches(cand, model, norm string) bool {
	if containsKey(model, cand) || containsKey(cand, model) {
		return true
	}
	nc := normalizeKey(cand)
	return containsKey(norm, nc) || containsKey(nc, norm)
}

// containsKey: key occurs in value with a non-alphanumeric byte (or the
// edge) before it, and after it an edge or a separator that does not
// start another version number.
func containsKey(value, key string) bool {
	if key == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(value[i:], key)
		if j < 0 {
			return false
		}
		at := i + j
		if (at == 0 || !alnum(value[at-1])) && suffixAllows(key, value[at+len(key):]) {
			return true
		}
		i = at + 1
	}
}

func alnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func suffixAllows(key, suffix string) bool {
	if suffix == "" {
		return true
	}
	if alnum(suffix[0]) {
		return false
	}
	return !startsVersion(key, suffix)
}

// startsVersion: key ends in a digit and suffix goes on with "-N" or ".N"
// (another version part), unless N is an 8-digit date.
func startsVersion(key, suffix string) bool {
	if c := key[len(key)-1]; c < '0' || c > '9' {
		return false
	}
	if suffix[0] != '-' && suffix[0] != '.' {
		return false
	}
	rest := suffix[1:]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return false
	}
	return !(n == 8 && (n == len(rest) || !alnum(rest[n])))
}
