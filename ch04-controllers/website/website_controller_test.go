package website

// The reconcile against a real in-process apiserver (controllertest): the
// CRD is applied by the controller's own identity, a Website is written,
// syncHandler is called, and the objects, status and writes it made are
// read back. No Deployment controller runs: a test sets the Deployment's
// status itself, as if one did.

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

type fixture struct {
	*controllertest.Env
	t *testing.T
	c *Controller
}

// newFixture grants the controller's ClusterRole, applies the CRD with the
// controller's identity and starts its informers (not its workers).
func newFixture(t *testing.T) *fixture { return startFixture(t, false) }

// startFixture is newFixture; with run, the controller's own Run starts the
// Website informer, the recorder and one worker.
func startFixture(t *testing.T, run bool) *fixture {
	env := controllertest.New(t)
	if err := EnsureRBAC(env.Ctx, env.Admin); err != nil {
		t.Fatal(err)
	}
	client, rec := env.RecordingClient(t, Identity)
	env.Actions = rec // ExpectWrites checks the Website controller's client
	log := slog.New(slog.DiscardHandler)
	if err := EnsureCRD(env.Ctx, client, log); err != nil {
		t.Fatal(err)
	}
	cc := &controller.ControllerContext{Client: client, Informers: controller.NewSharedInformers(client, log), Log: log}
	c := NewController(cc)
	if run {
		go c.Run(env.Ctx, 1)
	} else {
		go c.websites.Run(env.Ctx)
		go c.recorder.Run(env.Ctx)
	}
	cc.Informers.Start(env.Ctx)
	controllertest.Eventually(t, "informers synced", func() bool {
		return c.websites.HasSynced() && c.configMaps.HasSynced() && c.deployments.HasSynced() && c.services.HasSynced()
	})
	return &fixture{Env: env, t: t, c: c}
}

func (f *fixture) createWebsite(name string, replicas int32, content string) *Website {
	f.t.Helper()
	w := &Website{TypeMeta: metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       WebsiteSpec{Replicas: &replicas, Content: content}}
	body, _ := json.Marshal(w)
	out := &Website{}
	if err := f.Admin.Do(f.Ctx, rest.Request{Method: http.MethodPost, Path: rest.ResourcePath(Resource, "default", "", ""), Body: body}, out); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) getWebsite(name string) *Website {
	f.t.Helper()
	out := &Website{}
	if err := f.Admin.Do(f.Ctx, rest.Request{Method: http.MethodGet, Path: rest.ResourcePath(Resource, "default", name, "")}, out); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// sync waits until the Website informer holds the apiserver's Website and
// the others hold what is there, then calls syncHandler.
func (f *fixture) sync(name string) error {
	f.t.Helper()
	w := f.getWebsite(name)
	controllertest.Eventually(f.t, "caches caught up", func() bool {
		cw, ok := f.c.websites.GetStore().Get("default", name)
		return ok && cw.ResourceVersion == w.ResourceVersion && f.cached(name)
	})
	f.ClearActions()
	return f.c.syncHandler(f.Ctx, "default/"+name)
}

// cached: each of the three objects is in its cache iff it is in the API,
// at the same resourceVersion.
func (f *fixture) cached(name string) bool {
	same := func(apiRV string, apiErr error, cachedRV string, ok bool) bool {
		if rest.IsNotFound(apiErr) {
			return !ok
		}
		return apiErr == nil && ok && apiRV == cachedRV
	}
	cm, err := rest.Get[corev1.ConfigMap](f.Ctx, f.Admin, "default", name)
	ccm, ok := f.c.configMaps.GetStore().Get("default", name)
	if !same(rv(cm), err, rv(ccm), ok) {
		return false
	}
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", name)
	cd, ok := f.c.deployments.GetStore().Get("default", name)
	if !same(rv(d), err, rv(cd), ok) {
		return false
	}
	s, err := rest.Get[corev1.Service](f.Ctx, f.Admin, "default", name)
	cs, ok := f.c.services.GetStore().Get("default", name)
	return same(rv(s), err, rv(cs), ok)
}

func rv[T any, PT rest.Object[T]](o PT) string {
	if o == nil {
		return ""
	}
	return o.GetObjectMeta().ResourceVersion
}

func isControlledBy(t *testing.T, m *metav1.ObjectMeta, w *Website) {
	t.Helper()
	ref := metav1.GetControllerOf(m)
	if ref == nil || ref.UID != w.UID || ref.Kind != Kind || ref.APIVersion != APIVersion || ref.Name != w.Name {
		t.Errorf("%s: controller reference %+v, want Website %s (%s)", m.Name, ref, w.Name, w.UID)
	}
}

func TestCRDIsServed(t *testing.T) {
	f := newFixture(t)
	w := f.createWebsite("defaults", 1, "")
	if w.Spec.Image != "busybox:1.35" || w.Generation != 1 {
		t.Errorf("created Website: image %q generation %d, want the schema's default busybox:1.35 and 1", w.Spec.Image, w.Generation)
	}
}

func TestSyncCreatesOwnedObjects(t *testing.T) {
	f := newFixture(t)
	w := f.createWebsite("hello", 2, "<h1>hi</h1>\n")
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t, "create configmaps default/hello", "create deployments default/hello", "create services default/hello",
		"update websites/status default/hello")

	cm, err := rest.Get[corev1.ConfigMap](f.Ctx, f.Admin, "default", "hello")
	if err != nil {
		t.Fatal(err)
	}
	isControlledBy(t, &cm.ObjectMeta, w)
	if cm.Data["index.html"] != "<h1>hi</h1>\n" {
		t.Errorf("index.html = %q", cm.Data["index.html"])
	}
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello")
	if err != nil {
		t.Fatal(err)
	}
	isControlledBy(t, &d.ObjectMeta, w)
	if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "busybox:1.35" ||
		d.Spec.Template.Spec.Volumes[0].ConfigMap.Name != "hello" {
		t.Errorf("deployment spec: replicas %d, image %q, volumes %+v", *d.Spec.Replicas,
			d.Spec.Template.Spec.Containers[0].Image, d.Spec.Template.Spec.Volumes)
	}
	s, err := rest.Get[corev1.Service](f.Ctx, f.Admin, "default", "hello")
	if err != nil {
		t.Fatal(err)
	}
	isControlledBy(t, &s.ObjectMeta, w)
	if s.Spec.Type != corev1.ServiceTypeClusterIP || s.Spec.Ports[0].Port != 80 || s.Spec.Selector[NameLabel] != "hello" {
		t.Errorf("service spec: %+v", s.Spec)
	}

	got := f.getWebsite("hello")
	if got.Status.URL != "http://hello.default.svc.cluster.local" || got.Status.ObservedGeneration != 1 {
		t.Errorf("status: %+v", got.Status)
	}
	expectCondition(t, got, ConditionReady, "False", ReasonUnavailable)
	expectCondition(t, got, ConditionProgressing, "True", ReasonRollingOut)

	// In step: a second sync writes nothing.
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t)
}

