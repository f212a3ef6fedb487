package main_test

import (
	"testing"

	"kubik/ch01-apiserver/testenv"
)

// TestMain removes the chapter binaries the tests built.
func TestMain(m *testing.M) { testenv.Main(m) }
