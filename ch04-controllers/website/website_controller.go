// Package website is a controller of our own, written with nothing but
// chapter 4's pieces: the operator pattern. crd.yaml adds a kind to the API
// (websites.kubik.io, Kind Website); this controller turns each Website
// into the objects that serve it and reports back in its status:
//
//	Website hello ──owns──▶ ConfigMap hello   (index.html = spec.content)
//	               ├─owns──▶ Deployment hello  (spec.replicas pods of busybox httpd, the ConfigMap mounted at /www)
//	               └─owns──▶ Service hello     (ClusterIP, port 80)
//
// Every object carries a controller ownerReference to its Website, so the
// garbage collector deletes them with it, and the informers on them put the
// Website back in the queue when one changes or goes: drift is repaired.
// The status (replicas, readyReplicas, url, conditions Ready and
// Progressing, observedGeneration) is written through the status
// subresource; events go to the Website (Created, Synced).
//
// It runs as a client of its own (Run): identity website-controller with
// the ClusterRole of rbac.go, and it applies its CRD when it starts.
//
// Upstream: kubernetes/sample-controller (controller.go), the model every
// operator follows.
package website

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
)

// ControllerName is the event source and the log's controller name.
const ControllerName = "website-controller"

// Labels and annotations the controller puts on what it makes.
const (
	// NameLabel selects a Website's pods (the Deployment's and the
	// Service's selector).
	NameLabel = "kubik.io/website"
	// ContentHashAnnotation on the pod template rolls the pods when the
	// content changes.
	ContentHashAnnotation = "kubik.io/content-hash"
)

// Event reasons, as sample-controller's.
const (
	SuccessSynced         = "Synced"
	ErrResourceExists     = "ErrResourceExists"
	MessageResourceSynced = "Website synced successfully"
)

// Controller is the Website controller.
type Controller struct {
	client      *rest.Client
	websites    *cache.Informer[Website, *Website]
	configMaps  *cache.Informer[corev1.ConfigMap, *corev1.ConfigMap]
	deployments *cache.Informer[appsv1.Deployment, *appsv1.Deployment]
	services    *cache.Informer[corev1.Service, *corev1.Service]
	queue       *workqueue.RateLimitingQueue[string]
	recorder    *record.Recorder
	log         *slog.Logger
}

// NewController asks cc for the informers it needs (the Website informer is
// its own: a custom resource is not in the static scheme the shared
// informers know) and registers its handlers.
func NewController(cc *controller.ControllerContext) *Controller {
	log := cc.Log.With("controller", ControllerName)
	c := &Controller{
		client:      cc.Client,
		websites:    cache.New[Website](cc.Client, cache.Options{Resource: Resource, Logger: log}),
		configMaps:  controller.InformerFor[corev1.ConfigMap](cc.Informers),
		deployments: controller.InformerFor[appsv1.Deployment](cc.Informers),
		services:    controller.InformerFor[corev1.Service](cc.Informers),
		queue:       workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		recorder:    record.NewRecorder(cc.Client, ControllerName, log),
		log:         log,
	}
	c.websites.AddEventHandler(cache.ResourceEventHandlerFuncs[Website]{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, cur *Website) { c.enqueue(cur) },
	})
	// A change to an owned object (or its deletion) re-syncs its Website.
	c.configMaps.AddEventHandler(ownedHandler[corev1.ConfigMap](c))
	c.deployments.AddEventHandler(ownedHandler[appsv1.Deployment](c))
	c.services.AddEventHandler(ownedHandler[corev1.Service](c))
	return c
}

// Run runs the Website informer, the event recorder and workers until ctx
// ends. The shared informers are started by whoever made cc.
func (c *Controller) Run(ctx context.Context, workers int) {
	go c.websites.Run(ctx)
	go c.recorder.Run(ctx)
	c.log.Info("Starting controller", "name", "website")
	worker.RunWorkers(ctx, c.queue, workers,
		func(ctx context.Context) bool {
			return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncHandler), c.log, "website")
		},
		c.websites.HasSynced, c.configMaps.HasSynced, c.deployments.HasSynced, c.services.HasSynced)
}

func (c *Controller) enqueue(w *Website) { c.queue.Add(cache.MetaNamespaceKeyFunc(w)) }

// ownedHandler enqueues the Website that is the controller of an object.
func ownedHandler[T any, PT rest.Object[T]](c *Controller) cache.ResourceEventHandlerFuncs[T] {
	handle := func(obj *T) {
		m := PT(obj).GetObjectMeta()
		ref := metav1.GetControllerOf(m)
		if ref == nil || ref.Kind != Kind || ref.APIVersion != APIVersion {
			return
		}
		if w, ok := c.websites.GetStore().Get(m.Namespace, ref.Name); ok && w.UID == ref.UID {
			c.enqueue(w)
		}
	}
	return cache.ResourceEventHandlerFuncs[T]{AddFunc: handle, UpdateFunc: func(_, cur *T) { handle(cur) }, DeleteFunc: handle}
}

