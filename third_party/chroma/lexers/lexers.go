package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// Parley's patch: it is filled on the first lookup (Get, Names, Match,
// MatchMimeType, Analyse), not at start-up: reading the ~240 embedded XML
// definitions cost every process ~10 ms and 25,000 allocations whether it
// highlighted anything or not. Use it through those functions; read
// directly, it is empty until the first of them.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadMu sync.Mutex
	loaded bool
	// pending holds the lexers registered before the first lookup, in
	// order: they are registered after the embedded ones, as they were
	// when the registry was built at start-up (the later of two lexers
	// of one name wins).
	pending []chroma.Lexer
	// hooks run once the registry is filled (the package's init
	// functions that adjust a registered lexer).
	hooks []func(*chroma.LexerRegistry)
)

// afterLoad runs hook on the registry once it is filled.
func afterLoad(hook func(*chroma.LexerRegistry)) {
	hooks = append(hooks, hook)
}

// global returns the registry, filled.
func global() *chroma.LexerRegistry {
	loadMu.Lock()
	defer loadMu.Unlock()
	if !loaded {
		loaded = true
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range pending {
			GlobalLexerRegistry.Register(lexer)
		}
		for _, hook := range hooks {
			hook(GlobalLexerRegistry)
		}
		pending, hooks = nil, nil
	}
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return global().Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return global().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return global().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return global().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	loadMu.Lock()
	if !loaded {
		lexer.SetRegistry(GlobalLexerRegistry)
		pending = append(pending, lexer)
		loadMu.Unlock()
		return lexer
	}
	loadMu.Unlock()
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return global().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
