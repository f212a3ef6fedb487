//go:build linux

package containerd

import (
	"context"
	"fmt"
	"os"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"
)

// criNamespace is containerd's namespace of the CRI plugin: images imported
// there are what the kubelet's ImageStatus finds.
const criNamespace = "k8s.io"

// client connects to the daemon with containerd's own Go client (module
// github.com/containerd/containerd v1.7, which speaks to the 1.6 daemon):
// the way a node's tooling imports images, without running ctr.
func (d *Daemon) client() (*containerd.Client, error) {
	return containerd.New(d.cfg.Socket(), containerd.WithTimeout(10*time.Second))
}

// answers reports whether the daemon at socket answers a Version request.
func answers(ctx context.Context, socket string) bool {
	c, err := containerd.New(socket, containerd.WithTimeout(time.Second))
	if err != nil {
		return false
	}
	defer c.Close()
	vctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = c.Version(vctx)
	return err == nil
}

// ImportImage imports an OCI image-layout tarball into the CRI's namespace
// (the tarball's index names the image) and unpacks it for the overlayfs
// snapshotter, so that the first pod using it does not wait for an unpack.
func (d *Daemon) ImportImage(tarball string) error {
	c, err := d.client()
	if err != nil {
		return err
	}
	defer c.Close()
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := namespaces.WithNamespace(context.Background(), criNamespace)
	imgs, err := c.Import(ctx, f)
	if err != nil {
		return fmt.Errorf("importing %s: %w", tarball, err)
	}
	for _, img := range imgs {
		if err := containerd.NewImage(c, img).Unpack(ctx, "overlayfs"); err != nil {
			return fmt.Errorf("unpacking %s: %w", img.Name, err)
		}
	}
	return nil
}

// Images lists the image names containerd has in the CRI's namespace.
func (d *Daemon) Images() (map[string]bool, error) {
	c, err := d.client()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx := namespaces.WithNamespace(context.Background(), criNamespace)
	list, err := c.ImageService().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing images: %w", err)
	}
	have := map[string]bool{}
	for _, img := range list {
		have[img.Name] = true
	}
	return have, nil
}
