package fieldpath

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

func TestExtractFieldPathAsString(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod", UID: "u-1",
		Labels: map[string]string{"tier": "front", "app": "web"}, Annotations: map[string]string{"note": `say "hi"`}}}
	for path, want := range map[string]string{
		"metadata.name":                "web",
		"metadata.namespace":           "prod",
		"metadata.uid":                 "u-1",
		"metadata.labels":              "app=\"web\"\ntier=\"front\"",
		"metadata.annotations":         `note="say \"hi\""`,
		"metadata.labels['tier']":      "front",
		"metadata.labels['missing']":   "",
		"metadata.annotations['note']": `say "hi"`,
	} {
		if got, err := ExtractFieldPathAsString(pod, path); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	for path, want := range map[string]string{
		"spec.nodeName":      "unsupported fieldPath: spec.nodeName",
		"metadata.name['x']": `fieldPath "metadata.name['x']" does not support subscript`,
	} {
		if _, err := ExtractFieldPathAsString(pod, path); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
