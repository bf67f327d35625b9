// Command scanfloor is a floor for a cold `tether usage` in
// scripts/bench.sh: it reads every *.jsonl under the given directories,
// a file at a time on each core, into a 1 MiB buffer (as the usage count
// reads them), and stops at each '{' as the count's search for a usage
// line's marker does — reading and searching alone, no line parsed. It
// prints the time taken, the bytes read and the stops.
//
//	scanfloor DIR...
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scanfloor DIR...")
		os.Exit(2)
	}
	var files []string
	for _, dir := range os.Args[1:] {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(os.Stderr, "scanfloor:", err)
			os.Exit(1)
		}
	}
	start := time.Now()
	var read, stops atomic.Int64
	next := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 1<<20)
			for p := range next {
				n, s, err := scan(p, buf)
				if err != nil {
					fmt.Fprintln(os.Stderr, "scanfloor:", err)
					os.Exit(1)
				}
				read.Add(n)
				stops.Add(s)
			}
		})
	}
	for _, p := range files {
		next <- p
	}
	close(next)
	wg.Wait()
	fmt.Printf("ms=%.1f bytes=%d stops=%d files=%d\n", float64(time.Since(start).Microseconds())/1000, read.Load(), stops.Load(), len(files))
}

// scan reads the file at p through buf and counts its '{'.
func scan(p string, buf []byte) (n, stops int64, err error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	for {
		m, err := f.Read(buf)
		n += int64(m)
		for b := buf[:m]; ; {
			i := bytes.IndexByte(b, '{')
			if i < 0 {
				break
			}
			stops++
			b = b[i+1:]
		}
		if err == io.EOF {
			return n, stops, nil
		}
		if err != nil {
			return n, stops, err
		}
	}
}
