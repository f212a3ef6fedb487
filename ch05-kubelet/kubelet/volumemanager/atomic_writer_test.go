package volumemanager

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readVolume returns what a container would see: each visible file
// (through the symlinks) with its mode and content.
func readVolume(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") {
			continue // the writer's own
		}
		if e.Type()&os.ModeSymlink == 0 {
			t.Errorf("%s is not a symlink into ..data", e.Name())
		}
		real, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("dangling %s: %v", e.Name(), err)
		}
		filepath.Walk(real, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				rel, _ := filepath.Rel(real, p)
				b, _ := os.ReadFile(p)
				out[filepath.Join(e.Name(), rel)] = fi.Mode().Perm().String() + " " + string(b)
			}
			return nil
		})
	}
	return out
}

func TestAtomicWriterUpdateSwapsDataDir(t *testing.T) {
	dir := t.TempDir()
	w, err := newAtomicWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(map[string]fileProjection{
		"greeting":     {Data: []byte("hello"), Mode: 0o644},
		"conf/app.ini": {Data: []byte("x=1"), Mode: 0o400},
		"gone":         {Data: []byte("bye"), Mode: 0o644},
	}); err != nil {
		t.Fatal(err)
	}
	first, err := os.Readlink(filepath.Join(dir, "..data"))
	if err != nil || !strings.HasPrefix(first, "..20") {
		t.Fatalf("..data -> %q, %v; want a timestamped directory", first, err)
	}
	if l, _ := os.Readlink(filepath.Join(dir, "greeting")); l != "..data/greeting" {
		t.Errorf("greeting -> %q, want ..data/greeting", l)
	}
	got := readVolume(t, dir)
	want := map[string]string{"greeting": "-rw-r--r-- hello", "conf/app.ini": "-r-------- x=1", "gone": "-rw-r--r-- bye"}
	if len(got) != len(want) {
		t.Fatalf("volume: %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}

	// The same payload again: nothing is written.
	if err := w.Write(map[string]fileProjection{
		"greeting":     {Data: []byte("hello"), Mode: 0o644},
		"conf/app.ini": {Data: []byte("x=1"), Mode: 0o400},
		"gone":         {Data: []byte("bye"), Mode: 0o644},
	}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Readlink(filepath.Join(dir, "..data")); again != first {
		t.Errorf("an unchanged payload was rewritten: ..data -> %s, was %s", again, first)
	}

	// An update: a new directory, the old one removed, "gone" vanishes.
	if err := w.Write(map[string]fileProjection{
		"greeting":     {Data: []byte("hi"), Mode: 0o600},
		"conf/app.ini": {Data: []byte("x=1"), Mode: 0o400},
	}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.Readlink(filepath.Join(dir, "..data"))
	if second == first {
		t.Fatalf("..data still -> %s after an update", first)
	}
	if _, err := os.Stat(filepath.Join(dir, first)); !os.IsNotExist(err) {
		t.Errorf("old data directory %s still there: %v", first, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Errorf("removed key still visible: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "..data_tmp")); !os.IsNotExist(err) {
		t.Errorf("..data_tmp left: %v", err)
	}
	got = readVolume(t, dir)
	if got["greeting"] != "-rw------- hi" || got["conf/app.ini"] != "-r-------- x=1" || len(got) != 2 {
		t.Errorf("after update: %v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 { // ..<ts>, ..data, greeting, conf
		t.Errorf("entries after update: %v", entries)
	}
}

func TestAtomicWriterRejectsBadPaths(t *testing.T) {
	dir := t.TempDir()
	w, _ := newAtomicWriter(dir)
	for path, want := range map[string]string{
		"":                       `invalid path: must not be empty: ""`,
		"/etc/passwd":            "invalid path: must be relative path: /etc/passwd",
		"a/../../x":              "invalid path: must not contain '..': a/../../x",
		"..data":                 "invalid path: must not start with '..': ..data",
		strings.Repeat("n", 256): "invalid path: filenames must be less than or equal to 255 characters",
	} {
		err := w.Write(map[string]fileProjection{path: {Data: []byte("x"), Mode: 0o644}})
		if err == nil || err.Error() != want {
			t.Errorf("path %.20q: %v, want %q", path, err, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an invalid payload wrote %v", entries)
	}
}
