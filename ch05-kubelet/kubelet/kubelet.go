// Package kubelet is chapter 5's node agent (upstream's pkg/kubelet): it
// registers its Node, renews its Lease, watches the pods bound to it (and
// only those: fieldSelector spec.nodeName=<name>, all the Node authorizer
// lets it see) and runs them through the CRI — the gRPC API of the
// container runtime (containerd here):
//
//	RunPodSandbox        the pod's pause container; the runtime calls CNI, the pod gets its IP
//	ImageStatus          is the image present? (PullImage only when it is not, or for Always)
//	CreateContainer      for each init container in order, then each container
//	StartContainer
//	ExecSync             exec probes and hooks (packages prober, lifecycle)
//	ContainerStatus ...  every second: exits, restarts with back-off, the pod's status
//	StopContainer        on deletion, with the pod's grace period (SIGTERM, then SIGKILL)
//	StopPodSandbox       tears down the network (CNI DEL)
//	RemovePodSandbox
//
// then the final DELETE of the pod with grace period 0, as upstream's
// status manager sends it.
//
// It also runs static pods, from the manifests of --pod-manifest-path,
// shown in the apiserver as mirror pods (static.go). It keeps no state on
// disk: a restarted kubelet finds its pods' sandboxes and containers in the
// runtime by their labels and carries on with them.
//
// This package is the Kubelet and its pod sync (syncPod and its helpers);
// the rooms around it are upstream's:
//
//	volumemanager       the pods' volumes under <root-dir>/pods/<uid>/volumes: emptyDir, hostPath,
//	                    configMap, secret, downwardAPI, projected (the service-account token),
//	                    persistentVolumeClaim; the containers get them as CRI Mounts
//	prober              liveness, readiness and startup probes
//	probe               one exec, HTTP, TCP or gRPC check (upstream's pkg/probe)
//	lifecycle           postStart and preStop hooks
//	server              the HTTPS API on port 10250: the apiserver's `kubectl logs`, `exec`,
//	                    `attach` and `port-forward`
//	kuberuntime/logs    reads the containers' log files back
//	expansion           $(VAR) in commands, args and env values
//	fieldpath           the pod fields of the downward API
//	util/format         how messages name a pod
//
// Simplified against upstream: a poll every second stands in for the
// PLEG's relist; pods are synced by 32 workers taking pods from one queue
// (upstream: a goroutine per pod).
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"kubik/ch01-apiserver/version"
	"kubik/ch04-controllers/record"
	workers "kubik/ch04-controllers/worker"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/nodelease"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch05-kubelet/kubelet/lifecycle"
	"kubik/ch05-kubelet/kubelet/prober"
	"kubik/ch05-kubelet/kubelet/server"
	"kubik/ch05-kubelet/kubelet/volumemanager"
)

// Version is what the Node's nodeInfo.kubeletVersion says.
const Version = version.Version

// Config is the kubelet's, with upstream's flag names in the comments.
type Config struct {
	NodeName        string // --hostname-override, or the machine's hostname
	NodeIP          string // --node-ip
	Kubeconfig      string // --kubeconfig: identity system:node:<NodeName>
	RuntimeEndpoint string // --container-runtime-endpoint, unix:///.../containerd.sock
	PodCIDR         string // --pod-cidr: written to the Node's spec at registration
	CgroupParent    string // the pods' cgroups go below it: <CgroupParent>/pod<uid>
	PodLogsDir      string // --pod-logs-dir: <dir>/<namespace>_<name>_<uid>/<container>/<attempt>.log
	RootDir         string // --root-dir: pods' volumes and termination logs under <dir>/pods/<uid> (package volumemanager)
	// NetNS is the node's network namespace (a path), where the runtime and
	// the pods' network live; the kubelet dials pods (probes) and the
	// runtime's streaming server from inside it. Empty: ours.
	NetNS  string
	Logger *slog.Logger

	PodManifestPath    string        // --pod-manifest-path: static pods (static.go); empty: none
	FileCheckFrequency time.Duration // --file-check-frequency: how often it is read again (20 s)
	ClusterDNS         []string      // --cluster-dns: the pods' nameservers under dnsPolicy ClusterFirst (dns.go)
	ClusterDomain      string        // --cluster-domain, e.g. cluster.local
	ResolvConf         string        // --resolv-conf: the node's resolver config, dnsPolicy Default's; empty: none
	Server             server.Config // the kubelet's HTTPS API: logs, exec, port-forward (package server)
}

