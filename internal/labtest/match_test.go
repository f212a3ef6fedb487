package labtest

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name             string
		expected, actual string
		ok               bool
	}{
		{
			name:     "identical",
			expected: "NAME      STATUS   AGE\ndefault   Active   3d",
			actual:   "NAME      STATUS   AGE\ndefault   Active   3d\n",
			ok:       true,
		},
		{
			name:     "trailing spaces and empty lines are invisible",
			expected: "a  \nb",
			actual:   "a\nb   \n\n\n",
			ok:       true,
		},
		{
			name:     "padding counts without placeholders",
			expected: "NAME      STATUS   AGE\ndefault   Active   3d",
			actual:   "NAME    STATUS   AGE\ndefault Active   3d",
			ok:       false,
		},
		{
			name:     "age placeholder with different column width",
			expected: "NAME              STATUS   AGE\ndefault           Active   <AGE>\nkube-system       Active   <AGE>",
			actual:   "NAME          STATUS   AGE\ndefault       Active   5s\nkube-system   Active   2m3s",
			ok:       true,
		},
		{
			name:     "age placeholder matches <invalid> and long durations",
			expected: "a   <AGE>\nb   <AGE>\nc   <AGE>",
			actual:   "a   <invalid>\nb   2y30d\nc   10m",
			ok:       true,
		},
		{
			name:     "a different column value is a difference",
			expected: "NAME      STATUS   AGE\ndefault   Active   <AGE>",
			actual:   "NAME      STATUS        AGE\ndefault   Terminating   5s",
			ok:       false,
		},
		{
			name:     "age placeholder does not match a word",
			expected: "default   Active   <AGE>",
			actual:   "default   Active   Active",
			ok:       false,
		},
		{
			name:     "a missing column is a difference",
			expected: "default   Active   <AGE>",
			actual:   "default   5s",
			ok:       false,
		},
		{
			name:     "a different error message is a difference",
			expected: `Error from server (NotFound): pods "nope" not found`,
			actual:   `Error from server (NotFound): namespaces "nope" not found`,
			ok:       false,
		},
		{
			name:     "error message with a placeholder elsewhere is still compared",
			expected: "pod/web created\nError from server (AlreadyExists): pods \"web\" already exists <N>",
			actual:   "pod/web created\nError from server (Conflict): pods \"web\" already exists 1",
			ok:       false,
		},
		{
			name:     "an extra line is a difference",
			expected: "pod/web created",
			actual:   "pod/web created\nWarning: something",
			ok:       false,
		},
		{
			name:     "a missing line is a difference",
			expected: "a\nb",
			actual:   "a",
			ok:       false,
		},
		{
			name:     "empty expected output requires empty output",
			expected: "",
			actual:   "bash: kubectl: command not found",
			ok:       false,
		},
		{
			name:     "placeholders inside words",
			expected: "web-<HASH>-<SUFFIX>   1/1   Running   0   <AGE>   <IP>",
			actual:   "web-7c5ddbdf54-x8kzq   1/1   Running   0   12s   10.244.0.5",
			ok:       true,
		},
		{
			name:     "placeholder inside a word keeps the literal part",
			expected: "web-<HASH>-<SUFFIX>   1/1   Running",
			actual:   "api-7c5ddbdf54-x8kzq   1/1   Running",
			ok:       false,
		},
		{
			name:     "uid, resourceVersion, timestamp",
			expected: "  creationTimestamp: \"<TIME>\"\n  resourceVersion: \"<RV>\"\n  uid: <UID>",
			actual:   "  creationTimestamp: \"2025-01-02T03:04:05Z\"\n  resourceVersion: \"42\"\n  uid: 0f3c2a52-5b0e-4e8f-9a4e-2d8c9b1c7f10",
			ok:       true,
		},
		{
			name:     "indentation counts in word-by-word mode",
			expected: "metadata:\n  uid: <UID>",
			actual:   "metadata:\nuid: 0f3c2a52-5b0e-4e8f-9a4e-2d8c9b1c7f10",
			ok:       false,
		},
		{
			name:     "ellipsis matches many lines",
			expected: "NAME   SHORTNAMES\n...\npods   po\n...",
			actual:   "NAME   SHORTNAMES\nbindings\nconfigmaps   cm\npods   po\nservices   svc",
			ok:       true,
		},
		{
			name:     "ellipsis matches no lines",
			expected: "a\n...\nb",
			actual:   "a\nb",
			ok:       true,
		},
		{
			name:     "ellipsis does not excuse a missing line",
			expected: "a\n...\nb",
			actual:   "a\nc",
			ok:       false,
		},
	} {
		diff, ok, err := Match(tc.expected, tc.actual)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v\n%s", tc.name, ok, tc.ok, diff)
		}
		if !ok && diff == "" {
			t.Errorf("%s: mismatch without a diff", tc.name)
		}
	}
}

func TestMatchDiff(t *testing.T) {
	diff, ok, err := Match(
		"NAME      STATUS   AGE\ndefault   Active   <AGE>\n...\nkube-system   Active   <AGE>",
		"NAME      STATUS   AGE\ndefault   Terminating   5s\nkube-public   Active   5s\nkube-system   Active   5s",
	)
	if err != nil || ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	want := strings.Join([]string{
		" NAME      STATUS   AGE",
		"-default   Active   <AGE>",
		"+default   Terminating   5s",
		" ...",
		" kube-system   Active   5s",
		"",
	}, "\n")
	if diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", diff, want)
	}
}
