package controllermanager

import (
	"context"
	"fmt"
	"os"

	"kubik/ch01-apiserver/pki"
	"kubik/ch04-controllers/certificates/approver"
	"kubik/ch04-controllers/certificates/cleaner"
	"kubik/ch04-controllers/certificates/rootcacertpublisher"
	"kubik/ch04-controllers/certificates/signer"
	"kubik/ch04-controllers/clusterroleaggregation"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/cronjob"
	"kubik/ch04-controllers/daemonset"
	"kubik/ch04-controllers/deployment"
	"kubik/ch04-controllers/disruption"
	"kubik/ch04-controllers/endpoint"
	"kubik/ch04-controllers/endpointslice"
	"kubik/ch04-controllers/endpointslicemirroring"
	"kubik/ch04-controllers/ephemeral"
	"kubik/ch04-controllers/garbagecollector"
	"kubik/ch04-controllers/job"
	"kubik/ch04-controllers/namespace"
	"kubik/ch04-controllers/nodelifecycle"
	"kubik/ch04-controllers/podautoscaler"
	"kubik/ch04-controllers/podgc"
	"kubik/ch04-controllers/replicaset"
	"kubik/ch04-controllers/replication"
	"kubik/ch04-controllers/resourcequota"
	"kubik/ch04-controllers/serviceaccount"
	"kubik/ch04-controllers/servicecidrs"
	"kubik/ch04-controllers/statefulset"
	"kubik/ch04-controllers/tainteviction"
	"kubik/ch04-controllers/ttl"
	"kubik/ch04-controllers/ttlafterfinished"
	"kubik/ch04-controllers/validatingadmissionpolicystatus"
	"kubik/ch04-controllers/volume/persistentvolume"
	"kubik/ch04-controllers/volume/vacprotection"
)

// GarbageCollector is the garbage collector's name in --controllers. The
// apiserver must know whether one runs (--enable-garbage-collector).
const GarbageCollector = "garbagecollector"

// Controller is a constructed controller, ready to run.
type Controller interface {
	Run(ctx context.Context, workers int)
}

// Descriptor describes one controller of the manager. Upstream:
// cmd/kube-controller-manager/app's ControllerDescriptor.
type Descriptor struct {
	// Name is upstream's controller name, as --controllers spells it;
	// Aliases are the other names it answers to there.
	Name    string
	Aliases []string
	// New builds the controller: it asks cc.Informers for its informers and
	// registers its handlers (the manager starts the informers afterwards).
	New func(cc *controller.ControllerContext, cfg *Config) (Controller, error)
	// ConcurrencyFlag is the --concurrent-*-syncs flag setting Run's
	// workers ("" for a controller with a fixed number: 1).
	ConcurrencyFlag    string
	DefaultConcurrency int
	// DisabledByDefault: only --controllers=name (not "*") runs it.
	DisabledByDefault bool
}

