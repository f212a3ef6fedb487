package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// WriteLayout's tarball is a valid OCI image layout: every blob is stored
// under its digest, the manifest points at the config and the layer, the
// config's diff_id is the digest of the uncompressed layer, and the index
// names the image for ctr.
func TestWriteLayout(t *testing.T) {
	img := Image{Names: []string{"docker.io/library/x:1.0", "docker.io/library/x:latest"}, Entrypoint: []string{"/bin/x"},
		Files: []File{{Path: "/bin", Dir: true, Mode: 0o755}, {Path: "/bin/x", Mode: 0o755, Contents: []byte("#!/bin/sh\n")},
			{Path: "/bin/y", Link: "x"}}}
	var buf bytes.Buffer
	if err := WriteLayout(&buf, img, "amd64"); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(buf.Bytes()))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = b
	}
	for name, b := range files {
		if dir, hexsum := filepath.Split(name); dir == "blobs/sha256/" {
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != hexsum {
				t.Errorf("blob %s has digest %x", name, sum)
			}
		}
	}
	blob := func(d string) []byte {
		b, ok := files["blobs/sha256/"+d[len("sha256:"):]]
		if !ok {
			t.Fatalf("blob %s missing", d)
		}
		return b
	}
	var index struct{ Manifests []descriptor }
	json.Unmarshal(files["index.json"], &index)
	if len(index.Manifests) != 2 || index.Manifests[0].Annotations["io.containerd.image.name"] != "docker.io/library/x:1.0" ||
		index.Manifests[1].Annotations["org.opencontainers.image.ref.name"] != "latest" {
		t.Fatalf("index: %s", files["index.json"])
	}
	var manifest struct {
		Config descriptor
		Layers []descriptor
	}
	json.Unmarshal(blob(index.Manifests[0].Digest), &manifest)
	var config struct {
		Config struct{ Entrypoint []string }
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	json.Unmarshal(blob(manifest.Config.Digest), &config)
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[0].Digest)))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	sum := sha256.Sum256(raw)
	if len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("diff_ids %v, uncompressed layer sha256:%x", config.RootFS.DiffIDs, sum)
	}
	if len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/bin/x" {
		t.Errorf("entrypoint %v", config.Config.Entrypoint)
	}
	var names []string
	lr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := lr.Next()
		if err != nil {
			break
		}
		names = append(names, h.Name+"|"+h.Linkname)
	}
	if want := []string{"bin/|", "bin/x|", "bin/y|x"}; len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("layer entries %v, want %v", names, want)
	}

	// Names reads the names back; the same input gives the same bytes.
	p := filepath.Join(t.TempDir(), "x.tar")
	os.WriteFile(p, buf.Bytes(), 0o644)
	if got, err := Names(p); err != nil || len(got) != 2 || got[1] != "docker.io/library/x:latest" {
		t.Errorf("Names: %v %v", got, err)
	}
	var again bytes.Buffer
	WriteLayout(&again, img, "amd64")
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("WriteLayout is not reproducible")
	}
}
