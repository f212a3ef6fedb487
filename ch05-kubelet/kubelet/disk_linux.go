package kubelet

import "syscall"

// diskSize is the size of the filesystem holding dir: the node's
// ephemeral-storage capacity.
func diskSize(dir string) int64 {
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) != nil {
		return 0
	}
	return int64(fs.Blocks) * fs.Bsize
}
