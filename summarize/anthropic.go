package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// anthropicProvider calls the Messages API with ANTHROPIC_API_KEY (and
// ANTHROPIC_BASE_URL when set), for people without a logged-in CLI.
type anthropicProvider struct {
	o      Options
	base   string
	client *http.Client
}

const anthropicVersion = "2023-06-01"

func newAnthropic(o Options) *anthropicProvider {
	base := strings.TrimRight(o.Getenv("ANTHROPIC_BASE_URL"), "/")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	return &anthropicProvider{o: o, base: base, client: &http.Client{Timeout: 5 * time.Minute}}
}

func (p *anthropicProvider) Name() string  { return ProviderAnthropic }
func (p *anthropicProvider) Model() string { return p.o.Model }
func (p *anthropicProvider) url() string   { return p.base + "/v1/messages" }

func (p *anthropicProvider) Describe() string {
	return fmt.Sprintf("POST %s (model %s, x-api-key from ANTHROPIC_API_KEY)", p.url(), p.o.Model)
}

func (p *anthropicProvider) Check(context.Context) error {
	if p.o.Getenv("ANTHROPIC_API_KEY") == "" {
		return fmt.Errorf("%w: provider anthropic needs ANTHROPIC_API_KEY in the environment", ErrRefused)
	}
	return nil
}

func (p *anthropicProvider) Summarize(ctx context.Context, in Input) (string, error) {
	body, err := json.Marshal(map[string]any{
		"model":      p.o.Model,
		"max_tokens": 1024,
		"system":     Instructions,
		"messages":   []map[string]any{{"role": "user", "content": "# Session evidence\n" + in.Text}},
	})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url(), bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("anthropic: %w", err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("anthropic-version", anthropicVersion)
	req.Header.Set("x-api-key", p.o.Getenv("ANTHROPIC_API_KEY"))
	resp, err := p.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("anthropic: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", fmt.Errorf("anthropic: read reply: %w", err)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	jerr := json.Unmarshal(data, &r)
	if resp.StatusCode != http.StatusOK {
		msg := resp.Status
		if jerr == nil && r.Error != nil {
			msg += ": " + oneLine(r.Error.Type+": "+r.Error.Message, 300)
		}
		return "", fmt.Errorf("anthropic: %s", msg)
	}
	if jerr != nil {
		return "", fmt.Errorf("anthropic: reply is not JSON: %w", jerr)
	}
	var text strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	return text.String(), nil
}
