module github.com/alecthomas/chroma/v2

go 1.19

require (
	github.com/alecthomas/assert/v2 v2.7.0
	github.com/alecthomas/repr v0.4.0
	github.com/dlclark/regexp2 v1.11.0
)

require github.com/hexops/gotextdiff v1.0.3 // indirect
