package volumemanager

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

func int32p(v int32) *int32 { return &v }

func TestConfigMapPayloadItemsAndModes(t *testing.T) {
	cm := &corev1.ConfigMap{Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"bin": {0, 1}}}
	all, err := configMapPayload(nil, cm, int32p(0o600), false)
	if err != nil || len(all) != 3 || all["a"].Mode != 0o600 || string(all["bin"].Data) != "\x00\x01" {
		t.Errorf("all keys: %v, %v", all, err)
	}
	items := []corev1.KeyToPath{{Key: "a", Path: "dir/first"}, {Key: "b", Path: "second", Mode: int32p(0o400)}}
	got, err := configMapPayload(items, cm, nil, false)
	if err != nil || len(got) != 2 || string(got["dir/first"].Data) != "1" || got["dir/first"].Mode != 0o644 || got["second"].Mode != 0o400 {
		t.Errorf("items: %v, %v", got, err)
	}
	_, err = configMapPayload([]corev1.KeyToPath{{Key: "nope", Path: "x"}}, cm, nil, false)
	if err == nil || err.Error() != "configmap references non-existent config key: nope" {
		t.Errorf("missing key: %v", err)
	}
	if got, err := configMapPayload([]corev1.KeyToPath{{Key: "nope", Path: "x"}}, cm, nil, true); err != nil || len(got) != 0 {
		t.Errorf("missing key, optional: %v, %v", got, err)
	}
	_, err = secretPayload([]corev1.KeyToPath{{Key: "nope", Path: "x"}}, &corev1.Secret{}, nil, false)
	if err == nil || err.Error() != "references non-existent secret key: nope" {
		t.Errorf("missing secret key: %v", err)
	}
}

func TestDownwardAPIPayload(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod", UID: "u-1",
		Labels: map[string]string{"tier": "front", "app": "web"}, Annotations: map[string]string{"note": `say "hi"`}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}}}
	node := NodeAllocatable{MilliCPU: 2000, Memory: 8 << 30}
	items := []corev1.DownwardAPIVolumeFile{
		{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
		{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}},
		{Path: "uid", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}},
		{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}, Mode: int32p(0o400)},
		{Path: "annotations", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations"}},
		{Path: "tier", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['tier']"}},
		{Path: "mem_mi", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "main", Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}},
		{Path: "cpu_limit", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "main", Resource: "limits.cpu"}},
		{Path: "cpu_req_m", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "main", Resource: "requests.cpu", Divisor: resource.MustParse("1m")}},
		{Path: "cpu_req", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "main", Resource: "requests.cpu"}},
	}
	got, err := downwardAPIPayload(items, pod, node, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "web", "ns": "prod", "uid": "u-1", "labels": "app=\"web\"\ntier=\"front\"",
		"annotations": `note="say \"hi\""`, "tier": "front", "mem_mi": "64",
		"cpu_limit": "2",                   // unset: the node's allocatable CPUs
		"cpu_req_m": "250", "cpu_req": "1"} // rounded up
	for k, v := range want {
		if string(got[k].Data) != v {
			t.Errorf("%s = %q, want %q", k, got[k].Data, v)
		}
	}
	if got["labels"].Mode != 0o400 || got["name"].Mode != 0o644 {
		t.Errorf("modes: labels %o, name %o", got["labels"].Mode, got["name"].Mode)
	}
	_, err = downwardAPIPayload([]corev1.DownwardAPIVolumeFile{{Path: "x", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}, pod, node, nil)
	if err == nil || err.Error() != "unsupported fieldPath: spec.nodeName" {
		t.Errorf("unsupported field: %v", err)
	}
}

func TestCheckHostPathType(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		path string
		typ  corev1.HostPathType
		want string
	}{
		{dir, corev1.HostPathDirectory, ""},
		{file, corev1.HostPathDirectory, "hostPath type check failed: " + file + " is not a directory"},
		{filepath.Join(dir, "missing"), corev1.HostPathDirectory, "hostPath type check failed: " + dir + "/missing is not a directory"},
		{dir, corev1.HostPathFile, "hostPath type check failed: " + dir + " is not a file"},
		{file, corev1.HostPathFile, ""},
		{file, corev1.HostPathSocket, "hostPath type check failed: " + file + " is not a socket file"},
		{sock, corev1.HostPathSocket, ""},
		{file, corev1.HostPathCharDev, "hostPath type check failed: " + file + " is not a character device"},
		{"/dev/null", corev1.HostPathCharDev, ""},
		{"/dev/null", corev1.HostPathBlockDev, "hostPath type check failed: /dev/null is not a block device"},
		{filepath.Join(dir, "missing"), corev1.HostPathUnset, ""},
		{dir, "Weird", "Weird is an invalid volume type"},
		{dir + "/../x", corev1.HostPathUnset, "invalid HostPath `" + dir + "/../x`: must not contain '..'"},
		{file, corev1.HostPathDirectoryOrCreate, "hostPath type check failed: " + file + " is not a directory"},
		{dir, corev1.HostPathFileOrCreate, "hostPath type check failed: " + dir + " is not a file"},
	} {
		err := checkHostPathType(tc.path, tc.typ)
		if got := errString(err); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.typ, tc.path, got, tc.want)
		}
	}
	// The *OrCreate types create what is missing.
	if err := checkHostPathType(filepath.Join(dir, "new/sub"), corev1.HostPathDirectoryOrCreate); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "new/sub")); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
		t.Errorf("DirectoryOrCreate made %v, %v", fi, err)
	}
	if err := checkHostPathType(filepath.Join(dir, "newfile"), corev1.HostPathFileOrCreate); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "newfile")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("FileOrCreate made %v, %v", fi, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestEmptyDirMemorySize(t *testing.T) {
	limited := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi")}}}}}}
	unlimited := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{}}}}
	small, big := resource.MustParse("10Mi"), resource.MustParse("1Gi")
	for _, tc := range []struct {
		pod  *corev1.Pod
		lim  *resource.Quantity
		want int64
	}{
		{unlimited, nil, 1 << 30 * 4},
		{limited, nil, 100 << 20},
		{limited, &small, 10 << 20},
		{limited, &big, 100 << 20}, // no more than the pod may use
		{unlimited, &big, 1 << 30},
	} {
		if got := emptyDirMemorySize(4<<30, tc.lim, tc.pod); got != tc.want {
			t.Errorf("size %v: %d, want %d", tc.lim, got, tc.want)
		}
	}
}