// Kubelet is a running kubelet.
type Kubelet struct {
	cfg   Config
	log   *slog.Logger
	c     *rest.Client
	conn  *grpc.ClientConn
	rt    cri.RuntimeServiceClient
	img   cri.ImageServiceClient
	pods  *cache.Informer[corev1.Pod, *corev1.Pod]
	queue *workqueue.RateLimitingQueue[string]

	rec          *record.Recorder // the Events kubectl describe pod shows: Pulled, Created, Started, BackOff, Killing ...
	crashBackoff *Backoff         // per container: CrashLoopBackOff
	pullBackoff  *Backoff         // per image and pod: ImagePullBackOff

	// terminating are the pods being stopped in the background (a grace
	// period may last 30 s; the sync worker must not wait for it).
	terminating sync.Map // pod UID -> struct{}

	volumes *volumemanager.Manager // the pods' volumes

	mu       sync.Mutex
	waiting  map[string]map[string]waiting // pod UID -> container -> why it waits
	pullErrs map[string]string             // the last pull error per pull back-off key
	runtime  string                        // "containerd://1.6.20"

	static staticPods // the pods of --pod-manifest-path (static.go)

	statuses statusManager            // the pods' last computed statuses: what the probe workers read
	probes   *prober.Manager          // liveness, readiness and startup probes
	hooks    *lifecycle.HandlerRunner // postStart and preStop
	// killing are the containers being killed for a failed probe
	// (container ID -> struct{}): one kill each.
	killing sync.Map
}

// New connects to the apiserver and the runtime; Run starts the work.
func New(cfg Config) (*Kubelet, error) {
	if cfg.NodeName == "" || cfg.Kubeconfig == "" || cfg.RuntimeEndpoint == "" {
		return nil, errors.New("kubelet: NodeName, Kubeconfig and RuntimeEndpoint are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "kubelet", "node", cfg.NodeName)
	c, err := rest.New(cfg.Kubeconfig, "kubelet/"+Version+" (linux/amd64) kubik")
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(cfg.RuntimeEndpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("container runtime endpoint %s: %w", cfg.RuntimeEndpoint, err)
	}
	k := &Kubelet{cfg: cfg, log: log, c: c, conn: conn,
		rt: cri.NewRuntimeServiceClient(conn), img: cri.NewImageServiceClient(conn),
		queue:        workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		rec:          record.NewRecorder(c, "kubelet", log),
		crashBackoff: NewBackoff(), pullBackoff: NewBackoff(), waiting: map[string]map[string]waiting{}, pullErrs: map[string]string{}}
	k.volumes = volumemanager.New(cfg.RootDir, c, k.rec, machineAllocatable, log)
	k.probes = prober.NewManager(&k.statuses, k.runInContainer, k.dialInNodeNetNS, k.event,
		func(p *corev1.Pod) { k.queue.Add(cache.MetaNamespaceKeyFunc(p)) }, log)
	k.hooks = lifecycle.NewHandlerRunner(k.runInContainer, k.dialInNodeNetNS)
	return k, nil
}

// Run registers the node and syncs its pods until ctx ends. It leaves the
// pods running, as upstream's kubelet does; Shutdown removes them.
func (k *Kubelet) Run(ctx context.Context) error {
	v, err := k.rt.Version(ctx, &cri.VersionRequest{})
	if err != nil {
		return fmt.Errorf("container runtime at %s: %w", k.cfg.RuntimeEndpoint, err)
	}
	k.runtime = v.RuntimeName + "://" + v.RuntimeVersion
	k.log.Info("container runtime", "name", v.RuntimeName, "version", v.RuntimeVersion, "criVersion", v.RuntimeApiVersion)

	posted, err := k.registerNode(ctx)
	if err != nil {
		return err
	}
	k.pods = cache.New[corev1.Pod](k.c, cache.Options{FieldSelector: "spec.nodeName=" + k.cfg.NodeName, Logger: k.log})
	enqueue := func(p *corev1.Pod) { k.queue.Add(cache.MetaNamespaceKeyFunc(p)) }
	k.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc: enqueue, UpdateFunc: func(_, p *corev1.Pod) { enqueue(p) }, DeleteFunc: enqueue,
	})
	go k.pods.Run(ctx)
	go func() { <-ctx.Done(); k.queue.ShutDown() }()
	if !cache.WaitForCacheSync(ctx, k.pods.HasSynced) {
		return ctx.Err()
	}
	go k.rec.Run(ctx)
	served := make(chan struct{})
	api := server.NewServer(k, k.c, k.cfg.NodeName, k.dialInNodeNetNS, k.log)
	go func() { defer close(served); api.ListenAndServe(ctx, k.cfg.Server, k.cfg.NodeIP) }()
	defer func() { <-served }() // its port is free when Run returns: a restarted kubelet binds it again
	go k.heartbeat(ctx, posted)
	k.startStaticPods(ctx) // before housekeeping: their sandboxes are not orphans
	go k.housekeeping(ctx)
	// Pods start side by side (a burst of 30 one at a time took 30 × 0.2 s;
	// `make bench-pods`: p99 7 s with 1 worker, 3.2 s with 8, 2.5 s with 32);
	// the queue never hands one pod to two workers, so each pod is still
	// synced by one goroutine at a time, as with upstream's pod workers.
	workers.RunWorkers(ctx, k.queue, syncWorkers, func(ctx context.Context) bool {
		return workers.ProcessNextWorkItem(ctx, k.queue, workers.SyncErr(k.syncPod), k.log, "pod")
	})
	return nil
}

