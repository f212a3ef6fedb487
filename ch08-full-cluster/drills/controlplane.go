package drills

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/provision"
)

// APIServersDownResult is what the drill saw.
type APIServersDownResult struct {
	KubectlError string // kubectl's answer while no apiserver runs
	Served       int    // requests to the Service's ClusterIP answered meanwhile
	Tried        int
	Answers      []string // what the pods answered
	Reconciled   bool     // a scale after the restart took effect
}

// StopAllAPIServers stops every apiserver. Nothing can be changed, read
// or watched any more: kubectl fails. The workers do not notice: their
// pods keep running, and kube-proxy's rules keep sending a Service's
// ClusterIP to them. (The schedulers and controller managers lose their
// Leases and exit; their supervisors keep restarting them.) Back, the
// apiservers serve the same state, the components reconnect, and the
// cluster acts on what changed: a Deployment scaled after the restart
// gets its new pod.
func StopAllAPIServers(ctx context.Context, e *Env) (*APIServersDownResult, error) {
	res := &APIServersDownResult{}
	const app = "drill-web"
	e.Say("a Deployment %s of 2 replicas behind a Service", app)
	if err := e.deploy(ctx, app, 2, -1, true); err != nil {
		return nil, err
	}
	defer e.undeploy(ctx, app)
	svc, err := rest.Get[corev1.Service](ctx, e.Admin, "default", app)
	if err != nil {
		return nil, err
	}
	url := "http://" + svc.Spec.ClusterIP + "/"
	worker := e.machines(provision.Worker)[0].Name
	var out string
	if err := e.Eventually(ctx, "the Service answers from "+worker, 2*time.Minute, func() (string, bool) {
		var err error
		out, err = e.curlFrom(ctx, worker, url)
		if err != nil {
			return "kube-proxy has not programmed the Service yet: " + out, false
		}
		return "", true
	}); err != nil {
		return nil, err
	}
	e.Show(e.shellCommand(worker, "curl", url), out)

	cps := e.machines(provision.ControlPlane)
	e.mark()
	e.Say("stop kube-apiserver on every control-plane machine")
	if err := parallel(cps, func(m provision.Machine) error { return e.C.Supervisor(m.Name).Stop(ctx, "kube-apiserver") }); err != nil {
		return nil, err
	}
	defer parallel(cps, func(m provision.Machine) error {
		return e.C.Supervisor(m.Name).Start(context.WithoutCancel(ctx), "kube-apiserver")
	})
	for _, m := range cps {
		e.Show(e.supervisorCommand(m.Name, "stop", "kube-apiserver"), "")
	}
	out, err = e.KubectlRun(ctx, "get", "nodes", "--request-timeout=10s")
	if err == nil {
		return res, fmt.Errorf("kubectl works without an apiserver: %s", out)
	}
	res.KubectlError = out
	e.Show("kubectl get nodes", out)
	e.Say("the pods keep serving through their ClusterIP, from %s:", worker)
	for i := 0; i < 10; i++ {
		res.Tried++
		out, err := e.curlFrom(ctx, worker, url)
		if err == nil && strings.HasPrefix(out, "Hello from") {
			res.Served++
			res.Answers = append(res.Answers, out)
		}
		if i < 3 || err != nil {
			e.Show("curl "+url, out)
		}
		time.Sleep(time.Second)
	}
	e.Say("%d of %d requests to %s answered with no apiserver running", res.Served, res.Tried, url)

	e.Say("start the apiservers again")
	if err := parallel(cps, func(m provision.Machine) error { return e.C.Supervisor(m.Name).Start(ctx, "kube-apiserver") }); err != nil {
		return res, err
	}
	err = e.Eventually(ctx, "kubectl works again", 3*time.Minute, func() (string, bool) {
		out, err := e.KubectlRun(ctx, "get", "nodes", "--request-timeout=10s")
		if err != nil {
			return "kubectl: " + firstLine(out), false
		}
		return "kubectl get nodes works again", true
	})
	if err == nil {
		out, err := e.KubectlRun(ctx, "scale", "deployment", app, "--replicas=3")
		e.Show("kubectl scale deployment "+app+" --replicas=3", out)
		if err != nil {
			return res, fmt.Errorf("kubectl scale: %v: %s", err, out)
		}
		err = e.Eventually(ctx, "the scale takes effect", 3*time.Minute, func() (string, bool) { return e.available(ctx, app, 3) })
		res.Reconciled = err == nil
	}
	if werr := e.C.WaitNodesReady(ctx, len(e.machines(provision.Worker)), 3*time.Minute); werr != nil {
		err = errors.Join(err, werr)
	}
	e.Say("result: kubectl failed (%s); %d/%d requests to the Service served meanwhile; reconciled after the restart: %v",
		firstLine(res.KubectlError), res.Served, res.Tried, res.Reconciled)
	return res, err
}

// parallel runs f for every machine at once.
func parallel(ms []provision.Machine, f func(provision.Machine) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(ms))
	for i, m := range ms {
		wg.Go(func() { errs[i] = f(m) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
