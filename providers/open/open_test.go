package open_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

func TestOpenRejectsInvalidSpecs(t *testing.T) {
	clearVendorEnv(t)
	for _, spec := range []providers.Spec{
		{Type: "palm"},
		{Type: ""},
		{Type: "openai", BaseURL: "://nope"},
		{Type: "openai", BaseURL: "ftp://example.com"},
		{Type: "anthropic", BaseURL: "localhost:8080"},
		{Type: "gemini", BaseURL: "http://"},
		{Type: "openai-compatible"}, // where is the server?
	} {
		if _, err := open.Open("x", spec, envMap()); err == nil {
			t.Errorf("Open(%+v) succeeded, want an error", spec)
		} else if !strings.Contains(err.Error(), `"x"`) {
			t.Errorf("error %q does not name the provider", err)
		}
	}
	// A bad endpoint from the environment is named too.
	_, err := open.Open("x", providers.Spec{Type: "openai"}, envMap("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", "not a url"))
	if err == nil || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("err = %v, want one naming OPENAI_BASE_URL", err)
	}
}

func TestOpenMissingKeyFailsEveryStreamNamingTheVariable(t *testing.T) {
	clearVendorEnv(t)
	for _, tc := range []struct {
		spec providers.Spec
		want string
	}{
		{providers.Spec{Type: "openai"}, "set OPENAI_API_KEY (or run with --demo)"},
		{providers.Spec{Type: "anthropic"}, "set ANTHROPIC_API_KEY"},
		{providers.Spec{Type: "gemini"}, "set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{providers.Spec{Type: "openai-compatible", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "OPENROUTER_API_KEY"}, "set OPENROUTER_API_KEY"},
	} {
		p, err := open.Open("agent", tc.spec, envMap())
		if err != nil {
			t.Fatalf("Open(%+v): %v", tc.spec, err)
		}
		if p.Name() != "agent" {
			t.Errorf("name = %q", p.Name())
		}
		for range 2 {
			_, err = p.Stream(context.Background(), providers.Request{Model: "m"})
			pe := wantKind(t, err, providers.KindMissingKey)
			if !strings.Contains(pe.Message, tc.want) || !strings.HasPrefix(pe.Message, "no API key: ") {
				t.Errorf("message = %q, want it to contain %q", pe.Message, tc.want)
			}
		}
	}
}

func TestKeyVarsAndHasKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec providers.Spec
		vars []string
	}{
		{providers.Spec{Type: "openai"}, []string{"OPENAI_API_KEY"}},
		{providers.Spec{Type: "openai", APIKeyEnv: "WORK_OPENAI_KEY"}, []string{"WORK_OPENAI_KEY"}},
		{providers.Spec{Type: "anthropic"}, []string{"ANTHROPIC_API_KEY"}},
		{providers.Spec{Type: "gemini"}, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
		{providers.Spec{Type: "openai-compatible", BaseURL: "http://localhost:11434/v1"}, nil},
		{providers.Spec{Type: "demo"}, nil},
	} {
		if got := providers.KeyVars(tc.spec); !reflect.DeepEqual(got, tc.vars) {
			t.Errorf("KeyVars(%+v) = %v, want %v", tc.spec, got, tc.vars)
		}
	}
	gemini := providers.Spec{Type: "gemini"}
	if providers.HasKey(gemini, envMap()) || !providers.HasKey(gemini, envMap("GOOGLE_API_KEY", "k")) {
		t.Error("HasKey(gemini) wrong")
	}
	if providers.HasKey(providers.Spec{Type: "openai"}, envMap("OPENAI_API_KEY", "  ")) {
		t.Error("a blank key counts as a key")
	}
	if !providers.HasKey(providers.Spec{Type: "openai-compatible"}, envMap()) || !providers.HasKey(providers.Spec{Type: "demo"}, envMap()) {
		t.Error("keyless specs must report HasKey true")
	}
}

func TestOpenDemoNeedsNothing(t *testing.T) {
	t.Parallel()
	p, err := open.Open("demo", providers.Spec{Type: "demo"}, envMap())
	if err != nil || p == nil || p.Name() != "demo" {
		t.Fatalf("p = %v, err = %v", p, err)
	}
}

func TestOpenAICompatibleWithoutKeySendsNoAuthorization(t *testing.T) {
	clearVendorEnv(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Text: "local"} })
	p, err := open.Open("ollama", providers.Spec{Type: "openai-compatible", BaseURL: srv.URL + "/"}, envMap("OPENAI_API_KEY", "must-not-leak"))
	if err != nil {
		t.Fatal(err)
	}
	o := run(t, p, context.Background(), providers.Request{Model: "llama3.2", Messages: history()})
	if o.err != nil || o.text() != "local" {
		t.Fatalf("text = %q, err = %v", o.text(), o.err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none", h)
	}
}

func TestOpenBaseURLPrecedence(t *testing.T) {
	clearVendorEnv(t)
	fromEnv := providertest.OpenAI(t, nil)
	explicit := providertest.OpenAI(t, nil)
	env := envMap("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", fromEnv.URL)

	p, err := open.Open("openai", providers.Spec{Type: "openai"}, env)
	if err != nil {
		t.Fatal(err)
	}
	run(t, p, context.Background(), providers.Request{Model: "gpt-5", Messages: history()})
	if len(fromEnv.Requests()) != 1 {
		t.Fatalf("OPENAI_BASE_URL not used: %d requests", len(fromEnv.Requests()))
	}

	p, err = open.Open("openai", providers.Spec{Type: "openai", BaseURL: explicit.URL}, env)
	if err != nil {
		t.Fatal(err)
	}
	run(t, p, context.Background(), providers.Request{Model: "gpt-5", Messages: history()})
	if len(explicit.Requests()) != 1 || len(fromEnv.Requests()) != 1 {
		t.Fatal("explicit base_url must win over OPENAI_BASE_URL")
	}

	// The vendor env vars of the other adapters are honoured the same way.
	for _, v := range []vendor{vendorNamed("anthropic"), vendorNamed("gemini")} {
		srv := v.fake(t, nil)
		envVar := map[string]string{"anthropic": "ANTHROPIC_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}[v.name]
		p, err := open.Open(v.name, providers.Spec{Type: v.typ, APIKeyEnv: "K"}, envMap("K", "k", envVar, srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		run(t, p, context.Background(), providers.Request{Model: v.model, Messages: history()})
		if len(srv.Requests()) != 1 {
			t.Errorf("%s: %s not used", v.name, envVar)
		}
	}
}

func TestOpenMaxRetriesZeroDisablesRetries(t *testing.T) {
	clearVendorEnv(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Status: 503} })
	zero := 0
	p, err := open.Open("openai", providers.Spec{Type: "openai", BaseURL: srv.URL, MaxRetries: &zero}, envMap("OPENAI_API_KEY", "k"))
	if err != nil {
		t.Fatal(err)
	}
	o := run(t, p, context.Background(), providers.Request{Model: "gpt-5", Messages: history()})
	wantKind(t, o.err, providers.KindServer)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("requests = %d, want 1", n)
	}
}
