package kubelet

// Static pods: pods the kubelet runs from manifest files in
// --pod-manifest-path, without the apiserver's say (upstream's
// pkg/kubelet/config/file.go and common.go). This is how kubeadm runs the
// control plane itself: the apiserver cannot schedule the pod that runs it.
//
// The kubelet reads the directory at start and every --file-check-frequency
// (20 s). Each manifest becomes a pod named <name>-<nodeName>, in namespace
// default unless it says otherwise, with a UID that is a hash of the
// manifest, the node and the file (the same manifest gives the same UID after
// a kubelet restart, so its containers are found again), and the
// annotations kubernetes.io/config.{hash,source,seen}.
//
// So that `kubectl get pods` shows it, the kubelet creates a mirror pod in
// the apiserver (pkg/kubelet/pod/mirror_client.go): a copy with the
// annotation kubernetes.io/config.mirror=<hash> and an ownerReference to the
// Node, whose status it keeps up to date. The mirror is only a reflection:
// deleting it deletes nothing in the runtime (the kubelet creates it again),
// and a mirror without a static pod (the manifest was removed) is deleted.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// The annotations of static and mirror pods (upstream's pkg/kubelet/types).
const (
	ConfigSourceAnnotationKey    = "kubernetes.io/config.source"
	ConfigHashAnnotationKey      = "kubernetes.io/config.hash"
	ConfigFirstSeenAnnotationKey = "kubernetes.io/config.seen"
	ConfigMirrorAnnotationKey    = corev1.MirrorPodAnnotationKey // kubernetes.io/config.mirror
	// FileSource is config.source's value for pods from --pod-manifest-path.
	FileSource = "file"
)

// DefaultFileCheckFrequency is upstream's --file-check-frequency.
const DefaultFileCheckFrequency = 20 * time.Second

// rfc3339NanoFixed is how upstream writes config.seen (kubetypes.Timestamp).
const rfc3339NanoFixed = "2006-01-02T15:04:05.000000000Z07:00"

// staticPods is the file source's current set of pods plus what the
// kubelet remembers about them. Its zero value is ready (no pods).
type staticPods struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod // namespace/name -> static pod
	// status is each static pod's last status (by UID): upstream's status
	// manager keeps it in memory too; the mirror pod only shows it.
	status map[string]corev1.PodStatus
	// stopping is the UID of the pod a manifest used to describe, per key,
	// while it terminates: the edited pod waits for it (two pods of the
	// same name never run at once), the mirror of a removed one stays.
	stopping map[string]string
}

// IsStaticPod reports whether pod comes from a manifest file.
func IsStaticPod(pod *corev1.Pod) bool {
	return pod.Annotations[ConfigSourceAnnotationKey] == FileSource
}

// IsMirrorPod reports whether pod is the apiserver's copy of a static pod.
func IsMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[ConfigMirrorAnnotationKey]
	return ok
}

// ReadManifests reads the pod manifests of dir (YAML or JSON, one pod per
// file; names starting with a dot are ignored, as upstream's glob [^.]*)
// and turns them into static pods for nodeName. A bad file is logged in
// errs and skipped; the others still run.
func ReadManifests(dir, nodeName string) (pods []*corev1.Pod, errs []error) {
	files, err := filepath.Glob(filepath.Join(dir, "[^.]*"))
	if err != nil {
		return nil, []error{err}
	}
	sort.Strings(files)
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pod, err := StaticPodFromManifest(data, f, nodeName)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		pods = append(pods, pod)
	}
	return pods, errs
}

