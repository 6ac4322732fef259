// SPDX-License-Identifier: MIT
// grow: 8 goroutines, each calling a recursive function with a 512-byte frame
// (so their stacks grow and are copied) 20 times; prints the sums. Built by
// the integration test with Debian's go.
package main

import (
	"fmt"
	"sync"
)

//go:noinline
func leaf(i int) int { return i * 2 }

//go:noinline
func deep(n int) int {
	var pad [512]byte
	pad[n%512] = byte(n)
	if n == 0 {
		return leaf(int(pad[0]))
	}
	return deep(n-1) + int(pad[n%512]&1)
}

func main() {
	var wg sync.WaitGroup
	sums := make([]int, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				sums[g] += deep(50 + g)
			}
		}(g)
	}
	wg.Wait()
	fmt.Println("sums", sums)
}
