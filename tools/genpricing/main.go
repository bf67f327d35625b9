// Command genpricing writes tether's bundled model price table
// (usage/pricing.json) from the public list ccusage prices by: LiteLLM's
// model_prices_and_context_window.json. It reads the list itself (-litellm
// FILE: the full list, or the compact form ccusage embeds) or takes it
// out of a ccusage native binary (-ccusage FILE), where the compact list
// is stored deflated: the same prices ccusage's --offline reports use.
// Only the price fields of the models ccusage keeps are written.
//
//	go run ./tools/genpricing -ccusage node_modules/@ccusage/ccusage-linux-x64/bin/ccusage -source "ccusage 20.0.24" -o usage/pricing.json
package main

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// price is one model's prices per token, under the compact names ccusage
// uses (i input, o output, cc cache write, cr cache read, the *a ones
// above 200k tokens, fast the fast tier's multiplier).
type price struct {
	I    float64  `json:"i"`
	O    float64  `json:"o"`
	CC   *float64 `json:"cc,omitempty"`
	CR   *float64 `json:"cr,omitempty"`
	IA   *float64 `json:"ia,omitempty"`
	OA   *float64 `json:"oa,omitempty"`
	CCA  *float64 `json:"cca,omitempty"`
	CRA  *float64 `json:"cra,omitempty"`
	Fast *float64 `json:"fast,omitempty"`
	// Ctx are the context tiers: past Size input tokens in one request,
	// the whole request is priced at the tier's prices (models.dev's
	// "context" tiers, which ccusage 20 applies to Codex's requests).
	Ctx []tier `json:"tiers,omitempty"`
}

// tier is one context tier, prices per token.
type tier struct {
	Size int64    `json:"size"`
	I    float64  `json:"i"`
	O    float64  `json:"o"`
	CR   *float64 `json:"cr,omitempty"`
	CC   *float64 `json:"cc,omitempty"`
}

// table is the file written: where the list came from and when.
type table struct {
	Source string           `json:"source"`
	Taken  string           `json:"taken"`
	Models map[string]price `json:"models"`
}

// fullNames are the LiteLLM list's field names of each compact one.
var fullNames = map[string]string{
	"input_cost_per_token": "i", "output_cost_per_token": "o",
	"cache_creation_input_token_cost": "cc", "cache_read_input_token_cost": "cr",
	"input_cost_per_token_above_200k_tokens": "ia", "output_cost_per_token_above_200k_tokens": "oa",
	"cache_creation_input_token_cost_above_200k_tokens": "cca", "cache_read_input_token_cost_above_200k_tokens": "cra",
}

// kept are the prefixes of the models ccusage embeds (its build script's
// filter): the agents' own models, not the list's thousands of others.
var kept = []string{"claude-", "anthropic.", "anthropic/", "us.anthropic.", "eu.anthropic.", "global.anthropic.",
	"jp.anthropic.", "au.anthropic.", "gpt-", "openai/", "azure/", "zai/", "openrouter/openai/"}

func main() {
	litellm := flag.String("litellm", "", "LiteLLM's model_prices_and_context_window.json (full or compact)")
	ccusage := flag.String("ccusage", "", "a ccusage native binary to take its embedded lists from")
	modelsDev := flag.String("models-dev", "", "with -litellm: models.dev's compact list, for the context tiers")
	source := flag.String("source", "", "what the list is (recorded in the table)")
	taken := flag.String("taken", time.Now().UTC().Format("2006-01-02"), "the date the list was taken")
	out := flag.String("o", "usage/pricing.json", "the table to write")
	flag.Parse()
	if err := run(*litellm, *modelsDev, *ccusage, *source, *taken, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genpricing:", err)
		os.Exit(1)
	}
}

