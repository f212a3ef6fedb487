package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"kubik/ch05-kubelet/images"
	"kubik/ch08-full-cluster/drills"
	"kubik/ch08-full-cluster/provision"
)

// The scenario's steps, the matrix's columns: what a cell's cluster must
// do as a cluster of Kubernetes' own does.
var steps = []step{
	{"nodes", "both Nodes Ready", nil}, // up's: filled in by runCell
	{"deploy", "a Deployment of 2 rolls out, then rolls a new template out", deployStep},
	{"job", "a Job completes", jobStep},
	{"pods", "a pod runs on each worker (a Deployment spread over them)", podsStep},
	{"daemonset", "a DaemonSet's pod runs on each worker", daemonSetStep},
	{"logs", "kubectl logs of each worker's pod (the apiserver asks its kubelet)", logsStep},
	{"exec", "kubectl exec in each worker's pod (the apiserver relays the stream to its kubelet)", execStep},
	{"service", "a ClusterIP Service answers from each worker (its kube-proxy)", serviceStep},
	{"rules", "the workers' kube-proxies write the same Service rules (iptables-save)", rulesStep},
	{"unknown", "a silenced kubelet's Node goes Unknown, its pods are evicted and replaced", unknownStep},
}

type step struct {
	Name, Summary string
	Run           func(ctx context.Context, e *drills.Env) (string, error)
}

// workers are the cluster's workers' names.
func workers(e *drills.Env) []string {
	var out []string
	for _, m := range e.C.Topology.ByRole(provision.Worker) {
		out = append(out, m.Name)
	}
	return out
}

// kubectl runs kubectl, its output the error's text on failure.
func kubectl(ctx context.Context, e *drills.Env, args ...string) (string, error) {
	out, err := e.KubectlRun(ctx, args...)
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// apply creates a manifest with kubectl.
func apply(ctx context.Context, e *drills.Env, manifest string) error {
	cmd := exec.CommandContext(ctx, e.Kubectl, "--kubeconfig", e.C.AdminKubeconfig, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	cmd.Env = []string{"HOME=" + e.C.DataDir, "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl apply: %v: %s", err, out)
	}
	return nil
}

const web = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 2
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
      containers:
      - {name: web, image: ` + images.Demo + `, ports: [{containerPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`

func deployStep(ctx context.Context, e *drills.Env) (string, error) {
	if err := apply(ctx, e, web); err != nil {
		return "", err
	}
	if _, err := kubectl(ctx, e, "rollout", "status", "deployment/web", "--timeout=4m"); err != nil {
		return "", err
	}
	if _, err := kubectl(ctx, e, "set", "env", "deployment/web", "ROLLOUT=2"); err != nil {
		return "", err
	}
	if _, err := kubectl(ctx, e, "rollout", "status", "deployment/web", "--timeout=4m"); err != nil {
		return "", err
	}
	out, err := kubectl(ctx, e, "get", "replicasets", "-l", "app=web", "--no-headers")
	return fmt.Sprintf("%d ReplicaSets, rolled out twice", len(strings.Split(out, "\n"))), err
}

const job = `apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: once, image: ` + images.Busybox + `, imagePullPolicy: IfNotPresent, command: [sh, -c, "echo the job ran"]}
`

func jobStep(ctx context.Context, e *drills.Env) (string, error) {
	if err := apply(ctx, e, job); err != nil {
		return "", err
	}
	if _, err := kubectl(ctx, e, "wait", "--for=condition=Complete", "job/once", "--timeout=4m"); err != nil {
		return "", err
	}
	out, err := kubectl(ctx, e, "logs", "job/once")
	if err == nil && !strings.Contains(out, "the job ran") {
		err = fmt.Errorf("the Job's log: %q", out)
	}
	return "Complete", err
}

const probe = `apiVersion: apps/v1
kind: Deployment
metadata: {name: probe}
spec:
  replicas: 2
  selector: {matchLabels: {app: probe}}
  template:
    metadata: {labels: {app: probe}}
    spec:
      terminationGracePeriodSeconds: 1
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: probe}}}
      containers:
      - {name: probe, image: ` + images.Busybox + `, imagePullPolicy: IfNotPresent, command: [sh, -c, "echo hello from $(hostname); exec sleep 3600"]}
`

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: every-node}
spec:
  selector: {matchLabels: {app: every-node}}
  template:
    metadata: {labels: {app: every-node}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: sleep, image: ` + images.Busybox + `, imagePullPolicy: IfNotPresent, command: [sleep, "3600"]}
`

func daemonSetStep(ctx context.Context, e *drills.Env) (string, error) {
	if err := apply(ctx, e, daemonSet); err != nil {
		return "", err
	}
	var state string
	err := e.Eventually(ctx, "the DaemonSet's pods ready on each worker", 2*time.Minute, func() (string, bool) {
		out, err := kubectl(ctx, e, "get", "daemonset", "every-node", "-o", "jsonpath={.status.desiredNumberScheduled} {.status.numberReady}")
		if err != nil {
			return err.Error(), false
		}
		state = "desired/ready " + out
		return state, out == fmt.Sprintf("%d %d", len(workers(e)), len(workers(e)))
	})
	if err == nil {
		_, err = kubectl(ctx, e, "delete", "daemonset", "every-node", "--wait=false")
	}
	return state, err
}

