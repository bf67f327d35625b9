// Command emptygo does nothing: scripts/bench.sh times it as the floor of
// starting a Go program on this machine, next to which tether's hot paths
// are judged (issue 17: at most 2x).
package main

func main() {}