func expectCondition(t *testing.T, w *Website, typ, status, reason string) {
	t.Helper()
	for _, c := range w.Status.Conditions {
		if c.Type == typ {
			if c.Status != status || c.Reason != reason {
				t.Errorf("condition %s: %s/%s, want %s/%s", typ, c.Status, c.Reason, status, reason)
			}
			return
		}
	}
	t.Errorf("no condition %s in %+v", typ, w.Status.Conditions)
}

// The Deployment reports its pods ready: the Website's status follows.
func TestSyncStatusFromDeployment(t *testing.T) {
	f := newFixture(t)
	f.createWebsite("hello", 2, "x")
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello")
	if err != nil {
		t.Fatal(err)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	if _, err := rest.UpdateStatus(f.Ctx, f.Admin, d); err != nil {
		t.Fatal(err)
	}
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t, "update websites/status default/hello")
	got := f.getWebsite("hello")
	if got.Status.ReadyReplicas != 2 || got.Status.Replicas != 2 {
		t.Errorf("status: %+v", got.Status)
	}
	expectCondition(t, got, ConditionReady, "True", ReasonAvailable)
	expectCondition(t, got, ConditionProgressing, "False", ReasonRolloutDone)
}

// A changed spec reaches the owned objects; a deleted Service comes back.
func TestSyncRepairsDrift(t *testing.T) {
	f := newFixture(t)
	w := f.createWebsite("hello", 1, "v1")
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	w = f.getWebsite("hello")
	w.Spec.Content, w.Spec.Replicas = "v2", new(int32(3))
	body, _ := json.Marshal(w)
	if err := f.Admin.Do(f.Ctx, rest.Request{Method: http.MethodPut, Path: rest.ResourcePath(Resource, "default", "hello", ""), Body: body}, nil); err != nil {
		t.Fatal(err)
	}
	if err := rest.Delete[corev1.Service](f.Ctx, f.Admin, "default", "hello", nil); err != nil {
		t.Fatal(err)
	}
	if err := f.sync("hello"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t, "update configmaps default/hello", "update deployments default/hello", "create services default/hello",
		"update websites/status default/hello")
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 3 {
		t.Errorf("deployment replicas %d, want 3", *d.Spec.Replicas)
	}
	if got := f.getWebsite("hello"); got.Status.ObservedGeneration != 2 {
		t.Errorf("observedGeneration %d, want 2", got.Status.ObservedGeneration)
	}
}

// An object of the same name that the Website does not own is left alone.
func TestSyncLeavesForeignObjects(t *testing.T) {
	f := newFixture(t)
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"}, Data: map[string]string{"a": "b"}}
	if _, err := rest.Create(f.Ctx, f.Admin, foreign); err != nil {
		t.Fatal(err)
	}
	f.createWebsite("hello", 1, "x")
	if err := f.sync("hello"); err == nil {
		t.Fatal("sync succeeded over a ConfigMap the Website does not own")
	}
	f.ExpectWrites(t)
}

// With its workers running, the controller notices a deleted Deployment
// by itself (the owned-object handlers) and makes it again.
func TestRunRecreatesDeletedDeployment(t *testing.T) {
	f := startFixture(t, true)
	w := f.createWebsite("hello", 1, "x")
	var uid string
	controllertest.Eventually(t, "deployment created", func() bool {
		d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello")
		if err == nil {
			uid = d.UID
		}
		return err == nil
	})
	if err := rest.Delete[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "deployment made again", func() bool {
		d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "hello")
		return err == nil && d.UID != uid && metav1.GetControllerOf(&d.ObjectMeta).UID == w.UID
	})
}
