package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// StartEmbedded runs a single-member etcd inside this process, for when no
// --etcd-servers are given: data in DIR/etcd, its log in DIR/logs/etcd.log,
// client and peer URLs on free loopback ports. It returns the client URL
// once etcd serves, and stop, which shuts it down.
func StartEmbedded(ctx context.Context, dataDir string, log *slog.Logger) (endpoint string, stop func(), err error) {
	if err := os.MkdirAll(filepath.Join(dataDir, "logs"), 0o755); err != nil {
		return "", nil, err
	}
	// A free port may be taken by someone else before etcd binds it: then
	// etcd fails to listen and we try other ports.
	for attempt := 0; ; attempt++ {
		endpoint, stop, err = startEmbedded(ctx, dataDir)
		if err == nil || attempt == 2 || ctx.Err() != nil || !isAddrInUse(err) {
			break
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("embedded etcd: %w (its log: %s)", err, filepath.Join(dataDir, "logs", "etcd.log"))
	}
	log.Info("embedded etcd is serving", "component", "etcd", "endpoint", endpoint, "dir", filepath.Join(dataDir, "etcd"))
	return endpoint, stop, nil
}

func startEmbedded(ctx context.Context, dataDir string) (string, func(), error) {
	clientURL, err := freeLoopbackURL()
	if err != nil {
		return "", nil, err
	}
	peerURL, err := freeLoopbackURL()
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "kubik"
	cfg.Dir = filepath.Join(dataDir, "etcd")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*clientURL}, []url.URL{*clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	cfg.LogLevel = "warn"
	// Only etcd's own command line sets this default; unset, every request is logged as slow.
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration
	cfg.LogOutputs = []string{filepath.Join(dataDir, "logs", "etcd.log")}

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return "", nil, err
	case <-time.After(60 * time.Second):
		e.Close()
		return "", nil, errors.New("not ready after 60s")
	case <-ctx.Done():
		e.Close()
		return "", nil, ctx.Err()
	}
	return clientURL.String(), e.Close, nil
}

// freeLoopbackURL asks the kernel for a free port on 127.0.0.1.
func freeLoopbackURL() (*url.URL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, nil
}

func isAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}
