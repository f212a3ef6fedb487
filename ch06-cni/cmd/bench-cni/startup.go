package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// This file is the second part: pod startup latency, upstream's SLI
// (kubernetes/community, sig-scalability/slos/pod_startup_latency.md): from
// the pod's creationTimestamp until every container is reported running,
// observed through a watch. creationTimestamp has whole seconds, so the time
// from our create call (this machine's clock) is given too.

const benchLabel = "kubik-bench"

// startupRow is one line of part 2's table.
type startupRow struct {
	cluster, from string
	s             summary
}

// startupOnCh05 measures chapter 5's single node.
func (b *bench) startupOnCh05(ctx context.Context) ([]startupRow, error) {
	p, err := b.startCh05(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := measureStartup(ctx, p, "ch05: 1 node")
	if serr := p.stop(); err == nil {
		err = serr
	}
	return rows, err
}

// onCh06 runs a chapter 6 cluster with backend for part 2, part 3 or both;
// name is its directory's (short: the nodes' socket paths must fit), label
// names it in the tables.
func (b *bench) onCh06(ctx context.Context, name, label, backend string, startup, throughput bool, extraArgs ...string) ([]startupRow, []perfRow, error) {
	p, err := b.startCh06(ctx, name, backend, extraArgs...)
	if err != nil {
		return nil, nil, err
	}
	var rows []startupRow
	var prows []perfRow
	if startup {
		rows, err = measureStartup(ctx, p, "ch06: 3 nodes, "+label)
	}
	if err == nil && throughput {
		prows, err = measurePerf(ctx, p, backend)
	}
	if serr := p.stop(); err == nil {
		err = serr
	}
	return rows, prows, err
}

// podTimes are one pod's milestones on this machine's clock, but created
// (the apiserver's creationTimestamp).
type podTimes struct {
	created, called, running time.Time
}

// measureStartup creates -pods busybox pods at -rate per second and waits
// for them all to run, then deletes them.
func measureStartup(ctx context.Context, p *program, label string) ([]startupRow, error) {
	run := fmt.Sprintf("startup-%d", time.Now().UnixNano()%100000)
	var mu sync.Mutex
	times := map[string]*podTimes{}
	get := func(name string) *podTimes {
		if times[name] == nil {
			times[name] = &podTimes{}
		}
		return times[name]
	}
	running := make(chan struct{}, *pods)
	seen := func(pod *corev1.Pod) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		t := get(pod.Name)
		t.created = pod.CreationTimestamp.Time
		if allRunning(pod) && t.running.IsZero() {
			t.running = now
			running <- struct{}{}
		}
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	inf := cache.New[corev1.Pod](p.admin, cache.Options{Namespace: "default", LabelSelector: benchLabel + "=" + run})
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{AddFunc: seen, UpdateFunc: func(_, pod *corev1.Pod) { seen(pod) }})
	go inf.Run(wctx)
	if !cache.WaitForCacheSync(wctx, inf.HasSynced) {
		return nil, ctx.Err()
	}

	fmt.Printf("  %s: %d pods, %g per second (load average %s)\n", label, *pods, *rate, loadavg())
	t0 := time.Now()
	for i := range *pods {
		time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / *rate * float64(time.Second)))))
		pod := sleeperPod(fmt.Sprintf("%s-%03d", run, i), run, "")
		called := time.Now()
		if err := create(ctx, p.admin, pod); err != nil {
			return nil, err
		}
		mu.Lock()
		get(pod.Name).called = called
		mu.Unlock()
	}
	deadline := time.After(5 * time.Minute)
	for got := 0; got < *pods; got++ {
		select {
		case <-running:
		case <-deadline:
			return nil, fmt.Errorf("%s: %d of %d pods running after 5 minutes (log: %s)", label, got, *pods, p.LogPath)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	mu.Lock()
	var fromCreated, fromCall []time.Duration
	for _, t := range times {
		fromCreated = append(fromCreated, t.running.Sub(t.created))
		fromCall = append(fromCall, t.running.Sub(t.called))
	}
	mu.Unlock()
	rows := []startupRow{
		{label, "creationTimestamp (whole s)", summarize(fromCreated)},
		{label, "create call sent", summarize(fromCall)},
	}
	for _, r := range rows {
		fmt.Printf("    from %-28s %s\n", r.from, r.s)
	}
	return rows, deletePods(ctx, p.admin, run)
}

// create creates pod, trying again for a while when the apiserver cannot
// answer (a 504 while its storage stalls on a busy machine); the pod's
// latency then counts the wait, from the first try.
func create(ctx context.Context, c *rest.Client, pod *corev1.Pod) error {
	var err error
	for try := 0; try < 10; try++ {
		if _, err = rest.Create(ctx, c, pod); err == nil || rest.IsAlreadyExists(err) {
			return nil
		}
		logger.Warn("creating a pod failed; trying again", "pod", pod.Name, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("creating %s: %w", pod.Name, err)
}

// sleeperPod is the SLI's stateless pod with our image: one container that
// sleeps; node, when set, pins it to a node.
func sleeperPod(name, run, node string) *corev1.Pod {
	grace := int64(1) // sleep as PID 1 ignores SIGTERM
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{benchLabel: run}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{
			Name: "sleep", Image: "busybox:1.35", Command: []string{"sleep", "3600"}}}},
	}
	if node != "" {
		pod.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node}
	}
	return pod
}