// StaticPodFromManifest decodes one manifest and applies what upstream's
// applyDefaults does: the API's defaults, the UID (an FNV-128a hash of the
// defaulted pod, then "host:<node>" and "file:<path>"), the name
// <name>-<node>, namespace default, spec.nodeName, config.hash = UID, a
// toleration of every NoExecute taint (a node problem must not evict the
// control plane) and phase Pending.
func StaticPodFromManifest(data []byte, source, nodeName string) (*corev1.Pod, error) {
	js, err := serializer.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var pod corev1.Pod
	if err := json.Unmarshal(js, &pod); err != nil {
		return nil, fmt.Errorf("couldn't parse as pod(%v), please check config file", err)
	}
	if pod.Kind != "Pod" || pod.APIVersion != "v1" {
		return nil, fmt.Errorf("invalid pod: kind %q, apiVersion %q: want Pod, v1", pod.Kind, pod.APIVersion)
	}
	if pod.Name == "" {
		return nil, errors.New("invalid pod: name is needed for the pod")
	}
	if res := apiObjectReference(&pod); res != "" {
		return nil, fmt.Errorf("static pods may not reference %s", res)
	}
	defaults.Default(&pod)
	if pod.UID == "" {
		h := fnv.New128a()
		canonical, _ := json.Marshal(&pod) // upstream hashes a dump of the decoded object
		h.Write(canonical)
		fmt.Fprintf(h, "host:%s", nodeName)
		fmt.Fprintf(h, "file:%s", source)
		pod.UID = hex.EncodeToString(h.Sum(nil))
	}
	pod.Name = pod.Name + "-" + strings.ToLower(nodeName)
	if pod.Namespace == "" {
		pod.Namespace = corev1.NamespaceDefault
	}
	pod.Spec.NodeName = nodeName
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[ConfigHashAnnotationKey] = pod.UID
	pod.Annotations[ConfigSourceAnnotationKey] = FileSource
	tolerateAll := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	found := false
	for _, t := range pod.Spec.Tolerations {
		found = found || (t.Key == "" && t.Operator == tolerateAll.Operator && t.Effect == tolerateAll.Effect)
	}
	if !found {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, tolerateAll)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	return &pod, nil
}

// apiObjectReference is the kind of API object the pod references, if
// any: a static pod runs without the apiserver, so it may not use one
// (upstream's podutil.HasAPIObjectReference, feature PreventStaticPodAPIReferences).
func apiObjectReference(pod *corev1.Pod) string {
	if pod.Spec.ServiceAccountName != "" {
		return "serviceaccounts"
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				return "secrets"
			}
			if e.ConfigMapRef != nil {
				return "configmaps"
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				return "secrets"
			}
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				return "configmaps"
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			return "configmaps (via configmap volumes)"
		case v.Secret != nil:
			return "secrets (via secret volumes)"
		case v.PersistentVolumeClaim != nil:
			return "persistentvolumeclaims"
		case v.Ephemeral != nil:
			return "persistentvolumeclaims (via ephemeral volumes)"
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				switch {
				case s.ConfigMap != nil:
					return "configmaps (via projected volumes)"
				case s.Secret != nil:
					return "secrets (via projected volumes)"
				case s.ServiceAccountToken != nil:
					return "serviceaccounts (via projected volumes)"
				}
			}
		}
	}
	return ""
}

// startStaticPods reads the manifests once (before housekeeping starts:
// after a kubelet restart the static pods' sandboxes must be known, not
// removed as orphans), then again every FileCheckFrequency.
func (k *Kubelet) startStaticPods(ctx context.Context) {
	if k.cfg.PodManifestPath == "" {
		return
	}
	k.refreshStaticPods(ctx)
	every := k.cfg.FileCheckFrequency
	if every <= 0 {
		every = DefaultFileCheckFrequency
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if time.Since(last) >= every {
				k.refreshStaticPods(ctx)
				last = time.Now()
			}
			// Housekeeping resyncs the apiserver's pods every second;
			// these are not among them until their mirror exists.
			k.static.mu.Lock()
			for key := range k.static.pods {
				k.queue.Add(key)
			}
			k.static.mu.Unlock()
		}
	}()
}

