package store

import (
	"database/sql/driver"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Postgres's text holds valid UTF-8 without NUL; SQLite keeps any bytes,
// and the store promises what a model sent is kept byte for byte. On
// Postgres a string that is not such text (or that happens to begin with
// the marker) is written as the marker and its bytes in base64, and read
// back as it was (pgRows): lossless, at the price of being unreadable to
// other tools' SQL in that one row's column.
const bytesMarker = "\x01parley-bytes:"

// toPG is v as Postgres can store it.
func toPG(v any) any {
	s, ok := v.(string)
	if !ok || (utf8.ValidString(s) && !strings.ContainsRune(s, 0) && !strings.HasPrefix(s, bytesMarker)) {
		return v
	}
	return bytesMarker + base64.StdEncoding.EncodeToString([]byte(s))
}

// fromPG undoes toPG.
func fromPG(v driver.Value) driver.Value {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, bytesMarker) {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(s[len(bytesMarker):])
	if err != nil {
		return v // not ours: as stored
	}
	return string(b)
}

// pgRows reads rows with fromPG.
type pgRows struct{ driver.Rows }

func (r pgRows) Next(dest []driver.Value) error {
	if err := r.Rows.Next(dest); err != nil {
		return err
	}
	for i, v := range dest {
		dest[i] = fromPG(v)
	}
	return nil
}
