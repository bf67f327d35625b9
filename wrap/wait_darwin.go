package wrap

import "golang.org/x/sys/unix"

// waitExited blocks until the child pid has exited, leaving it a zombie:
// macOS has no waitid(WNOWAIT) to call, so a kqueue waits for the
// process's NOTE_EXIT, which reaps nothing. ESRCH means the child is
// already a zombie (an unreaped child's pid cannot be anyone else's).
func waitExited(pid int) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return err
	}
	defer unix.Close(kq)
	change := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	events := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, change, events, nil)
		switch {
		case err == unix.EINTR:
			continue // registering again is harmless
		case err == unix.ESRCH:
			return nil
		case err != nil:
			return err
		case n == 1 && events[0].Flags&unix.EV_ERROR != 0:
			if e := unix.Errno(events[0].Data); e != unix.ESRCH {
				return e
			}
			return nil
		case n == 1:
			return nil // NOTE_EXIT
		}
	}
}