// probePods are the DaemonSet's running pods by node.
func probePods(ctx context.Context, e *drills.Env) (map[string]string, error) {
	out, err := kubectl(ctx, e, "get", "pods", "-l", "app=probe", "-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	byNode := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "Running" {
			byNode[f[1]] = f[0]
		}
	}
	return byNode, nil
}

func podsStep(ctx context.Context, e *drills.Env) (string, error) {
	if err := apply(ctx, e, probe); err != nil {
		return "", err
	}
	var byNode map[string]string
	err := e.Eventually(ctx, "a probe pod running on each worker", 4*time.Minute, func() (string, bool) {
		var err error
		if byNode, err = probePods(ctx, e); err != nil {
			return err.Error(), false
		}
		return fmt.Sprint(byNode), len(byNode) == len(workers(e))
	})
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	return "running on " + strings.Join(nodes, ","), err
}

func logsStep(ctx context.Context, e *drills.Env) (string, error) {
	return onEachProbe(ctx, e, "logs", func(pod string) error {
		out, err := kubectl(ctx, e, "logs", pod)
		if err == nil && !strings.Contains(out, "hello from") {
			err = fmt.Errorf("the log: %q", out)
		}
		return err
	})
}

func execStep(ctx context.Context, e *drills.Env) (string, error) {
	return onEachProbe(ctx, e, "exec", func(pod string) error {
		out, err := kubectl(ctx, e, "exec", pod, "--", "echo", "exec-ok")
		if err == nil && strings.TrimSpace(out) != "exec-ok" {
			err = fmt.Errorf("the output: %q", out)
		}
		return err
	})
}

// onEachProbe runs check on each worker's probe pod.
func onEachProbe(ctx context.Context, e *drills.Env, what string, check func(pod string) error) (string, error) {
	byNode, err := probePods(ctx, e)
	if err != nil {
		return "", err
	}
	var ok []string
	var errs []error
	for _, node := range workers(e) {
		pod, found := byNode[node]
		if !found {
			errs = append(errs, fmt.Errorf("%s: no running probe pod", node))
			continue
		}
		if err := check(pod); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", node, err))
			continue
		}
		ok = append(ok, node)
	}
	return what + " on " + strings.Join(ok, ","), errors.Join(errs...)
}

func serviceStep(ctx context.Context, e *drills.Env) (string, error) {
	ip, err := kubectl(ctx, e, "get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
	if err != nil {
		return "", err
	}
	var ok []string
	var errs []error
	for _, node := range workers(e) {
		err := e.Eventually(ctx, "http://"+ip+" from "+node, 2*time.Minute, func() (string, bool) {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			out, err := exec.CommandContext(cctx, "nsenter", "--net="+e.C.NetNS(node), "--", "curl", "-sS", "-m", "5", "-o", "/dev/null",
				"-w", "%{http_code}", "http://"+ip+"/").CombinedOutput()
			return strings.TrimSpace(string(out)), err == nil && strings.TrimSpace(string(out)) == "200"
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", node, err))
			continue
		}
		ok = append(ok, node)
	}
	return "http://" + ip + " answers from " + strings.Join(ok, ","), errors.Join(errs...)
}

func unknownStep(ctx context.Context, e *drills.Env) (string, error) {
	res, err := drills.StopKubelet(ctx, e)
	if res == nil {
		return "", err
	}
	return fmt.Sprintf("%s Unknown after %s, evicted after %s, replaced on %s", res.Node, res.UnknownAfter.Round(time.Second),
		res.EvictedAfter.Round(time.Second), res.ReplacedOn), err
}

// natRules are a worker's kube-proxy rules of the Services (the nat
// table's KUBE-SVC-* and KUBE-SEP-* chains), as iptables-save prints them
// without counters.
func natRules(ctx context.Context, e *drills.Env, node string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "nsenter", "--net="+e.C.NetNS(node), "--", "iptables-save", "-t", "nat").Output()
	if err != nil {
		return nil, fmt.Errorf("iptables-save on %s: %w", node, err)
	}
	var rules []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, ":KUBE-SVC-") || strings.HasPrefix(line, ":KUBE-SEP-") {
			rules = append(rules, strings.Fields(line)[0])
		}
		if strings.HasPrefix(line, "-A KUBE-SVC-") || strings.HasPrefix(line, "-A KUBE-SEP-") {
			rules = append(rules, line)
		}
	}
	slices.Sort(rules)
	return rules, nil
}

// rulesStep compares the workers' Service rules: two kube-proxies (ours
// and upstream's in a mixed cell) write the same chains and rules.
func rulesStep(ctx context.Context, e *drills.Env) (string, error) {
	if e.C.Topology.ProxyMode != "iptables" {
		return "not iptables", nil
	}
	ws := workers(e)
	first, err := natRules(ctx, e, ws[0])
	if err != nil {
		return "", err
	}
	for _, w := range ws[1:] {
		other, err := natRules(ctx, e, w)
		if err != nil {
			return "", err
		}
		var only []string
		for _, r := range first {
			if !slices.Contains(other, r) {
				only = append(only, ws[0]+": "+r)
			}
		}
		for _, r := range other {
			if !slices.Contains(first, r) {
				only = append(only, w+": "+r)
			}
		}
		if len(only) > 0 {
			return "", fmt.Errorf("the Services' nat rules differ:\n%s", strings.Join(only, "\n"))
		}
	}
	return fmt.Sprintf("%d KUBE-SVC/KUBE-SEP chains and rules equal on %s", len(first), strings.Join(ws, ",")), nil
}
