package serve

import (
	"net/http"
	"testing"
)

// Nothing a client sends makes the API fail on its own side: any body to
// any of these routes gets an answer below 500, in the error shape when it
// is refused.
func FuzzAPIBody(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"pause"}`, `{"kind":"rounds","n":-1}`, `{"mode":"magi"}`, `{"mode":null}`,
		`{"name":"x","provider":"openai","model":"m","color":"#fff"}`, `{"user_id":"u"}`, `{"user_id":"u","instruction":3}`,
		`[]`, `{"a":1}{"b":2}`, "\xff", `{"text":"@nobody hi"}`, ``, `{"kind":"steps","n":1e99}`,
	} {
		f.Add(seed)
	}
	fx := newFixture(f)
	id := fx.createSession(map[string]any{"mode": "talk"})
	paths := []string{"/api/v1/sessions/" + id + "/control", "/api/v1/sessions/" + id + "/mode", "/api/v1/agents",
		"/api/v1/debate/step", "/api/v1/sessions"}
	f.Fuzz(func(t *testing.T, body string) {
		fx := *fx
		fx.t = t
		for _, p := range paths {
			code, data := fx.do(http.MethodPost, p, body)
			if code >= 500 {
				t.Fatalf("POST %s %q: %d %s", p, body, code, data)
			}
		}
	})
}
