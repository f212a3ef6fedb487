package labtest

import "testing"

// FuzzParse: any Markdown either parses or is rejected with an error.
func FuzzParse(f *testing.F) {
	f.Add("```console\n$ kubectl get ns\nNAME   STATUS   AGE\n```\n")
	f.Add("```console lab-timeout=1s\n$ cat <<-'EOF' \\\n  > x\n\tEOF\n```\n")
	f.Add("~~~~console\n$ a <<A <<B\nA\nB\n...\n~~~~\n")
	f.Fuzz(func(t *testing.T, doc string) {
		Parse([]byte(doc))
	})
}

// FuzzMatch: Match never panics, and valid expected output without a
// placeholder always matches itself.
func FuzzMatch(f *testing.F) {
	f.Add("NAME   STATUS\ndefault   Active", "NAME   STATUS\ndefault   Active")
	f.Add("a\n...\nb   <AGE>", "a\nx\nb 5s")
	f.Fuzz(func(t *testing.T, expected, actual string) {
		Match(expected, actual)
		if placeholderRE.MatchString(expected) {
			return
		}
		diff, ok, err := Match(expected, expected)
		if err == nil && !ok {
			t.Fatalf("text does not match itself:\n%s", diff)
		}
	})
}
