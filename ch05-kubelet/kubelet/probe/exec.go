package probe

import "errors"

// ExecResult reads the outcome of an exec probe's command (upstream's
// pkg/probe/exec): exit 0 succeeds, another exit code or a timeout fails,
// with the command's output (stdout then stderr, at most
// maxRespBodyLength) as the message; an error of the runtime is Unknown.
func ExecResult(output []byte, err error) (Result, string, error) {
	if len(output) > maxRespBodyLength {
		output = output[:maxRespBodyLength]
	}
	var exit *CodeExitError
	switch {
	case err == nil:
		return Success, string(output), nil
	case errors.As(err, &exit):
		return Failure, string(output), nil
	case errors.Is(err, ErrCommandTimedOut):
		return Failure, err.Error(), nil
	}
	return Unknown, "", err
}
