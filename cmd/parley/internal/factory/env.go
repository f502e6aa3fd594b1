package factory

import (
	"maps"
	"os"
	"slices"
	"sync"
)

// Env is a process environment: the real one (Process) or a test's own
// (Map). The factory is the one reader of the environment; every package
// below it is handed these functions instead of calling os.Getenv.
type Env interface {
	Getenv(key string) string
	LookupEnv(key string) (string, bool)
	Environ() []string // os.Environ's form, KEY=value
	Setenv(key, value string) error
}

// Process is the environment of this process.
type Process struct{}

func (Process) Getenv(k string) string            { return os.Getenv(k) }
func (Process) LookupEnv(k string) (string, bool) { return os.LookupEnv(k) }
func (Process) Environ() []string                 { return os.Environ() }
func (Process) Setenv(k, v string) error          { return os.Setenv(k, v) }

// Map is an environment of its own, for a test that runs whole commands
// in-process and in parallel: no variable of the machine leaks in, and
// nothing a command sets (.env) leaks out. Safe for concurrent use.
type Map struct {
	mu   sync.Mutex
	vars map[string]string
}

// NewMap is an environment holding exactly vars.
func NewMap(vars map[string]string) *Map {
	return &Map{vars: maps.Clone(vars)}
}

func (m *Map) Getenv(k string) string {
	v, _ := m.LookupEnv(k)
	return v
}

func (m *Map) LookupEnv(k string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vars[k]
	return v, ok
}

func (m *Map) Environ() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	env := make([]string, 0, len(m.vars))
	for _, k := range slices.Sorted(maps.Keys(m.vars)) {
		env = append(env, k+"="+m.vars[k])
	}
	return env
}

func (m *Map) Setenv(k, v string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.vars == nil {
		m.vars = map[string]string{}
	}
	m.vars[k] = v
	return nil
}
