package main_test

// End-to-end test of chapter 4 with the real kubectl 1.33 and 1.27 against
// the real ch04 binary (apiserver on etcd, scheduler, three hollow nodes,
// kube-controller-manager): a Deployment is created, rolled out, scaled,
// healed, updated (the rolling update watched step by step), rolled back,
// paused, resumed and restarted, as against a real cluster.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

const (
	kubectl133 = "1.33"
	kubectl127 = "1.27"
)

func TestDeployments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3"}})
	kv := func(version string, args ...string) string { t.Helper(); return c.MustKubectl(t, version, "", args...) }
	k := func(args ...string) string { t.Helper(); return kv(kubectl133, args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 60*time.Second, f) }
	rolledOut := func(version string) {
		t.Helper()
		out := kv(version, "rollout", "status", "deployment/web", "--timeout=120s")
		if !strings.HasSuffix(out, `deployment "web" successfully rolled out`) {
			t.Fatalf("kubectl %s rollout status:\n%s", version, out)
		}
	}
	runningPods := func(want int) {
		t.Helper()
		eventually(fmt.Sprintf("%d Running web pods", want), func() (string, bool) {
			out := k("get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.metadata.deletionTimestamp}{"\n"}{end}`)
			n := 0
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[1] == "Running" {
					n++
				} else if l != "" {
					return out, false // Pending, or still terminating
				}
			}
			return out, n == want
		})
	}
	rsCount := func() int {
		t.Helper()
		return len(strings.Fields(k("get", "rs", "-l", "app=web", "-o", "name")))
	}

	eventually("nodes Ready", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{end}`)
		return out, out == "TrueTrueTrue"
	})

	// Create and roll out.
	if out := k("create", "deployment", "web", "--image=nginx", "--replicas=3"); out != "deployment.apps/web created" {
		t.Errorf("create: %q", out)
	}
	rolledOut(kubectl133)
	runningPods(3)
	conds := k("get", "deployment", "web", "-o", `jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}{"\n"}{end}`)
	if !strings.Contains(conds, "Available=True/MinimumReplicasAvailable") || !strings.Contains(conds, "Progressing=True/NewReplicaSetAvailable") {
		t.Errorf("conditions:\n%s", conds)
	}
	rsName := k("get", "rs", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}")
	// Events are written in the background: wait for them.
	eventually("ScalingReplicaSet event", func() (string, bool) {
		ev := k("get", "events", "--field-selector", "reason=ScalingReplicaSet", "-o", "jsonpath={.items[*].message}")
		return ev, strings.Contains(ev, "Scaled up replica set "+rsName+" from 0 to 3")
	})
	eventually("SuccessfulCreate events from replicaset-controller", func() (string, bool) {
		ev := k("get", "events", "--field-selector", "reason=SuccessfulCreate,involvedObject.name="+rsName, "-o", "jsonpath={.items[*].source.component}")
		return ev, ev == "replicaset-controller replicaset-controller replicaset-controller"
	})

	// Scale up and down (the scale subresource).
	k("scale", "deployment", "web", "--replicas=5")
	rolledOut(kubectl133)
	runningPods(5)
	k("scale", "deployment", "web", "--replicas=2")
	rolledOut(kubectl133)
	runningPods(2)

	// A deleted pod is replaced.
	victim := k("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}")
	k("delete", "pod", victim, "--wait=true", "--timeout=30s")
	runningPods(2)
	if out := k("get", "pods", "-l", "app=web", "-o", "name"); strings.Contains(out, victim) {
		t.Errorf("deleted pod %s still listed:\n%s", victim, out)
	}

	// A rolling update, watched: with 2 replicas and 25%/25%, at most 3
	// pods are wanted at once (maxSurge 1) and never fewer than 2
	// available (maxUnavailable 0).
	// Start from a settled state: the ReplicaSet has seen the deletion and
	// counts the replacement available, and the Deployment says so too (a
	// status written before the deletion was processed could still say 2).
	eventually("the replacement counted available", func() (string, bool) {
		out := k("get", "rs", "-l", "app=web", "-o", "jsonpath={.items[*].status.availableReplicas}/{.items[*].status.readyReplicas}/{.items[*].status.replicas}")
		return out, out == "2/2/2"
	})
	rolledOut(kubectl133)
	states := watchReplicaSets(t, c.Kubeconfig)
	k("set", "image", "deployment/web", "nginx=nginx:1.27")
	rolledOut(kubectl133)
	steps := states.stop()
	if len(steps) < 3 {
		t.Errorf("only %d ReplicaSet states observed: %v", len(steps), steps)
	}
	both := false
	for _, s := range steps {
		if s.specSum > 3 || s.available < 2 {
			t.Errorf("rollout step %v: more than replicas+maxSurge=3 pods wanted or fewer than 2 available\nall: %v", s, steps)
		}
		both = both || s.active >= 2
	}
	if !both {
		t.Errorf("never two ReplicaSets with pods at once (not a rolling update?): %v", steps)
	}
	runningPods(2)

	// History: two revisions; roll back to the first with kubectl 1.27.
	hist := k("rollout", "history", "deployment/web")
	if !strings.Contains(hist, "REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>") {
		t.Errorf("rollout history:\n%s", hist)
	}
	if out := kv(kubectl127, "rollout", "undo", "deployment/web", "--to-revision=1"); out != "deployment.apps/web rolled back" {
		t.Errorf("rollout undo: %q", out)
	}
	rolledOut(kubectl127)
	if img := k("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}"); img != "nginx 3" {
		t.Errorf("after undo: image and revision %q, want \"nginx 3\"", img)
	}
	if hist := k("rollout", "history", "deployment/web"); !strings.Contains(hist, "2         <none>\n3         <none>") {
		t.Errorf("rollout history after undo:\n%s", hist)
	}
	if n := rsCount(); n != 2 {
		t.Errorf("%d ReplicaSets after undo, want 2 (the first one reused)", n)
	}

	// Pause: a template change makes no new ReplicaSet; resume rolls it out.
	if out := k("rollout", "pause", "deployment/web"); out != "deployment.apps/web paused" {
		t.Errorf("pause: %q", out)
	}
	k("set", "image", "deployment/web", "nginx=nginx:1.28")
	eventually("paused condition", func() (string, bool) {
		out := k("get", "deployment", "web", "-o", `jsonpath={.metadata.generation}={.status.observedGeneration} {.status.conditions[?(@.type=="Progressing")].reason}`)
		f := strings.Fields(out)
		g := strings.Split(f[0], "=")
		return out, len(f) == 2 && g[0] == g[1] && f[1] == "DeploymentPaused"
	})
	if n := rsCount(); n != 2 {
		t.Errorf("%d ReplicaSets while paused, want 2", n)
	}
	if out := kv(kubectl127, "rollout", "resume", "deployment/web"); out != "deployment.apps/web resumed" {
		t.Errorf("resume: %q", out)
	}
	rolledOut(kubectl127)
	if n := rsCount(); n != 3 {
		t.Errorf("%d ReplicaSets after resume, want 3", n)
	}

	// Restart: a new ReplicaSet for the restartedAt annotation.
	if out := k("rollout", "restart", "deployment/web"); out != "deployment.apps/web restarted" {
		t.Errorf("restart: %q", out)
	}
	rolledOut(kubectl127)
	runningPods(2)
	if n := rsCount(); n != 4 {
		t.Errorf("%d ReplicaSets after restart, want 4", n)
	}
	if d := k("describe", "deployment", "web"); !strings.Contains(d, "deployment-controller  Scaled up replica set") ||
		!strings.Contains(d, "NewReplicaSetAvailable") || !strings.Contains(d, "kubectl.kubernetes.io/restartedAt") {
		t.Errorf("describe deployment:\n%s", d)
	}

	// The controller manager holds its Lease.
	if got := k("get", "lease", "-n", "kube-system", "kube-controller-manager", "-o", "jsonpath={.spec.holderIdentity}"); got == "" {
		t.Errorf("lease kube-system/kube-controller-manager has no holder")
	}
}

// rsState is the app=web ReplicaSets after one watch event.
type rsState struct {
	specSum, available, active int
}

func (s rsState) String() string {
	return fmt.Sprintf("{wanted %d, available %d, with pods %d}", s.specSum, s.available, s.active)
}

type rsWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	states []rsState
}

// watchReplicaSets lists the ReplicaSets and watches them from that list's
// resourceVersion, recording the sums after every event: the sequence of
// states the apiserver went through, in order.
func watchReplicaSets(t *testing.T, kubeconfig string) *rsWatch {
	t.Helper()
	cl, err := rest.New(kubeconfig, "e2e-watch")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l, err := rest.List[appsv1.ReplicaSet](ctx, cl, "default", rest.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	w, err := rest.Watch[appsv1.ReplicaSet](ctx, cl, "default", rest.ListOptions{LabelSelector: "app=web", ResourceVersion: l.ResourceVersion})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cur := map[string]appsv1.ReplicaSet{}
	for _, rs := range l.Items {
		cur[rs.Name] = rs
	}
	rw := &rsWatch{cancel: cancel, done: make(chan struct{})}
	record := func() {
		var s rsState
		for _, rs := range cur {
			s.specSum += int(*rs.Spec.Replicas)
			s.available += int(rs.Status.AvailableReplicas)
			if *rs.Spec.Replicas > 0 {
				s.active++
			}
		}
		rw.mu.Lock()
		rw.states = append(rw.states, s)
		rw.mu.Unlock()
	}
	record()
	go func() {
		defer close(rw.done)
		for ev := range w.ResultChan() {
			switch ev.Type {
			case "ADDED", "MODIFIED":
				cur[ev.Object.Name] = *ev.Object
			case "DELETED":
				delete(cur, ev.Object.Name)
			default:
				continue
			}
			record()
		}
	}()
	return rw
}

func (rw *rsWatch) stop() []rsState {
	rw.cancel()
	<-rw.done
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.states
}