// refreshStaticPods applies the manifest directory: new pods are added,
// pods whose manifest changed (another UID) or disappeared are terminated
// with their grace period.
func (k *Kubelet) refreshStaticPods(ctx context.Context) {
	pods, errs := ReadManifests(k.cfg.PodManifestPath, k.cfg.NodeName)
	for _, err := range errs {
		k.log.Error("could not process manifest file", "path", k.cfg.PodManifestPath, "err", err)
	}
	s := &k.static
	s.mu.Lock()
	if s.pods == nil {
		s.pods, s.status, s.stopping = map[string]*corev1.Pod{}, map[string]corev1.PodStatus{}, map[string]string{}
	}
	next := map[string]*corev1.Pod{}
	var stop []*corev1.Pod
	for _, p := range pods {
		key := cache.MetaNamespaceKeyFunc(p)
		old := s.pods[key]
		if old != nil && old.UID == p.UID {
			next[key] = old // unchanged: keep its config.seen
			continue
		}
		p.Annotations[ConfigFirstSeenAnnotationKey] = time.Now().Format(rfc3339NanoFixed)
		next[key] = p
		k.log.Info("static pod", "pod", key, "uid", p.UID, "op", map[bool]string{true: "ADD", false: "UPDATE"}[old == nil])
	}
	for key, old := range s.pods {
		if p := next[key]; p == nil || p.UID != old.UID {
			stop = append(stop, s.withStatus(old))
			s.stopping[key] = old.UID
			delete(s.status, old.UID)
		}
	}
	s.pods = next
	s.mu.Unlock()
	for _, p := range stop {
		k.log.Info("static pod removed or changed: stopping it", "pod", cache.MetaNamespaceKeyFunc(p), "uid", p.UID)
		k.startTermination(ctx, p)
	}
	for key := range next {
		k.queue.Add(key)
	}
	for _, p := range stop {
		k.queue.Add(cache.MetaNamespaceKeyFunc(p))
	}
}

// withStatus is a copy of a static pod with its last status. mu is held.
func (s *staticPods) withStatus(p *corev1.Pod) *corev1.Pod {
	c := *p
	if st, ok := s.status[p.UID]; ok {
		c.Status = st
	}
	return &c
}

// staticUIDs adds the UIDs of the static pods to known: removeOrphans must
// leave their sandboxes alone.
func (k *Kubelet) staticUIDs(known map[string]bool) {
	k.static.mu.Lock()
	defer k.static.mu.Unlock()
	for _, p := range k.static.pods {
		known[p.UID] = true
	}
}

// podToSync is the pod syncPod runs for key: the static pod when the file
// source has one (the mirror pod in the informer only reflects it), else
// the apiserver's pod. A mirror pod is never run: without its static pod
// it is deleted (upstream's deleteOrphanedMirrorPods), once the static
// pod it reflected has terminated.
func (k *Kubelet) podToSync(ctx context.Context, ns, name string) (*corev1.Pod, bool) {
	key := ns + "/" + name
	s := &k.static
	s.mu.Lock()
	static := s.pods[key]
	stoppingUID := s.stopping[key]
	if static != nil {
		static = s.withStatus(static)
	}
	s.mu.Unlock()
	if stoppingUID != "" {
		if _, busy := k.terminating.Load(stoppingUID); busy {
			return nil, false // the previous pod of this name is still stopping
		}
		s.mu.Lock()
		delete(s.stopping, key)
		s.mu.Unlock()
	}
	pod, ok := k.pods.GetStore().Get(ns, name)
	if static != nil {
		if static.Status.StartTime == nil && ok && IsMirrorPod(pod) && pod.Annotations[ConfigMirrorAnnotationKey] == static.UID {
			// A restarted kubelet knows nothing: the mirror still shows
			// the status (start time, conditions) it had.
			static.Status = pod.Status
		}
		return static, true
	}
	if ok && IsMirrorPod(pod) {
		k.deleteMirrorPod(ctx, pod)
		return nil, false
	}
	return pod, ok
}

