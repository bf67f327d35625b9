package wrap

import "golang.org/x/sys/unix"

// waitExited blocks until the child pid has exited, leaving it a zombie
// (waitid with WNOWAIT): its pid stays its own until wait reaps it.
func waitExited(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}
