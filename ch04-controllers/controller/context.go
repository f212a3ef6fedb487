// Package controller holds what kube-controller-manager's controllers
// share: the ControllerContext each is started with, the shared informers
// (one list+watch per resource for the whole process, as upstream's
// SharedInformerFactory), and the helpers of upstream's pkg/controller
// (controller_utils.go: expectations, owner references, pod creation).
//
// Upstream: cmd/kube-controller-manager/app (ControllerContext),
// k8s.io/client-go/informers, pkg/controller.
package controller

import (
	"context"
	"log/slog"
	"reflect"
	"sync"

	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// ControllerContext is what every controller is started with. Upstream:
// app.ControllerContext.
type ControllerContext struct {
	// Client talks to the apiserver with the controller manager's identity.
	Client *rest.Client
	// Informers hands out the shared informers; started after every
	// controller has asked for its own (Start).
	Informers *SharedInformers
	Log       *slog.Logger
}

// SharedInformers keeps one informer per resource type. Upstream:
// informers.SharedInformerFactory.
type SharedInformers struct {
	client *rest.Client
	log    *slog.Logger

	mu        sync.Mutex
	informers map[reflect.Type]runner
	started   map[reflect.Type]bool
	ctx       context.Context // set by Start: informers asked for later start at once
}

type runner interface {
	Run(ctx context.Context)
	HasSynced() bool
}

func NewSharedInformers(c *rest.Client, log *slog.Logger) *SharedInformers {
	return &SharedInformers{client: c, log: log, informers: map[reflect.Type]runner{}, started: map[reflect.Type]bool{}}
}

// InformerFor returns the shared informer of T (all namespaces, no
// selectors), creating it on first use:
//
//	pods := controller.InformerFor[corev1.Pod](ctx.Informers)
func InformerFor[T any, PT rest.Object[T]](s *SharedInformers) *cache.Informer[T, PT] {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := reflect.TypeFor[T]()
	if i, ok := s.informers[t]; ok {
		return i.(*cache.Informer[T, PT])
	}
	i := cache.New[T, PT](s.client, cache.Options{Logger: s.log})
	s.informers[t] = i
	if s.ctx != nil {
		s.started[t] = true
		go i.Run(s.ctx)
	}
	return i
}

// Start runs every informer asked for so far (and, from now on, each new
// one as soon as it is asked for) until ctx ends.
func (s *SharedInformers) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
	for t, i := range s.informers {
		if !s.started[t] {
			s.started[t] = true
			go i.Run(ctx)
		}
	}
}

// WaitForCacheSync waits until every started informer has listed once.
func (s *SharedInformers) WaitForCacheSync(ctx context.Context) bool {
	s.mu.Lock()
	var synced []func() bool
	for _, i := range s.informers {
		synced = append(synced, i.HasSynced)
	}
	s.mu.Unlock()
	return cache.WaitForCacheSync(ctx, synced...)
}