// writeMirrorStatus is writeStatus for a static pod: it keeps the status
// in memory and shows it on the mirror pod, first creating the mirror
// when it is missing, being deleted, or reflects an older manifest (as
// upstream's syncPod does).
func (k *Kubelet) writeMirrorStatus(ctx context.Context, pod *corev1.Pod, st corev1.PodStatus) error {
	k.static.mu.Lock()
	if cur := k.static.pods[pod.Namespace+"/"+pod.Name]; cur != nil && cur.UID == pod.UID {
		k.static.status[pod.UID] = st
	}
	k.static.mu.Unlock()
	mirror, ok := k.pods.GetStore().Get(pod.Namespace, pod.Name)
	if ok && (mirror.DeletionTimestamp != nil || mirror.Annotations[ConfigMirrorAnnotationKey] != pod.Annotations[ConfigHashAnnotationKey]) {
		k.log.Info("Trying to delete pod", "pod", pod.Namespace+"/"+pod.Name, "podUID", mirror.UID)
		k.deleteMirrorPod(ctx, mirror)
		ok = false
	}
	if !ok {
		return k.createMirrorPod(ctx, pod)
	}
	st.NominatedNodeName, st.QOSClass = mirror.Status.NominatedNodeName, mirror.Status.QOSClass
	a, _ := json.Marshal(mirror.Status)
	b, _ := json.Marshal(st)
	if string(a) == string(b) {
		return nil
	}
	m := *mirror
	m.Status = st
	if _, err := rest.UpdateStatus(ctx, k.c, &m); err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
		return err
	}
	if mirror.Status.Phase != st.Phase {
		k.log.Info("pod status", "pod", pod.Namespace+"/"+pod.Name, "phase", st.Phase, "podIP", st.PodIP, "mirror", true)
	}
	return nil
}

// createMirrorPod is upstream's basicMirrorClient.CreateMirrorPod: a copy
// of the static pod with config.mirror=<hash>, owned by the Node (the
// NodeRestriction admission plugin requires both). The apiserver gives
// the mirror a UID of its own.
func (k *Kubelet) createMirrorPod(ctx context.Context, pod *corev1.Pod) error {
	node, err := rest.Get[corev1.Node](ctx, k.c, "", k.cfg.NodeName)
	if err != nil {
		return fmt.Errorf("failed to get node UID: %w", err)
	}
	m := *pod
	m.UID, m.ResourceVersion, m.Status = "", "", corev1.PodStatus{}
	m.Annotations = map[string]string{}
	for key, v := range pod.Annotations {
		m.Annotations[key] = v
	}
	hash := pod.Annotations[ConfigHashAnnotationKey]
	m.Annotations[ConfigMirrorAnnotationKey] = hash
	controller := true
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID, Controller: &controller}}
	if _, err := rest.Create(ctx, k.c, &m); err != nil {
		if rest.IsAlreadyExists(err) {
			return nil // ours, on its way through the informer; or an old one the next sync replaces
		}
		return err
	}
	k.log.Info("mirror pod created", "pod", pod.Namespace+"/"+pod.Name, "hash", hash)
	return nil
}

// deleteMirrorPod is upstream's DeleteMirrorPod: grace period 0, and only
// this very mirror (a UID precondition).
func (k *Kubelet) deleteMirrorPod(ctx context.Context, mirror *corev1.Pod) {
	zero, uid := int64(0), mirror.UID
	err := rest.Delete[corev1.Pod](ctx, k.c, mirror.Namespace, mirror.Name, &metav1.DeleteOptions{GracePeriodSeconds: &zero,
		Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
		k.log.Warn("failed deleting a mirror pod", "pod", mirror.Namespace+"/"+mirror.Name, "err", err)
		return
	}
	if err == nil {
		k.log.Info("mirror pod deleted", "pod", mirror.Namespace+"/"+mirror.Name, "podUID", mirror.UID)
	}
}

// staticPod is the static pod namespace/name, if the file source has one:
// what the kubelet API (logs, exec) must use for a mirror pod's name, since
// the runtime knows the pod by the static pod's UID, not the mirror's
// (upstream's podManager.GetPodByName answers the same way).
func (k *Kubelet) staticPod(namespace, name string) (*corev1.Pod, bool) {
	k.static.mu.Lock()
	defer k.static.mu.Unlock()
	p, ok := k.static.pods[namespace+"/"+name]
	return p, ok
}
