package lexers

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// lazyXMLLexer is an embedded XML lexer read on its first use (Parley's
// patch): the five made by name in this package's initialiser (HTML, the
// Go templates, the two Lisps) decoded their XML configurations, ~500
// allocations and ~0.2 ms before main in every process. It is a
// chroma.Lexer like the *chroma.RegexLexer it stands for; SetConfig
// replaces the file's configuration, as RegexLexer.SetConfig does.
type lazyXMLLexer struct {
	path   string
	config *chroma.Config // from SetConfig, else the file's

	mu       sync.Mutex
	lexer    *chroma.RegexLexer
	registry *chroma.LexerRegistry
	analyser func(string) float32
}

func newLazyXMLLexer(path string) *lazyXMLLexer { return &lazyXMLLexer{path: path} }

// get reads the lexer on the first call, with what was set before.
func (l *lazyXMLLexer) get() *chroma.RegexLexer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lexer == nil {
		lexer := chroma.MustNewXMLLexer(embedded, l.path)
		if l.config != nil {
			lexer.SetConfig(l.config)
		}
		if l.registry != nil {
			lexer.SetRegistry(l.registry)
		}
		if l.analyser != nil {
			lexer.SetAnalyser(l.analyser)
		}
		l.lexer = lexer
	}
	return l.lexer
}

// SetConfig replaces the file's configuration; it reads nothing.
func (l *lazyXMLLexer) SetConfig(config *chroma.Config) *lazyXMLLexer {
	l.config = config
	return l
}

// Config is SetConfig's, else the file's (read now).
func (l *lazyXMLLexer) Config() *chroma.Config {
	if l.config != nil {
		return l.config
	}
	return l.get().Config()
}

// Tokenise reads the lexer if it was not yet, then tokenises text.
func (l *lazyXMLLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return l.get().Tokenise(options, text)
}

func (l *lazyXMLLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.registry = registry
	if l.lexer != nil {
		l.lexer.SetRegistry(registry)
	}
	return l
}

func (l *lazyXMLLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.analyser = analyser
	if l.lexer != nil {
		l.lexer.SetAnalyser(analyser)
	}
	return l
}

func (l *lazyXMLLexer) AnalyseText(text string) float32 {
	return l.get().AnalyseText(text)
}
