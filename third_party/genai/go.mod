module google.golang.org/genai

go 1.24

require (
	cloud.google.com/go v0.116.0
	github.com/gorilla/websocket v1.5.3
)
