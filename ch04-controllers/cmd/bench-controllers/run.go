package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

// result is one controller manager's run.
type result struct {
	err    error
	warmup time.Duration // process start → the 1-replica "warmup" Deployment available
	t1, t2 milestones
	// The StatefulSet (T3 create, T4 rollout) and the ReplicationController (T5).
	t3, t4, t5 milestones
	// CPU used from T1's start to the last phase's end (from /proc/<pid>/stat).
	kcmCPU, clusterCPU time.Duration
	// Events the controllers wrote in "default": objects, and the sum of
	// their counts.
	events, eventCount int
	// Error lines of the controller manager's log (logProblems).
	problems      []string
	problemsTotal int
	logPath       string
}

// runOne measures controller manager which on a fresh cluster in dir.
func runOne(ctx context.Context, which string, rep int, bins binaries, dir string) *result {
	r := &result{}
	r.err = r.measure(ctx, which, rep, bins, dir)
	if r.logPath != "" {
		r.problems, r.problemsTotal = logProblems(r.logPath)
	}
	return r
}

func (r *result) measure(ctx context.Context, which string, rep int, bins binaries, dir string) error {
	t := time.Now()
	c, err := startCluster(ctx, bins.cluster, dir, *nodesFlag)
	if err != nil {
		return err
	}
	defer c.Stop(15 * time.Second)
	fmt.Printf("  cluster with %d Ready hollow nodes in %v\n", *nodesFlag, time.Since(t).Round(time.Millisecond))
	admin, err := newClient(c.adminKubeconfig, "bench-controllers")
	if err != nil {
		return err
	}

	binary := bins.kubikKCM
	if which == "upstream" {
		binary = bins.upstreamKCM
	}
	r.logPath = filepath.Join(dir, "kube-controller-manager.log")
	start := time.Now()
	kcm, err := testenv.Spawn("kube-controller-manager ("+label(which)+")", r.logPath, binary, kcmArgs(which, c.kcmKubeconfig, rep)...)
	if err != nil {
		return err
	}
	defer kcm.Stop(15 * time.Second)

	// Warm-up: the manager is up once a 1-replica Deployment is available.
	warm := newDeployment(1)
	warm.Name, warm.Labels = "warmup", map[string]string{"app": "warmup"}
	warm.Spec.Selector.MatchLabels, warm.Spec.Template.Labels = warm.Labels, warm.Labels
	if _, err := rest.Create(ctx, admin, warm); err != nil {
		return err
	}
	for {
		d, err := rest.Get[appsv1.Deployment](ctx, admin, "default", "warmup")
		if err == nil && available(1)(d) {
			break
		}
		if kcm.Exited() {
			return fmt.Errorf("%s exited (log: %s)", kcm.Name, r.logPath)
		}
		if time.Since(start) > 2*time.Minute || ctx.Err() != nil {
			return fmt.Errorf("%s: a 1-replica Deployment not available within 2m (log: %s)", kcm.Name, r.logPath)
		}
		time.Sleep(pollInterval)
	}
	r.warmup = time.Since(start)

	kcmCPU, clusterCPU := testenv.CPUTime(kcm.Cmd.Process.Pid), testenv.CPUTime(c.Cmd.Process.Pid)
	defer func() {
		r.kcmCPU = testenv.CPUTime(kcm.Cmd.Process.Pid) - kcmCPU
		r.clusterCPU = testenv.CPUTime(c.Cmd.Process.Pid) - clusterCPU
	}()
	n := int32(*replicasFlag)
	if r.t1, err = createDeployment(ctx, admin, n, *timeout); err != nil {
		return fmt.Errorf("T1 (create): %w", err)
	}
	if r.t2, err = setImage(ctx, admin, n, *timeout); err != nil {
		return fmt.Errorf("T2 (set image): %w", err)
	}
	if m := int32(*stsReplicas); m > 0 {
		if r.t3, err = createStatefulSet(ctx, admin, m, *timeout); err != nil {
			return fmt.Errorf("T3 (StatefulSet create): %w", err)
		}
		if r.t4, err = rollStatefulSet(ctx, admin, m, *timeout); err != nil {
			return fmt.Errorf("T4 (StatefulSet set image): %w", err)
		}
	}
	if m := int32(*rcReplicas); m > 0 {
		if r.t5, err = createReplicationController(ctx, admin, m, *timeout); err != nil {
			return fmt.Errorf("T5 (ReplicationController create): %w", err)
		}
	}
	r.events, r.eventCount, err = countEvents(ctx, admin)
	return err
}

