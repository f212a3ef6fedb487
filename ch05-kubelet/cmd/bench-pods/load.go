package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

const (
	namespace = "default"
	benchKey  = "kubik-bench" // label: which run a pod belongs to
)

// podTimes is one pod's milestones: all on this machine's clock except
// created, the apiserver's creationTimestamp (whole seconds).
type podTimes struct {
	created   time.Time // metadata.creationTimestamp
	called    time.Time // when our POST was sent
	scheduled time.Time // the watch event with spec.nodeName set, on receipt
	running   time.Time // the watch event with every container running, on receipt
}

// observer records, from a watch of the benchmark's pods, when each was
// seen bound and with all its containers started. Timestamps are taken
// in the event handler, on receipt.
type observer struct {
	mu    sync.Mutex
	pods  map[string]*podTimes
	ready chan string // a pod's name, once, when it is seen running
}

func (o *observer) get(name string) *podTimes {
	t := o.pods[name]
	if t == nil {
		t = &podTimes{}
		o.pods[name] = t
	}
	return t
}

func (o *observer) seen(p *corev1.Pod) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.get(p.Name)
	t.created = p.CreationTimestamp.Time
	if p.Spec.NodeName != "" && t.scheduled.IsZero() {
		t.scheduled = now
	}
	if allStarted(p) && t.running.IsZero() {
		t.running = now
		o.ready <- p.Name
	}
}

// allStarted: upstream's SLI ends when every container is reported started.
func allStarted(p *corev1.Pod) bool {
	if len(p.Status.ContainerStatuses) < len(p.Spec.Containers) {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running == nil {
			return false
		}
	}
	return true
}

// watchPods starts an informer on the namespace's pods labelled with run.
func watchPods(ctx context.Context, c *rest.Client, run string, n int) (*observer, error) {
	o := &observer{pods: map[string]*podTimes{}, ready: make(chan string, n)}
	inf := cache.New[corev1.Pod](c, cache.Options{Namespace: namespace, LabelSelector: benchKey + "=" + run})
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc: o.seen, UpdateFunc: func(_, p *corev1.Pod) { o.seen(p) },
	})
	go inf.Run(ctx)
	if !cache.WaitForCacheSync(ctx, inf.HasSynced) {
		return nil, ctx.Err()
	}
	return o, nil
}

// benchPod is the pod the SLI's perf tests use, with our image: one
// container that sleeps.
func benchPod(run string, i int) *corev1.Pod {
	grace := int64(1) // `sleep` as PID 1 ignores SIGTERM: do not wait 30 s at deletion
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%03d", run, i), Namespace: namespace,
			Labels: map[string]string{benchKey: run}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{
			Name: "sleep", Image: "busybox:1.35", Command: []string{"sleep", "3600"}}}},
	}
}

// createPods creates n pods: at rate per second (rate > 0), or all at
// once from workers concurrent clients. It records when each POST was sent.
func createPods(ctx context.Context, c *rest.Client, o *observer, run string, n int, rate float64, workers int) error {
	send := func(i int) error {
		p := benchPod(run, i)
		start := time.Now()
		if _, err := rest.Create(ctx, c, p); err != nil {
			return fmt.Errorf("creating %s: %w", p.Name, err)
		}
		o.mu.Lock()
		o.get(p.Name).called = start
		o.mu.Unlock()
		return nil
	}
	if rate > 0 {
		t0 := time.Now()
		for i := range n {
			time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / rate * float64(time.Second)))))
			if err := send(i); err != nil {
				return err
			}
		}
		return nil
	}
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for i := range next {
				if err := send(i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// waitRunning waits until n pods have been seen running.
func waitRunning(ctx context.Context, o *observer, n int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for got := 0; got < n; got++ {
		select {
		case <-o.ready:
		case <-deadline:
			return fmt.Errorf("%d of %d pods running after %v", got, n, timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// deletePods deletes the run's pods and waits until the apiserver has none
// left (the kubelet has stopped them and sent the final delete).
func deletePods(ctx context.Context, c *rest.Client, run string, timeout time.Duration) error {
	list, err := rest.List[corev1.Pod](ctx, c, namespace, rest.ListOptions{LabelSelector: benchKey + "=" + run})
	if err != nil {
		return err
	}
	for _, p := range list.Items {
		if err := rest.Delete[corev1.Pod](ctx, c, namespace, p.Name, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		list, err := rest.List[corev1.Pod](ctx, c, namespace, rest.ListOptions{LabelSelector: benchKey + "=" + run})
		if err == nil && len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods of %s still there after %v", run, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