// syncWorkers is how many pods are synced at once: about upstream's
// goroutine per pod for the bursts a node sees.
const syncWorkers = 32

// heartbeat renews the Lease every 10 s and posts the Node's status when
// the runtime's readiness differs from the last one posted (posted, at
// registration) and every 5 minutes.
func (k *Kubelet) heartbeat(ctx context.Context, posted bool) {
	t := time.NewTicker(nodelease.RenewInterval)
	defer t.Stop()
	lastReady, lastPost := posted, time.Now()
	for {
		if err := nodelease.Renew(ctx, k.c, k.cfg.NodeName); err != nil && ctx.Err() == nil {
			k.log.Warn("cannot renew node lease", "err", err)
		}
		ready, _ := k.runtimeReady(ctx)
		if ready != lastReady || time.Since(lastPost) > 5*time.Minute {
			// A failed post is tried again at the next tick: only a
			// status the apiserver took counts as posted.
			if posted, err := k.updateNodeStatus(ctx); err != nil {
				if ctx.Err() == nil {
					k.log.Warn("cannot update node status", "err", err)
				}
			} else {
				lastReady, lastPost = posted, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// housekeeping stands in for the PLEG: every second each pod is synced
// again (its containers may have exited), and sandboxes of pods that no
// longer exist are removed.
func (k *Kubelet) housekeeping(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, p := range k.pods.GetStore().List() {
			k.queue.Add(cache.MetaNamespaceKeyFunc(p))
		}
		k.removeOrphans(ctx)
		k.cleanupOrphanedPodDirs(ctx, false)
	}
}

// dialInNodeNetNS connects from inside the node's network namespace
// (Config.NetNS): to the pods, for probes and hooks, and to the runtime's
// streaming server, for exec, attach and port-forward.
func (k *Kubelet) dialInNodeNetNS(ctx context.Context, network, addr string) (net.Conn, error) {
	return dialInNetNS(ctx, k.cfg.NetNS, network, addr)
}

// Close releases the runtime connection.
func (k *Kubelet) Close() error { return k.conn.Close() }
