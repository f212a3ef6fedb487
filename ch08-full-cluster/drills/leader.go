package drills

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/images"
	"kubik/ch08-full-cluster/provision"
)

// Takeover is one component's Lease changing hands.
type Takeover struct {
	Component      string
	OldHolder      string // leader identity: <machine>_<random>
	NewHolder      string
	Took           time.Duration // from the kill to the new holder
	WorksAfterward bool          // the new leader did its job
}

// LeadersResult is what the drill measured.
type LeadersResult struct{ Takeovers []Takeover }

// KillLeaders kills, one at a time, the leading kube-scheduler and
// kube-controller-manager (and cloud-controller-manager) with SIGKILL.
// The dead leader cannot release its Lease: the standbys, which try
// every 2 s, take it once it has not been renewed for its duration (15 s)
// and start working — a pod gets scheduled, a Deployment gets its
// ReplicaSet. The killed process comes back (its supervisor) as a standby.
func KillLeaders(ctx context.Context, e *Env) (*LeadersResult, error) {
	if len(e.machines(provision.ControlPlane)) < 2 {
		return nil, errors.New("the leader drill needs standbys: two or more control-plane machines")
	}
	res := &LeadersResult{}
	components := []string{"kube-scheduler", "kube-controller-manager"}
	if e.C.Topology.Cloud != nil {
		components = append(components, "cloud-controller-manager")
	}
	var errs []error
	for _, comp := range components {
		t, err := e.killLeader(ctx, comp)
		res.Takeovers = append(res.Takeovers, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", comp, err))
		}
	}
	for _, t := range res.Takeovers {
		e.Say("result: %s: %s → %s in %s, works: %v", t.Component, t.OldHolder, t.NewHolder, t.Took.Round(100*time.Millisecond), t.WorksAfterward)
	}
	return res, errors.Join(errs...)
}

func (e *Env) holder(ctx context.Context, lease string) (string, error) {
	l, err := rest.Get[coordinationv1.Lease](ctx, e.Admin, "kube-system", lease)
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

func (e *Env) killLeader(ctx context.Context, comp string) (Takeover, error) {
	t := Takeover{Component: comp}
	old, err := e.holder(ctx, comp)
	if err != nil {
		return t, err
	}
	t.OldHolder = old
	machine, _, _ := strings.Cut(old, "_")
	if _, ok := e.C.Topology.Machine(machine); !ok {
		return t, fmt.Errorf("the Lease's holder %q is no machine of the cluster", old)
	}
	out, _ := e.KubectlRun(ctx, "-n", "kube-system", "get", "lease", comp)
	e.Show("kubectl -n kube-system get lease "+comp, out)
	e.mark()
	e.Say("kill -9 %s on %s, the leader", comp, machine)
	e.Show(e.supervisorCommand(machine, "kill", "--signal", "SIGKILL", comp), "")
	if err := e.C.Supervisor(machine).Kill(ctx, comp, "SIGKILL"); err != nil {
		return t, err
	}
	err = e.Eventually(ctx, "a standby takes the Lease", 2*time.Minute, func() (string, bool) {
		h, err := e.holder(ctx, comp)
		if err != nil {
			return err.Error(), false
		}
		if h == old {
			return "the Lease is still " + old + "'s (not renewed since the kill)", false
		}
		t.NewHolder, t.Took = h, e.since()
		return "the Lease is " + h + "'s now", true
	})
	if err != nil {
		return t, err
	}
	out, _ = e.KubectlRun(ctx, "-n", "kube-system", "get", "lease", comp)
	e.Show("kubectl -n kube-system get lease "+comp, out)
	switch comp {
	case "kube-scheduler":
		err = e.schedulesAPod(ctx)
	case "kube-controller-manager":
		err = e.makesReplicaSets(ctx)
	case "cloud-controller-manager":
		err = e.assignsLoadBalancer(ctx)
	}
	t.WorksAfterward = err == nil
	if serr := e.Eventually(ctx, "the killed one is back as a standby", 2*time.Minute, func() (string, bool) {
		st, err := e.unit(ctx, machine, comp)
		if err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("%s.service on %s: %s (%s), restarts %d", comp, machine, st.ActiveState, st.SubState, st.Restarts), st.Running()
	}); serr != nil {
		err = errors.Join(err, serr)
	}
	return t, err
}

// schedulesAPod: a new pod gets a node.
func (e *Env) schedulesAPod(ctx context.Context) error {
	name := fmt.Sprintf("drill-leader-%d", time.Now().UnixNano()%100000)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: images.Pause}}}}
	if _, err := rest.Create(ctx, e.Admin, pod); err != nil {
		return err
	}
	defer rest.Delete[corev1.Pod](context.WithoutCancel(ctx), e.Admin, "default", name, nil)
	return e.Eventually(ctx, "the new leader schedules a pod", 2*time.Minute, func() (string, bool) {
		p, err := rest.Get[corev1.Pod](ctx, e.Admin, "default", name)
		if err != nil {
			return err.Error(), false
		}
		if p.Spec.NodeName == "" {
			return "pod " + name + " is Pending", false
		}
		return "pod " + name + " is scheduled to " + p.Spec.NodeName, true
	})
}

// makesReplicaSets: a new Deployment gets its pods.
func (e *Env) makesReplicaSets(ctx context.Context) error {
	const app = "drill-leader"
	defer e.undeploy(ctx, app)
	e.Say("a new Deployment %s: the new leader's controllers create its ReplicaSet and pod", app)
	return e.deploy(ctx, app, 1, -1, false)
}

// assignsLoadBalancer: a new Service of type LoadBalancer gets its
// address from the cloud.
func (e *Env) assignsLoadBalancer(ctx context.Context) error {
	const name = "drill-leader-lb"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt(8080)}}}}
	if _, err := rest.Create(ctx, e.Admin, svc); err != nil {
		return err
	}
	defer rest.Delete[corev1.Service](context.WithoutCancel(ctx), e.Admin, "default", name, nil)
	return e.Eventually(ctx, "the new leader gives a LoadBalancer Service its address", 2*time.Minute, func() (string, bool) {
		s, err := rest.Get[corev1.Service](ctx, e.Admin, "default", name)
		if err != nil {
			return err.Error(), false
		}
		if len(s.Status.LoadBalancer.Ingress) == 0 {
			return "service " + name + ": EXTERNAL-IP <pending>", false
		}
		return "service " + name + ": EXTERNAL-IP " + s.Status.LoadBalancer.Ingress[0].IP, true
	})
}
