package proxy

// testHostname is the node of upstream's model tests.
const testHostname = "test-hostname"
