package probe

import (
	"fmt"
	"testing"
)

func TestExecResult(t *testing.T) {
	for _, tc := range []struct {
		err     error
		want    Result
		wantOut string
	}{
		{nil, Success, "out"},
		{&CodeExitError{Code: 1, Err: fmt.Errorf("exited")}, Failure, "out"},
		{fmt.Errorf("%w: %q timed out after 1s", ErrCommandTimedOut, "sleep 5"), Failure, `command timed out: "sleep 5" timed out after 1s`},
	} {
		got, out, err := ExecResult([]byte("out"), tc.err)
		if got != tc.want || out != tc.wantOut || err != nil {
			t.Errorf("ExecResult(%v) = %v %q %v, want %v %q", tc.err, got, out, err, tc.want, tc.wantOut)
		}
	}
	if got, _, err := ExecResult(nil, fmt.Errorf("rpc error: container not found")); got != Unknown || err == nil {
		t.Errorf("runtime error: %v %v, want unknown with the error", got, err)
	}
}
