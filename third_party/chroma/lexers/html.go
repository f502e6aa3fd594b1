package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// HTML lexer.
var HTML chroma.Lexer = newLazyXMLLexer("embedded/html.xml")
