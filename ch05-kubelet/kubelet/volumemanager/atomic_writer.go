package volumemanager

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// atomicWriter writes the files of a configMap, secret, downwardAPI or
// projected volume so that a container never sees half an update
// (upstream's AtomicWriter of pkg/volume/util/atomic_writer.go). The real
// files live in a timestamped directory; "..data" is a symlink to it, and
// each top-level name the user sees is a symlink through "..data":
//
//	<dir>/..2026_11_30_08_40_05.123456789/greeting   the data
//	<dir>/..data -> ..2026_11_30_08_40_05.123456789
//	<dir>/greeting -> ..data/greeting
//
// An update writes a new timestamped directory, points "..data_tmp" at it
// and renames "..data_tmp" over "..data": rename(2) is atomic, so a reader
// sees either every old file or every new one.
type atomicWriter struct {
	targetDir string
}

// fileProjection is one file of a payload: its bytes and mode.
type fileProjection struct {
	Data []byte
	Mode int32
}

const (
	dataDirName    = "..data"
	newDataDirName = "..data_tmp"

	maxFileNameLength = 255
	maxPathLength     = 4096
)

// newAtomicWriter writes into targetDir, which must exist.
func newAtomicWriter(targetDir string) (*atomicWriter, error) {
	if _, err := os.Stat(targetDir); err != nil {
		return nil, err
	}
	return &atomicWriter{targetDir: targetDir}, nil
}

// Write projects payload (relative path -> file) into the target
// directory, in upstream's steps: validate; find the current timestamped
// directory; list the paths that disappear; skip the write when nothing
// changed; write a new timestamped directory; swap "..data"; create the
// user-visible symlinks; remove the old ones and the old directory.
func (w *atomicWriter) Write(payload map[string]fileProjection) error {
	clean, err := validatePayload(payload)
	if err != nil {
		return err
	}
	dataDirPath := filepath.Join(w.targetDir, dataDirName)
	oldTsDir, err := os.Readlink(dataDirPath)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	oldTsPath := filepath.Join(w.targetDir, oldTsDir)

	var remove []string
	write := true
	if oldTsDir != "" {
		if remove, err = pathsToRemove(clean, oldTsPath); err != nil {
			return err
		}
		changed, err := shouldWritePayload(clean, oldTsPath)
		if err != nil {
			return err
		}
		if !changed && len(remove) == 0 {
			write, oldTsDir = false, "" // up to date; keep the directory
		}
	}

	if write {
		tsDir, err := os.MkdirTemp(w.targetDir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
		if err != nil {
			return err
		}
		if err := os.Chmod(tsDir, 0o755); err != nil { // whatever the umask: others must traverse it
			return err
		}
		if err := writePayloadToDir(clean, tsDir); err != nil {
			os.RemoveAll(tsDir)
			return err
		}
		newDataDirPath := filepath.Join(w.targetDir, newDataDirName)
		os.Remove(newDataDirPath) // left by a crash between symlink and rename
		if err := os.Symlink(filepath.Base(tsDir), newDataDirPath); err != nil {
			os.RemoveAll(tsDir)
			return err
		}
		if err := os.Rename(newDataDirPath, dataDirPath); err != nil {
			os.Remove(newDataDirPath)
			os.RemoveAll(tsDir)
			return err
		}
	}
	if err := w.createUserVisibleFiles(clean); err != nil {
		return err
	}
	for _, p := range remove {
		if strings.Contains(p, "/") {
			continue // only the top level holds symlinks; the rest went with the old directory
		}
		if err := os.Remove(filepath.Join(w.targetDir, p)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if oldTsDir != "" {
		return os.RemoveAll(oldTsPath)
	}
	return nil
}

// validatePayload checks every path and returns the payload with cleaned paths.
func validatePayload(payload map[string]fileProjection) (map[string]fileProjection, error) {
	clean := make(map[string]fileProjection, len(payload))
	for p, content := range payload {
		if err := validatePath(p); err != nil {
			return nil, err
		}
		clean[filepath.Clean(p)] = content
	}
	return clean, nil
}

// validatePath: a payload path may not be empty or absolute, contain a
// ".." element, start with ".." (the writer's own names), or be too long.
// Upstream's messages.
func validatePath(targetPath string) error {
	if targetPath == "" {
		return fmt.Errorf("invalid path: must not be empty: %q", targetPath)
	}
	if path.IsAbs(targetPath) {
		return fmt.Errorf("invalid path: must be relative path: %s", targetPath)
	}
	if len(targetPath) > maxPathLength {
		return fmt.Errorf("invalid path: must be less than or equal to %d characters", maxPathLength)
	}
	items := strings.Split(targetPath, "/")
	for _, item := range items {
		if item == ".." {
			return fmt.Errorf("invalid path: must not contain '..': %s", targetPath)
		}
		if len(item) > maxFileNameLength {
			return fmt.Errorf("invalid path: filenames must be less than or equal to %d characters", maxFileNameLength)
		}
	}
	if strings.HasPrefix(items[0], "..") && len(items[0]) > 2 {
		return fmt.Errorf("invalid path: must not start with '..': %s", targetPath)
	}
	return nil
}

// shouldWritePayload: does any file differ from the current directory's?
func shouldWritePayload(payload map[string]fileProjection, oldTsDir string) (bool, error) {
	for p, fp := range payload {
		old, err := os.ReadFile(filepath.Join(oldTsDir, p))
		if os.IsNotExist(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if !bytes.Equal(old, fp.Data) {
			return true, nil
		}
	}
	return false, nil
}

// pathsToRemove are the paths of the current directory that the new
// payload no longer has (a file, or a directory none of its files is in).
func pathsToRemove(payload map[string]fileProjection, oldTsDir string) ([]string, error) {
	keep := map[string]bool{}
	for p := range payload {
		for sub := p; sub != "." && sub != "/"; sub = filepath.Dir(sub) {
			keep[sub] = true
		}
	}
	var out []string
	err := filepath.Walk(oldTsDir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, oldTsDir), "/")
		if rel != "" && !keep[rel] {
			out = append(out, rel)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil, nil
	}
	return out, err
}

// writePayloadToDir writes each file with its exact mode (chmod after
// the write: the umask must not change it).
func writePayloadToDir(payload map[string]fileProjection, dir string) error {
	for p, fp := range payload {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(fp.Mode) & os.ModePerm
		if err := os.WriteFile(full, fp.Data, mode); err != nil {
			return err
		}
		if err := os.Chmod(full, mode); err != nil {
			return err
		}
	}
	return nil
}

// createUserVisibleFiles links each top-level name to ..data/<name>.
func (w *atomicWriter) createUserVisibleFiles(payload map[string]fileProjection) error {
	for p := range payload {
		top, _, _ := strings.Cut(p, "/")
		visible := filepath.Join(w.targetDir, top)
		if _, err := os.Readlink(visible); err != nil && os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join(dataDirName, top), visible); err != nil {
				return err
			}
		}
	}
	return nil
}