// countEvents counts the Events in "default" (the controllers' and the
// scheduler's) and the occurrences they stand for (the sum of their
// counts: an Event seen again is one object with a higher count).
func countEvents(ctx context.Context, c *rest.Client) (objects, occurrences int, err error) {
	list, err := rest.List[corev1.Event](ctx, c, "default", rest.ListOptions{})
	if err != nil {
		return 0, 0, err
	}
	for _, e := range list.Items {
		if e.Source.Component == "default-scheduler" || e.ReportingController == "default-scheduler" {
			continue
		}
		objects++
		occurrences += int(max(e.Count, 1))
	}
	return objects, occurrences, nil
}

func (r *result) print() {
	if r.err != nil {
		fmt.Printf("  FAILED: %v\n", r.err)
	}
	if r.warmup > 0 {
		fmt.Printf("  up (1-replica Deployment available) %v after the process started\n", r.warmup.Round(time.Millisecond))
	}
	if r.t1.done > 0 {
		fmt.Printf("  T1 create:    %d pods counted after %v, all available after %v\n", *replicasFlag,
			r.t1.created.Round(time.Millisecond), r.t1.done.Round(time.Millisecond))
	}
	if r.t2.done > 0 {
		fmt.Printf("  T2 set image: %d updated pods counted after %v, rollout complete after %v\n", *replicasFlag,
			r.t2.created.Round(time.Millisecond), r.t2.done.Round(time.Millisecond))
	}
	if r.t3.done > 0 {
		fmt.Printf("  T3 StatefulSet create: %d pods counted after %v, all ready after %v\n", *stsReplicas,
			r.t3.created.Round(time.Millisecond), r.t3.done.Round(time.Millisecond))
	}
	if r.t4.done > 0 {
		fmt.Printf("  T4 StatefulSet set image: %d updated pods counted after %v, rollout complete after %v\n", *stsReplicas,
			r.t4.created.Round(time.Millisecond), r.t4.done.Round(time.Millisecond))
	}
	if r.t5.done > 0 {
		fmt.Printf("  T5 ReplicationController create: %d pods counted after %v, all ready after %v\n", *rcReplicas,
			r.t5.created.Round(time.Millisecond), r.t5.done.Round(time.Millisecond))
	}
	if r.kcmCPU > 0 {
		fmt.Printf("  CPU during T1..T5: controller manager %.1fs, cluster (apiserver, etcd, scheduler, hollow nodes) %.1fs\n",
			r.kcmCPU.Seconds(), r.clusterCPU.Seconds())
	}
	if r.events > 0 {
		fmt.Printf("  Events written by the controllers: %d objects standing for %d occurrences\n", r.events, r.eventCount)
	}
	if r.problemsTotal > 0 {
		fmt.Printf("  %d error/warning lines in %s; distinct (first %d):\n", r.problemsTotal, filepath.Base(r.logPath), len(r.problems))
		for _, p := range r.problems {
			fmt.Println("    " + p)
		}
	}
}

// problemLine matches an error or warning line: klog's "E1130 ..."/"W1130
// ..." (upstream) or slog's level=ERROR/WARN (ours).
var problemLine = regexp.MustCompile(`^[EW]\d{4} |level=(ERROR|WARN)`)