// syncHandler reconciles one Website: its ConfigMap, Deployment and
// Service, then its status.
func (c *Controller) syncHandler(ctx context.Context, key string) error {
	namespace, name := cache.SplitMetaNamespaceKey(key)
	w, ok := c.websites.GetStore().Get(namespace, name)
	if !ok || w.DeletionTimestamp != nil {
		return nil // gone or going: the garbage collector deletes what it owned
	}
	ref := record.RefFor(&w.ObjectMeta, APIVersion, Kind)
	if err := c.syncConfigMap(ctx, w, ref); err != nil {
		return err
	}
	d, err := c.syncDeployment(ctx, w, ref)
	if err != nil {
		return err
	}
	if err := c.syncService(ctx, w, ref); err != nil {
		return err
	}
	if err := c.updateStatus(ctx, w, d); err != nil {
		return err
	}
	c.recorder.Eventf(ref, corev1.EventTypeNormal, SuccessSynced, MessageResourceSynced)
	return nil
}

// ownedBy checks that an existing object is controlled by w; one that is
// not is left alone, with a warning event (sample-controller's
// ErrResourceExists).
func (c *Controller) ownedBy(w *Website, ref record.ObjectRef, kind string, m *metav1.ObjectMeta) error {
	if owner := metav1.GetControllerOf(m); owner != nil && owner.UID == w.UID {
		return nil
	}
	msg := fmt.Sprintf("Resource %q already exists and is not managed by Website", m.Name)
	c.recorder.Eventf(ref, corev1.EventTypeWarning, ErrResourceExists, "%s %s", kind, msg)
	return fmt.Errorf("%s %s", kind, msg)
}

func (c *Controller) created(ref record.ObjectRef, kind, name string) {
	c.recorder.Eventf(ref, corev1.EventTypeNormal, "Created", "Created %s %s", kind, name)
}

func ownerRefs(w *Website) []metav1.OwnerReference {
	return []metav1.OwnerReference{controller.NewControllerRef(&w.ObjectMeta, APIVersion, Kind)}
}

func labels(w *Website) map[string]string { return map[string]string{NameLabel: w.Name} }

// ---- ConfigMap: index.html ----

func (c *Controller) syncConfigMap(ctx context.Context, w *Website, ref record.ObjectRef) error {
	data := map[string]string{"index.html": w.Spec.Content}
	cm, ok := c.configMaps.GetStore().Get(w.Namespace, w.Name)
	if !ok {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace,
			Labels: labels(w), OwnerReferences: ownerRefs(w)}, Data: data}
		if _, err := rest.Create(ctx, c.client, cm); err != nil {
			return err
		}
		c.created(ref, "ConfigMap", w.Name)
		return nil
	}
	if err := c.ownedBy(w, ref, "ConfigMap", &cm.ObjectMeta); err != nil {
		return err
	}
	if maps.Equal(cm.Data, data) {
		return nil
	}
	cm = metav1.DeepCopy(cm)
	cm.Data = data
	_, err := rest.Update(ctx, c.client, cm)
	return err
}

// ---- Deployment: the web servers ----

// podTemplate is the part of the Deployment the controller owns; the
// apiserver's defaults fill in the rest.
func podTemplate(w *Website) corev1.PodTemplateSpec {
	sum := sha256.Sum256([]byte(w.Spec.Content))
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels(w),
			Annotations: map[string]string{ContentHashAnnotation: hex.EncodeToString(sum[:])[:16]}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:         "httpd",
				Image:        w.Spec.Image,
				Command:      []string{"httpd", "-f", "-p", "80", "-h", "/www"},
				Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 80}},
				VolumeMounts: []corev1.VolumeMount{{Name: "content", MountPath: "/www", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "content", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: w.Name}}}}},
		},
	}
}

func replicas(w *Website) int32 {
	if w.Spec.Replicas == nil {
		return 1
	}
	return *w.Spec.Replicas
}

func (c *Controller) syncDeployment(ctx context.Context, w *Website, ref record.ObjectRef) (*appsv1.Deployment, error) {
	n := replicas(w)
	tmpl := podTemplate(w)
	d, ok := c.deployments.GetStore().Get(w.Namespace, w.Name)
	if !ok {
		d = &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace, Labels: labels(w), OwnerReferences: ownerRefs(w)},
			Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: labels(w)},
				Template: tmpl},
		}
		created, err := rest.Create(ctx, c.client, d)
		if err != nil {
			return nil, err
		}
		c.created(ref, "Deployment", w.Name)
		return created, nil
	}
	if err := c.ownedBy(w, ref, "Deployment", &d.ObjectMeta); err != nil {
		return nil, err
	}
	// Compare only what the controller sets: the apiserver defaults the
	// rest, and a full comparison would update on every sync.
	cur := &d.Spec.Template
	if d.Spec.Replicas != nil && *d.Spec.Replicas == n && len(cur.Spec.Containers) == 1 &&
		cur.Spec.Containers[0].Image == w.Spec.Image &&
		cur.Annotations[ContentHashAnnotation] == tmpl.Annotations[ContentHashAnnotation] {
		return d, nil
	}
	d = metav1.DeepCopy(d)
	d.Spec.Replicas = &n
	d.Spec.Template = tmpl
	return rest.Update(ctx, c.client, d)
}

