package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// anthropicProvider calls the Messages API with ANTHROPIC_API_KEY (and
// ANTHROPIC_BASE_URL when set), for people without a logged-in CLI.
type anthropicProvider struct {
	o      Options
	base   string
	client *http.Client
	// baseErr is why base cannot be used (nil: it can).
	baseErr error
}

const anthropicVersion = "2023-06-01"

func newAnthropic(o Options) *anthropicProvider {
	base := strings.TrimRight(o.Getenv("ANTHROPIC_BASE_URL"), "/")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	p := &anthropicProvider{o: o, base: base}
	var u *url.URL
	u, p.baseErr = checkBase(base)
	p.client = &http.Client{Timeout: 5 * time.Minute, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		// The key and the session's evidence go to the host the user
		// configured and nowhere else: a redirect off it (another
		// scheme, host or port) is refused, not followed.
		if u == nil || !sameOrigin(req.URL, u) {
			return fmt.Errorf("refusing a redirect off %s to %s", base, req.URL.Redacted())
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}}
	return p
}

// checkBase parses the base URL and refuses what would send the key in
// the clear: http:// except to this machine (loopback), or another scheme.
func checkBase(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("ANTHROPIC_BASE_URL %q: %w", base, err)
	}
	switch {
	case u.Host == "":
		return nil, fmt.Errorf("ANTHROPIC_BASE_URL %q has no host", base)
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	case u.Scheme == "http":
		return nil, fmt.Errorf("ANTHROPIC_BASE_URL %s is cleartext http to another machine: the API key and the session would be readable on the way (use https)", u.Redacted())
	default:
		return nil, fmt.Errorf("ANTHROPIC_BASE_URL %q: scheme %q is not https", base, u.Scheme)
	}
	return u, nil
}

// loopback reports whether host is this machine: localhost, 127.0.0.0/8
// or ::1.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (a default port spelled or not).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") {
		return "80"
	}
	return "443"
}

func (p *anthropicProvider) Name() string  { return ProviderAnthropic }
func (p *anthropicProvider) Model() string { return p.o.Model }
func (p *anthropicProvider) url() string   { return p.base + "/v1/messages" }

func (p *anthropicProvider) Describe() string {
	return fmt.Sprintf("POST %s (model %s, x-api-key from ANTHROPIC_API_KEY)", p.url(), p.o.Model)
}

func (p *anthropicProvider) Check(context.Context) error {
	if p.baseErr != nil {
		return fmt.Errorf("%w: %w", ErrRefused, p.baseErr)
	}
	if p.o.Getenv("ANTHROPIC_API_KEY") == "" {
		return fmt.Errorf("%w: provider anthropic needs ANTHROPIC_API_KEY in the environment", ErrRefused)
	}
	return nil
}

func (p *anthropicProvider) Summarize(ctx context.Context, in Input) (string, error) {
	if p.baseErr != nil {
		// Check refuses it first; nothing is sent regardless.
		return "", fmt.Errorf("%w: %w", ErrRefused, p.baseErr)
	}
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
