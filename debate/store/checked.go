package store

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// A database is checked (PRAGMA quick_check, which walks every b-tree)
// only when it is not as Parley last left it. quick_check cost every
// command that opens the database 2 ms on a small file and 0.1–0.4 s on
// one of 27–136 MB, yet SQLite in WAL mode never damages its own file, not
// even when a process is killed: what damages one is another program (a
// copy taken mid-write, a sync tool, garbage written over it) or the disk.
//
// So after a check passes, and after the last connection closes cleanly
// (SQLite folded the -wal file into the database and removed it), Parley
// notes the file's size and CRC-32 beside it (PATH-parley-checked). An
// open whose file has that size and checksum skips the check: reading the
// file through a checksum costs a fraction of quick_check (BenchmarkFileStamp
// beside BenchmarkQuickCheck), under a millisecond for a small file. Any other open checks: the first of a file, one after another
// program changed it, one after a crash once SQLite had written to the
// main file, one where the note cannot be read. Where the note cannot be
// written (read-only media) every open checks, as before. The checksum,
// not the modification time: the kernel's file clock is coarse, and a
// change within its tick of the note would pass unseen.

// checkedSuffix names the note beside the database.
const checkedSuffix = "-parley-checked"

// fileStamp is what the note holds: path's size and CRC-32 (IEEE).
func fileStamp(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	return stampOf(f)
}

// stampOf reads f from its start to its end through the checksum.
func stampOf(f *os.File) (string, bool) {
	// CRC-32 (IEEE), not CRC-32C: on amd64 Go builds CRC-32C's tables by
	// running the instruction over 1.5 MB of zeros (0.25 ms in every
	// process that opens the database); IEEE's carry-less multiply needs
	// one 8 KB table and reads a file as fast. A note written with CRC-32C
	// matches nothing: that file is checked once more.
	// The reader hides *os.File's WriteTo, which would ignore the buffer
	// and allocate its own: one 32 KB buffer a stamp, two stamps an ask.
	h := crc32.NewIEEE()
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, 32<<10))
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d %08x\n", n, h.Sum32()), true
}

// unchangedSinceChecked returns the stamp of f, the database at path
// ("" when it cannot be read), and whether the note says Parley last left
// it so.
func unchangedSinceChecked(f *os.File, path string) (stamp string, unchanged bool) {
	stamp, ok := stampOf(f)
	if !ok {
		return "", false
	}
	note, err := os.ReadFile(path + checkedSuffix)
	return stamp, err == nil && string(note) == stamp
}

// noteChecked records stamp, read before a check that passed, as sound.
func noteChecked(path, stamp string) {
	if stamp == "" {
		return
	}
	_ = os.WriteFile(path+checkedSuffix, []byte(stamp), 0o600) // best effort: without it the next open checks
}

// noteCleanClose notes the file after this process closed its
// connections, when they were the last: SQLite removed the -wal file
// after folding it into the database. With another process still
// connected (its -wal remains), the last one to close notes it. noted is
// what the note held when the store opened ("" if unknown): a file that
// still has that stamp (a command that only read) is not noted again
// while its note is there.
func noteCleanClose(path, noted string) {
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		return
	}
	stamp, ok := fileStamp(path)
	if !ok {
		return
	}
	if stamp == noted {
		if _, err := os.Stat(path + checkedSuffix); err == nil {
			return
		}
	}
	noteChecked(path, stamp)
}
