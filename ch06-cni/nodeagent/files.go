package nodeagent

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"kubik/ch06-cni/kubikcni"
)

// ensureSubnetFile writes the CNI plugin's subnet file unless it already
// says want; it reports whether it wrote.
func ensureSubnetFile(path string, want kubikcni.SubnetConfig) (bool, error) {
	if have, err := kubikcni.ReadSubnetFile(path); err == nil && have == want {
		return false, nil
	}
	return true, kubikcni.WriteSubnetFile(path, want)
}

// maxCNIConfList bounds the read of the existing network configuration.
const maxCNIConfList = 1 << 20

// ensureCNIConfList writes the network configuration list to path unless
// it already holds data; it reports whether it wrote. The file is written
// in place (truncated and written with one write), never renamed into
// place: containerd 1.6 reloads its CNI configuration on fsnotify events
// and misses a file renamed into its conf_dir.
func ensureCNIConfList(path string, data []byte) (bool, error) {
	if have, err := readBounded(path, maxCNIConfList); err == nil && bytes.Equal(have, data) {
		return false, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, data, 0o644)
}

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit || !st.Mode().IsRegular() {
		return nil, nil // not ours as it should be: rewrite
	}
	buf := make([]byte, st.Size())
	_, err = io.ReadFull(f, buf)
	return buf, err
}
