package summarize

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func anthropicZ(t *testing.T, base string) (*Summarizer, *anthropicProvider) {
	t.Helper()
	env := map[string]string{"ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-test-secret"}
	p, err := New(Options{Provider: ProviderAnthropic, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return &Summarizer{Provider: p, DataDir: t.TempDir(), Now: time.Now}, p.(*anthropicProvider)
}

const apiReply = `{"content":[{"type":"text","text":` + "\"{\\\"title\\\":\\\"T\\\",\\\"objective\\\":\\\"\\\",\\\"completed\\\":\\\"\\\",\\\"currentWork\\\":\\\"\\\",\\\"likelyNext\\\":\\\"\\\"}\"" + `}]}`

// A redirect to another server is not followed: the key and the evidence
// reach only the configured host.
func TestAnthropicRefusesRedirectOffHost(t *testing.T) {
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
		w.Write([]byte(apiReply))
	}))
	defer elsewhere.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/messages", http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	z, _ := anthropicZ(t, api.URL)
	_, err := z.Run(context.Background(), testEvidence())
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("error %v, want the redirect refused", err)
	}
	if n := other.Load(); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
}

// A redirect on the configured host (same scheme and port) is followed.
func TestAnthropicFollowsRedirectOnHost(t *testing.T) {
	var key string
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v2/messages", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/v2/messages", func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("x-api-key")
		w.Write([]byte(apiReply))
	})
	api := httptest.NewServer(mux)
	defer api.Close()
	z, _ := anthropicZ(t, api.URL)
	if res, err := z.Run(context.Background(), testEvidence()); err != nil || res.Summary.Title != "T" || key != "sk-test-secret" {
		t.Errorf("run: %+v %v (key %q)", res.Summary, err, key)
	}
}

type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, errors.New("no network in this test")
}

// Cleartext http is refused for a remote host before anything is sent.
func TestAnthropicRefusesCleartextRemote(t *testing.T) {
	z, p := anthropicZ(t, "http://example.invalid")
	rt := &countingTransport{}
	p.client.Transport = rt
	_, err := z.Run(context.Background(), testEvidence())
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "cleartext") {
		t.Errorf("error %v, want refused as cleartext", err)
	}
	if rt.n.Load() != 0 {
		t.Errorf("%d requests made", rt.n.Load())
	}
}

func TestCheckBase(t *testing.T) {
	for base, ok := range map[string]bool{
		"https://api.anthropic.com":  true,
		"https://proxy.example:8443": true,
		"http://127.0.0.1:8080":      true,
		"http://127.1.2.3":           true,
		"http://[::1]:9000":          true,
		"http://localhost:9000":      true,
		"http://LOCALHOST":           true,
		"http://example.invalid":     false,
		"http://10.0.0.1":            false,
		"http://localhost.evil.com":  false,
		"http://[::ffff:10.0.0.1]":   false,
		"ftp://api.anthropic.com":    false,
		"api.anthropic.com":          false,
	} {
		if _, err := checkBase(base); (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", base, err, ok)
		}
	}
}