func run(litellm, modelsDev, ccusage, source, taken, out string) error {
	var raw, dev []byte
	var err error
	switch {
	case litellm != "" && ccusage == "":
		raw, err = os.ReadFile(litellm)
		if err == nil && modelsDev != "" {
			dev, err = os.ReadFile(modelsDev)
		}
	case ccusage != "" && litellm == "":
		raw, dev, err = fromBinary(ccusage)
	default:
		return errors.New("give one of -litellm or -ccusage")
	}
	if err != nil {
		return err
	}
	models, err := parse(raw)
	if err != nil {
		return err
	}
	if dev != nil {
		if err := addTiers(models, dev); err != nil {
			return err
		}
	}
	b, err := encode(table{Source: source, Taken: taken, Models: models})
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// parse reads either form of the list into the kept models' prices; an
// entry without both an input and an output price is dropped (ccusage
// drops it too).
func parse(raw []byte) (map[string]price, error) {
	var list map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("the price list: %w", err)
	}
	out := map[string]price{}
	for model, fields := range list {
		if !keptModel(model) {
			continue
		}
		compact := map[string]json.RawMessage{}
		for k, v := range fields {
			if c, ok := fullNames[k]; ok {
				compact[c] = v
			} else if k == "provider_specific_entry" {
				var pse struct {
					Fast json.RawMessage `json:"fast"`
				}
				if json.Unmarshal(v, &pse) == nil && pse.Fast != nil {
					compact["fast"] = pse.Fast
				}
			} else if len(k) <= 4 {
				compact[k] = v
			}
		}
		b, _ := json.Marshal(compact)
		var p price
		var probe struct{ I, O *float64 }
		if json.Unmarshal(b, &probe) != nil || probe.I == nil || probe.O == nil || json.Unmarshal(b, &p) != nil {
			continue
		}
		out[model] = p
	}
	if len(out) == 0 {
		return nil, errors.New("the price list names no model with input and output prices")
	}
	return out, nil
}

func keptModel(m string) bool {
	for _, p := range kept {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// fromBinary finds the deflated lists in a ccusage binary: raw deflate
// streams that inflate to a JSON object of models, the LiteLLM one (its
// entries have "i" and "o") and the models.dev one (entries with "cost").
func fromBinary(path string) (litellm, modelsDev []byte, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	for off := 0; off+2 < len(data) && (litellm == nil || modelsDev == nil); off++ {
		head := make([]byte, 64)
		n, _ := io.ReadFull(flate.NewReader(bytes.NewReader(data[off:min(len(data), off+256)])), head)
		if n < 8 || !bytes.HasPrefix(head, []byte(`{"`)) || !bytes.Contains(head[:n], []byte(`":{"`)) {
			continue
		}
		all, err := io.ReadAll(flate.NewReader(bytes.NewReader(data[off:])))
		if err != nil || !json.Valid(all) {
			continue
		}
		var probe map[string]map[string]any
		if json.Unmarshal(all, &probe) != nil {
			continue
		}
		var prices, costs int
		for _, v := range probe {
			_, i := v["i"]
			_, o := v["o"]
			if _, c := v["cost"]; c {
				costs++
			}
			if i && o {
				prices++
			}
		}
		switch {
		case prices > len(probe)/2 && litellm == nil:
			litellm = all
		case costs > len(probe)/2 && modelsDev == nil:
			modelsDev = all
		}
	}
	if litellm == nil {
		return nil, nil, fmt.Errorf("%s: no embedded price list found", path)
	}
	return litellm, modelsDev, nil
}

// addTiers takes each kept model's context tiers from the models.dev
// list's entry of the same id (prices there are per million tokens).
func addTiers(models map[string]price, dev []byte) error {
	var list map[string]struct {
		Cost struct {
			Tiers []struct {
				Input     *float64 `json:"input"`
				Output    *float64 `json:"output"`
				CacheRead *float64 `json:"cache_read"`
				CacheWr   *float64 `json:"cache_write"`
				Tier      struct {
					Size int64  `json:"size"`
					Type string `json:"type"`
				} `json:"tier"`
			} `json:"tiers"`
		} `json:"cost"`
	}
	if err := json.Unmarshal(dev, &list); err != nil {
		return fmt.Errorf("the models.dev list: %w", err)
	}
	perToken := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p / 1e6
		return &v
	}
	for m, pr := range models {
		for _, t := range list[m].Cost.Tiers {
			if t.Tier.Type != "context" || t.Input == nil || t.Output == nil || t.Tier.Size <= 0 {
				continue
			}
			pr.Ctx = append(pr.Ctx, tier{Size: t.Tier.Size, I: *perToken(t.Input), O: *perToken(t.Output), CR: perToken(t.CacheRead), CC: perToken(t.CacheWr)})
		}
		models[m] = pr
	}
	return nil
}

// encode writes the table one model a line, sorted, so a refresh diffs
// by model.
func encode(t table) ([]byte, error) {
	names := make([]string, 0, len(t.Models))
	for m := range t.Models {
		names = append(names, m)
	}
	sort.Strings(names)
	var b bytes.Buffer
	src, _ := json.Marshal(t.Source)
	tk, _ := json.Marshal(t.Taken)
	fmt.Fprintf(&b, "{\"source\":%s,\n\"taken\":%s,\n\"models\":{\n", src, tk)
	for i, m := range names {
		k, _ := json.Marshal(m)
		v, err := json.Marshal(t.Models[m])
		if err != nil {
			return nil, err
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s:%s%s\n", k, v, sep)
	}
	b.WriteString("}}\n")
	return b.Bytes(), nil
}
