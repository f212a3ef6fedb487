package provision

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/node6"
	"kubik/ch08-full-cluster/pki"
)

// File is one file of a machine. Path is relative to the machine's root
// ("etc/systemd/system/kubelet.service"); a File is either Data (with
// Mode) or a symbolic link to Link.
type File struct {
	Path string
	Mode fs.FileMode
	Data []byte
	Link string
}

// Binaries are the programs a machine of role runs from /usr/local/bin
// (besides Debian's: haproxy, etcdctl, ip): the runner links or copies them.
func Binaries(role Role) []string {
	switch role {
	case ControlPlane:
		return []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "cloud-controller-manager"}
	case Worker:
		return []string{"kubelet", "kube-proxy", "kubik-node-agent", "kubik-cni"}
	}
	return nil
}

// ImageDir is where a worker's kubelet finds the image tarballs it imports
// (relative to the machine's root).
const ImageDir = "var/lib/kubik/images"

// Units are the names of the units a machine of role runs (the cloud
// controller manager's only when the topology has a cloud).
func (t Topology) Units(role Role) []string {
	switch role {
	case ControlPlane:
		u := []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"}
		if t.Cloud != nil {
			u = append(u, "cloud-controller-manager")
		}
		return u
	case LoadBalancer:
		return []string{"haproxy"}
	case Worker:
		return []string{"kubik-node-network", "kubelet", "kube-proxy", "kubik-node-agent"}
	}
	return nil
}

// Render is every file of machine name, for a machine whose root
// directory is root ("/" on a VM): its units, certificates, kubeconfigs
// and configuration, the certificates read from pkiDir (package pki's
// directory for t.PKI()). Paths inside the files are absolute, under
// root; File.Path is relative to it.
func Render(t Topology, pkiDir, name, root string) ([]File, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	m, ok := t.Machine(name)
	if !ok {
		return nil, fmt.Errorf("no machine %q in the topology", name)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r := &renderer{t: t, m: m, root: root, pkiDir: pkiDir}
	switch m.Role {
	case ControlPlane:
		r.controlPlane()
	case LoadBalancer:
		r.loadBalancer()
	case Worker:
		r.worker()
	default:
		return nil, fmt.Errorf("machine %s: unknown role %q", name, m.Role)
	}
	if r.err != nil {
		return nil, r.err
	}
	sort.Slice(r.files, func(i, j int) bool { return r.files[i].Path < r.files[j].Path })
	return r.files, nil
}

// renderer collects one machine's files, keeping the first error.
type renderer struct {
	t      Topology
	m      Machine
	root   string
	pkiDir string
	files  []File
	err    error
}

// path is rel as the machine's processes see it: under the root.
func (r *renderer) path(rel string) string { return filepath.Join(r.root, rel) }

func (r *renderer) file(rel string, mode fs.FileMode, data []byte) {
	r.files = append(r.files, File{Path: rel, Mode: mode, Data: data})
}

func (r *renderer) link(rel, target string) {
	r.files = append(r.files, File{Path: rel, Link: target})
}

// copyPKI copies the PKI file name to dir/as (as: name when empty): a
// key 0600, anything else 0644.
func (r *renderer) copyPKI(dir, name, as string) {
	if r.err != nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(r.pkiDir, name))
	if err != nil {
		r.err = fmt.Errorf("the PKI lacks a file of machine %s: %w", r.m.Name, err)
		return
	}
	if as == "" {
		as = name
	}
	mode := fs.FileMode(0o644)
	if strings.HasSuffix(name, ".key") || strings.HasSuffix(name, ".kubeconfig") || name == pki.EncryptionConfig {
		mode = 0o600
	}
	r.file(filepath.Join(dir, as), mode, data)
}

func (r *renderer) unit(u unit) {
	r.file(filepath.Join("etc", "systemd", "system", u.Name+".service"), 0o644, u.render())
}

// bin is a program of /usr/local/bin, under the root.
func (r *renderer) bin(name string) string { return r.path(filepath.Join("usr", "local", "bin", name)) }

// etcdctlEnv is the environment etcdctl needs on a control-plane machine
// (etc/kubik/etcdctl.env; `. /etc/kubik/etcdctl.env` in a shell, with
// export): the members, and the healthcheck client's certificate.
func (r *renderer) etcdctlEnv() []byte {
	dir := r.path("etc/etcd")
	return []byte(strings.Join([]string{
		"ETCDCTL_API=3",
		"ETCDCTL_ENDPOINTS=" + strings.Join(r.t.EtcdEndpoints(), ","),
		"ETCDCTL_CACERT=" + filepath.Join(dir, "ca.crt"),
		"ETCDCTL_CERT=" + filepath.Join(dir, pki.EtcdHealthcheckClient+".crt"),
		"ETCDCTL_KEY=" + filepath.Join(dir, pki.EtcdHealthcheckClient+".key"),
	}, "\n") + "\n")
}

// cloudConfig is the cloud-controller-manager's --cloud-config.
func (r *renderer) cloudConfig() []byte {
	data, err := yaml.Marshal(r.t.Cloud)
	if err != nil && r.err == nil {
		r.err = err
	}
	return data
}

// cniConfList is the worker's CNI configuration, which the node agent
// installs once the node's subnet is known: kubik-cni and portmap.
func (r *renderer) cniConfList() []byte {
	kubeletRoot := r.path("var/lib/kubelet")
	return node6.ConfList(node5.RuntimeName(kubeletRoot), r.path("run/kubik/subnet.env"), r.path("var/lib/kubik-cni"))
}

// Write writes files under dir (a machine's root, or a staging
// directory copied to a VM's /), creating directories; a file that
// already holds the same bytes is left alone.
func Write(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if f.Link != "" {
			if old, err := os.Readlink(p); err == nil && old == f.Link {
				continue
			}
			os.Remove(p)
			if err := os.Symlink(f.Link, p); err != nil {
				return err
			}
			continue
		}
		if old, err := os.ReadFile(p); err == nil && string(old) == string(f.Data) {
			if err := os.Chmod(p, f.Mode); err != nil {
				return err
			}
			continue
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, f.Data, f.Mode); err != nil {
			return err
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	}
	return nil
}