// Descriptors are the controllers this manager knows, in start order. A
// controller of a later chapter section is one more entry here.
func Descriptors() []Descriptor {
	return []Descriptor{
		{Name: "deployment", ConcurrencyFlag: "concurrent-deployment-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return deployment.NewDeploymentController(cc)
			}},
		{Name: "replicaset", ConcurrencyFlag: "concurrent-replicaset-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return replicaset.NewReplicaSetController(cc)
			}},
		{Name: "replicationcontroller", ConcurrencyFlag: "concurrent-rc-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return replication.NewReplicationManager(cc)
			}},
		{Name: "statefulset", ConcurrencyFlag: "concurrent-statefulset-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return statefulset.NewStatefulSetController(cc)
			}},
		{Name: "disruption",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return disruption.NewDisruptionController(cc)
			}},
		// The horizontal pod autoscaler: --horizontal-pod-autoscaler-* flags.
		{Name: "horizontalpodautoscaling", Aliases: []string{"horizontal-pod-autoscaler-controller"},
			ConcurrencyFlag: "concurrent-horizontal-pod-autoscaler-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return podautoscaler.NewHorizontalController(cc, cfg.HPA)
			}},
		// Batch, DaemonSet, endpoints and node controllers.
		{Name: "job", ConcurrencyFlag: "concurrent-job-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) { return job.NewJobController(cc) }},
		{Name: "cronjob", ConcurrencyFlag: "concurrent-cron-job-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return cronjob.NewCronJobController(cc)
			}},
		{Name: "ttl-after-finished", ConcurrencyFlag: "concurrent-ttl-after-finished-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return ttlafterfinished.NewTTLAfterFinishedController(cc)
			}},
		{Name: "daemonset", ConcurrencyFlag: "concurrent-daemonset-syncs", DefaultConcurrency: 2,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return daemonset.NewDaemonSetsController(cc)
			}},
		{Name: "endpoints", ConcurrencyFlag: "concurrent-endpoint-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return endpoint.NewEndpointController(cc)
			}},
		{Name: "endpointslice", ConcurrencyFlag: "concurrent-service-endpoint-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return endpointslice.NewEndpointSliceController(cc)
			}},
		{Name: "endpointslice-mirroring", ConcurrencyFlag: "mirroring-concurrent-service-endpoint-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return endpointslicemirroring.NewController(cc)
			}},
		{Name: "nodelifecycle",
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return nodelifecycle.NewNodeLifecycleController(cc, nodelifecycle.Options{
					NodeMonitorPeriod: cfg.NodeMonitorPeriod, NodeMonitorGracePeriod: cfg.NodeMonitorGracePeriod})
			}},
		{Name: "taint-eviction-controller",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return tainteviction.NewTaintEvictionController(cc)
			}},
		// Garbage collector, namespace, serviceaccount and
		// persistentvolume-binder controllers (upstream's workers: 20 GC
		// workers, 10 namespace workers, 1 for the other two).
		{Name: GarbageCollector, ConcurrencyFlag: "concurrent-gc-syncs", DefaultConcurrency: 20,
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return garbagecollector.NewGarbageCollector(cc, garbagecollector.Options{SyncPeriod: cfg.DiscoverySyncPeriod})
			}},
		{Name: "namespace", ConcurrencyFlag: "concurrent-namespace-syncs", DefaultConcurrency: 10,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return namespace.NewNamespaceController(cc)
			}},
		{Name: "serviceaccount",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return serviceaccount.NewServiceAccountsController(cc)
			}},
		{Name: "persistentvolume-binder",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return persistentvolume.NewController(cc)
			}},
		{Name: "resourcequota", ConcurrencyFlag: "concurrent-resource-quota-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return resourcequota.NewController(cc, resourcequota.Options{ResyncPeriod: cfg.ResourceQuotaSyncPeriod,
					DiscoverySyncPeriod: cfg.DiscoverySyncPeriod})
			}},
		{Name: "pod-garbage-collector",
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return podgc.NewPodGC(cc, podgc.Options{TerminatedPodThreshold: cfg.TerminatedPodGCThreshold})
			}},
		{Name: "ttl",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) { return ttl.NewTTLController(cc) }},
		{Name: "root-ca-certificate-publisher",
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				ca, err := rootCA(cfg)
				if err != nil {
					return nil, err
				}
				return rootcacertpublisher.NewPublisher(cc, ca)
			}},
		// CertificateSigningRequests: kubelet client requests approved,
		// approved requests signed from --cluster-signing-cert-file/-key-file.
		{Name: "certificatesigningrequest-approving-controller", Aliases: []string{"csrapproving"},
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return approver.NewCSRApprovingController(cc)
			}},
		{Name: "certificatesigningrequest-signing-controller", Aliases: []string{"csrsigning"},
			New: func(cc *controller.ControllerContext, cfg *Config) (Controller, error) {
				return signer.NewCSRSigningController(cc, cfg.ClusterSigningCertFile, cfg.ClusterSigningKeyFile, cfg.ClusterSigningDuration)
			}},
		{Name: "certificatesigningrequest-cleaner-controller", Aliases: []string{"csrcleaner"},
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return cleaner.NewCSRCleanerController(cc)
			}},
		// admin, edit and view as the union of the roles labelled
		// rbac.authorization.k8s.io/aggregate-to-*.
		{Name: "clusterrole-aggregation", Aliases: []string{"clusterrole-aggregation-controller"},
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return clusterroleaggregation.NewClusterRoleAggregation(cc)
			}},
		// The claims of pods' generic ephemeral volumes.
		{Name: "ephemeral-volume", Aliases: []string{"ephemeral-volume-controller"},
			ConcurrencyFlag: "concurrent-ephemeralvolume-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return ephemeral.NewController(cc)
			}},
		{Name: "volumeattributesclass-protection-controller",
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return vacprotection.NewVACProtectionController(cc)
			}},
		// The ServiceCIDRs' finalizer and Ready condition.
		{Name: servicecidrs.ControllerName,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return servicecidrs.NewController(cc)
			}},
		// status.typeChecking of ValidatingAdmissionPolicies.
		{Name: "validatingadmissionpolicy-status-controller",
			ConcurrencyFlag: "concurrent-validating-admission-policy-status-syncs", DefaultConcurrency: 5,
			New: func(cc *controller.ControllerContext, _ *Config) (Controller, error) {
				return validatingadmissionpolicystatus.NewController(cc)
			}},
	}
}

// rootCA is --root-ca-file, or else the CA of the manager's own kubeconfig
// (upstream: the client config's CAData).
func rootCA(cfg *Config) ([]byte, error) {
	if cfg.RootCAFile != "" {
		return os.ReadFile(cfg.RootCAFile)
	}
	k, err := pki.LoadKubeconfig(cfg.Kubeconfig)
	if err != nil {
		return nil, err
	}
	if len(k.CAData) == 0 {
		return nil, fmt.Errorf("root-ca-certificate-publisher: no --root-ca-file and no certificate authority in %s", cfg.Kubeconfig)
	}
	return k.CAData, nil
}

// KnownControllers are upstream's controller names (kube-controller-manager
// --help): --controllers accepts them even where Kubik has no
// implementation yet (they then do nothing).
var KnownControllers = []string{
	"bootstrap-signer-controller", "certificatesigningrequest-approving-controller",
	"certificatesigningrequest-cleaner-controller", "certificatesigningrequest-signing-controller",
	"clusterrole-aggregation", "clusterrole-aggregation-controller", "cronjob", "daemonset", "deployment", "disruption",
	"endpoints", "endpointslice", "endpointslice-mirroring", "ephemeral-volume", "ephemeral-volume-controller", "garbagecollector",
	"horizontal-pod-autoscaler-controller", "horizontalpodautoscaling", "job", "legacy-serviceaccount-token-cleaner", "namespace",
	"nodeipam", "nodelifecycle", "persistentvolume-attach-detach", "persistentvolume-binder",
	"persistentvolume-expander", "persistentvolume-protection", "persistentvolumeclaim-protection",
	"pod-garbage-collector", "replicaset", "replicationcontroller", "resourcequota",
	"root-ca-certificate-publisher", "service-cidr-controller", "service-lb", "serviceaccount", "serviceaccount-token",
	"statefulset", "taint-eviction-controller", "token-cleaner", "ttl", "ttl-after-finished",
	"validatingadmissionpolicy-status-controller",
}

// Has says whether this manager implements the controller name.
func Has(name string) bool {
	for _, d := range Descriptors() {
		if d.Name == name {
			return true
		}
	}
	return false
}
