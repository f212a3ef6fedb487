package images

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// Names reads the image names from an OCI layout tarball's index.json
// (the io.containerd.image.name annotations WriteLayout puts there), so a
// kubelet can tell whether its runtime has the image without importing it.
func Names(tarball string) ([]string, error) {
	f, err := os.Open(tarball)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, errors.New(tarball + ": no index.json (not an OCI image layout)")
		}
		if err != nil {
			return nil, err
		}
		if h.Name != "index.json" {
			continue
		}
		var idx struct {
			Manifests []descriptor `json:"manifests"`
		}
		if err := json.NewDecoder(tr).Decode(&idx); err != nil {
			return nil, err
		}
		var names []string
		for _, m := range idx.Manifests {
			if n := m.Annotations["io.containerd.image.name"]; n != "" {
				names = append(names, n)
			}
		}
		return names, nil
	}
}
