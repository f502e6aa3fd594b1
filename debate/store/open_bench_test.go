package store

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkOpenReadClose is what a one-shot command (a script's ask)
// pays the store around its own work: open a database as Parley left it,
// read through the readers' pool, write through the writer, close (the
// checkpoint, the file's stamp).
//
//	go test -run '^$' -bench OpenReadClose -benchmem ./debate/store/
func BenchmarkOpenReadClose(b *testing.B) {
	onlySQLite(b)
	path := filepath.Join(b.TempDir(), "p.db")
	fillDatabase(b, path, 20, 4)
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		st, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		id, err := st.Latest(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Rename(ctx, id, "renamed"); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