// logProblems returns the distinct error and warning lines of a log (at
// most 10, shortened, with klog's timestamps and slog's time= cut so
// repeats collapse) and how many there were in all.
func logProblems(logPath string) ([]string, int) {
	f, err := os.Open(logPath)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []string
	total := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	klogHeader := regexp.MustCompile(`^([EW])\d{4} [\d:.]+\s+\d+ `)
	slogTime := regexp.MustCompile(`^time=\S+ `)
	for sc.Scan() {
		line := sc.Text()
		if !problemLine.MatchString(line) {
			continue
		}
		total++
		line = klogHeader.ReplaceAllString(line, "$1 ")
		line = slogTime.ReplaceAllString(line, "")
		if len(line) > 240 {
			line = line[:240] + "..."
		}
		if !seen[line] && len(out) < 10 {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out, total
}

// printTable prints the side-by-side table: T1 and T2 in seconds, and our
// time over upstream's (below 1: ours is faster).
func printTable(kcms []string, results map[string]*result) {
	fmt.Printf("\n%d-replica Deployment, %d-replica StatefulSet, %d-replica ReplicationController on %d hollow nodes\n",
		*replicasFlag, *stsReplicas, *rcReplicas, *nodesFlag)
	fmt.Printf("(Kubik apiserver + our scheduler), controllers %s:\n", controllers)
	fmt.Println("  T1 = POST Deployment → availableReplicas=N and Available=True")
	fmt.Println("  T2 = PATCH image → updatedReplicas = replicas = availableReplicas = N (rollout status done)")
	fmt.Println("  T3 = POST StatefulSet (OrderedReady) → readyReplicas = availableReplicas = M")
	fmt.Println("  T4 = PATCH its image → updatedReplicas = readyReplicas = M, currentRevision = updateRevision")
	fmt.Println("  T5 = POST ReplicationController → readyReplicas = availableReplicas = R")
	fmt.Println("  created = the status first counts all pods / all updated pods; the rest of a phase is")
	fmt.Println("    mostly our scheduler binding and the hollow nodes reporting the pods Ready, the same for both")
	header := []string{"phase"}
	for _, s := range kcms {
		header = append(header, label(s)+" s")
	}
	both := len(kcms) == 2
	if both {
		header = append(header, "ratio ours/upstream")
	}
	rows := [][]string{header}
	phase := func(name string, get func(r *result) time.Duration) {
		row := []string{name}
		for _, s := range kcms {
			r := results[s]
			v := "-"
			if r != nil && get(r) > 0 {
				v = fmt.Sprintf("%.1f", get(r).Seconds())
			} else if r != nil && r.err != nil {
				v = "failed"
			}
			row = append(row, v)
		}
		if both {
			ours, theirs := results["kubik"], results["upstream"]
			if ours != nil && theirs != nil && get(ours) > 0 && get(theirs) > 0 {
				row = append(row, fmt.Sprintf("%.2fx", get(ours).Seconds()/get(theirs).Seconds()))
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, row)
	}
	phase("T1 create", func(r *result) time.Duration { return r.t1.done })
	phase("  of which: all N pods created", func(r *result) time.Duration { return r.t1.created })
	phase("T2 set image", func(r *result) time.Duration { return r.t2.done })
	phase("  of which: all N new pods created", func(r *result) time.Duration { return r.t2.created })
	if *stsReplicas > 0 {
		phase("T3 StatefulSet create", func(r *result) time.Duration { return r.t3.done })
		phase("T4 StatefulSet set image", func(r *result) time.Duration { return r.t4.done })
	}
	if *rcReplicas > 0 {
		phase("T5 ReplicationController create", func(r *result) time.Duration { return r.t5.done })
		phase("  of which: all R pods created", func(r *result) time.Duration { return r.t5.created })
	}
	phase("controller manager CPU s", func(r *result) time.Duration { return r.kcmCPU })
	row := []string{"Events written (objects)"}
	for _, s := range kcms {
		v := "-"
		if r := results[s]; r != nil && r.events > 0 {
			v = fmt.Sprint(r.events)
		}
		row = append(row, v)
	}
	if both {
		row = append(row, "")
	}
	rows = append(rows, row)
	printRows(rows)
}

func printRows(rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i == 0 {
				fmt.Fprintf(&b, "  %-*s", widths[i], c)
			} else {
				fmt.Fprintf(&b, "  %*s", widths[i], c)
			}
		}
		fmt.Println(b.String())
	}
}
