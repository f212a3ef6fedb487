package main_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kubik/ch05-kubelet/images"
	"kubik/ch07-kube-proxy/dns"
)

// TestImage builds the node's images and finds kubik.local/kube-dns:1.0
// among them: an OCI layout whose entrypoint is /kube-dns, a static
// binary that runs.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every image")
	}
	if _, err := os.Stat(images.BusyboxPath); err != nil {
		t.Skipf("the busybox image needs %s: %v", images.BusyboxPath, err)
	}
	dir := t.TempDir()
	if err := images.Build(dir, dns.Image); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "kube-dns.tar")
	names, err := images.Names(tarball)
	if err != nil || !slices.Equal(names, []string{dns.Image.Name}) || dns.Image.Name != "kubik.local/kube-dns:1.0" {
		t.Fatalf("kube-dns.tar names %v, %v", names, err)
	}

	// Read the blobs: the config's entrypoint and the layer's /kube-dns.
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var entrypoint []string
	var binary []byte
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.Name, "blobs/") {
			continue
		}
		blob, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		var config struct {
			Config struct{ Entrypoint []string } `json:"config"`
		}
		if json.Unmarshal(blob, &config) == nil && config.Config.Entrypoint != nil {
			entrypoint = config.Config.Entrypoint
		}
		if zr, err := gzip.NewReader(bytes.NewReader(blob)); err == nil {
			lr := tar.NewReader(zr)
			for {
				lh, err := lr.Next()
				if err != nil {
					break
				}
				if strings.TrimPrefix(lh.Name, "/") == "kube-dns" {
					binary, _ = io.ReadAll(lr)
				}
			}
		}
	}
	if !slices.Equal(entrypoint, []string{"/kube-dns"}) {
		t.Errorf("entrypoint %v, want [/kube-dns]", entrypoint)
	}
	if len(binary) == 0 {
		t.Fatal("no /kube-dns in the layer")
	}
	ef, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("/kube-dns is dynamically linked: it would not start in an image without libc")
		}
	}
	bin := filepath.Join(t.TempDir(), "kube-dns")
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	if !strings.Contains(string(out), "-cluster-domain") {
		t.Errorf("/kube-dns -h:\n%s", out)
	}
}
