package web

import (
	"bytes"
	"html/template"
	"regexp"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// markdown renders a model's finished answer. Raw HTML in the answer is
// dropped by goldmark (no WithUnsafe) and the output still goes through
// bluemonday, so neither a bug in one nor an odd input lets markup through.
// It and sanitizer are built on first use, not at every command's start-up.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.TaskList,
			extension.Linkify,
		),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(rawHTMLAsText{}, 100))),
	)
})

// rawHTMLAsText shows HTML written in an answer as the text the model
// wrote (escaped), instead of goldmark's silent "raw HTML omitted": a model
// explaining <div> should be read, never run.
type rawHTMLAsText struct{}

func (rawHTMLAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				_, _ = w.WriteString(template.HTMLEscapeString(string(seg.Value(src))))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		b := n.(*ast.HTMLBlock)
		if entering {
			_, _ = w.WriteString(`<pre class="raw-html">`)
			for i := 0; i < b.Lines().Len(); i++ {
				line := b.Lines().At(i)
				_, _ = w.WriteString(template.HTMLEscapeString(string(line.Value(src))))
			}
		} else {
			if b.HasClosure() {
				_, _ = w.WriteString(template.HTMLEscapeString(string(b.ClosureLine.Value(src))))
			}
			_, _ = w.WriteString("</pre>\n")
		}
		return ast.WalkContinue, nil
	})
}

// sanitizer is the user-generated-content policy: formatting, links and
// images, no scripts, no event handlers, no style.
var sanitizer = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9_+-]+$`)).OnElements("code")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^raw-html$`)).OnElements("pre")
	return p
})

// RenderMarkdown turns Markdown from outside (a model's answer) into HTML
// that is safe to put in a page.
func RenderMarkdown(src string) template.HTML {
	var buf bytes.Buffer
	if err := markdown().Convert([]byte(src), &buf); err != nil {
		// goldmark fails only when writing fails; show the text as text.
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	// #nosec: sanitized just below; this is the one place HTML is trusted.
	return template.HTML(sanitizer().SanitizeBytes(buf.Bytes()))
}
