package fetchtool

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxNodes bounds the walk of one page's tree.
const maxNodes = 200_000

// HTMLText reduces a page to its readable text with golang.org/x/net/html
// (the HTML5 parsing algorithm): scripts, styles, forms, navigation and
// hidden parts are dropped, blocks become lines, runs of white space one
// space. title is the page's <title>.
func HTMLText(page string) (text, title string) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "", ""
	}
	w := &walker{}
	w.walk(doc)
	return strings.TrimSpace(w.out.String()), strings.Join(strings.Fields(w.title.String()), " ")
}

type walker struct {
	out, title strings.Builder
	nodes      int
	blank      bool // the output ends with a line break
	space      bool // a space is due before the next word
	inTitle    bool
}

// skipped are elements whose content is not the page's text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Canvas: true, atom.Form: true, atom.Select: true,
	atom.Button: true, atom.Nav: true,
}

// blocks start and end a line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Section: true, atom.Article: true,
	atom.Header: true, atom.Footer: true, atom.Pre: true, atom.Blockquote: true, atom.Table: true,
	atom.Ul: true, atom.Ol: true, atom.Dt: true, atom.Dd: true, atom.Hr: true, atom.Main: true,
}

func (w *walker) walk(n *html.Node) {
	w.nodes++
	if w.nodes > maxNodes {
		return
	}
	switch n.Type {
	case html.TextNode:
		if w.inTitle {
			w.title.WriteString(n.Data)
			return
		}
		w.text(n.Data)
		return
	case html.ElementNode:
		if n.DataAtom == atom.Title {
			if w.title.Len() == 0 {
				w.inTitle = true
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					w.walk(c)
				}
				w.inTitle = false
			}
			return
		}
		if skipped[n.DataAtom] || hidden(n) {
			return
		}
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			w.space = true
		}
		if blocks[n.DataAtom] {
			w.line()
			if n.DataAtom == atom.Li {
				w.out.WriteString("- ")
				w.blank = false
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if n.Type == html.ElementNode && blocks[n.DataAtom] {
		w.line()
	}
}

// hidden reports an element the page does not show.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			return a.Val == "true"
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
		}
	}
	return false
}

func (w *walker) text(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		w.space = w.space || s != ""
		return
	}
	if (w.space || startsSpace(s)) && !w.blank && w.out.Len() > 0 {
		w.out.WriteByte(' ')
	}
	w.out.WriteString(strings.Join(words, " "))
	w.space, w.blank = endsSpace(s), false
}

func (w *walker) line() {
	if w.blank || w.out.Len() == 0 {
		return
	}
	w.out.WriteByte('\n')
	w.blank, w.space = true, false
}

func startsSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[0])) }
func endsSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[len(s)-1]))
}
