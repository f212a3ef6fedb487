package drills

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/images"
	"kubik/ch08-full-cluster/provision"
)

// deploy creates a Deployment of the demo web app, app=name, with
// replicas and, if toleration >= 0, tolerating unreachable and not-ready
// nodes only that many seconds (the default is 300: DefaultTolerationSeconds);
// with a Service name:80 when service is set. It waits until every
// replica is available.
func (e *Env) deploy(ctx context.Context, name string, replicas, toleration int, service bool) error {
	tolerations := ""
	if toleration >= 0 {
		tolerations = fmt.Sprintf(`
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: %d}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: %d}`, toleration, toleration)
	}
	manifest := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels: {app: %[1]s}
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      terminationGracePeriodSeconds: 2%[3]s
      containers:
      - name: web
        image: %[4]s
        ports: [{containerPort: 8080}]
`, name, replicas, tolerations, images.Demo)
	if service {
		manifest += fmt.Sprintf(`---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: 8080}]
`, name)
	}
	if out, err := e.kubectlIn(ctx, manifest, "create", "-f", "-"); err != nil {
		return fmt.Errorf("kubectl create: %v: %s", err, out)
	}
	return e.Eventually(ctx, name+" available", 3*time.Minute, func() (string, bool) {
		return e.available(ctx, name, replicas)
	})
}

// available reports the Deployment's available replicas.
func (e *Env) available(ctx context.Context, name string, want int) (string, bool) {
	d, err := rest.Get[appsv1.Deployment](ctx, e.Admin, "default", name)
	if err != nil {
		return err.Error(), false
	}
	return fmt.Sprintf("deployment %s: %d/%d available", name, d.Status.AvailableReplicas, want),
		int(d.Status.AvailableReplicas) == want && d.Status.ObservedGeneration >= d.Generation
}

// undeploy deletes what deploy made.
func (e *Env) undeploy(ctx context.Context, name string) {
	ctx = context.WithoutCancel(ctx)
	e.KubectlRun(ctx, "delete", "deployment,service", name, "--ignore-not-found", "--wait=false")
}

// pods are the pods of app=name: running ones (no deletionTimestamp) by
// node, and the number of terminating ones.
func (e *Env) pods(ctx context.Context, name string) (byNode map[string][]string, terminating int, err error) {
	list, err := rest.List[corev1.Pod](ctx, e.Admin, "default", rest.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		return nil, 0, err
	}
	byNode = map[string][]string{}
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil {
			terminating++
			continue
		}
		if p.Status.Phase == corev1.PodRunning && ready(&p) {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Name)
		}
	}
	return byNode, terminating, nil
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func formatPods(byNode map[string][]string, terminating int) string {
	var nodes []string
	for n, ps := range byNode {
		nodes = append(nodes, fmt.Sprintf("%s: %d", n, len(ps)))
	}
	slices.Sort(nodes)
	s := "running pods by node: " + strings.Join(nodes, ", ")
	if terminating > 0 {
		s += fmt.Sprintf("; %d terminating", terminating)
	}
	return s
}

// nodeState is a Node's Ready condition and NoExecute taints, as
// `kubectl get node` and `kubectl describe node` show them.
func (e *Env) nodeState(ctx context.Context, name string) (ready string, taints []string, exists bool, err error) {
	n, err := rest.Get[corev1.Node](ctx, e.Admin, "", name)
	if rest.IsNotFound(err) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	ready = "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = string(c.Status)
		}
	}
	for _, t := range n.Spec.Taints {
		taints = append(taints, t.Key+":"+string(t.Effect))
	}
	return ready, taints, true, nil
}

// workerWith is a worker running a pod of app=name, and another worker.
func (e *Env) workerWith(ctx context.Context, name string) (victim, other string, err error) {
	byNode, _, err := e.pods(ctx, name)
	if err != nil {
		return "", "", err
	}
	for _, m := range e.machines(provision.Worker) {
		if len(byNode[m.Name]) > 0 && victim == "" {
			victim = m.Name
		} else if other == "" {
			other = m.Name
		}
	}
	if victim == "" || other == "" {
		return "", "", fmt.Errorf("need a worker with a pod of %s and another: %v", name, byNode)
	}
	return victim, other, nil
}
