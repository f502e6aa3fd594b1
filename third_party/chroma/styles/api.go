package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles registered with Register.
//
// Parley's patch: the embedded styles are read on the first Get or Names
// that needs them (into their own map, so a lookup never writes Registry),
// not at start-up: parsing the ~65 XML styles cost every process ~10 ms
// whether it highlighted anything or not. The deprecated variables naming
// each style (compat.go) went with it. Fallback ("swapoff") is read at
// start-up.
var Registry = map[string]*chroma.Style{}

var (
	embeddedOnce   sync.Once
	embeddedStyles map[string]*chroma.Style
)

// readStyle parses one embedded style file.
func readStyle(name string) *chroma.Style {
	r, err := embedded.Open(name)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style
}

// embeddedRegistry returns every embedded style by name, read once.
func embeddedRegistry() map[string]*chroma.Style {
	embeddedOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		embeddedStyles = map[string]*chroma.Style{}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			style := readStyle(file.Name())
			embeddedStyles[style.Name] = style
		}
	})
	return embeddedStyles
}

// Fallback style. Reassign to change the default fallback style.
var Fallback = readStyle("swapoff.xml")

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	out := []string{}
	for name := range embeddedRegistry() {
		if _, ok := Registry[name]; !ok {
			out = append(out, name)
		}
	}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	if style, ok := Registry[name]; ok {
		return style
	}
	if style, ok := embeddedRegistry()[name]; ok {
		return style
	}
	return Fallback
}