func allRunning(p *corev1.Pod) bool {
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

// deletePods deletes the run's pods and waits until the kubelets have
// removed them.
func deletePods(ctx context.Context, c *rest.Client, run string) error {
	opts := rest.ListOptions{LabelSelector: benchLabel + "=" + run}
	list, err := rest.List[corev1.Pod](ctx, c, "default", opts)
	if err != nil {
		return err
	}
	for _, p := range list.Items {
		if err := rest.Delete[corev1.Pod](ctx, c, "default", p.Name, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		list, err := rest.List[corev1.Pod](ctx, c, "default", opts)
		if err == nil && len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods of %s still there after 3 minutes", run)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// summary is what a table shows of a set of latencies.
type summary struct {
	N             int
	P50, P99, Max time.Duration
}

func (s summary) String() string {
	return fmt.Sprintf("n=%d p50=%v p99=%v max=%v", s.N, s.P50.Round(time.Millisecond), s.P99.Round(time.Millisecond), s.Max.Round(time.Millisecond))
}

// summarize takes nearest-rank percentiles, as upstream's perf tests do:
// with fewer than 100 samples p99 is the maximum.
func summarize(d []time.Duration) summary {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return summary{}
	}
	rank := func(p float64) time.Duration {
		r := int(math.Ceil(p / 100 * float64(len(s))))
		return s[min(max(r, 1), len(s))-1]
	}
	return summary{N: len(s), P50: rank(50), P99: rank(99), Max: s[len(s)-1]}
}

func printStartup(rows []startupRow) {
	fmt.Printf("\npod startup latency, ms (busybox sleep, %g pods/s; nearest-rank percentiles)\n", *rate)
	fmt.Printf("%-38s %-30s %4s %6s %6s %6s\n", "cluster", "measured from", "n", "p50", "p99", "max")
	for _, r := range rows {
		fmt.Printf("%-38s %-30s %4d %6d %6d %6d\n", r.cluster, r.from, r.s.N, r.s.P50.Milliseconds(), r.s.P99.Milliseconds(), r.s.Max.Milliseconds())
	}
	// The ratio of each chapter 6 row to chapter 5's of the same kind.
	for _, r := range rows {
		for _, base := range rows {
			if base.cluster == "ch05: 1 node" && r.cluster != base.cluster && base.from == r.from && base.s.P99 > 0 {
				fmt.Printf("%s vs ch05, from %s: p50 %.2fx, p99 %.2fx\n", r.cluster, r.from,
					float64(r.s.P50)/float64(base.s.P50), float64(r.s.P99)/float64(base.s.P99))
			}
		}
	}
}
