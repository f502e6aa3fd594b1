module github.com/gorilla/css

go 1.20
