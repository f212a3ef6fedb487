package drills

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/provision"
)

// The toleration of the drills' pods for unreachable and not-ready nodes
// (the default, DefaultTolerationSeconds, is 300 s).
const (
	kubeletDrillToleration  = 10
	poweroffDrillToleration = 0
)

// KubeletResult is what the kubelet drill measured.
type KubeletResult struct {
	Node          string
	UnknownAfter  time.Duration // from the stop to Ready=Unknown
	TaintedAfter  time.Duration // to the node.kubernetes.io/unreachable:NoExecute taint
	EvictedAfter  time.Duration // to the drill's pods Terminating
	ReplacedAfter time.Duration // to all replicas running on the other worker
	ReplacedOn    string
}

// StopKubelet stops one worker's kubelet (systemctl stop kubelet): the
// Node's heartbeats (its Lease, its status) stop. After
// --node-monitor-grace-period (50 s) the controller manager marks it
// Ready=Unknown and taints it node.kubernetes.io/unreachable:NoExecute; a
// pod that tolerates the taint only tolerationSeconds (here 10) is then
// evicted, and its ReplicaSet creates a new one, which the scheduler puts
// on the other worker. The kubelet back, the Node turns Ready, loses the
// taint, and the kubelet finishes the evicted pods' deletion.
//
// (Our kubelet removes its pods when it stops; a real one leaves them
// running. The API shows the same either way: nobody is there to tell.)
func StopKubelet(ctx context.Context, e *Env) (*KubeletResult, error) {
	if len(e.machines(provision.Worker)) < 2 {
		return nil, errors.New("the kubelet drill needs two workers (WORKERS=2)")
	}
	const app = "drill-evict"
	e.Say("a Deployment %s of 2 replicas tolerating an unreachable node for %d s", app, kubeletDrillToleration)
	if err := e.deploy(ctx, app, 2, kubeletDrillToleration, false); err != nil {
		return nil, err
	}
	defer e.undeploy(ctx, app)
	victim, other, err := e.workerWith(ctx, app)
	if err != nil {
		return nil, err
	}
	res := &KubeletResult{Node: victim}
	e.mark()
	e.Say("stop the kubelet of %s", victim)
	e.Show(e.supervisorCommand(victim, "stop", "kubelet"), "")
	if err := e.C.Supervisor(victim).Stop(ctx, "kubelet"); err != nil {
		return nil, err
	}
	defer e.C.Supervisor(victim).Start(context.WithoutCancel(ctx), "kubelet")
	st, _ := e.unit(ctx, victim, "kubelet")
	e.Say("kubelet.service on %s: %s (%s)", victim, st.ActiveState, st.SubState)

	grace := e.C.Topology.NodeMonitorGracePeriod
	err = e.Eventually(ctx, "the Node goes Unknown and is tainted", grace+2*time.Minute, func() (string, bool) {
		ready, taints, _, err := e.nodeState(ctx, victim)
		if err != nil {
			return err.Error(), false
		}
		if ready == "Unknown" && res.UnknownAfter == 0 {
			res.UnknownAfter = e.since()
		}
		if slices.Contains(taints, "node.kubernetes.io/unreachable:NoExecute") && res.TaintedAfter == 0 {
			res.TaintedAfter = e.since()
		}
		return fmt.Sprintf("node %s: Ready=%s, taints [%s]", victim, ready, strings.Join(taints, " ")), res.UnknownAfter > 0 && res.TaintedAfter > 0
	})
	if err == nil {
		err = e.Eventually(ctx, "the pods are evicted and replaced on "+other, 3*time.Minute, func() (string, bool) {
			byNode, terminating, err := e.pods(ctx, app)
			if err != nil {
				return err.Error(), false
			}
			if terminating > 0 && res.EvictedAfter == 0 {
				res.EvictedAfter = e.since()
			}
			done := res.EvictedAfter > 0 && len(byNode[other]) == 2
			if done {
				res.ReplacedAfter, res.ReplacedOn = e.since(), other
			}
			return formatPods(byNode, terminating), done
		})
	}
	out, _ := e.KubectlRun(ctx, "get", "pods", "-l", "app="+app, "-o", "wide")
	e.Show("kubectl get pods -l app="+app+" -o wide", out)

	e.Say("start the kubelet of %s again", victim)
	if serr := e.C.Supervisor(victim).Start(ctx, "kubelet"); serr != nil {
		return res, errors.Join(err, serr)
	}
	err = errors.Join(err, e.Eventually(ctx, "the Node is Ready again, untainted", 3*time.Minute, func() (string, bool) {
		ready, taints, _, err := e.nodeState(ctx, victim)
		if err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("node %s: Ready=%s, taints [%s]", victim, ready, strings.Join(taints, " ")), ready == "True" && len(taints) == 0
	}))
	e.Say("result: %s Unknown after %s, tainted after %s, pods evicted after %s, all replicas on %s after %s",
		victim, res.UnknownAfter.Round(time.Second), res.TaintedAfter.Round(time.Second), res.EvictedAfter.Round(time.Second),
		res.ReplacedOn, res.ReplacedAfter.Round(time.Second))
	return res, err
}

