// SPDX-License-Identifier: MIT
// grow: 8 goroutines, each calling a recursive function with a 512-byte frame
// (so their stacks grow and are copied) 20 times; prints the sums. Built by
// the integration test with Debian's go. It waits 100 ms before exiting, so
// every goroutine's calls have returned.
package main

import (
	"fmt"
	"sync"
	"time"
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
	// a goroutine may still be between wg.Done and its function's return
	time.Sleep(100 * time.Millisecond)
}
