package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
)

const staticManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: web
    image: busybox:1.35
    command: [sleep, "3600"]
`

// TestStaticPodFromManifest: upstream's applyDefaults — name, namespace,
// nodeName, UID = config.hash, the source annotation, the NoExecute
// toleration, API defaults.
func TestStaticPodFromManifest(t *testing.T) {
	pod, err := StaticPodFromManifest([]byte(staticManifest), "/etc/kubernetes/manifests/web.yaml", "Node-1")
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "web-node-1" || pod.Namespace != "default" || pod.Spec.NodeName != "Node-1" {
		t.Errorf("name %q namespace %q nodeName %q", pod.Name, pod.Namespace, pod.Spec.NodeName)
	}
	if len(pod.UID) != 32 || pod.Annotations[ConfigHashAnnotationKey] != pod.UID || pod.Annotations[ConfigSourceAnnotationKey] != "file" {
		t.Errorf("uid %q annotations %v", pod.UID, pod.Annotations)
	}
	if !IsStaticPod(pod) || IsMirrorPod(pod) {
		t.Error("IsStaticPod/IsMirrorPod")
	}
	last := pod.Spec.Tolerations[len(pod.Spec.Tolerations)-1]
	if last.Operator != corev1.TolerationOpExists || last.Effect != corev1.TaintEffectNoExecute || last.Key != "" {
		t.Errorf("tolerations %+v", pod.Spec.Tolerations)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyAlways || pod.Spec.DNSPolicy != corev1.DNSClusterFirst ||
		pod.Spec.Containers[0].TerminationMessagePath != "/dev/termination-log" || pod.Status.Phase != corev1.PodPending {
		t.Errorf("defaults not applied: %+v", pod.Spec)
	}

	// The UID depends on the manifest, the node and the file, nothing else:
	// after a kubelet restart the same manifest is the same pod.
	again, _ := StaticPodFromManifest([]byte(staticManifest), "/etc/kubernetes/manifests/web.yaml", "Node-1")
	otherNode, _ := StaticPodFromManifest([]byte(staticManifest), "/etc/kubernetes/manifests/web.yaml", "node-2")
	otherFile, _ := StaticPodFromManifest([]byte(staticManifest), "/etc/kubernetes/manifests/web2.yaml", "Node-1")
	edited, _ := StaticPodFromManifest([]byte(strings.Replace(staticManifest, "3600", "3601", 1)), "/etc/kubernetes/manifests/web.yaml", "Node-1")
	if again.UID != pod.UID {
		t.Errorf("same manifest, UID %s then %s", pod.UID, again.UID)
	}
	for what, p := range map[string]*corev1.Pod{"node": otherNode, "file": otherFile, "manifest": edited} {
		if p.UID == pod.UID {
			t.Errorf("another %s, same UID %s", what, p.UID)
		}
	}
	// JSON is YAML too; a namespace is kept.
	js := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db","namespace":"kube-system"},"spec":{"containers":[{"name":"c","image":"busybox:1.35"}]}}`
	if p, err := StaticPodFromManifest([]byte(js), "db.json", "n"); err != nil || p.Name != "db-n" || p.Namespace != "kube-system" {
		t.Errorf("json manifest: %v %+v", err, p)
	}
}

// TestStaticPodRejected: what upstream refuses in a manifest.
func TestStaticPodRejected(t *testing.T) {
	for manifest, want := range map[string]string{
		strings.Replace(staticManifest, "name: web\n  labels", "labels", 1):                   "name is needed",
		strings.Replace(staticManifest, "kind: Pod", "kind: Deployment", 1):                   "kind",
		strings.Replace(staticManifest, "spec:\n", "spec:\n  serviceAccountName: admin\n", 1): "static pods may not reference serviceaccounts",
		staticManifest + "    envFrom: [{secretRef: {name: s}}]\n":                            "static pods may not reference secrets",
		staticManifest + "  volumes: [{name: v, configMap: {name: c}}]\n":                     "static pods may not reference configmaps (via configmap volumes)",
		"{not yaml": "",
	} {
		_, err := StaticPodFromManifest([]byte(manifest), "f", "n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
}

// TestReadManifests: every regular file but dot files; a bad one is
// reported and skipped.
func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("web.yaml", staticManifest)
	write("db.yaml", strings.Replace(staticManifest, "name: web", "name: db", 1))
	write(".web.yaml.swp", "garbage")
	write("bad.yaml", "kind: Pod\n")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	pods, errs := ReadManifests(dir, "n1")
	if len(pods) != 2 || pods[0].Name != "db-n1" || pods[1].Name != "web-n1" {
		t.Errorf("pods %v", pods)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.yaml") {
		t.Errorf("errs %v", errs)
	}
}

// TestStaticPodAliasBomb: a manifest of nested YAML aliases is refused, not
// expanded (the same converter as the apiserver's YAML bodies).
func TestStaticPodAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: bomb}\nx0: &x0 [\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("x" + string(rune('0'+i)) + ": &x" + string(rune('0'+i)) + " [" +
			strings.TrimSuffix(strings.Repeat("*x"+string(rune('0'+i-1))+",", 10), ",") + "]\n")
	}
	_, err := StaticPodFromManifest([]byte(b.String()), "file", "node")
	if err == nil || err.Error() != "yaml: document contains excessive aliasing" {
		t.Fatalf("got %v, want excessive aliasing", err)
	}
}