// ---- Service: <name>.<namespace>.svc.cluster.local:80 ----

func (c *Controller) syncService(ctx context.Context, w *Website, ref record.ObjectRef) error {
	port := corev1.ServicePort{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http")}
	s, ok := c.services.GetStore().Get(w.Namespace, w.Name)
	if !ok {
		s = &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace, Labels: labels(w), OwnerReferences: ownerRefs(w)},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: labels(w), Ports: []corev1.ServicePort{port}},
		}
		if _, err := rest.Create(ctx, c.client, s); err != nil {
			return err
		}
		c.created(ref, "Service", w.Name)
		return nil
	}
	if err := c.ownedBy(w, ref, "Service", &s.ObjectMeta); err != nil {
		return err
	}
	if maps.Equal(s.Spec.Selector, labels(w)) && len(s.Spec.Ports) == 1 && s.Spec.Ports[0].Port == port.Port &&
		s.Spec.Ports[0].TargetPort == port.TargetPort {
		return nil
	}
	s = metav1.DeepCopy(s)
	s.Spec.Selector, s.Spec.Ports = labels(w), []corev1.ServicePort{port}
	_, err := rest.Update(ctx, c.client, s)
	return err
}

// ---- status ----

// updateStatus writes what the Deployment reports, the URL and the
// conditions, through the status subresource, when they changed.
func (c *Controller) updateStatus(ctx context.Context, w *Website, d *appsv1.Deployment) error {
	want := WebsiteStatus{
		Replicas:           d.Status.Replicas,
		ReadyReplicas:      d.Status.ReadyReplicas,
		URL:                fmt.Sprintf("http://%s.%s.svc.cluster.local", w.Name, w.Namespace),
		ObservedGeneration: w.Generation,
		Conditions:         slices.Clone(w.Status.Conditions),
	}
	n := replicas(w)
	deploymentDone := d.Generation <= d.Status.ObservedGeneration && d.Status.UpdatedReplicas == n &&
		d.Status.Replicas == n
	switch {
	case n == 0:
		setCondition(&want.Conditions, w.Generation, ConditionReady, "True", ReasonScaledToZero, "Website is scaled to zero replicas")
	case deploymentDone && d.Status.ReadyReplicas >= n:
		setCondition(&want.Conditions, w.Generation, ConditionReady, "True", ReasonAvailable, fmt.Sprintf("%d/%d replicas are ready", d.Status.ReadyReplicas, n))
	default:
		setCondition(&want.Conditions, w.Generation, ConditionReady, "False", ReasonUnavailable, fmt.Sprintf("%d/%d replicas are ready", d.Status.ReadyReplicas, n))
	}
	if deploymentDone {
		setCondition(&want.Conditions, w.Generation, ConditionProgressing, "False", ReasonRolloutDone, "Deployment has rolled out")
	} else {
		setCondition(&want.Conditions, w.Generation, ConditionProgressing, "True", ReasonRollingOut, "Deployment is rolling out")
	}
	if statusEqual(w.Status, want) {
		return nil
	}
	nw := metav1.DeepCopy(w)
	nw.Status = want
	// PUT .../websites/<name>/status: the typed helpers find a path by Go
	// type in the static scheme, a custom resource names its own.
	body, err := json.Marshal(nw)
	if err != nil {
		return err
	}
	return c.client.Do(ctx, rest.Request{Method: http.MethodPut,
		Path: rest.ResourcePath(Resource, w.Namespace, w.Name, "status"), Body: body}, nil)
}

// setCondition sets a condition, keeping its lastTransitionTime when the
// status did not change (upstream: meta.SetStatusCondition).
func setCondition(conds *[]metav1.Condition, generation int64, typ, status, reason, message string) {
	c := metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message,
		ObservedGeneration: generation, LastTransitionTime: metav1.Now()}
	for i := range *conds {
		if (*conds)[i].Type != typ {
			continue
		}
		if (*conds)[i].Status == status {
			c.LastTransitionTime = (*conds)[i].LastTransitionTime
		}
		(*conds)[i] = c
		return
	}
	*conds = append(*conds, c)
}

func statusEqual(a, b WebsiteStatus) bool {
	return a.Replicas == b.Replicas && a.ReadyReplicas == b.ReadyReplicas && a.URL == b.URL &&
		a.ObservedGeneration == b.ObservedGeneration && slices.EqualFunc(a.Conditions, b.Conditions,
		func(x, y metav1.Condition) bool {
			return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
				x.ObservedGeneration == y.ObservedGeneration && x.LastTransitionTime.Equal(y.LastTransitionTime.Time)
		})
}
