// Package images builds the node's container images without a registry:
// OCI image-layout tarballs written with the standard library only, which
// `ctr images import` (and so the CRI) takes as they are. Docker-built
// images are the same format: an image is a config, a manifest and gzipped
// tar layers, addressed by their sha256.
//
// `make images` writes three into <data-dir>/images; the kubelet imports the
// ones its containerd lacks at start (see kubelet.ImportImages):
//
//	registry.k8s.io/pause:3.10        our pause binary (the sandbox image, upstream's name)
//	docker.io/library/busybox:latest  Debian's busybox-static; also tagged :1.35. The CRI
//	                                  normalises "busybox" to this name, so `image: busybox`
//	                                  works offline as a reader expects
//	kubik.local/demo:1.0              a small web app answering with its pod's name and IP
package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path"
	"slices"
	"strings"
	"time"
)

// File is one entry of an image's only layer.
type File struct {
	Path     string // absolute inside the image, e.g. /bin/busybox
	Mode     int64  // permission bits; a directory when Dir
	Dir      bool
	Link     string // a symlink to Link when set
	Contents []byte
}

// Image is what WriteLayout needs to make an image.
type Image struct {
	Names      []string // full references, e.g. docker.io/library/busybox:latest
	Entrypoint []string
	Cmd        []string
	Env        []string
	Files      []File
}

// Media types of the OCI image spec.
const (
	mediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    *platform         `json:"platform,omitempty"`
}

type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// WriteLayout writes img as an OCI image-layout tarball to w: the files
// oci-layout and index.json and the blobs (layer, config, manifest). The
// index has one entry per name, annotated with io.containerd.image.name
// (how `ctr images import` names the image) and
// org.opencontainers.image.ref.name (the tag, for other tools). Output is
// reproducible: every timestamp is the Unix epoch.
func WriteLayout(w io.Writer, img Image, arch string) error {
	layer, diffID, err := layerTarGz(img.Files)
	if err != nil {
		return err
	}
	config, _ := json.Marshal(map[string]any{
		"architecture": arch,
		"os":           "linux",
		"config": map[string]any{
			"Entrypoint": img.Entrypoint,
			"Cmd":        img.Cmd,
			"Env":        append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, img.Env...),
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	layerDesc := descriptor{MediaType: mediaTypeLayer, Digest: digest(layer), Size: int64(len(layer))}
	configDesc := descriptor{MediaType: mediaTypeConfig, Digest: digest(config), Size: int64(len(config))}
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaTypeManifest,
		"config":        configDesc,
		"layers":        []descriptor{layerDesc},
	})
	index := map[string]any{"schemaVersion": 2, "mediaType": mediaTypeIndex}
	var manifests []descriptor
	for _, name := range img.Names {
		manifests = append(manifests, descriptor{MediaType: mediaTypeManifest, Digest: digest(manifest), Size: int64(len(manifest)),
			Platform: &platform{Architecture: arch, OS: "linux"},
			Annotations: map[string]string{
				"io.containerd.image.name":          name,
				"org.opencontainers.image.ref.name": tagOf(name),
			}})
	}
	index["manifests"] = manifests
	indexJSON, _ := json.Marshal(index)

	tw := tar.NewWriter(w)
	add := func(name string, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", indexJSON},
		{blobPath(layer), layer},
		{blobPath(config), config},
		{blobPath(manifest), manifest},
	} {
		if err := add(f.name, f.b); err != nil {
			return err
		}
	}
	return tw.Close()
}

// layerTarGz is the layer blob (gzipped tar) and its diff ID (the sha256
// of the uncompressed tar, which the config lists).
func layerTarGz(files []File) (gz []byte, diffID string, err error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range files {
		h := &tar.Header{Name: strings.TrimPrefix(path.Clean(f.Path), "/"), Mode: f.Mode, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		switch {
		case f.Dir:
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		case f.Link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, f.Link
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, "", err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.Contents); err != nil {
				return nil, "", err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return out.Bytes(), digest(raw.Bytes()), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func blobPath(b []byte) string {
	return "blobs/sha256/" + strings.TrimPrefix(digest(b), "sha256:")
}

// tagOf is the part after the last ':' that follows the last '/'.
func tagOf(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[i+1:]
	}
	return "latest"
}