// PowerOffResult is what the power-off drill measured.
type PowerOffResult struct {
	Node          string
	DeletedAfter  time.Duration // from the power-off to the Node gone
	ReplacedAfter time.Duration
	BackAfter     time.Duration // from the power-on to the Node Ready
}

// PowerOffWorker pulls a worker's power cord: everything on it dies at
// once and its machine is gone from the cloud. The Node goes Unknown
// after the grace period, the drill's pods are evicted at once (they
// tolerate an unreachable node 0 s) and replaced on the other worker, and
// the cloud controller manager's cloud-node-lifecycle-controller, asking
// the cloud about a Node that is not Ready, learns that its machine does
// not exist and deletes the Node. Powered on again, the machine boots,
// its kubelet registers the Node anew.
func PowerOffWorker(ctx context.Context, e *Env) (*PowerOffResult, error) {
	if len(e.machines(provision.Worker)) < 2 {
		return nil, errors.New("the power-off drill needs two workers (WORKERS=2)")
	}
	if e.C.Topology.Cloud == nil {
		return nil, errors.New("the power-off drill needs the cloud-controller-manager")
	}
	const app = "drill-poweroff"
	if err := e.deploy(ctx, app, 2, poweroffDrillToleration, false); err != nil {
		return nil, err
	}
	defer e.undeploy(ctx, app)
	victim, other, err := e.workerWith(ctx, app)
	if err != nil {
		return nil, err
	}
	res := &PowerOffResult{Node: victim}
	e.mark()
	e.Say("power %s off: every process in it killed, its network namespace removed", victim)
	e.Show(fmt.Sprintf("ch08-full-cluster poweroff%s %s", e.dataDirFlag(), victim), "")
	if err := cluster8.Hypervisor(ctx, e.C.DataDir, victim, "poweroff"); err != nil {
		return nil, err
	}
	powerOn := func() error { return cluster8.Hypervisor(context.WithoutCancel(ctx), e.C.DataDir, victim, "poweron") }
	err = e.Eventually(ctx, "the cloud's node controller deletes the Node", e.C.Topology.NodeMonitorGracePeriod+3*time.Minute, func() (string, bool) {
		ready, taints, exists, err := e.nodeState(ctx, victim)
		if err != nil {
			return err.Error(), false
		}
		byNode, terminating, _ := e.pods(ctx, app)
		if len(byNode[other]) == 2 && res.ReplacedAfter == 0 {
			res.ReplacedAfter = e.since()
		}
		if !exists {
			res.DeletedAfter = e.since()
			return fmt.Sprintf("node %s is gone; %s", victim, formatPods(byNode, terminating)), res.ReplacedAfter > 0
		}
		return fmt.Sprintf("node %s: Ready=%s, taints [%s]; %s", victim, ready, strings.Join(taints, " "), formatPods(byNode, terminating)), false
	})
	out, _ := e.KubectlRun(ctx, "get", "events", "--field-selector", "reason=DeletingNode")
	e.Show("kubectl get events --field-selector reason=DeletingNode", out)
	out, _ = e.KubectlRun(ctx, "get", "nodes")
	e.Show("kubectl get nodes", out)

	e.mark()
	e.Say("power %s on again", victim)
	e.Show(fmt.Sprintf("ch08-full-cluster poweron%s %s", e.dataDirFlag(), victim), "")
	if perr := powerOn(); perr != nil {
		return res, errors.Join(err, perr)
	}
	err = errors.Join(err, e.Eventually(ctx, "the Node registers again and is Ready", 5*time.Minute, func() (string, bool) {
		ready, _, exists, err := e.nodeState(ctx, victim)
		if err != nil {
			return err.Error(), false
		}
		if !exists {
			return "node " + victim + " not registered yet", false
		}
		res.BackAfter = e.since()
		return fmt.Sprintf("node %s: Ready=%s", victim, ready), ready == "True"
	}))
	e.Say("result: node %s deleted %s after the power-off, replicas on %s after %s; Ready %s after the power-on",
		victim, res.DeletedAfter.Round(time.Second), other, res.ReplacedAfter.Round(time.Second), res.BackAfter.Round(time.Second))
	return res, err
}
