package node5

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"kubik/ch05-kubelet/kubelet"
)

// kubeletService runs the node's kubelet the way systemd runs it on a real
// machine, so that it can be restarted on its own: SIGHUP to this program
// is `systemctl restart kubelet`. The running kubelet stops (its context
// ends; the pods stay in containerd, as they do when a real kubelet exits)
// and a new kubelet.Kubelet — nothing in memory, the kubelet keeps no state
// on disk — starts against the same containerd. It finds its pods' sandboxes
// and containers again by their labels (io.kubernetes.pod.uid ...) and
// carries on: same container IDs, no restarts.
type kubeletService struct {
	cfg  kubelet.Config
	log  *slog.Logger
	done chan error // Run ended by itself (an error), or ctx ended

	mu sync.Mutex
	k  *kubelet.Kubelet // the current one
}

// startKubelet starts the kubelet and the loop that restarts it on SIGHUP.
func startKubelet(ctx context.Context, cfg kubelet.Config, log *slog.Logger) (*kubeletService, error) {
	k, err := kubelet.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &kubeletService{cfg: cfg, log: log.With("component", "kubelet"), done: make(chan error, 1), k: k}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		s.done <- s.loop(ctx, k, hup)
	}()
	return s, nil
}

func (s *kubeletService) loop(ctx context.Context, k *kubelet.Kubelet, hup chan os.Signal) error {
	for {
		kctx, stop := context.WithCancel(ctx)
		ran := make(chan error, 1)
		go func() { ran <- k.Run(kctx) }()
		select {
		case err := <-ran:
			stop()
			return err
		case <-ctx.Done():
			<-ran
			stop()
			return ctx.Err()
		case <-hup:
		}
		s.log.Info("kubelet restarting", "signal", "SIGHUP")
		stop()
		<-ran
		k.Close()
		for {
			next, err := kubelet.New(s.cfg)
			if err == nil {
				k = next
				break
			}
			s.log.Error("kubelet cannot start; retrying", "err", err)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
		s.mu.Lock()
		s.k = k
		s.mu.Unlock()
		s.log.Info("kubelet started again: re-adopting the pods in the runtime")
	}
}

// Kubelet is the current kubelet (for Shutdown and Close at exit).
func (s *kubeletService) Kubelet() *kubelet.Kubelet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.k
}
