package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseSize reads 123, 64K, 64M, 1G (binary units).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(strings.ToUpper(s), "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n * mult, nil
}
