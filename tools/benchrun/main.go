// Command benchrun runs a command several times and prints the median,
// minimum and maximum wall time and the peak RSS of the runs, for
// scripts/bench.sh. It needs no /usr/bin/time: the child's rusage gives
// the RSS.
//
//	benchrun [-n 10] [-stdin FILE] [-pre 'shell command'] -- PROG [ARGS…]
//
// Output (one line): median_ms=… min_ms=… max_ms=… cpu_ms=… rss_kib=… runs=…
// cpu_ms is the median of the runs' user+system CPU time, which a loaded
// machine disturbs far less than wall time.
// A run that exits non-zero fails benchrun (exit 1) unless -allow-fail.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 10, "repetitions")
	stdin := flag.String("stdin", "", "feed this file to every run's stdin")
	pre := flag.String("pre", "", "shell command run (untimed) before every run")
	allowFail := flag.Bool("allow-fail", false, "do not fail on a non-zero exit")
	warmup := flag.Int("warmup", 1, "untimed runs first")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *n <= 0 {
		fmt.Fprintln(os.Stderr, "usage: benchrun [-n N] [-stdin FILE] [-pre CMD] -- PROG [ARGS…]")
		os.Exit(2)
	}
	var times, cpus []float64
	var rss int64
	for i := range *warmup + *n {
		if *pre != "" {
			if out, err := exec.Command("sh", "-c", *pre).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "benchrun: -pre %q: %v\n%s", *pre, err, out)
				os.Exit(1)
			}
		}
		cmd := exec.Command(args[0], args[1:]...)
		if *stdin != "" {
			f, err := os.Open(*stdin)
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchrun:", err)
				os.Exit(1)
			}
			cmd.Stdin = f
			defer f.Close()
		}
		cmd.Stderr = os.Stderr
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil && !*allowFail {
			fmt.Fprintf(os.Stderr, "benchrun: %v: %v\n", args, err)
			os.Exit(1)
		}
		if i < *warmup {
			continue
		}
		times = append(times, float64(d.Microseconds())/1000)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, int64(ru.Maxrss)) // KiB on Linux
			cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
			cpus = append(cpus, float64(cpu.Microseconds())/1000)
		}
	}
	slices.Sort(times)
	fmt.Printf("median_ms=%.2f min_ms=%.2f max_ms=%.2f cpu_ms=%.2f rss_kib=%d runs=%d\n",
		median(times), times[0], times[len(times)-1], median(cpus), rss, len(times))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Sorted(slices.Values(xs))
	if len(xs)%2 == 0 {
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return xs[len(xs)/2]
}
