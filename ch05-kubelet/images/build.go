package images

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The images the node has without any registry.
const (
	Pause   = "registry.k8s.io/pause:3.10"
	Busybox = "docker.io/library/busybox:latest"
	Demo    = "kubik.local/demo:1.0"
)

// BusyboxPath is Debian's statically linked busybox (package busybox-static).
const BusyboxPath = "/bin/busybox"

// GoImage is an image of one static Go binary of the repository, which is
// its entrypoint: how later chapters add their images (chapter 7's cluster
// DNS) to the ones Build writes.
type GoImage struct {
	File    string // the tarball's name in the directory, e.g. kube-dns.tar
	Name    string // e.g. kubik.local/kube-dns:1.0
	Package string // e.g. kubik/ch07-kube-proxy/cmd/kube-dns
}

// Build writes pause.tar, busybox.tar and demo.tar into dir, and a tarball
// for each of more. The Go binaries are compiled with `go build` (static,
// CGO_ENABLED=0), so Build runs inside the kubik module (the repository);
// busybox comes from BusyboxPath.
func Build(dir string, more ...GoImage) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kubik-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	pause, err := goBuild("kubik/ch05-kubelet/images/pause", tmp)
	if err != nil {
		return err
	}
	demo, err := goBuild("kubik/ch05-kubelet/images/demo", tmp)
	if err != nil {
		return err
	}
	bb, err := busybox()
	if err != nil {
		return err
	}
	layouts := map[string]Image{
		"pause.tar": {Names: []string{Pause}, Entrypoint: []string{"/pause"},
			Files: []File{{Path: "/pause", Mode: 0o755, Contents: pause}}},
		"demo.tar": {Names: []string{Demo}, Entrypoint: []string{"/demo"},
			Files: append(baseDirs(), File{Path: "/demo", Mode: 0o755, Contents: demo})},
		"busybox.tar": {Names: []string{Busybox, "docker.io/library/busybox:1.35"}, Cmd: []string{"sh"}, Files: bb},
	}
	for _, g := range more {
		bin, err := goBuild(g.Package, tmp)
		if err != nil {
			return err
		}
		entry := "/" + filepath.Base(g.Package)
		layouts[g.File] = Image{Names: []string{g.Name}, Entrypoint: []string{entry},
			Files: append(baseDirs(), File{Path: entry, Mode: 0o755, Contents: bin})}
	}
	for file, img := range layouts {
		var buf bytes.Buffer
		if err := WriteLayout(&buf, img, runtime.GOARCH); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func goBuild(pkg, dir string) ([]byte, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s (run inside the kubik repository): %v\n%s", pkg, err, b)
	}
	return os.ReadFile(out)
}

// baseDirs is what a container runtime expects to find or mount over.
func baseDirs() []File {
	var fs []File
	for _, d := range []string{"/bin", "/dev", "/etc", "/proc", "/sys", "/tmp", "/root", "/var", "/www"} {
		mode := int64(0o755)
		if d == "/tmp" {
			mode = 0o1777
		}
		fs = append(fs, File{Path: d, Dir: true, Mode: mode})
	}
	return append(fs,
		File{Path: "/etc/passwd", Mode: 0o644, Contents: []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")},
		File{Path: "/etc/group", Mode: 0o644, Contents: []byte("root:x:0:\nnobody:x:65534:\n")})
}

// busybox: the binary plus one symlink per applet, as busybox images have.
func busybox() ([]File, error) {
	bin, err := os.ReadFile(BusyboxPath)
	if err != nil {
		return nil, fmt.Errorf("%v (install busybox-static: scripts/ensure-deps.sh busybox=busybox-static)", err)
	}
	// The image has no libc: a dynamically linked busybox (Debian's
	// package busybox, not busybox-static) would not start in it.
	if f, err := elf.Open(BusyboxPath); err == nil {
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				return nil, fmt.Errorf("%s is dynamically linked: install busybox-static (apt-get install busybox-static)", BusyboxPath)
			}
		}
	}
	list, err := exec.Command(BusyboxPath, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("busybox --list: %v", err)
	}
	fs := append(baseDirs(), File{Path: "/bin/busybox", Mode: 0o755, Contents: bin})
	for _, applet := range strings.Fields(string(list)) {
		if applet != "busybox" {
			fs = append(fs, File{Path: "/bin/" + applet, Link: "busybox"})
		}
	}
	fs = append(fs, File{Path: "/www/index.html", Mode: 0o644, Contents: []byte("hello from busybox\n")})
	return fs, nil
}
