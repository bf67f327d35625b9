package procfs

// machineRoot is where Linux mounts the machine's process tree.
const machineRoot = "/proc"
